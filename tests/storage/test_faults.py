"""Storage faults are typed at the edge: a lock held by another process, a full database, SQLite's error codes.

Real SQLite, no mocks: a second connection holds ``BEGIN EXCLUSIVE``; the
database is made full with ``PRAGMA max_page_count``.  Each fault says
whether anything was written, and the observer hears when it starts and
when a write works again.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

import storage
from storage import Database, DatabaseLocked, StorageError, StorageFault, StorageFull, StorageIOFailure
from storage.db import fault_of


class Observer:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def failed(self, kind: str, detail: str) -> None:
        self.events.append(("failed", kind))

    def passed(self, family: str) -> None:
        self.events.append(("passed", family))


def hold_exclusive(path: Path, seconds: float, held: threading.Event) -> threading.Thread:
    """Another process's connection (here a thread's) holds the write lock for ``seconds``."""
    def run() -> None:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        held.set()
        threading.Event().wait(seconds)
        other.execute("ROLLBACK")
        other.close()
    thread = threading.Thread(target=run)
    thread.start()
    return thread


async def test_a_lock_held_past_the_busy_timeout_is_a_typed_fault_and_nothing_is_written(db_path: Path) -> None:
    db = await Database.open(db_path)
    observer = Observer()
    db.observer = observer
    await db.connection.execute_fetchall("PRAGMA busy_timeout=100")
    try:
        held = threading.Event()
        thread = hold_exclusive(db_path, 1.0, held)
        await asyncio.to_thread(held.wait)
        with pytest.raises(DatabaseLocked) as caught:
            await storage.upsert_chat(db, -1, "G")
        assert caught.value.kind == "locked" and caught.value.written is False
        assert isinstance(caught.value, StorageError)  # callers that know only StorageError still catch it
        assert observer.events == [("failed", "locked")]
        await asyncio.to_thread(thread.join)
        await storage.upsert_chat(db, -1, "G")  # the lock is gone: the same write works
        assert observer.events[-1] == ("passed", "storage")
        assert (await storage.get_chat(db, -1)) is not None
    finally:
        await db.close()


async def test_a_full_database_is_a_typed_fault_rolled_back_whole(db_path: Path) -> None:
    db = await Database.open(db_path)
    observer = Observer()
    db.observer = observer
    try:
        await storage.upsert_chat(db, -1, "G")
        pages = (await db.fetchall("PRAGMA page_count"))[0][0]
        await db.connection.execute_fetchall(f"PRAGMA max_page_count={pages}")
        with pytest.raises(StorageFull) as caught:
            for n in range(2000):  # long titles fill the last pages
                await storage.upsert_chat(db, -10 - n, "x" * 2000)
        assert caught.value.written is False and caught.value.kind == "full"
        assert ("failed", "full") in observer.events
        await db.connection.execute_fetchall(f"PRAGMA max_page_count={pages * 100}")  # space again
        await storage.upsert_chat(db, -5, "after")
        assert observer.events[-1] == ("passed", "storage")
        assert (await storage.get_chat(db, -5)) is not None
        assert (await db.fetchall("PRAGMA integrity_check"))[0][0] == "ok"
    finally:
        await db.close()


@pytest.mark.parametrize(("code", "kind"), [
    (sqlite3.SQLITE_BUSY, DatabaseLocked), (sqlite3.SQLITE_LOCKED, DatabaseLocked),
    (sqlite3.SQLITE_FULL, StorageFull), (sqlite3.SQLITE_IOERR, StorageIOFailure),
    (sqlite3.SQLITE_IOERR | (3 << 8), StorageIOFailure),  # an extended I/O code
    (sqlite3.SQLITE_READONLY, StorageIOFailure), (sqlite3.SQLITE_CANTOPEN, StorageIOFailure),
])
def test_sqlite_result_codes_become_faults(code: int, kind: type[StorageFault]) -> None:
    error = sqlite3.OperationalError("something")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    assert type(fault_of(error)) is kind


def test_errors_that_do_not_pass_stay_what_they_are() -> None:
    error = sqlite3.IntegrityError("UNIQUE constraint failed")
    error.sqlite_errorcode = sqlite3.SQLITE_CONSTRAINT  # type: ignore[attr-defined]
    assert fault_of(error) is None
    assert fault_of(sqlite3.OperationalError("no such table: x")) is None
    assert type(fault_of(sqlite3.OperationalError("database is locked"))) is DatabaseLocked
