"""The heartbeat's watch: a table that should move always has what moves it, and a stuck one is reported.

The real table service on a real database, without Telegram: whatever
should be running for a table (its AI loop, its deadline's timer, the end of
a pause) is started by :func:`bot.tables.watch.watch` when missing, with a
log line; a table that has not moved for too long is named, and ``/health``
turns unhealthy.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.health import Health, beat
from bot.model import Table
from bot.tables import Tables
from bot.tables.watch import STUCK_AFTER

CHAT = -100900


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tables]:
    db = await storage.open_database(tmp_path / "watch.db")
    await storage.upsert_chat(db, CHAT, "Watch")
    await storage.upsert_user(db, 1, "Ann")
    tables = Tables(db, Settings(token="1:watch", ai_delay=0.0, hand_pause=0.0))
    try:
        yield tables
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()


async def _started(tables: Tables, *, people: int) -> Table:
    table = await tables.new_table(CHAT, "Watch", 1, "en", "yancheng")
    await tables.change_setting(table, "strength", "casual")
    if people:
        await tables.sit(table, 1, "Ann", "en", 0)
    while not table.full:
        await tables.add_ai(table)
    await tables.start(table)  # nothing armed, nothing kicked: as if the task that should had died
    return table


async def test_an_ai_seat_to_move_with_nothing_moving_it_is_started_again(
        service: Tables, caplog: pytest.LogCaptureFixture) -> None:
    table = await _started(service, people=0)
    assert table.match is not None and service.tasks.get(f"ai {table.id}") is None
    with caplog.at_level(logging.WARNING):
        assert service.watch() == []
    assert "an AI seat is to move and nothing moved it" in caplog.text
    hand = table.match.hand
    await asyncio.wait_for(_until(lambda: len(hand.events) > 0), 10)  # the AI seats move again


async def test_a_person_to_move_without_a_deadline_gets_one(service: Tables, caplog: pytest.LogCaptureFixture) -> None:
    table = await _started(service, people=1)
    assert table.deadline is None
    with caplog.at_level(logging.WARNING):
        service.watch()
    assert "a person is to move and no deadline was armed" in caplog.text
    assert table.deadline is not None and service.tasks.get(f"timer {table.id}") is not None


async def test_a_table_that_has_not_moved_for_too_long_is_stuck_and_health_says_so(
        service: Tables, tmp_path: Path) -> None:
    table = await _started(service, people=0)
    table.progress = time.time() - STUCK_AFTER - 1
    # Its AI loop runs, but never gets to move (as one waiting for ever on something).
    service.tasks.start(f"ai {table.id}", lambda: asyncio.sleep(60), table=table.id)
    assert service.watch() == [table.id]
    health = Health("polling", lambda: 1, lambda: service.db, faults=service.faults, watch=service.watch)
    path = tmp_path / "watch.db.heartbeat"
    beating = asyncio.create_task(beat(path, health, interval=0.05))
    try:
        await asyncio.wait_for(_until(path.exists), 5)
        status = health.status()
        assert status["ok"] is False and status["stuck"] == [table.id]
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)


async def test_a_heartbeat_that_cannot_be_written_makes_health_say_so(tmp_path: Path) -> None:
    health = Health("polling", lambda: 0)
    beating = asyncio.create_task(beat(tmp_path / "missing-folder" / "x.heartbeat", health, interval=0.05))
    try:
        await asyncio.wait_for(_until(lambda: health.heartbeat_problem is not None), 5)
        assert health.status()["ok"] is False and "cannot be written" in health.status()["heartbeat"]
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)


async def _until(condition: object) -> None:
    while not condition():  # type: ignore[operator]
        await asyncio.sleep(0.02)
