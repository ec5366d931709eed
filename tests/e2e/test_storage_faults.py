"""Storage faults stop no table: the database locked by another process past the busy timeout, a full disk.

The real bot against the fake Telegram.  While the fault lasts, a person's
move is answered with what happened ("nothing changed") and changes nothing;
the AI seats keep trying quietly; ``/health`` is unhealthy and says why; the
log has one line when the fault starts and one when it ends.  When it ends,
the tables move again by themselves within a few seconds: nobody has to
press anything, and no move is lost.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import storage
from bot.model import Table
from storage import db as storage_db

from .botkit import bot_running, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .scenario import App, choose_setting, fill_with_ai, play_until, press_hand, start_match, wait_seated

SLOW_AI = 2.0
"""Seconds an AI seat waits before its move while the fault is set up: the fault comes first."""


async def _one_person_table(server: FakeTelegram, app: App, person: Person, group: Group) -> Table:
    await person.command(group, "newgame")
    await wait_seated(server, app, group, person)
    await fill_with_ai(server, person, group, 3)
    await choose_setting(server, person, group, "strength", "casual")
    table = await start_match(server, app, person, group, seed_index=3)
    await play_until(server, table, {0: person}, lambda h: h.phase == "playing" and h.turn == 0)
    return table


def _slow_ai(app: App) -> None:
    service = tables(app)
    service.config = dataclasses.replace(service.config, ai_delay=SLOW_AI)


async def _play(server: FakeTelegram, person: Person, table: Table) -> str | None:
    """Press Hint, then Play: the popup of the Play press (None when the move was taken)."""
    hint = await press_hand(server, person, table, 0, "hint")
    assert not hint.show_alert, hint.text
    answer = await press_hand(server, person, table, 0, "play")
    return answer.text if answer.show_alert else None


@asynccontextmanager
async def locked_by_another_process(path: Path) -> AsyncIterator[None]:
    """Another program holds ``BEGIN EXCLUSIVE`` on the database until the block ends."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        other = sqlite3.connect(path, isolation_level=None, timeout=30)  # waits for the bot's write to end
        other.execute("BEGIN EXCLUSIVE")
        held.set()
        release.wait(60)
        other.execute("ROLLBACK")
        other.close()

    thread = threading.Thread(target=hold)
    thread.start()
    await asyncio.to_thread(held.wait, 30)
    try:
        yield
    finally:
        release.set()
        await asyncio.to_thread(thread.join)


def _fault_lines(caplog: pytest.LogCaptureFixture) -> tuple[list[str], list[str]]:
    started = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fault: ")]
    ended = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fault over: ")]
    return started, ended


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_lock_past_the_busy_timeout_stops_no_table_and_health_says_so(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(storage_db, "BUSY_TIMEOUT_MS", 300)  # SQLite gives up on the lock after 0.3 s
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    bo = server.person("Bo", None, language_code="en", started=True)
    group_a, group_b = server.group("Ann's table", [ann]), server.group("Bo's table", [bo])
    db_path = tmp_path / "t.db"
    async with bot_running(server, db_path) as app:
        ann_table = await _one_person_table(server, app, ann, group_a)
        bo_table = await _one_person_table(server, app, bo, group_b)
        health = app.bot_data["health"]
        _slow_ai(app)
        # Bo plays: an AI seat of his table is to move next; Ann is to move at hers.
        assert await _play(server, bo, bo_table) is None
        assert bo_table.match is not None and ann_table.match is not None
        bo_hand, ann_hand = bo_table.match.hand, ann_table.match.hand
        caplog.set_level(logging.INFO)
        async with locked_by_another_process(db_path):  # within the AI seat's delay
            bo_events, ann_events = len(bo_hand.events), len(ann_hand.events)
            # The AI seat's move fails against the lock; the loop goes on quietly.
            await server.wait_for(lambda: "locked" in tables(app).faults.open, timeout=15, what="the fault seen")
            status = health.status()
            assert status["ok"] is False and "locked" in status["faults"], status
            # Ann's move is refused with the reason, and changes nothing.
            popup = await _play(server, ann, ann_table)
            assert popup is not None and "busy" in popup and "nothing changed" in popup, popup
            # The AI seat tries again meanwhile, and fails again (counted by the fault, not waited for by a clock).
            fault = tables(app).faults.open["locked"]
            failures = fault.failures
            await server.wait_for(lambda: fault.failures > failures, timeout=SLOW_AI * 5, what="the AI failing again")
            assert len(ann_hand.events) == ann_events and len(bo_hand.events) == bo_events
        # The lock is gone: Bo's table moves by itself; Ann's move goes through.
        await server.wait_for(lambda: len(bo_hand.events) > bo_events or bo_table.match.hand is not bo_hand,  # type: ignore[union-attr]
                              timeout=15, what="Bo's table moving again by itself")
        assert await _play(server, ann, ann_table) is None
        await server.wait_for(lambda: not tables(app).faults.open, what="the fault over")
        assert health.status()["ok"] is True
    started, ended = _fault_lines(caplog)
    assert len(started) == 1 and "locked" in started[0], started
    assert len(ended) == 1 and "locked" in ended[0], ended
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records
                                                                         if r.levelno >= logging.ERROR]


