"""The AI's running totals of played cards and shown voids: a bounded cache that never changes a decision.

A bot hosting many tables for weeks asks the casual AI for a hint at every
turn; the totals of finished hands are never asked for again and must not
pile up (an hour's soak at 100 tables grew by 27 MiB with the old clear-at-
20,000 cache).
"""

from __future__ import annotations

import gc
import random
import tracemalloc
from types import ModuleType

import pytest

from engine.ai import casual_action, strong_player
from engine.ai import memory as strong_memory
from engine.ai.baseline import memory as baseline_memory
from engine.hand import Action, Hand, HandSetup

CACHE_BUDGET = 16 * 2**20
"""Bytes the totals may hold when the cache is full (per process: the bot's, the AI worker's)."""
from engine.ruleset import RULESETS
from engine.selfplay import actions


def _hands_played(player: object, hands: int) -> list[list[Action]]:
    rng = random.Random(5)
    out = []
    for number in range(hands):
        hand = Hand(HandSetup(RULESETS["yancheng"], seed=1000 + number))
        taken = []
        for action in actions(hand, [player] * 4, rng):  # type: ignore[list-item]
            hand.apply(action)
            taken.append(action)
        out.append(taken)
    return out


@pytest.mark.parametrize("module, player", [(baseline_memory, casual_action),
                                            (strong_memory, strong_player(deals=0))],
                         ids=["casual", "strong heuristics"])
def test_the_cache_stays_within_its_bound_and_changes_no_decision(
        module: ModuleType, player: object, monkeypatch: pytest.MonkeyPatch) -> None:
    roomy = _hands_played(player, 3)
    module._PLAYED.clear()
    monkeypatch.setattr(module, "_PLAYED_LIMIT", 8)
    sizes: list[int] = []
    original = module._note_trick

    def noting(*args: object) -> None:
        sizes.append(len(module._PLAYED))
        original(*args)

    monkeypatch.setattr(module, "_note_trick", noting)
    assert _hands_played(player, 3) == roomy  # a small cache: the same plays
    assert sizes and max(sizes) <= 8
    assert len(module._PLAYED) <= 8


@pytest.mark.parametrize("module, player", [(baseline_memory, casual_action),
                                            (strong_memory, strong_player(deals=0))],
                         ids=["casual", "strong heuristics"])
def test_a_full_cache_holds_at_most_its_budget(module: ModuleType, player: object) -> None:
    """Entries measured as the hands leave them (with the finished tricks they keep alive), times the bound."""
    module._PLAYED.clear()
    tracemalloc.start()
    try:
        _hands_played(player, 10)
        gc.collect()
        full = tracemalloc.get_traced_memory()[0]
        entries = len(module._PLAYED)
        module._PLAYED.clear()
        gc.collect()
        per_entry = (full - tracemalloc.get_traced_memory()[0]) / entries
    finally:
        tracemalloc.stop()
    assert entries > 100 and per_entry > 0
    assert module._PLAYED_LIMIT * per_entry <= CACHE_BUDGET, f"{per_entry:.0f} bytes an entry"
