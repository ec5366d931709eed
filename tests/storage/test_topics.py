"""A forum group runs one active table per topic (migration 8); a group without topics, one in all."""

from __future__ import annotations

import sqlite3

import pytest

import storage
from storage import Database, TableAlreadyActive


async def test_one_active_table_per_topic(db: Database) -> None:
    await storage.upsert_chat(db, -100, "Forum")
    general = await storage.create_table(db, -100)
    north = await storage.create_table(db, -100, thread_id=7)
    south = await storage.create_table(db, -100, thread_id=9)
    assert (general.thread_id, north.thread_id, south.thread_id) == (None, 7, 9)
    with pytest.raises(TableAlreadyActive):
        await storage.create_table(db, -100, thread_id=7)
    with pytest.raises(TableAlreadyActive):
        await storage.create_table(db, -100)
    assert (await storage.get_active_table(db, -100, 9)) == south
    assert (await storage.get_active_table(db, -100)) == general
    await storage.update_table(db, north.table_id, status="stopped")
    assert (await storage.create_table(db, -100, thread_id=7)).thread_id == 7


async def test_the_schema_itself_refuses_a_second_table_in_a_topic(db: Database) -> None:
    """Two racing /newgame commands in one topic cannot both win, whatever the code checks first."""
    await storage.upsert_chat(db, -100, "Forum")
    await storage.create_table(db, -100, thread_id=7)
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction():
            await db.execute("INSERT INTO tables (chat_id, thread_id, created_at, updated_at) VALUES (-100, 7, 0, 0)")