class FullDisk:
    """The bot's own connection finds the disk full for every write while ``full`` is set (SQLite's
    SQLITE_FULL, as a full filesystem or its size limit gives it)."""

    WRITES = ("BEGIN IMMEDIATE", "INSERT", "UPDATE", "DELETE")

    def __init__(self, connection: Any) -> None:
        self.full = False
        self.refused = 0
        self._fetchall = connection.execute_fetchall
        self._many = connection.executemany
        connection.execute_fetchall = self._execute_fetchall
        connection.executemany = self._executemany

    def _check(self, sql: str) -> None:
        if self.full and sql.lstrip().upper().startswith(self.WRITES):
            self.refused += 1
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
            raise error

    async def _execute_fetchall(self, sql: str, params: Any = None) -> Any:
        self._check(sql)
        return await self._fetchall(sql, params)

    async def _executemany(self, sql: str, rows: Any) -> Any:
        self._check(sql)
        return await self._many(sql, rows)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_full_disk_loses_no_move_tells_the_player_and_the_table_moves_when_space_returns(
        fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Full", [ann])
    db_path = tmp_path / "t.db"
    async with bot_running(server, db_path) as app:
        table = await _one_person_table(server, app, ann, group)
        assert table.match is not None
        disk = FullDisk(tables(app).db.connection)
        health = app.bot_data["health"]
        with caplog.at_level(logging.INFO):
            # Ann's move on a full disk: refused with the reason, nothing changed.
            hand = table.match.hand
            events = len(hand.events)
            disk.full = True
            popup = await _play(server, ann, table)
            assert popup is not None and "full" in popup and "nothing changed" in popup, popup
            assert len(hand.events) == events and health.status()["ok"] is False
            # Space again: her move goes; the AI seats follow her while the disk fills once more.
            disk.full = False
            _slow_ai(app)
            assert await _play(server, ann, table) is None
            events = len(hand.events)
            refused = disk.refused
            disk.full = True
            await server.wait_for(lambda: disk.refused >= refused + 2, timeout=SLOW_AI * 5,
                                  what="the AI seat failing a few times, quietly")
            assert len(hand.events) == events
            disk.full = False
            await server.wait_for(lambda: len(hand.events) > events or table.match.hand is not hand,  # type: ignore[union-attr]
                                  timeout=SLOW_AI + 5, what="the table moving once space returned")
            await server.wait_for(lambda: not tables(app).faults.open, what="the fault over")
        # Every move the players were told of is stored: the log replays to what the table shows.
        stored = await storage.load_events(tables(app).db, table.hand_id)  # type: ignore[arg-type]
        assert len(stored) == len(table.match.hand.events)
        assert (await tables(app).db.fetchall("PRAGMA integrity_check"))[0][0] == "ok"
    started, ended = _fault_lines(caplog)
    assert [line for line in started if "full" in line] and len(started) == len(ended) <= 2, (started, ended)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
