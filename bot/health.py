"""Liveness: what ``GET /health`` answers, and a heartbeat file for when no web server runs.

While the bot runs it rewrites ``<database>.heartbeat`` (e.g.
``/data/chaodipi.db.heartbeat``) every :data:`HEARTBEAT_INTERVAL` seconds
with the same JSON as ``/health``; a clean stop removes it.  ``chaodipi
health`` reads it: a fresh file means the bot's event loop is turning, in
polling and webhook mode alike, with no port to open.  The file is always
:data:`HEARTBEAT_SIZE` bytes; when a new one cannot be written (a full
disk), the beat rewrites the old one's bytes in place, saying why, so that
``chaodipi health`` tells the fault while it lasts.

Each beat also takes the database connection once (:meth:`Database.check
<storage.Database.check>`), and checks that every table that should move
has what moves it (:func:`bot.tables.turns.watch`, which repairs what is
missing).  One field per trouble, each of which makes the status ``"ok":
false`` and ``chaodipi health`` fail:

``db``           the connection is stuck inside a transaction nobody owns, or held longer than
                 :data:`DB_CHECK_TIMEOUT`
``faults``       faults that can pass, open now, with how long and how many failures: storage
                 writes failing (``locked``, ``full``, ``io``) and Telegram unreachable (``telegram``)
``stuck``        tables that should have moved (an AI seat, a person past their deadline, the end of
                 a pause) and have not for :data:`bot.tables.turns.STUCK_AFTER` seconds
``heartbeat``    a new heartbeat file could not be written (the old one is rewritten in place, saying so;
                 on a read-only disk its age shows in ``chaodipi health``)
``failing``      background work that keeps failing with a fault that does not pass by itself: a task
                 failing again and again, many failures in a minute, a season's end that could not be
                 told (:meth:`bot.tasks.Supervisor.troubles`, :meth:`bot.league.seasons.SeasonWatcher.troubles`)

Every :data:`RELEASE_EVERY` beats the memory the bot freed goes back to the
system (:mod:`bot.memory`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from bot.faults import Faults
from bot.memory import release_memory
from bot.tasks import came_through
from storage import Database, StorageError

HEARTBEAT_SIZE: Final = 16384
"""Bytes of the heartbeat file, always (see :func:`overwrite_heartbeat`)."""
HEARTBEAT_INTERVAL: Final = 15.0
"""Seconds between two writes of the heartbeat file."""

DEFAULT_MAX_AGE: Final = 60.0
"""A heartbeat older than this (four missed beats) means the bot is stuck or gone."""

DB_CHECK_TIMEOUT: Final = 10.0
"""Seconds a beat waits for the database connection before calling it stuck."""

RELEASE_EVERY: Final = 20
"""Beats between two returns of freed memory to the system (:func:`bot.memory.release_memory`): 5 minutes."""


def heartbeat_path(db_path: str | Path) -> Path:
    """The heartbeat file of the bot using the database ``db_path``: beside it, ``.heartbeat`` appended."""
    path = Path(db_path)
    return path.with_name(path.name + ".heartbeat")


class Health:
    """The bot's vital signs: mode, active tables, uptime, the database connection, open faults, stuck
    tables, the heartbeat file."""

    def __init__(self, mode: str, active_tables: Callable[[], int],
                 database: Callable[[], Database | None] | None = None,
                 load: Callable[[], dict[str, Any]] | None = None, faults: Faults | None = None,
                 watch: Callable[[], list[int]] | None = None,
                 failing: Callable[[], list[str]] | None = None) -> None:
        self.mode = mode
        self.active_tables = active_tables
        self.load = load
        self.database = database
        self.faults = faults
        self.watch = watch
        """Checks (and repairs) that every table that should move can; returns the stuck ones."""
        self.failing = failing
        """The background work that keeps failing, one phrase each."""
        self.started = time.monotonic()
        self.db_problem: str | None = None
        """Why the last check found the database connection unusable; None when it was fine."""
        self.db_repairs = 0
        self.stuck: list[int] = []
        """Tables the last watch found stuck."""
        self.heartbeat_problem: str | None = None
        """Why the heartbeat file could not be written last time; None when it was."""

    async def check_database(self, timeout: float = DB_CHECK_TIMEOUT) -> None:
        """Take the database connection once (repairing it if a cancelled task left it open)."""
        db = self.database() if self.database is not None else None
        if db is None:
            return
        try:
            # Not asyncio.wait_for: in Python 3.11 it drops a cancellation that arrives as the check
            # ends, and a heartbeat told to stop would beat on for ever.
            async with asyncio.timeout(timeout):
                await db.check()
            self.db_problem = None
        except TimeoutError:
            self.db_problem = f"the database connection was busy for more than {timeout:.0f} s"
        except (StorageError, sqlite3.Error, ValueError) as exc:  # ValueError: aiosqlite's "Connection closed"
            self.db_problem = f"the database connection is unusable: {exc}"
        self.db_repairs = db.repairs

    def look(self) -> None:
        """Each beat: the tables are watched (and repaired where something is missing)."""
        if self.watch is not None:
            self.stuck = self.watch()

    def status(self) -> dict[str, Any]:
        """``{"ok": true, "db": "ok", "faults": {}, "stuck": [], "failing": [], "heartbeat": "ok",
        "db_repairs": n, "mode": ..., "active_tables": n, "uptime": seconds, "pid": ..., "time": unix,
        "tasks": n, "load": {...}}``; ``ok`` is false when any of ``db``, ``faults``, ``stuck``, ``failing``
        and ``heartbeat`` reports a trouble (see the module's docstring).  ``tasks`` counts the event loop's
        tasks and ``load`` what the table service keeps going (:meth:`bot.tables.house.House.load`): numbers that keep growing with a
        steady load are a leak."""
        faults = self.faults.status() if self.faults is not None else {}
        failing = self.failing() if self.failing is not None else []
        return {
            "ok": (self.db_problem is None and not faults and not self.stuck and self.heartbeat_problem is None
                   and not failing),
            "db": self.db_problem or "ok",
            "faults": faults,
            "stuck": list(self.stuck),
            "failing": failing,
            "heartbeat": self.heartbeat_problem or "ok",
            "db_repairs": self.db_repairs,
            "mode": self.mode,
            "active_tables": self.active_tables(),
            "uptime": round(time.monotonic() - self.started, 1),
            "pid": os.getpid(),
            "time": round(time.time(), 1),
            "tasks": len(asyncio.all_tasks()),
            "load": self.load() if self.load is not None else {},
        }


def write_heartbeat(path: Path, status: dict[str, Any]) -> None:
    """Replace the heartbeat file atomically (a reader never sees half a file); it is always
    :data:`HEARTBEAT_SIZE` bytes (the JSON, padded), so that :func:`overwrite_heartbeat` can rewrite it in
    place when no new file can be written."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(_padded(status))
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise


def overwrite_heartbeat(path: Path, status: dict[str, Any]) -> None:
    """Write the status over the heartbeat file's own bytes: a full disk has no block for a new file, but
    the old one's blocks are there to rewrite.  A reader may catch it half-written: :func:`check_heartbeat`
    reads again then."""
    with path.open("r+b") as file:
        file.write(_padded(status))
        file.flush()


def _padded(status: dict[str, Any]) -> bytes:
    """The status as JSON, padded with spaces to :data:`HEARTBEAT_SIZE` bytes (the details cut if longer)."""
    data = json.dumps(status).encode()
    if len(data) >= HEARTBEAT_SIZE:
        brief: dict[str, Any] = {key: status[key] for key in ("ok", "db", "heartbeat", "mode", "active_tables", "uptime", "pid",
                                               "time") if key in status}
        brief["troubles"] = [phrase[:200] for phrase in troubles(status)[:20]] if not status.get("ok") else []
        data = json.dumps(brief).encode()[: HEARTBEAT_SIZE - 1]
    return data.ljust(HEARTBEAT_SIZE - 1) + b"\n"


async def beat(path: Path, health: Health, interval: float = HEARTBEAT_INTERVAL,
               release_every: int = RELEASE_EVERY, release: Callable[[], bool] = release_memory) -> None:
    """Rewrite the heartbeat every ``interval`` seconds until cancelled; then remove it.  Every
    ``release_every`` beats, give the memory the bot freed back to the system (``release``)."""
    beats = 0
    try:
        while True:
            beats += 1
            if beats % release_every == 0:
                release()
            await health.check_database()
            health.look()
            # Synchronous on purpose: a few KB, and a write still running in a
            # thread after cancellation could bring the file back after the unlink.
            try:
                write_heartbeat(path, health.status())
                health.heartbeat_problem = None
            except OSError as exc:  # a full or read-only disk: /health says so, and the file says it too
                health.heartbeat_problem = f"the heartbeat file cannot be written: {exc.strerror or exc}"
                with contextlib.suppress(OSError):  # read-only, or never written: its age tells then
                    overwrite_heartbeat(path, health.status())
            came_through()
            await asyncio.sleep(interval)
    finally:
        path.unlink(missing_ok=True)


def troubles(status: dict[str, Any]) -> list[str]:
    """What makes a status unhealthy, one phrase each."""
    found = []
    if status.get("db", "ok") != "ok":
        found.append(str(status["db"]))
    for fault in (status.get("faults") or {}).values():
        found.append(f"{fault.get('what')} for {fault.get('for')} s ({fault.get('failures')} failures)")
    if status.get("stuck"):
        found.append(f"tables stuck: {', '.join(str(t) for t in status['stuck'])}")
    if status.get("heartbeat", "ok") != "ok":
        found.append(str(status["heartbeat"]))
    found.extend(str(item) for item in status.get("failing") or ())
    found.extend(str(item) for item in status.get("troubles") or ())  # a heartbeat cut to its size
    return found or ["unhealthy"]


def _read_status(path: Path, tries: int = 3) -> dict[str, Any]:
    """The heartbeat's JSON; read again when caught half-rewritten in place (:func:`overwrite_heartbeat`)."""
    for attempt in range(tries):
        try:
            found = json.loads(path.read_bytes())
        except ValueError:
            if attempt == tries - 1:
                raise
            time.sleep(0.05)
            continue
        return found if isinstance(found, dict) else {}
    raise AssertionError("unreachable")


def check_heartbeat(path: Path, max_age: float = DEFAULT_MAX_AGE, now: float | None = None) -> tuple[bool, str]:
    """Whether the heartbeat at ``path`` is fresh, with a one-line explanation."""
    try:
        status = _read_status(path)
        written = float(status["time"])
    except FileNotFoundError:
        return False, f"no heartbeat at {path}: the bot is not running (or uses another database)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return False, f"unreadable heartbeat at {path}: {exc}"
    age = (time.time() if now is None else now) - written
    summary = (f"mode={status.get('mode')} active_tables={status.get('active_tables')} "
               f"uptime={status.get('uptime')}s pid={status.get('pid')}")
    if age > max_age:
        return False, f"stale heartbeat ({age:.0f} s old, limit {max_age:.0f} s): {summary}"
    if status.get("ok") is False:
        return False, f"unhealthy: {'; '.join(troubles(status))}: {summary}"
    if status.get("db_repairs"):
        summary += f" db_repairs={status['db_repairs']}"
    return True, f"alive ({age:.0f} s ago): {summary}"
