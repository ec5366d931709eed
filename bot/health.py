"""Liveness: what ``GET /health`` answers, and a heartbeat file for when no web server runs.

While the bot runs it rewrites ``<database>.heartbeat`` (e.g.
``/data/chaodipi.db.heartbeat``) every :data:`HEARTBEAT_INTERVAL` seconds
with the same JSON as ``/health``; a clean stop removes it.  ``chaodipi
health`` reads it: a fresh file means the bot's event loop is turning, in
polling and webhook mode alike, with no port to open.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

HEARTBEAT_INTERVAL: Final = 15.0
"""Seconds between two writes of the heartbeat file."""

DEFAULT_MAX_AGE: Final = 60.0
"""A heartbeat older than this (four missed beats) means the bot is stuck or gone."""


def heartbeat_path(db_path: str | Path) -> Path:
    """The heartbeat file of the bot using the database ``db_path``: beside it, ``.heartbeat`` appended."""
    path = Path(db_path)
    return path.with_name(path.name + ".heartbeat")


class Health:
    """The bot's vital signs: mode, active tables, uptime."""

    def __init__(self, mode: str, active_tables: Callable[[], int]) -> None:
        self.mode = mode
        self.active_tables = active_tables
        self.started = time.monotonic()

    def status(self) -> dict[str, Any]:
        """``{"ok": true, "mode": ..., "active_tables": n, "uptime": seconds, "pid": ..., "time": unix}``."""
        return {
            "ok": True,
            "mode": self.mode,
            "active_tables": self.active_tables(),
            "uptime": round(time.monotonic() - self.started, 1),
            "pid": os.getpid(),
            "time": round(time.time(), 1),
        }


def write_heartbeat(path: Path, status: dict[str, Any]) -> None:
    """Replace the heartbeat file atomically (a reader never sees half a file)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(status) + "\n", encoding="utf-8")
    os.replace(partial, path)


async def beat(path: Path, health: Health, interval: float = HEARTBEAT_INTERVAL) -> None:
    """Rewrite the heartbeat every ``interval`` seconds until cancelled; then remove it."""
    try:
        while True:
            try:
                # Synchronous on purpose: a few bytes, and a write still running in a
                # thread after cancellation could bring the file back after the unlink.
                write_heartbeat(path, health.status())
            except OSError:
                pass  # a full or read-only disk shows as a stale heartbeat, which is the point
            await asyncio.sleep(interval)
    finally:
        path.unlink(missing_ok=True)


def check_heartbeat(path: Path, max_age: float = DEFAULT_MAX_AGE, now: float | None = None) -> tuple[bool, str]:
    """Whether the heartbeat at ``path`` is fresh, with a one-line explanation."""
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
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
    return True, f"alive ({age:.0f} s ago): {summary}"
