"""Backups taken while the bot writes, and the restore drill."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import storage
from storage import Database, StorageError

from .conftest import start_game

REPO = Path(__file__).resolve().parents[2]


def _check(path: Path) -> list[tuple[int, int]]:
    """Integrity of a backup file and the (hand, seq) of its events, read without changing it."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        rows = conn.execute("SELECT hand_id, seq FROM events ORDER BY hand_id, seq").fetchall()
    conn.close()
    return [(h, s) for h, s in rows]


async def test_a_backup_taken_while_a_writer_runs_is_consistent(db: Database, tmp_path: Path) -> None:
    games = [await start_game(db, -(i + 1), (4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4)) for i in range(3)]
    stop = asyncio.Event()
    written = 0

    async def writer() -> None:
        nonlocal written
        seq = 1
        while not stop.is_set():
            # Several hands per transaction: a backup must never split one.
            async with db.transaction():
                for game in games:
                    await storage.append_event(db, game.hand.hand_id, seq, "play", {"n": seq})
            written = seq
            seq += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(writer())
    while written < 50:
        await asyncio.sleep(0.005)
    copies = []
    for i in range(3):
        copies.append(await storage.backup(db, tmp_path / f"backup{i}.db"))
        await asyncio.sleep(0.01)
    stop.set()
    await task

    counts = []
    for copy in copies:
        assert not copy.with_name(copy.name + "-wal").exists()
        events = _check(copy)
        per_hand = {g.hand.hand_id: [s for h, s in events if h == g.hand.hand_id] for g in games}
        n = len(per_hand[games[0].hand.hand_id])
        assert n >= 50
        for seqs in per_hand.values():
            assert seqs == list(range(1, n + 1))  # every hand cut at the same transaction
        counts.append(n)
    assert counts == sorted(counts) and counts[-1] <= written
    assert not list(tmp_path.glob("*.partial-*"))


async def test_restore_drill(db_path: Path, tmp_path: Path) -> None:
    db = await Database.open(db_path)
    game = await start_game(db)
    for seq in range(1, 21):
        await storage.append_event(db, game.hand.hand_id, seq, "play", {"n": seq})
    await storage.save_snapshot(db, game.hand.hand_id, 20, 1, {"n": 20})
    await storage.upsert_chat(db, -2, "seating")
    await storage.create_table(db, -2)
    before = await storage.load_active_tables(db)
    standings_before = await storage.player_standings(db, -1001)
    copy = await storage.backup(db, tmp_path / "nightly.db")
    await db.close()

    # Disaster: the database and its WAL are gone.
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    await storage.restore(copy, db_path)

    db = await Database.open(db_path)
    try:
        assert await storage.load_active_tables(db) == before
        assert await storage.player_standings(db, -1001) == standings_before
        await storage.append_event(db, game.hand.hand_id, 21, "play", {"n": 21})  # play goes on
    finally:
        await db.close()


async def test_restore_refuses_to_mix_with_old_files(db: Database, tmp_path: Path) -> None:
    copy = await storage.backup(db, tmp_path / "copy.db")
    target = tmp_path / "restored.db"
    Path(f"{target}-wal").write_bytes(b"stale")
    with pytest.raises(StorageError, match="restored.db-wal"):
        await storage.restore(copy, target)
    assert not target.exists()
    with pytest.raises(StorageError, match="already exists"):
        await storage.backup(db, copy)
    with pytest.raises(StorageError, match="no backup"):
        await storage.restore(tmp_path / "missing.db", tmp_path / "x.db")


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, timeout=60,
    )


async def test_the_command_line_backs_up_a_running_database(db: Database, tmp_path: Path) -> None:
    game = await start_game(db)
    await storage.append_event(db, game.hand.hand_id, 1, "deal", {})
    # The test's connection stays open: the bot is "running".
    done = await asyncio.to_thread(_cli, "backup", str(tmp_path / "a.db"), "--db", str(db.path))
    assert done.returncode == 0, done.stderr
    assert "Backed up" in done.stdout
    assert _check(tmp_path / "a.db") == [(game.hand.hand_id, 1)]

    from_env = await asyncio.to_thread(_cli, "backup", str(tmp_path / "b.db"), env={"CHAODIPI_DB": str(db.path)})
    assert from_env.returncode == 0, from_env.stderr
    again = await asyncio.to_thread(_cli, "backup", str(tmp_path / "b.db"), "--db", str(db.path))
    assert again.returncode == 1 and "already exists" in again.stderr

    restored = tmp_path / "restored.db"
    back = await asyncio.to_thread(_cli, "restore", str(tmp_path / "a.db"), "--db", str(restored))
    assert back.returncode == 0, back.stderr
    assert _check(restored) == [(game.hand.hand_id, 1)]


def test_run_without_a_token_says_how_to_get_one() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run"], cwd=REPO, capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(REPO)}, timeout=60)
    assert done.returncode == 2
    assert "TELEGRAM_BOT_TOKEN is not set" in done.stderr
    assert "chaodipi play --open" in done.stderr  # a way to play without one
    assert "Traceback" not in done.stderr
