"""Every long-lived task of the bot, started in one place: named, watched, restarted.

A task that dies unseen is the worst bug a bot can have: its table just
stops.  So nothing in the bot calls ``asyncio.create_task`` itself; it asks a
:class:`Supervisor` to :meth:`~Supervisor.start` a named piece of work (an
AI seat's loop, a turn's timer, an edit of a message, a chat's outbox, the
heartbeat).  The supervisor runs it in a task of its own; when the work
raises something unexpected, the supervisor logs it once, with its table
and a traceback, and runs the work again after a pause that doubles each
time (:data:`FIRST_BACKOFF` … :data:`LAST_BACKOFF`).  A fault that can pass
(:func:`bot.faults.passes`: the database locked, storage full, Telegram unreachable)
is logged by :mod:`bot.faults` where it happens, once; the work just runs
again after :data:`FIRST_BACKOFF`, so that it goes on as soon as the fault
passes.  When the work comes
through again (it ends normally, or a loop that never ends calls
:func:`came_through` after a round that worked), one line says so.  Work that
ends normally, or is cancelled, is over.  :meth:`~Supervisor.summary` lists
what runs, for the heartbeat.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from bot import logs
from bot.faults import passes

log = logging.getLogger(__name__)

KEEPS_FAILING: Final = 3
"""Failures in a row (of a fault that does not pass by itself) after which ``/health`` names a task."""
FAILURE_WINDOW: Final = 60.0
"""Seconds over which :meth:`Supervisor.troubles` counts failures of every task together."""
MOST_FAILURES: Final = 10
"""Failures (that do not pass) within :data:`FAILURE_WINDOW` that make ``/health`` unhealthy, whichever tasks
they were of: short-lived work that fails once each time (a send per message) never fails twice in a row."""
FIRST_BACKOFF: Final = 1.0
"""Seconds before work that failed runs again the first time."""
LAST_BACKOFF: Final = 60.0
"""The longest pause between two runs of work that keeps failing."""

Work = Callable[[], Awaitable[Any]]
"""Makes the coroutine of one run of a piece of work (called again for each restart)."""


@dataclass(slots=True)
class Entry:
    """One supervised task: what it is, for which table, and how it fared."""

    name: str
    table: int | None
    restart: bool
    failures: int = 0
    """Failures in a row (0 once a run came through)."""
    last_error: str = ""
    last_logged: str = ""
    """The error whose traceback was logged last (a different one is logged too)."""
    since: float = field(default=0.0)
    """Loop time of the first failure of the current streak."""
    expected: bool = False
    """The last failure was a fault that passes by itself (:func:`bot.faults.passes`): ``/health`` tells it as
    a fault, not as this task's."""

    @property
    def kind(self) -> str:
        """The name up to its first space: ``"ai 12"`` is of kind ``"ai"``."""
        return self.name.split(" ", 1)[0]


_CURRENT: contextvars.ContextVar[Entry | None] = contextvars.ContextVar("chaodipi_task", default=None)


def came_through() -> None:
    """Called by supervised work that loops for ever, after a round that worked: a streak of failures is over."""
    entry = _CURRENT.get()
    if entry is not None and entry.failures:
        _recovered(entry)


def _recovered(entry: Entry) -> None:
    if entry.last_logged:  # a streak of faults that pass by themselves was never logged here: nor is its end
        log.warning("task %r%s works again after %d failure%s in %.0f s", entry.name, _of(entry), entry.failures,
                    "" if entry.failures == 1 else "s", asyncio.get_running_loop().time() - entry.since)
    entry.failures = 0
    entry.last_logged = ""


