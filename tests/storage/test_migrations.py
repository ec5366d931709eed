"""Schema migrations: from empty, from every earlier version, and refusing the future."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

import storage
from storage import Database, SchemaTooNew, StorageError, migrations
from storage.migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate, schema_version


def schema_of(path: Path) -> list[tuple[str, str, str]]:
    """Every schema object of the file except the migration bookkeeping."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
    conn.close()
    return [(t, n, s) for t, n, s in rows]


def test_there_are_several_migrations_numbered_in_order() -> None:
    assert SCHEMA_VERSION >= 2
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))


async def test_a_fresh_file_is_created_and_migrated(db_path: Path) -> None:
    assert not db_path.exists()
    db = await Database.open(db_path)
    try:
        assert db_path.exists()
        assert await schema_version(db) == SCHEMA_VERSION
        rows = await db.fetchall("SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
        pragmas = {
            name: (await db.fetchone(f"PRAGMA {name}"))[0]  # type: ignore[index]
            for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout")
        }
        assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 1, "busy_timeout": 5000}
    finally:
        await db.close()


async def test_reopening_a_current_database_changes_nothing(db_path: Path) -> None:
    await (await Database.open(db_path)).close()
    before = schema_of(db_path)
    db = await Database.open(db_path)
    rows = await db.fetchall("SELECT COUNT(*) FROM schema_migrations")
    await db.close()
    assert schema_of(db_path) == before
    assert rows[0][0] == SCHEMA_VERSION


async def _fill(db: Database, version: int) -> None:
    """Write the rows a database at ``version`` can hold."""
    if version >= 1:
        async with db.transaction():
            now = time.time()
            await db.execute(
                "INSERT INTO chats (chat_id, title, created_at, updated_at) VALUES (-5, 'old', ?, ?)",
                (now, now),
            )
            await db.execute(
                "INSERT INTO tables (table_id, chat_id, status, created_at, updated_at)"
                " VALUES (1, -5, 'playing', ?, ?)",
                (now, now),
            )
            await db.execute(
                "INSERT INTO matches (match_id, table_id, preset, ruleset, created_at, updated_at)"
                " VALUES (1, 1, 'yancheng', '{}', ?, ?)",
                (now, now),
            )
            await db.execute(
                "INSERT INTO hands (hand_id, match_id, number, seed, ruleset, created_at, updated_at)"
                " VALUES (1, 1, 1, 99, '{}', ?, ?)",
                (now, now),
            )
            await db.execute(
                "INSERT INTO events (hand_id, seq, kind, payload, created_at)"
                " VALUES (1, 1, 'deal', '{\"n\": 1}', ?)",
                (now,),
            )


@pytest.mark.parametrize("start", range(SCHEMA_VERSION))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.db"
    await (await Database.open(fresh)).close()

    old = tmp_path / f"v{start}.db"
    db = await Database.open(old, migrate=False)
    assert await migrate(db, target=start) == start
    await _fill(db, start)
    await db.close()

    db = await Database.open(old)
    try:
        assert await schema_version(db) == SCHEMA_VERSION
        if start >= 1:
            events = await storage.load_events(db, 1)
            assert [(e.seq, e.kind, e.payload) for e in events] == [(1, "deal", {"n": 1})]
            # The upgraded file works with the newest code: append and snapshot.
            await storage.append_event(db, 1, 2, "bid", {"n": 2})
            await storage.save_snapshot(db, 1, 2, 1, {"n": 3})
            assert (await storage.load_snapshot(db, 1)).seq == 2  # type: ignore[union-attr]
    finally:
        await db.close()
    assert schema_of(old) == schema_of(fresh)


async def test_a_database_newer_than_the_code_is_refused_untouched(db_path: Path) -> None:
    db = await Database.open(db_path)
    async with db.transaction():
        await db.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 0)",
            (SCHEMA_VERSION + 1,),
        )
    await db.close()
    before = schema_of(db_path)

    with pytest.raises(SchemaTooNew) as info:
        await Database.open(db_path)
    message = str(info.value)
    assert f"schema version {SCHEMA_VERSION + 1}" in message
    assert f"up to {SCHEMA_VERSION}" in message
    assert "newer chaodipi" in message
    assert isinstance(info.value, StorageError)
    assert schema_of(db_path) == before


async def test_a_failing_migration_leaves_the_previous_version(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await (await Database.open(db_path)).close()
    broken = Migration(
        SCHEMA_VERSION + 1, "broken", ("CREATE TABLE half_done (x INTEGER)", "THIS IS NOT SQL")
    )
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(sqlite3.OperationalError):
        await Database.open(db_path)
    monkeypatch.undo()

    db = await Database.open(db_path)
    try:
        assert await schema_version(db) == SCHEMA_VERSION
        assert await db.fetchone("SELECT name FROM sqlite_master WHERE name = 'half_done'") is None
    finally:
        await db.close()


async def test_several_connections_migrating_a_fresh_file_at_once_all_succeed(tmp_path: Path) -> None:
    for attempt in range(5):
        path = tmp_path / f"race{attempt}.db"
        opened = await asyncio.gather(*(Database.open(path) for _ in range(3)), return_exceptions=True)
        try:
            assert all(isinstance(db, Database) for db in opened), opened
            for db in opened:
                assert isinstance(db, Database)
                rows = await db.fetchall("SELECT version FROM schema_migrations ORDER BY version")
                assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
        finally:
            for db in opened:
                if isinstance(db, Database):
                    await db.close()


async def test_someone_elses_database_is_refused(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.close()
    with pytest.raises(StorageError, match="invoices"):
        await Database.open(db_path)


async def test_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        await Database.open(tmp_path / "nowhere" / "chaodipi.db")
