"""The strong AI's searches run outside the table's lock (``bot/tables/turns.py``): a /stop, a press or a
person coming back never waits behind a search, and a search whose hand moved meanwhile is not played.
A real table service over a real database; the search is a stand-in that waits for the test's word."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import storage
from bot.config import Settings
from bot.model import Table
from bot.tables import Done, Person, Select, Tables
from bot.tables.seats import set_away
from engine.ai import heuristic_action
from engine.hand import Action
from engine.ruleset import Ruleset
from engine.views import HandView, view_for

DEADLOCK = 30.0
"""Seconds a step may take before the test calls it stuck (a guard, not a measure of time)."""


class HeldSearch:
    """Stands in for :meth:`bot.thinking.Thinking.play`: each search of ``seat`` waits until :meth:`release`;
    other seats' searches answer at once."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.started = asyncio.Event()
        self.gate = asyncio.Event()
        self.moves_then: int | None = None

    async def play(self, view: HandView, ruleset: Ruleset) -> Action:
        if view.viewer == self.seat:
            self.started.set()
            await self.gate.wait()
        return heuristic_action(view, ruleset)

    def release(self) -> None:
        self.gate.set()


@asynccontextmanager
async def ai_table(db: storage.Database, held: HeldSearch) -> AsyncIterator[tuple[Tables, Table]]:
    """One person (seat 0, away from the start, so the AI plays for them) and three strong AI seats."""
    await storage.upsert_chat(db, -1, "G")
    await storage.upsert_user(db, 1, "P1")
    tables = Tables(db, Settings(token="1:ai", hand_pause=0.0, ai_delay=0.0))
    tables.thinking.play = held.play  # type: ignore[method-assign]
    try:
        table = await tables.new_table(-1, "G", 1, "en", "yancheng")
        await tables.sit(table, 1, "P1", "en", 0)
        for _ in range(3):
            await tables.add_ai(table)
        assert table.settings.ai_strength == "strong"
        info = table.seats[0]
        assert info is not None
        await set_away(tables, table, 0, info, True)
        tables.rng = random.Random(5)
        await tables.start(table)
        async with table.lock:
            tables.after_change(table)  # as the /start handler does: the AI seats begin
        yield tables, table
    finally:
        held.release()
        await tables.close()
        await tables.tasks.close(timeout=5)


def moves(table: Table) -> int:
    assert table.match is not None
    return len(table.match.hand.events)


async def test_the_table_is_free_while_the_ai_searches_and_a_stop_is_not_played_over(
        db: storage.Database) -> None:
    held = HeldSearch(seat=0)
    async with ai_table(db, held) as (tables, table):
        await asyncio.wait_for(held.started.wait(), DEADLOCK)
        assert not table.lock.locked()  # the search holds no lock: the people of the table are not kept waiting
        before = moves(table)
        await asyncio.wait_for(tables.stop(table), DEADLOCK)
        held.release()
        task = tables.tasks.get(f"ai {table.id}")
        if task is not None:
            await asyncio.wait_for(asyncio.shield(task), DEADLOCK)
        assert moves(table) == before  # the search's answer came after the stop: not played


async def test_a_person_back_during_the_search_plays_their_own_turn(db: storage.Database) -> None:
    held = HeldSearch(seat=0)
    async with ai_table(db, held) as (tables, table):
        await asyncio.wait_for(held.started.wait(), DEADLOCK)
        assert table.match is not None and table.match.hand.turn == 0
        before = moves(table)
        await asyncio.wait_for(table.lock.acquire(), DEADLOCK)  # as a press of hers takes it
        try:
            assert await tables.come_back(table, 0)
        finally:
            table.lock.release()
        held.release()
        task = tables.tasks.get(f"ai {table.id}")
        if task is not None:
            await asyncio.wait_for(asyncio.shield(task), DEADLOCK)
        assert moves(table) == before and table.match.hand.turn == 0  # still Alice's to play, not the AI's
        info = table.seats[0]
        assert info is not None and not info.timed_out


async def test_a_search_answered_for_the_hand_as_it_stands_is_played(db: storage.Database) -> None:
    held = HeldSearch(seat=0)
    async with ai_table(db, held) as (tables, table):
        await asyncio.wait_for(held.started.wait(), DEADLOCK)
        assert table.match is not None
        hand = table.match.hand  # (the AI seats may play the hand out and start the next one meanwhile)
        before = len(hand.events)
        held.release()
        for _ in range(int(DEADLOCK * 20)):
            if len(hand.events) > before:
                break
            await asyncio.sleep(0.05)
        assert len(hand.events) > before
        assert hand.events[before].action.seat == 0


class HeldThenStopped(HeldSearch):
    """Seat 0's search waits until :meth:`release`; every search after it waits for good (the hand stops
    right after seat 0's move)."""

    def __init__(self) -> None:
        super().__init__(seat=0)
        self.stopped = asyncio.Event()

    async def play(self, view: HandView, ruleset: Ruleset) -> Action:
        if self.gate.is_set():
            await self.stopped.wait()
        return await super().play(view, ruleset)


async def test_a_selection_left_when_the_ai_moves_for_someone_away_is_cleared(db: storage.Database) -> None:
    """She selects the cards she means to play and runs out of time before pressing Play: the AI plays for
    her.  The cards it played are no longer selected (before, her keyboard said 「出牌」 with cards she no
    longer held when she came back, and offered no ▶ play until she pressed Clear)."""
    held = HeldThenStopped()
    async with ai_table(db, held) as (tables, table):
        await asyncio.wait_for(held.started.wait(), DEADLOCK)
        assert table.match is not None
        hand = table.match.hand
        meant = heuristic_action(view_for(hand, 0), hand.ruleset).cards  # what the AI will play for her
        copies: dict[object, int] = {}
        for card in meant:  # her taps (the first brings her back)
            copy = copies.get(card, 0)
            copies[card] = copy + 1
            outcome = await tables.perform(Person(1, "keyboard"), table, Select(card, copy, table.hand_version(0)))
            assert isinstance(outcome, Done)
        assert sorted(table.selected(0).elements()) == sorted(meant)
        info = table.seats[0]
        assert info is not None
        before = len(hand.events)
        async with table.lock:
            await set_away(tables, table, 0, info, True)  # her turn ran out (turns.time_out)
        held.release()
        for _ in range(int(DEADLOCK * 20)):
            if len(hand.events) > before:
                break
            await asyncio.sleep(0.05)
        assert len(hand.events) > before and hand.events[before].action.seat == 0
        held.stopped.set()
        assert not +table.selected(0), "the cards the AI played for her are still selected"