class Supervisor:
    """Starts named tasks, restarts the ones that fail, and knows which are running."""

    def __init__(self, *, first_backoff: float = FIRST_BACKOFF, last_backoff: float = LAST_BACKOFF) -> None:
        self.first_backoff = first_backoff
        self.last_backoff = last_backoff
        self._tasks: dict[asyncio.Task[None], Entry] = {}
        self._by_name: dict[str, asyncio.Task[None]] = {}
        self.failed = 0
        """Failures seen since start (each run that raised counts once)."""
        self._recent: deque[float] = deque()
        """Loop times of the latest failures that do not pass by themselves (within :data:`FAILURE_WINDOW`)."""

    def start(self, name: str, work: Work, *, table: int | None = None, restart: bool = True) -> asyncio.Task[None]:
        """Run ``work`` in a task of its own, supervised; returns the task (cancel it to stop the work).

        ``name`` says what it is (``"ai 12"``, ``"timer 12"``, ``"edit -100:group"``); the last task
        started under a name is what :meth:`get` finds.  ``restart=False``: log a failure, do not run again.
        """
        entry = Entry(name, table, restart)
        task = asyncio.get_running_loop().create_task(self._run(entry, work), name=name)
        self._tasks[task] = entry
        self._by_name[name] = task
        task.add_done_callback(self._done)
        return task

    def get(self, name: str) -> asyncio.Task[None] | None:
        """The task last started under ``name``, while it runs."""
        task = self._by_name.get(name)
        return task if task is not None and not task.done() else None

    def cancel(self, name: str) -> asyncio.Task[None] | None:
        """Cancel the task last started under ``name`` (if it runs); returns it, to await if wanted."""
        task = self.get(name)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        return task

    def of_table(self, table_id: int) -> list[asyncio.Task[None]]:
        """The running tasks started for a table."""
        return [task for task, entry in self._tasks.items() if entry.table == table_id and not task.done()]

    def running(self, *, of_tables: bool = False) -> list[asyncio.Task[None]]:
        """Every task that has not ended (``of_tables``: only those started for a table)."""
        return [task for task, entry in self._tasks.items()
                if not task.done() and (not of_tables or entry.table is not None)]

    def summary(self) -> dict[str, Any]:
        """For the heartbeat: running tasks by kind, the failures seen, and the work failing right now."""
        kinds = Counter(entry.kind for task, entry in self._tasks.items() if not task.done())
        failing = [{"name": entry.name, "table": entry.table, "failures": entry.failures, "error": entry.last_error}
                   for entry in self._tasks.values() if entry.failures]
        return {"running": dict(sorted(kinds.items())), "failed": self.failed, "failing": failing}

    def troubles(self) -> list[str]:
        """For ``/health``: each task that keeps failing (:data:`KEEPS_FAILING` in a row, of faults that do not
        pass), and the failures of all tasks together when more than :data:`MOST_FAILURES` came within
        :data:`FAILURE_WINDOW`; one phrase each, none when all is well."""
        found = [f"task {entry.name!r}{_of(entry)} failed {entry.failures} times in a row ({entry.last_error})"
                 for task, entry in self._tasks.items()
                 if not task.done() and entry.failures >= KEEPS_FAILING and not entry.expected]
        self._forget_old(asyncio.get_running_loop().time())
        if len(self._recent) >= MOST_FAILURES:
            found.append(f"{len(self._recent)} task failures in the last {FAILURE_WINDOW:.0f} s")
        return found

    def _forget_old(self, now: float) -> None:
        while self._recent and self._recent[0] < now - FAILURE_WINDOW:
            self._recent.popleft()

    async def _run(self, entry: Entry, work: Work) -> None:
        if entry.table is not None and logs.current()[0] != entry.table:
            logs.bind(table=entry.table)
        _CURRENT.set(entry)
        loop = asyncio.get_running_loop()
        while True:
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 — the point: nothing dies unseen
                self.failed += 1
                entry.failures += 1
                entry.last_error = type(exc).__name__
                if entry.failures == 1:
                    entry.since = loop.time()
                expected = passes(exc)  # bot.faults has logged it where it happened
                entry.expected = expected
                if not expected:
                    self._recent.append(loop.time())
                    self._forget_old(loop.time())
                if not expected and entry.last_logged != entry.last_error:
                    entry.last_logged = entry.last_error
                    log.error("task %r%s failed: %s%s", entry.name, _of(entry), type(exc).__name__,
                              "; it runs again shortly" if entry.restart else "", exc_info=exc)
                if not entry.restart:
                    return
                backoff = self.first_backoff * (1 if expected else 2 ** (entry.failures - 1))
                await asyncio.sleep(min(self.last_backoff, backoff))
                continue
            if entry.failures:
                _recovered(entry)
            return

    def _done(self, task: asyncio.Task[None]) -> None:
        entry = self._tasks.pop(task, None)
        if entry is not None and self._by_name.get(entry.name) is task:
            del self._by_name[entry.name]

    async def close(self, timeout: float | None = None) -> None:
        """Cancel every task and wait for them (shut-down)."""
        tasks = self.running()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)


def _of(entry: Entry) -> str:
    return f" of table {entry.table}" if entry.table is not None else ""
