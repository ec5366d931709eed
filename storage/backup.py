"""Consistent copies of a live database, and putting one back.

A backup uses SQLite's online backup API on a connection of its own, in one
step: it reads a single snapshot of the database while the bot's connection
goes on writing (WAL lets one writer and many readers work at once).  The copy
is written beside its destination, checked with ``PRAGMA integrity_check`` and
only then renamed into place, so a failed backup never leaves a half file
under the name asked for.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from storage.db import BUSY_TIMEOUT_MS, Database
from storage.errors import StorageError


async def backup(db: Database, path: str | Path) -> Path:
    """Copy the open database to ``path`` (which must not exist) while it stays in use."""
    return await backup_file(db.path, path)


async def backup_file(source: str | Path, path: str | Path) -> Path:
    """Copy the database file ``source`` to ``path`` (which must not exist); return ``path``.

    Safe while another process (the bot) writes to ``source``.  The copy is a
    single file in rollback-journal mode, ready to be moved anywhere.
    """
    source, path = Path(source), Path(path)
    if not source.is_file():
        raise StorageError(f"There is no database at {source} to back up.")
    if path.exists():
        raise StorageError(f"{path} already exists; choose a new name for the backup.")
    await asyncio.to_thread(_copy, source, path)
    return path


async def restore(backup_path: str | Path, db_path: str | Path) -> Path:
    """Put a backup back as the database ``db_path``; the bot must be stopped.

    Refuses if ``db_path`` or its ``-wal``/``-shm`` files exist: a stale WAL
    file beside a restored database would be replayed into it and corrupt it,
    so the old files must be moved away first, deliberately.
    """
    backup_path, db_path = Path(backup_path), Path(db_path)
    if not backup_path.is_file():
        raise StorageError(f"There is no backup at {backup_path}.")
    leftovers = [p for p in _files_of(db_path) if p.exists()]
    if leftovers:
        raise StorageError(
            "Refusing to restore over existing files: "
            + ", ".join(str(p) for p in leftovers)
            + ". Stop the bot and move them away first."
        )
    await asyncio.to_thread(_copy, backup_path, db_path)
    return db_path


def _files_of(db_path: Path) -> list[Path]:
    return [db_path, db_path.with_name(db_path.name + "-wal"), db_path.with_name(db_path.name + "-shm")]


def _copy(source: Path, dest: Path) -> None:
    partial = dest.with_name(f"{dest.name}.partial-{os.getpid()}")
    for leftover in _files_of(partial):
        leftover.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            dst = sqlite3.connect(partial)
            try:
                # pages=-1: copy in one step, from one read snapshot.  In
                # several steps a write from the bot's connection would
                # restart the copy, again and again on a busy table.
                src.backup(dst, pages=-1)
                # The copy inherits WAL mode; a backup is one self-contained
                # file instead.  The bot turns WAL back on when it opens it.
                dst.execute("PRAGMA journal_mode=DELETE").fetchall()
                result = dst.execute("PRAGMA integrity_check").fetchall()
                if [tuple(r) for r in result] != [("ok",)]:
                    raise StorageError(f"The copy of {source} failed its integrity check: {result}")
            finally:
                dst.close()
        finally:
            src.close()
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, dest)
        _fsync_dir(dest.parent)
    except BaseException:
        for leftover in _files_of(partial):
            leftover.unlink(missing_ok=True)
        raise


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
