"""Fixed-seed hands, pinned by checksum: the engine and both AI players play exactly as they did.

A change meant only to make the engine or the AI faster (issue 56) must
leave every checksum here as it is: the random legal player's whole hands
(every event, its consequences and the result), the casual player's, and
the strong player's plays with every rollout value its search computed.
A change that is meant to alter play updates the pins, and says so.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import engine.ai.search as search
from engine.ai import Player, casual_action, random_action, strong_player
from engine.hand import Action, Hand
from engine.match import Match
from engine.ruleset import RULESETS, Ruleset
from engine.selfplay import actions, duel, self_play
from engine.views import HandView


def _hands_digest(player: Player, hands: int, seed: int) -> str:
    """Every event (with its consequences) and every result of ``hands`` hands of each preset."""
    digest = hashlib.sha256()
    for name in sorted(RULESETS):
        match = Match(RULESETS[name], seed)
        rng = random.Random(seed)
        played = 0
        while played < hands and not match.over:
            hand: Hand = match.hand
            for action in actions(hand, [player] * 4, rng):
                match.apply(action)
            digest.update(repr([e.to_dict() for e in hand.events]).encode())
            digest.update(repr(None if hand.result is None else hand.result.to_dict()).encode())
            played += 1
    return digest.hexdigest()[:16]


def test_random_legal_hands_are_pinned() -> None:
    assert _hands_digest(random_action, 4, 11) == "a98bbfbab71329e4"


def test_casual_hands_are_pinned() -> None:
    assert _hands_digest(casual_action, 2, 12) == "80bf6c6628f7af07"


def test_self_play_tallies_are_pinned() -> None:
    digest = hashlib.sha256()
    for name in sorted(RULESETS):
        tally = self_play(RULESETS[name], 6, 13, player=random_action)
        tally.seconds = 0.0
        digest.update(repr(tally).encode())
    assert digest.hexdigest()[:16] == "61d4629f91e09618"


@contextmanager
def _rollouts_hashed(into: Any) -> Iterator[None]:
    original: Callable[..., float] = search.rollout_value

    def hashed(*args: Any, **kwargs: Any) -> float:
        value = original(*args, **kwargs)
        into.update(repr(value).encode())
        return value

    search.rollout_value = hashed
    try:
        yield
    finally:
        search.rollout_value = original


@pytest.mark.parametrize(("preset", "first", "pin"), [
    ("yancheng", 0, "a8bad42b01e66f2c"),
    ("anhui", 4, "d7a76e92664e6249"),
    ("xin", 8, "edcd89bf0a416dfc"),  # issue 56: feeds and wins put at risk dropped (dominance.py)
])
def test_the_strong_players_plays_and_rollouts_are_pinned(preset: str, first: int, pin: str) -> None:
    """One duel hand (the strong player against the frozen baseline, 2 deals of 4 plays a play, no time budget:
    the pure engine's search, which the compiled one plays the same when given the same work)."""
    digest = hashlib.sha256()
    player = strong_player(deals=2, budget=math.inf, cap=None, candidates=4)

    def strong(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
        action = player(view, ruleset, rng)
        digest.update(repr(action).encode())
        return action

    with _rollouts_hashed(digest):
        duel(RULESETS[preset], 1, 101, strong, casual_action, names=("strong", "baseline"), first=first)
    assert digest.hexdigest()[:16] == pin
