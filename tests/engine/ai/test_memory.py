"""The AI's running totals of played cards and shown voids: a cache of the live hands' tricks only, that never
changes a decision.

A bot hosting many tables for weeks asks the casual AI for a hint at every
turn, and the strong AI searches through thousands of rollout tricks a
decision.  The totals of a finished hand or of a rollout are never asked for
again: they must go with their tricks.  (An LRU cache of 4,096 entries, about
3.5 KiB each with the finished tricks it kept alive, took over an hour to fill
at 100 tables, and the soak's memory crept up all that time.)
"""

from __future__ import annotations

import gc
import random
import tracemalloc
from collections import Counter
from types import ModuleType

import pytest

from engine import combos
from engine.ai import casual_action, leading, strong_player
from engine.ai import memory as strong_memory
from engine.ai.baseline import memory as baseline_memory
from engine.ai.memory import GROUPS, build_memory, context
from engine.cards import DECK
from engine.hand import Action, Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import actions
from engine.views import view_for

MODULES = pytest.mark.parametrize("module, player", [(baseline_memory, casual_action),
                                                     (strong_memory, strong_player(deals=0))],
                                  ids=["casual", "strong heuristics"])


def _play(player: object, number: int) -> tuple[Hand, list[Action]]:
    hand = Hand(HandSetup(RULESETS["yancheng"], seed=1000 + number))
    taken = []
    for action in actions(hand, [player] * 4, random.Random(number)):  # type: ignore[list-item]
        hand.apply(action)
        taken.append(action)
    return hand, taken


class _Forgetful(dict[int, object]):
    """A cache that never finds anything: every decision works its totals out from the first trick."""

    def get(self, key: int, default: object = None) -> object:
        return default


@MODULES
def test_the_cache_changes_no_decision(module: ModuleType, player: object, monkeypatch: pytest.MonkeyPatch) -> None:
    cached = [_play(player, n)[1] for n in range(3)]
    monkeypatch.setattr(module, "_PLAYED", _Forgetful())
    assert [_play(player, n)[1] for n in range(3)] == cached


@MODULES
def test_the_cache_holds_the_tricks_of_live_hands_only(module: ModuleType, player: object) -> None:
    gc.collect()
    module._PLAYED.clear()
    kept, _ = _play(player, 0)
    for number in range(1, 4):
        _play(player, number)  # finished and dropped
    gc.collect()
    live = {id(t) for t in kept.tricks}
    assert module._PLAYED, "the live hand's totals are cached"
    assert set(module._PLAYED) <= live
    del kept
    gc.collect()
    assert not module._PLAYED, f"{len(module._PLAYED)} entries outlived their hands"


@MODULES
def test_memory_comes_back_once_the_hands_are_gone(module: ModuleType, player: object) -> None:
    """Ten hands played and dropped leave (almost) nothing of theirs behind: no cache fills with old hands.

    The engine's bounded tables (splits, shapes and low leads, 4,096 entries each, the oldest dropped) start
    empty, as in a new process: what they held before depended on the tests run earlier in this worker (in the
    whole quick tier, 680 KiB was left after ten hands, twice; from empty, about 370 KiB)."""
    gc.collect()
    module._PLAYED.clear()
    for table in (combos._SPLITS, combos._SHAPES, leading._LOW_LEADS):
        table.clear()
    _play(player, 0)  # the lazily built tables (card rows, trump contexts, shapes) are made once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(1, 11):
            _play(player, number)
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert not module._PLAYED
    # A few bounded tables of the engine (shapes of new leads, trump contexts of new levels) may grow a little.
    assert left < 512 * 1024, f"{left / 1024:.0f} KiB left behind by ten finished hands"


@pytest.mark.parametrize("preset", sorted(RULESETS))
def test_memory_counts_what_the_view_has_not_shown(preset: str) -> None:
    """Unseen cards, their count and top order per suit-group agree with counting the whole deck from the view."""
    hand = Hand(HandSetup(RULESETS[preset], seed=77))
    checked = 0
    for action in actions(hand, [strong_player(deals=0)] * 4, random.Random(7)):  # type: ignore[list-item]
        turn = hand.turn
        if hand.phase == "playing" and turn is not None:
            view = view_for(hand, turn)
            ctx = context(hand.ruleset, view.level, view.trump)
            mem = build_memory(view, ctx)
            seen = Counter(view.hand)
            for trick in view.tricks:
                for _s, cards in trick.plays:
                    seen.update(cards)
            for _s, cards in view.current:
                seen.update(cards)
            if view.kitty is not None and view.kitty_holder == turn:
                seen.update(view.kitty)
            unseen = Counter(DECK) - seen
            assert mem.unseen == dict(unseen)
            for group in GROUPS:
                cards = [c for c in unseen if ctx.group(c) == group]
                assert mem.counts[group] == sum(unseen[c] for c in cards)
                assert mem.max_unseen_order(group) == max((ctx.order(c) for c in cards), default=-1)
                assert mem.max_unseen_pair_order(group) == max(
                    (ctx.order(c) for c in cards if unseen[c] == 2), default=-1)
            checked += 1
        hand.apply(action)
    assert checked > 50
