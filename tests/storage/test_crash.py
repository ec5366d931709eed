"""A writer killed with SIGKILL loses nothing whose commit returned, and breaks nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import storage
from storage import Database

from .conftest import start_game

REPO = Path(__file__).resolve().parents[2]


def _run_and_kill(db_path: Path, hand_id: int, after: int) -> list[int]:
    """Start the writer, SIGKILL it once it reported ``after`` commits; return every reported seq."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.crash_writer", str(db_path), str(hand_id)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert child.stdout is not None
    reported: list[int] = []
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read() if child.stderr else ""
        for line in child.stdout:
            reported.append(int(line))
            if len(reported) >= after:
                break
        os.kill(child.pid, signal.SIGKILL)
        # Lines already in the pipe were printed before the kill: their commits returned.
        reported += [int(line) for line in child.stdout.read().split()]
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)
        child.stdout.close()
        if child.stderr is not None:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    return reported


async def test_sigkill_in_the_middle_of_writing(db_path: Path) -> None:
    db = await Database.open(db_path)
    game = await start_game(db)
    assert game.table.table_id == 1  # the writer touches table 1
    await db.close()

    reported: list[int] = []
    for round_ in range(3):
        reported += _run_and_kill(db_path, game.hand.hand_id, after=600)

        with sqlite3.connect(db_path) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        raw.close()

        db = await Database.open(db_path)
        try:
            events = await storage.load_events(db, game.hand.hand_id)
            seqs = [e.seq for e in events]
            assert seqs == list(range(1, len(seqs) + 1)), f"round {round_}: the log has a hole"
            assert set(reported) <= set(seqs), f"round {round_}: a committed event was lost"
            assert all(e.payload["n"] == e.seq for e in events)
            # The multi-write transactions are all-or-nothing.
            snapshot = await storage.load_snapshot(db, game.hand.hand_id)
            table = await storage.get_table(db, game.table.table_id)
            assert snapshot is not None and table is not None
            assert snapshot.seq == max(s for s in seqs if s % 25 == 0)
            assert table.turn_deadline == float(snapshot.seq)
        finally:
            await db.close()
    assert len(reported) >= 1800
