"""The one connection to the database, and transactions on it.

A :class:`Database` owns a single aiosqlite connection that every reader and
writer of the process shares: SQLite allows one writer at a time anyway, and
one connection means no ``database is locked`` between our own tasks.  An
:class:`asyncio.Lock` keeps tasks from interleaving statements on it: a task
in a transaction holds the lock until it commits, and a task reading outside a
transaction waits, so it never sees another task's uncommitted writes.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from storage.errors import DatabaseLocked, StorageError, StorageFault, StorageFull, StorageIOFailure
from storage.migrations import migrate as run_migrations

log = logging.getLogger(__name__)

Params = Sequence[Any] | Mapping[str, Any]
"""The parameters of one SQL statement: positional, or named (``:name``)."""

BUSY_TIMEOUT_MS = 5000
"""How long a statement waits for another process's write lock before failing.

Long enough for a ``chaodipi backup`` or a second tool to finish a write; short
enough that a stuck lock shows up as an error rather than a hung bot.
"""


_FAULTS: dict[int, type[StorageFault]] = {
    sqlite3.SQLITE_BUSY: DatabaseLocked, sqlite3.SQLITE_LOCKED: DatabaseLocked,
    sqlite3.SQLITE_FULL: StorageFull,
    sqlite3.SQLITE_IOERR: StorageIOFailure, sqlite3.SQLITE_READONLY: StorageIOFailure,
    sqlite3.SQLITE_CANTOPEN: StorageIOFailure,
}
"""SQLite's primary result codes for what can pass, and the fault each becomes."""


def fault_of(exc: sqlite3.Error) -> StorageFault | None:
    """The :class:`StorageFault` an SQLite error stands for, or None for an error that will not pass by
    itself (a bug, a broken constraint, a corrupt file)."""
    code = getattr(exc, "sqlite_errorcode", None)
    kind = _FAULTS.get(code & 0xFF) if isinstance(code, int) else None
    if kind is None and isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()  # an error raised without a result code (older SQLite, aiosqlite's own)
        kind = (DatabaseLocked if "locked" in text or "busy" in text else
                StorageFull if "full" in text else StorageIOFailure if "i/o" in text else None)
    return kind(f"SQLite: {exc}") if kind is not None else None


class FaultObserver(Protocol):
    """Told when storage faults start and when writes work again (the bot's health and logs)."""

    def failed(self, kind: str, detail: str) -> None:
        """A statement failed with a :class:`StorageFault` of ``kind``."""

    def passed(self, family: str) -> None:
        """A write transaction committed: faults of the ``"storage"`` family are over."""


