"""Suite-wide: the tests marked ``long`` run first, spread over the workers, and a test that seems stuck says where.

A ``long`` test takes ten seconds or more of wall clock, most of it usually
spent waiting on a real clock (a hand at human pace, Telegram's flood windows,
a process starting); the other end-to-end tests take seconds.  Started first,
they wait while the many short tests use the cores; started last, the whole
run would wait for them at the end.

A test still running after ``faulthandler_timeout`` seconds (pyproject.toml;
the longest test takes about two minutes on a loaded machine) has pytest
write every thread's stack to standard error, and this file adds every
pending asyncio task's chain of awaits; the test runs on.  A rare hang then
shows in the CI log where it waits, instead of only eating the run's time.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compiled import stale_builds, stale_message

_report_fd: int | None = None
"""A copy of standard error taken before any test captures it (as pytest's faulthandler does)."""


def pytest_configure(config: pytest.Config) -> None:
    global _report_fd
    stale = stale_builds()
    if stale:  # the tests would test the code a compiled module was built from, not the source
        raise pytest.UsageError(stale_message(stale))
    config.addinivalue_line("markers", "long: takes ten seconds or more of wall clock; scheduled first")
    config.addinivalue_line("markers", "slow: left out of the quick tier (pytest -m 'not slow'): every end-to-end "
                                       "and bench test, and every long one; set here, not by hand")
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, ValueError):  # pytest-xdist's stand-in is not a file
        assert sys.__stderr__ is not None
        fileno = sys.__stderr__.fileno()
    _report_fd = os.dup(fileno)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _report_fd
    if _report_fd is not None:
        os.close(_report_fd)
        _report_fd = None


def pytest_itemcollected(item: pytest.Item) -> None:
    """Marks ``slow`` what the quick tier leaves out (before ``-m`` reads the marks)."""
    parts = item.path.relative_to(Path(__file__).parent).parts
    if parts[0] in ("e2e", "bench") or item.get_closest_marker("long") is not None:
        item.add_marker(pytest.mark.slow)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    long = [item for item in items if item.get_closest_marker("long") is not None]
    rest = [item for item in items if item.get_closest_marker("long") is None]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    # pytest-xdist's work stealing hands each worker one contiguous share of this order at the start, and
    # later moves the ends of the longest queues.  Each share is dealt out like cards and begins with its
    # part of the long tests; the rest of it starts at a different point of the suite in each share, so that
    # the end-to-end tests (mostly waiting) run beside the engine's (mostly computing), not all at once.
    shares = []
    for first in range(workers):
        mine = rest[first::workers]
        cut = first * len(mine) // workers
        shares.append(long[first::workers] + mine[cut:] + mine[:cut])
    items[:] = [item for share in shares for item in share]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    after = float(item.config.getini("faulthandler_timeout") or 0.0)
    if after <= 0:
        yield
        return
    timer = threading.Timer(after, report_stuck, args=(item.nodeid, after))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def report_stuck(nodeid: str, after: float) -> None:
    """Write the awaits of every pending asyncio task to standard error (pytest writes the threads)."""
    if _report_fd is None:
        return
    report = (f"\n==== {nodeid} still running after {after:.0f} s (pid {os.getpid()}, "
              f"{time.strftime('%H:%M:%S')}): its asyncio tasks ====\n{tasks_report()}"
              f"==== end of the tasks of {nodeid} ====\n")
    os.write(_report_fd, report.encode("utf-8", "replace"))


def tasks_report() -> str:
    """Every pending asyncio task of the process and what it awaits, frame by frame (read from
    another thread: good enough for a diagnosis, not exact)."""
    for _ in range(100):
        try:
            tasks = [t for t in list(asyncio.tasks._all_tasks) if not t.done()]  # type: ignore[attr-defined]
            break
        except RuntimeError:  # the set changed while it was copied
            continue
    else:
        return "(the task set kept changing)\n"
    lines = []
    for task in tasks:
        lines.append(f"task {task.get_name()}: {task!r:.300}")
        awaited: Any = task.get_coro()
        while awaited is not None:
            frame = (getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
                     or getattr(awaited, "gi_frame", None))
            if frame is not None:
                lines.append(f"    {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
            inner = (getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
                     or getattr(awaited, "gi_yieldfrom", None))
            if inner is not None and not any(hasattr(inner, a) for a in ("cr_frame", "ag_frame", "gi_frame")):
                lines.append(f"    awaits {inner!r:.300}")
                break
            awaited = inner
    return "\n".join(lines) + "\n"
