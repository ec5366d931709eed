"""Health: a database connection stuck in a transaction makes the bot unhealthy, and says so."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot import cli as chaodipi_cli
from bot.health import Health, check_heartbeat, heartbeat_path, write_heartbeat
from storage import Database


async def test_a_connection_left_inside_a_transaction_is_reported(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    db = await Database.open(tmp_path / "chaodipi.db")
    try:
        health = Health("polling", lambda: 1, lambda: db)
        await health.check_database()
        assert health.status()["ok"] and health.status()["db"] == "ok"

        await db.connection.execute_fetchall("BEGIN")  # a transaction no task of the bot owns
        await health.check_database()
        status = health.status()
        assert status["ok"] is False and "nobody owns" in status["db"]
        beat = heartbeat_path(db.path)
        write_heartbeat(beat, status)
        alive, message = check_heartbeat(beat)
        assert not alive and "unhealthy" in message and "nobody owns" in message
        assert chaodipi_cli.main(["health", "--db", str(db.path)]) == 1
        assert "nobody owns" in capsys.readouterr().err

        await db.connection.execute_fetchall("ROLLBACK")
        await health.check_database()
        write_heartbeat(beat, health.status())
        assert chaodipi_cli.main(["health", "--db", str(db.path)]) == 0
        assert json.loads(beat.read_text())["db"] == "ok"
    finally:
        await db.close()


async def test_a_database_held_too_long_is_reported(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "chaodipi.db")
    try:
        health = Health("polling", lambda: 0, lambda: db)
        async with db.transaction():  # the connection is held for the whole check
            await health.check_database(timeout=0.05)
        assert health.status()["ok"] is False and "busy" in health.status()["db"]
        await health.check_database()
        assert health.status()["ok"] is True
    finally:
        await db.close()


async def test_the_status_counts_tasks_and_what_the_tables_keep_going() -> None:
    """A leak shows in the heartbeat: the loop's tasks, and the service's timers, AI loops and messages."""
    import asyncio

    load = {"tables": 2, "timers": 1, "ai_loops": 0, "searches": 1, "messages": 8, "background": 0}
    health = Health("polling", lambda: 2, None, lambda: load)
    status = health.status()
    assert status["load"] == load
    assert status["tasks"] == len(asyncio.all_tasks()) >= 1
    assert json.loads(json.dumps(status)) == status  # what the heartbeat file holds


async def test_the_heartbeat_stops_when_cancelled_as_its_database_check_ends(tmp_path: Path) -> None:
    """A stop that comes just as a beat's database check answers still stops the heartbeat.

    Python 3.11's ``asyncio.wait_for`` drops a cancellation that arrives while the awaited task has
    just finished: a heartbeat checking the database that way beat on forever, and a bot refused its
    webhook at start-up never exited (a one-in-hundreds hang of the shut-down test).
    """
    import asyncio

    from bot.health import beat

    heartbeat: asyncio.Task[None] | None = None

    class Database:
        """Answers at once, the stop arriving while it does (as when the bot stops right after starting)."""
        path = tmp_path / "chaodipi.db"
        repairs = 0

        checks = 0

        async def check(self) -> None:
            assert heartbeat is not None
            Database.checks += 1
            if Database.checks == 1:
                heartbeat.cancel()

    health = Health("polling", lambda: 0, lambda: Database())  # type: ignore[arg-type,return-value]
    path = heartbeat_path(tmp_path / "chaodipi.db")
    heartbeat = asyncio.create_task(beat(path, health, interval=0.01))
    done, _ = await asyncio.wait({heartbeat}, timeout=2.0)
    if not done:
        heartbeat.cancel()  # a second cancellation, so the test itself ends
        await asyncio.gather(heartbeat, return_exceptions=True)
    assert done and heartbeat.cancelled(), "the heartbeat went on beating after it was cancelled"
    assert not path.exists()


async def test_the_heartbeat_gives_freed_memory_back_every_few_beats(tmp_path: Path) -> None:
    import asyncio

    from bot.health import beat

    released: list[int] = []
    beats: list[int] = []

    class Counted(Health):
        def status(self) -> dict[str, object]:
            beats.append(len(released))
            return super().status()

    health = Counted("polling", lambda: 0)

    def release() -> bool:
        released.append(len(beats))
        return True

    path = heartbeat_path(tmp_path / "chaodipi.db")
    heartbeat = asyncio.create_task(beat(path, health, interval=0.001, release_every=3, release=release))
    while len(beats) < 10:
        await asyncio.sleep(0.001)
    heartbeat.cancel()
    await asyncio.gather(heartbeat, return_exceptions=True)
    # Before the 3rd, 6th, 9th … beat's write: after 2, 5, 8 … beats were written.
    assert released[:3] == [2, 5, 8]


async def test_a_full_disk_is_told_by_the_heartbeat_file_while_it_lasts(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """No block for a new file: the beat rewrites the old file's bytes, and `chaodipi health` fails at once."""
    import errno

    from bot import health as health_module
    from bot.health import HEARTBEAT_SIZE, beat

    path = heartbeat_path(tmp_path / "chaodipi.db")
    health = Health("polling", lambda: 0)
    write_heartbeat(path, health.status())
    assert path.stat().st_size == HEARTBEAT_SIZE and check_heartbeat(path)[0]
    real_replace = health_module.os.replace

    def no_space(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(health_module.os, "replace", no_space)
    beating = asyncio.create_task(beat(path, health, interval=60))
    try:
        async with asyncio.timeout(5):
            while health.heartbeat_problem is None:
                await asyncio.sleep(0.01)
        alive, message = check_heartbeat(path)
        assert not alive and "No space left on device" in message, message
        assert path.stat().st_size == HEARTBEAT_SIZE
        assert not path.with_name(path.name + ".partial").exists()
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
    monkeypatch.setattr(health_module.os, "replace", real_replace)


async def test_a_heartbeat_with_too_much_to_say_keeps_its_size_and_its_verdict(tmp_path: Path) -> None:
    from bot.health import HEARTBEAT_SIZE

    path = tmp_path / "hb"
    status = Health("polling", lambda: 0, failing=lambda: [f"task {n} failed" * 50 for n in range(200)]).status()
    write_heartbeat(path, status)
    assert path.stat().st_size == HEARTBEAT_SIZE
    alive, message = check_heartbeat(path)
    assert not alive and "task 0 failed" in message
