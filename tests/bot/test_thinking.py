"""The strong AI's searches in worker processes: a budget that shrinks as searches queue up, so that
people at many tables of AI seats do not wait for a queue."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.config import Settings
from bot.tables import Tables
from bot.thinking import LEAST_BUDGET, Thinking, default_workers, search_budget, search_work
from engine.ai import DEFAULT_BUDGET, DEFAULT_CANDIDATES, DEFAULT_CAP, DEFAULT_DEALS, casual_action, heuristic_action
from engine.ai.playing import CANDIDATES
from engine.hand import Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import actions
from engine.views import HandView, view_for


def test_the_full_budget_while_a_worker_is_free() -> None:
    assert search_budget(0, 1) == DEFAULT_BUDGET
    assert search_budget(2, 3) == DEFAULT_BUDGET


def test_the_workers_time_is_shared_out_among_the_searches_waiting() -> None:
    assert search_budget(1, 1) == pytest.approx(DEFAULT_BUDGET / 2)
    assert search_budget(3, 1) == pytest.approx(DEFAULT_BUDGET / 4)
    assert search_budget(3, 3) == pytest.approx(DEFAULT_BUDGET * 3 / 4)
    budgets = [search_budget(w, 1) for w in range(20)]
    assert budgets == sorted(budgets, reverse=True)


def test_the_work_queued_stays_bounded_however_long_the_queue() -> None:
    """Searches arriving while none finishes: the work ahead of the last one, per worker, stays under
    three full budgets (shares shrink as 1/n, and stop at the least budget), not one budget a search."""
    for workers in (1, 2, 4):
        queued = sum(search_budget(w, workers) for w in range(1000))
        assert queued / workers < 3 * DEFAULT_BUDGET


def test_too_small_a_share_plays_the_heuristics_alone() -> None:
    waiting = next(w for w in range(100) if search_budget(w, 1) == 0)
    assert DEFAULT_BUDGET / waiting >= LEAST_BUDGET > DEFAULT_BUDGET / (waiting + 1)
    assert all(search_budget(w, 1) == 0 for w in range(waiting, waiting + 50))


def test_a_share_of_the_budget_is_a_share_of_the_deals_and_fewer_plays_compared_over_few() -> None:
    assert search_work(DEFAULT_BUDGET) == (DEFAULT_DEALS, DEFAULT_CAP, DEFAULT_CANDIDATES)
    deals, cap, candidates = search_work(DEFAULT_BUDGET / 2)
    assert (deals, candidates) == (DEFAULT_DEALS // 2, DEFAULT_CANDIDATES) and cap == pytest.approx(DEFAULT_CAP / 2)
    deals, cap, candidates = search_work(LEAST_BUDGET)  # eight tables searching on one worker
    assert deals == round(DEFAULT_DEALS / 8) and candidates == CANDIDATES == 4
    assert cap == pytest.approx(DEFAULT_CAP / 8)
    work = [search_work(DEFAULT_BUDGET * k / 64) for k in range(8, 65)]
    assert work == sorted(work)


@pytest.mark.parametrize(("cores", "workers"), [(None, 1), (1, 1), (2, 1), (4, 3), (16, 15)])
def test_one_core_is_left_to_the_event_loop(monkeypatch: pytest.MonkeyPatch, cores: int | None,
                                             workers: int) -> None:
    monkeypatch.setattr("bot.thinking.os.cpu_count", lambda: cores)
    assert default_workers() == workers


def _playing_view(seed: int) -> tuple[HandView, Hand]:
    """A 盐城 hand played by the casual AI until its sixth play; the view of the seat to play."""
    hand = Hand(HandSetup(RULESETS["yancheng"], seed))
    for action in actions(hand, [casual_action] * 4, random.Random(seed)):
        hand.apply(action)
        if hand.phase == "playing" and len(hand.tricks) * 4 + len(hand.current) >= 6:
            break
    assert hand.phase == "playing" and hand.turn is not None
    return view_for(hand, hand.turn), hand


async def test_searches_in_a_worker_play_legal_moves_and_leave_no_one_waiting() -> None:
    thinking = Thinking(workers=1)
    try:
        view, hand = _playing_view(3)
        action = await thinking.play(view, hand.ruleset)
        assert hand.can(action)
        assert thinking.waiting == 0
        # Several tables at once: every one gets a legal move, and the count comes back to zero.
        found = [_playing_view(seed) for seed in (4, 5, 6, 7)]
        moves = await asyncio.gather(*(thinking.play(v, h.ruleset) for v, h in found))
        assert all(h.can(a) for (_v, h), a in zip(found, moves))
        assert thinking.waiting == 0
    finally:
        await thinking.close()


async def test_past_the_least_budget_the_seat_plays_its_heuristics_at_once() -> None:
    thinking = Thinking(workers=1)
    view, hand = _playing_view(8)
    thinking.waiting = next(w for w in range(100) if search_budget(w, 1) == 0)  # a queue that long
    try:
        action = await thinking.play(view, hand.ruleset)
        assert action == heuristic_action(view, hand.ruleset)
        assert thinking._pool is None  # no worker was needed
    finally:
        await thinking.close()


def test_the_health_load_counts_the_searches_running_or_queued() -> None:
    tables = Tables(db=None, config=Settings(token="1:x"))  # type: ignore[arg-type]
    assert tables.load()["searches"] == 0
    tables.thinking.waiting = 3
    assert tables.load()["searches"] == 3
