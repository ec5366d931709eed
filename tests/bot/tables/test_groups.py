"""A group that mutes the bot (:mod:`bot.tables.groups`): the match stores it, so that a restart brings the
table back paused, its group known as muting the bot; the unmute stores that the table goes on.  And /hand's
old message goes without holding the table."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import storage
from bot.config import Settings
from bot.model import Table
from bot.tables import Tables
from bot.tables.startup import load_tables

CHAT = -100900


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tables]:
    db = await storage.open_database(tmp_path / "muted.db")
    await storage.upsert_chat(db, CHAT, "Muted")
    await storage.upsert_user(db, 1, "Ann")
    tables = Tables(db, Settings(token="1:muted", hand_pause=0.0))
    try:
        yield tables
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()


async def _started(tables: Tables) -> Table:
    table = await tables.new_table(CHAT, "Muted", 1, "en", "yancheng")
    await tables.change_setting(table, "strength", "casual")
    await tables.sit(table, 1, "Ann", "en", 0)
    while not table.full:
        await tables.add_ai(table)
    await tables.start(table)
    return table


async def _written(tables: Tables, table: Table) -> None:
    """Wait for the table's background writes of its extra."""
    await asyncio.gather(*(task for task in tables.tasks.of_table(table.id) if task.get_name().startswith("extra ")))


async def _restarted(tables: Tables, table: Table) -> tuple[Tables, Table]:
    """The tables as a new run of the bot loads them from the same database."""
    again = Tables(tables.db, tables.config)
    await load_tables(again)
    reloaded = again.get(table.id)
    assert reloaded is not None
    return again, reloaded


async def test_a_restart_keeps_the_mute_and_an_unmute_clears_it(service: Tables) -> None:
    table = await _started(service)
    service.muting.muted.add(CHAT)  # as Muting.mute marks it before it calls the tables
    await service.group_muted(CHAT)
    assert table.muted
    await _written(service, table)
    again, reloaded = await _restarted(service, table)
    assert reloaded.muted and CHAT in again.muting.muted
    again.muting.muted.discard(CHAT)  # as Muting.unmute clears it before it calls the tables
    await again.group_unmuted(CHAT)
    assert not reloaded.muted
    await _written(again, reloaded)
    await again.close()
    third, table_now = await _restarted(again, reloaded)
    assert not table_now.muted and CHAT not in third.muting.muted


async def test_hand_again_does_not_hold_the_table_while_the_old_message_goes(service: Tables,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """/hand under the table's lock: the old hand message is deleted in the background, so the next move at the
    table does not wait for Telegram's answers (it did: the delete, and the edit where one is refused)."""
    import bot.tables.service as service_module

    table = await _started(service)
    going, let_go = asyncio.Event(), asyncio.Event()

    async def slow_remove(house: object, chat_id: int, message_id: int | None, text: str) -> None:
        going.set()
        await let_go.wait()  # Telegram slow to answer

    monkeypatch.setattr(service_module, "remove", slow_remove)
    monkeypatch.setattr(service, "refresh", lambda table, urgent=(): None)
    service.publisher = SimpleNamespace(forget=lambda key: None)  # type: ignore[assignment]
    seat = table.seats[0]
    assert seat is not None
    seat.hand_message_id = 77
    async with table.lock:
        await asyncio.wait_for(service.show_hand_again(table, 0), 5)
    assert seat.hand_message_id is None
    await asyncio.wait_for(going.wait(), 5)  # the old message goes all the same
    let_go.set()
    service.publisher = None
