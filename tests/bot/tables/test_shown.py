"""The "whose turn is it" line fires on the mover's own thinking time: counted from when their turn was shown
to them, never from a moment their message still waited in the bot's queue (issue 57)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from bot.model import THINKING
from bot.tables import shown as turns  # the room of the shown turn (bot/tables/shown.py)
from tests.bot import builders as T


class Publisher:
    """Says the mover's message is still queued until :meth:`show` is called."""

    def __init__(self) -> None:
        self.at: float | None = None
        self.asked = 0

    def shown_at(self, key: tuple[int, str]) -> float | None:
        self.asked += 1
        return self.at

    def show(self, at: float) -> None:
        self.at = at


def human_turn_table():  # type: ignore[no-untyped-def]
    table = T.playing()
    assert table.match is not None
    turn = table.match.hand.turn
    assert turn is not None
    seat = table.seats[turn]
    if seat is None or seat.is_ai:  # the builder's AI seat is 1: take a table whose mover is a person
        table.seats[turn] = T.Seat(100 + turn, T.NAMES[turn], lang="zh")
    table.turn_since = time.time() - 60  # the turn began long ago: a clock from the turn's start would fire at once
    return table


async def test_the_line_waits_for_the_turn_to_be_shown_and_counts_from_then(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(THINKING, "realtime", 0.05)
    monkeypatch.setattr(turns, "SHOWN_POLL", 0.01)
    refreshed: list[tuple[float, float | None]] = []
    publisher = Publisher()
    monkeypatch.setattr(turns, "refresh", lambda house, table: refreshed.append((table.turn_shown, publisher.at)))
    table = human_turn_table()
    house = SimpleNamespace(publisher=publisher, app_open=lambda table, seat: False)
    table.deadline = deadline = time.time() + 3600
    waiting = asyncio.create_task(turns.show_thinking(house, table, deadline, remind_at=deadline - 20))  # type: ignore[arg-type]
    async with asyncio.timeout(10):
        while publisher.asked < 5:  # the timer looked several times while the turn was still queued
            await asyncio.sleep(0.005)
    assert refreshed == [] and not table.thinking(time.time())  # the bot's queue is not the mover's thinking
    shown = time.time()
    publisher.show(shown)
    await asyncio.wait_for(waiting, 10)
    assert refreshed == [(shown, shown)]  # once, counted from when the turn was shown
    assert table.turn_shown == shown and table.thinking(shown + 0.051) and not table.thinking(shown + 0.04)


async def test_a_mover_without_a_message_to_wait_for_counts_from_the_turns_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(THINKING, "realtime", 0.01)
    refreshed: list[float] = []
    monkeypatch.setattr(turns, "refresh", lambda house, table: refreshed.append(table.turn_shown))
    table = human_turn_table()
    house = SimpleNamespace(publisher=Publisher(), app_open=lambda table, seat: True)  # on the web app
    table.deadline = deadline = time.time() + 3600
    await asyncio.wait_for(turns.show_thinking(house, table, deadline, remind_at=deadline - 20), 10)  # type: ignore[arg-type]
    assert refreshed == [table.turn_since]


async def test_nothing_fires_once_the_turn_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(THINKING, "realtime", 0.05)
    monkeypatch.setattr(turns, "SHOWN_POLL", 0.01)
    refreshed: list[float] = []
    monkeypatch.setattr(turns, "refresh", lambda house, table: refreshed.append(table.turn_shown))
    table = human_turn_table()
    publisher = Publisher()
    house = SimpleNamespace(publisher=publisher, app_open=lambda table, seat: False)
    table.deadline = deadline = time.time() + 3600
    waiting = asyncio.create_task(turns.show_thinking(house, table, deadline, remind_at=deadline - 20))  # type: ignore[arg-type]
    async with asyncio.timeout(10):
        while publisher.asked < 3:
            await asyncio.sleep(0.005)
    table.deadline = None  # the mover played: a new turn, a new timer
    publisher.show(time.time())
    await asyncio.wait_for(waiting, 10)
    assert refreshed == [] and table.turn_shown == 0.0
