"""One source of the bid rules: the hand and both AI players judge a bid by :func:`engine.bidding.judge_bid`.

The AI players (the strong one and the frozen casual one) choose among the
bids :mod:`engine.legal_bids` says the engine would accept; neither states a
rule of its own.  The frozen player's moves on fixed seeds are pinned: it
asks the engine now, and plays exactly as it did when it had its own copy.
"""

from __future__ import annotations

import ast
import hashlib
import random
from pathlib import Path

from engine.ai import casual_action
from engine.hand import Action
from engine.ruleset import RULESETS, Ruleset
from engine.selfplay import self_play
from engine.views import HandView

AI = Path(__file__).resolve().parents[2] / "engine" / "ai"
RULE_HELPERS = {"available", "step_allowed", "trump_of", "judge_bid", "read_step", "needs_choice"}
LEGALITY = {"accepted_bid", "bid_options", "bid_card_sets"}


def test_the_ai_players_state_no_bid_rule_of_their_own() -> None:
    offenders = []
    for path in sorted(AI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "engine.bidding":
                offenders += [f"{path.name}: imports {a.name}" for a in node.names if a.name in RULE_HELPERS]
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in LEGALITY:
                offenders.append(f"{path.name}: defines {node.name}")
    assert offenders == []


def test_the_casual_players_moves_on_fixed_seeds_are_pinned() -> None:
    """Every action the frozen casual player chose in 3 hands of each preset (seed 7), as it chose them
    before it asked the engine for the legal bids (issue 53)."""
    digest = hashlib.sha256()

    def player(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
        action = casual_action(view, ruleset, rng)
        digest.update(repr(action).encode())
        return action

    for name in sorted(RULESETS):
        self_play(RULESETS[name], 3, 7, player=player)
    assert digest.hexdigest()[:16] == "46279b291fa56b4b"