class Database:
    """An open chaodipi database: one connection, its lock and its transactions.

    Create one with :meth:`open` (which also migrates the schema) and close it
    with :meth:`close`, or use it as an ``async with`` block.
    """

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        """Wrap an already configured connection; prefer :meth:`open`."""
        self._conn = conn
        self.path = path
        """The database file."""
        self._lock = asyncio.Lock()
        # The task that holds the open transaction and how deep its SAVEPOINTs
        # go.  A task, not a context variable: a child task started inside a
        # transaction must wait for it, not write into it.
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0
        # True while a transaction may have been left open by a cancelled task.
        self._unsure = False
        self.repairs = 0
        """How many times a transaction left open by a cancelled task was rolled back."""
        self.read_only = False
        """A second connection that only reads (:meth:`open_reader`)."""
        self.observer: FaultObserver | None = None
        """Told of storage faults as they happen and of the first write that works again."""

    @classmethod
    async def open(cls, path: str | Path, *, migrate: bool = True) -> Database:
        """Open (or create) the database at ``path`` and bring its schema up to date.

        Raises :class:`~storage.errors.SchemaTooNew` if a newer chaodipi wrote
        the file, and :class:`~storage.errors.StorageError` if the folder of
        ``path`` does not exist.  ``migrate=False`` skips the schema check
        (for tools that only copy the file).
        """
        path = Path(path)
        if not path.parent.exists():
            raise StorageError(
                f"Cannot create the database {path}: the folder {path.parent} does not exist."
            )
        conn = await aiosqlite.connect(
            path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
        )
        try:
            conn.row_factory = sqlite3.Row
            await configure(conn)
            db = cls(conn, path)
            if migrate:
                await run_migrations(db)
        except BaseException:
            await conn.close()
            raise
        return db

    @classmethod
    async def open_reader(cls, path: str | Path) -> Database:
        """A second connection to the database at ``path`` that only reads (``mode=ro``, ``query_only``).

        Long reads (a group's whole league history) go here: in WAL a reader
        sees the last commit and neither waits for nor holds up the writer, so
        the tables' moves on the main connection are not queued behind them.
        Its statements run in the connection's own thread, off the event loop.
        Raises :class:`~storage.errors.StorageError` if it cannot be opened.
        """
        path = Path(path)
        try:
            conn = await aiosqlite.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                           timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise StorageError(f"Cannot open {path} to read: {exc}") from exc
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute_fetchall(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            await conn.execute_fetchall("PRAGMA query_only=ON")
        except BaseException as exc:
            await conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"Cannot read {path}: {exc}") from exc
            raise
        reader = cls(conn, path)
        reader.read_only = True
        return reader

    async def close(self) -> None:
        """Close the connection; committed data is already on disk.

        Always close: an aiosqlite connection left open can keep its thread,
        and so the process, alive at exit.
        """
        if not self.read_only:  # a reader writes no statistics
            try:
                # SQLite's advice for long-lived connections: refresh the planner's
                # statistics where they are stale (cheap when nothing changed).
                await self._conn.execute_fetchall("PRAGMA optimize")
            except sqlite3.Error:
                log.warning("PRAGMA optimize failed on %s", self.path, exc_info=True)
        await self._conn.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def connection(self) -> aiosqlite.Connection:
        """The raw connection, for tools (backup, tests) that need SQLite itself."""
        return self._conn

    def in_transaction(self) -> bool:
        """Whether the current task is inside :meth:`transaction`."""
        return self._owner is not None and self._owner is asyncio.current_task()

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[None]:
        """Run a block atomically: commit if it ends normally, roll back if it raises.

        The outermost block begins with ``BEGIN IMMEDIATE``, taking SQLite's
        write lock at once, so a read-then-write never fails half-way with
        ``SQLITE_BUSY`` because another process wrote in between.  A block
        nested in the same task becomes a ``SAVEPOINT``: if it raises, only its
        own writes are undone and the outer block may go on.  ``write=False``
        opens a plain ``BEGIN`` for a consistent read of several queries.

        Cancellation-safe: a task cancelled at any await in here leaves the
        connection outside any transaction, with its block committed whole or
        rolled back whole (a cancelled ``COMMIT`` is waited for, since SQLite
        runs it anyway).  Should a second cancellation cut even that short,
        the next task to take the connection rolls back what was left open
        (see :attr:`repairs`).

        Other tasks wait for the block to end before they touch the database,
        so a block must not await another task that uses this database: that
        task would wait for the block, and the block for it.
        """
        if self.in_transaction():
            name = f"sp{self._depth}"
            await self._complete(f"SAVEPOINT {name}", undo=f"RELEASE {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                await self._complete(f"ROLLBACK TO {name}")
                await self._complete(f"RELEASE {name}")
                raise
            else:
                await self._complete(f"RELEASE {name}")
            finally:
                self._depth -= 1
            return

        async with self._lock:
            await self._repair_if_unsure()
            # Until the block has ended cleanly, the connection's state is not
            # known for sure: a cancellation anywhere below leaves this set.
            self._unsure = True
            try:
                await self._complete("BEGIN IMMEDIATE" if write else "BEGIN", undo="ROLLBACK")
            except StorageFault as fault:
                fault.written = False  # the transaction never began
                raise
            self._owner = asyncio.current_task()
            self._depth = 1
            try:
                try:
                    yield
                except BaseException as exc:
                    _settle(exc, await self._rollback())
                    raise
                try:
                    await self._complete("COMMIT")
                except BaseException as exc:
                    _settle(exc, await self._rollback())
                    raise
                self._unsure = False
            finally:
                self._owner = None
                self._depth = 0
            if write and self.observer is not None:
                self.observer.passed("storage")

    async def _complete(self, sql: str, *, undo: str | None = None) -> None:
        """Run a statement that must complete, even if this task is cancelled meanwhile.

        SQLite's thread runs a queued statement whatever happens to the task
        that awaited it; on cancellation this waits for its outcome, so the
        connection's state is known again, undoes it with ``undo`` (a ``BEGIN``
        or ``SAVEPOINT`` nobody will end), and lets the cancellation go on.
        """
        statement = asyncio.ensure_future(self._conn.execute_fetchall(sql))
        try:
            with self._faults():
                await asyncio.shield(statement)
        except asyncio.CancelledError:
            await asyncio.wait({statement})
            if undo is not None and not statement.cancelled() and statement.exception() is None:
                await self._conn.execute_fetchall(undo)
            raise

    async def _rollback(self) -> bool:
        """Roll back the open transaction; True if it is known to be gone.

        Called while an exception is on its way: a failed ROLLBACK (the
        connection closed, say) must not hide the error that caused it.
        A COMMIT cut short by a cancellation may have ended the
        transaction already; then there is nothing to roll back.
        """
        try:
            if self._conn.in_transaction:
                await self._complete("ROLLBACK")
            self._unsure = False
            return True
        except Exception:
            log.exception("ROLLBACK failed on %s", self.path)
            return False

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """SQLite's errors that can pass become storage faults here, at the edge (:func:`fault_of`), and the
        observer hears of them.  A statement that fails outside a transaction wrote nothing."""
        try:
            yield
        except sqlite3.Error as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            if not self.in_transaction():
                fault.written = False
            if self.observer is not None:
                self.observer.failed(fault.kind, str(exc))
            raise fault from exc

    async def _repair_if_unsure(self) -> None:
        """Roll back a transaction a cancelled task left open; the caller holds the lock.

        A statement queued by a task cancelled twice may still be running in
        SQLite's thread: one more statement, queued behind it, waits for it.
        """
        if not self._unsure:
            return
        await self._conn.execute_fetchall("SELECT 1")
        if self._conn.in_transaction:
            await self._conn.execute_fetchall("ROLLBACK")
            self.repairs += 1
            log.error("rolled back a transaction a cancelled task left open on %s (repair %d)",
                      self.path, self.repairs)
        self._unsure = False

    async def check(self) -> None:
        """Take the connection once, repairing it if needed; raise if it cannot be used.

        For health checks: a connection that stays inside a transaction nobody
        owns, or a lock held forever, shows up here.
        """
        async with self._lock:
            await self._repair_if_unsure()
            await self._conn.execute_fetchall("SELECT 1")
            if self._conn.in_transaction:
                raise StorageError(f"The connection to {self.path} is inside a transaction nobody owns.")

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        """Hold the connection for one statement unless this task already holds it."""
        if self.in_transaction():
            yield
        else:
            async with self._lock:
                await self._repair_if_unsure()
                yield

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a query and return all its rows."""
        async with self._turn():
            with self._faults():
                rows = list(await self._conn.execute_fetchall(sql, params))
        return rows

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run a query and return its first row, or ``None``."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def execute(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a writing statement inside the current transaction.

        Returns the rows of its ``RETURNING`` clause, if any.  Writing outside
        :meth:`transaction` is refused: it would commit on its own and break
        the atomicity of whatever the caller meant to do.
        """
        if not self.in_transaction():
            raise StorageError("Database.execute() must run inside Database.transaction().")
        with self._faults():
            return list(await self._conn.execute_fetchall(sql, params))

    async def update_row(self, table: str, key_column: str, key: int,
                         changes: Sequence[tuple[str, Any]]) -> list[sqlite3.Row]:
        """``UPDATE table SET <changes>, updated_at = now WHERE key_column = key RETURNING *``.

        Column names come from the callers' code, never from input.  Runs in
        its own (possibly nested) transaction; an empty result means no such row.
        """
        assignments = "".join(f"{column} = ?, " for column, _ in changes)
        async with self.transaction():
            return await self.execute(
                f"UPDATE {table} SET {assignments}updated_at = ? WHERE {key_column} = ? RETURNING *",
                (*(value for _, value in changes), time.time(), key),
            )

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one writing statement for many parameter rows, inside a transaction."""
        if not self.in_transaction():
            raise StorageError("Database.executemany() must run inside Database.transaction().")
        with self._faults():
            await self._conn.executemany(sql, rows)


def _settle(exc: BaseException, rolled_back: bool) -> None:
    """A fault that ended a transaction: nothing was written if the rollback went through, else unknown."""
    if isinstance(exc, StorageFault):
        exc.written = False if rolled_back else None


async def configure(conn: aiosqlite.Connection) -> None:
    """Set the pragmas every chaodipi connection uses.

    WAL lets readers (a backup, a second tool) work while the bot writes;
    ``synchronous=NORMAL`` in WAL loses no committed transaction when the
    process dies, only possibly the last ones on a power cut, and saves an
    fsync per move; foreign keys are off by default in SQLite.
    """
    await conn.execute_fetchall(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    mode = await _enable_wal(conn)
    if mode != "wal":
        raise StorageError(f"SQLite refused WAL journal mode (got {mode!r}).")
    await conn.execute_fetchall("PRAGMA foreign_keys=ON")
    await conn.execute_fetchall("PRAGMA synchronous=NORMAL")


async def _enable_wal(conn: aiosqlite.Connection) -> str:
    """Switch the file to WAL and return the journal mode it ends up in.

    Switching needs an exclusive lock and SQLite does not wait for it (the
    busy timeout does not apply), so two processes opening a fresh file at
    the same moment would see "database is locked": retry for as long as the
    busy timeout would have waited.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            rows = list(await conn.execute_fetchall("PRAGMA journal_mode=WAL"))
            return str(rows[0][0]).lower() if rows else ""
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.1)
