"""A task cancelled at any await inside ``Database.transaction`` never wedges the connection.

The bot cancels tasks (a publisher edit made obsolete, a table closed, a
shut-down); aiosqlite runs a statement in its own thread even when the task
that awaited it is gone.  Each test below stops a writer at one statement of
a transaction (before it is queued, or once it is queued and running) and
cancels it there, then checks that the next transaction of another task
works, that the cancelled writes are all there or all gone, and that what
committed stays committed exactly once.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

import storage
from storage import Database

from .conftest import Game, start_game

Scenario = Callable[[Database, Game, int], Coroutine[Any, Any, None]]


class Tripwire:
    """Counts the statements sent to the connection and stops the ``at``-th one.

    ``when="before"``: the statement waits to be queued until the test has
    cancelled the task (``go``); ``"during"``: the statement is queued to
    SQLite's thread, then the task waits for it as usual.  Either way
    ``reached`` is set, for the test to cancel the task at exactly that await.
    """

    def __init__(self, db: Database, at: int | None = None, when: str = "before") -> None:
        self.real = db.connection.execute_fetchall
        self.at, self.when = at, when
        self.count = 0
        self.statements: list[str] = []
        self.reached = asyncio.Event()
        self.go = asyncio.Event()

    async def __call__(self, sql: str, parameters: Any = None) -> Any:
        self.count += 1
        self.statements.append(sql.split()[0])
        tripped = self.count == self.at
        if tripped and self.when == "before":
            self.reached.set()
            await self.go.wait()
        running = asyncio.ensure_future(self.real(sql, parameters))
        if tripped:
            await asyncio.sleep(0)  # the statement is now in aiosqlite's queue
            self.reached.set()
        return await running


async def _write(db: Database, game: Game, seq: int) -> None:
    """Event ``seq`` and a chat row, in one transaction with a nested block inside."""
    async with db.transaction():
        await storage.append_event(db, game.hand.hand_id, seq, "pass", {"seat": seq % 4})
        async with db.transaction():
            now = time.time()
            await db.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)",
                             (seq, now, now))


async def _write_then_fail(db: Database, game: Game, seq: int) -> None:
    """The same writes, then an error: everything must be rolled back."""
    async with db.transaction():
        await _write(db, game, seq)
        async with db.transaction():
            await db.execute("UPDATE chats SET title = 'x' WHERE chat_id = ?", (seq,))
            raise ValueError("the block fails")


async def _stored(db: Database, game: Game) -> tuple[list[int], list[int]]:
    events = [e.seq for e in await storage.load_events(db, game.hand.hand_id)]
    chats = [int(r[0]) for r in await db.fetchall("SELECT chat_id FROM chats WHERE chat_id > 0 ORDER BY 1")]
    return events, chats


def _from_another_connection(db: Database) -> list[int]:
    """What a second process sees: only committed events (and it may write: no lock is left held)."""
    with sqlite3.connect(db.path, timeout=0.2) as other:
        other.execute("CREATE TEMP TABLE probe (x)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return [int(r[0]) for r in other.execute("SELECT seq FROM events ORDER BY seq")]


async def _statements_in(db: Database, game: Game, scenario: Scenario) -> list[str]:
    seq = await storage.last_seq(db, game.hand.hand_id) + 1
    wire = Tripwire(db)
    setattr(db.connection, "execute_fetchall", wire)
    try:
        await scenario(db, game, seq)
    except ValueError:
        pass
    finally:
        delattr(db.connection, "execute_fetchall")
    return wire.statements


async def _cancel_everywhere(db: Database, scenario: Scenario, commits: bool) -> int:
    game = await start_game(db)
    statements = await _statements_in(db, game, scenario)
    assert {"BEGIN", "SAVEPOINT", "RELEASE", "COMMIT" if commits else "ROLLBACK"} <= set(statements)
    points = 0
    for at in range(1, len(statements) + 1):
        for when in ("before", "during"):
            where = f"{when} statement {at} ({statements[at - 1]})"
            events_before, _ = await _stored(db, game)
            seq = (events_before[-1] if events_before else 0) + 1
            wire = Tripwire(db, at, when)
            setattr(db.connection, "execute_fetchall", wire)
            task = asyncio.create_task(scenario(db, game, seq))
            try:
                await asyncio.wait_for(wire.reached.wait(), 10)
                task.cancel()
                wire.go.set()
                outcome = (await asyncio.gather(task, return_exceptions=True))[0]
            finally:
                delattr(db.connection, "execute_fetchall")
            assert isinstance(outcome, asyncio.CancelledError | ValueError | type(None)), where

            # Another task's transaction works at once, and sees a clean connection.
            await asyncio.wait_for(_write(db, game, seq + 1 if seq in (await _stored(db, game))[0] else seq), 10)
            events, chats = await _stored(db, game)
            assert events == list(range(1, len(events) + 1)), f"{where}: the log has a gap or a duplicate"
            assert events[-1] in chats, where
            # The cancelled writes are all there or all gone, never half.
            assert (seq in events) == (seq in chats), f"{where}: half a transaction was kept"
            if outcome is None:
                assert seq in events, f"{where}: a committed event was lost"
            if not commits:
                assert len(events) == len(events_before) + 1, f"{where}: a failed block kept its writes"
            assert _from_another_connection(db) == events, where
            assert not db.connection.in_transaction and not db.in_transaction(), where
            points += 1
    return points


async def test_a_cancelled_commit_path_never_wedges_the_connection(db: Database) -> None:
    assert await _cancel_everywhere(db, _write, commits=True) >= 10


async def test_a_cancelled_rollback_path_never_wedges_the_connection(db: Database) -> None:
    assert await _cancel_everywhere(db, _write_then_fail, commits=False) >= 14


async def test_a_task_cancelled_while_waiting_for_the_lock_leaves_nothing(db: Database) -> None:
    game = await start_game(db)
    inside = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with db.transaction():
            inside.set()
            await release.wait()

    held = asyncio.create_task(holder())
    await inside.wait()
    waiter = asyncio.create_task(_write(db, game, 1))
    await asyncio.sleep(0)
    waiter.cancel()
    release.set()
    await held
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await _write(db, game, 1)
    assert await _stored(db, game) == ([1], [1])


async def test_a_transaction_left_open_by_a_task_cancelled_twice_is_rolled_back_by_the_next(db: Database) -> None:
    game = await start_game(db)
    wire = Tripwire(db, 1, "before")  # BEGIN: held back until the second cancellation is in
    setattr(db.connection, "execute_fetchall", wire)
    try:
        task = asyncio.create_task(_write(db, game, 1))
        await wire.reached.wait()
        task.cancel()
        for _ in range(5):
            await asyncio.sleep(0)  # the first cancellation lands; the task waits for its BEGIN
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        wire.go.set()  # now SQLite runs the BEGIN nobody will end
        while not db.connection.in_transaction:
            await asyncio.sleep(0.001)
    finally:
        delattr(db.connection, "execute_fetchall")
    assert db.repairs == 0
    await _write(db, game, 1)
    assert db.repairs == 1
    assert await _stored(db, game) == ([1], [1])
    assert _from_another_connection(db) == [1]
    await db.check()


async def test_check_reports_a_connection_stuck_in_a_transaction(db: Database) -> None:
    await db.check()
    await db.connection.execute_fetchall("BEGIN")  # what no code of ours does: a raw BEGIN
    with pytest.raises(storage.StorageError, match="nobody owns"):
        await db.check()
    await db.connection.execute_fetchall("ROLLBACK")
    await db.check()
