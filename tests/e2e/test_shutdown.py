"""``chaodipi run`` as its own process: SIGTERM stops it cleanly, in polling and webhook mode.

The fake Telegram runs in this test's process; the bot is started exactly as
an operator would start it (``python -m bot.cli run`` with the settings
in the environment), plays, and is stopped with SIGTERM as systemd or Docker
stop it.  It must exit 0 promptly, having stored every move it made: the
database passes ``integrity_check``, every hand's log is contiguous, and a
second start carries on where the first stopped.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import aiohttp
import pytest

import storage

from .fake_telegram import FakeTelegram, FloodLimits
from .fake_webhook import accept_set_webhook
from .test_webhook import free_port

REPO = Path(__file__).resolve().parents[2]
STOP_WITHIN = 20.0
"""Seconds: well under systemd's TimeoutStopSec and compose's stop_grace_period (30 s)."""
START_WITHIN = 60.0
"""Seconds for a start-up (Python and its imports; a start-up is not what these tests time, and a busy
machine may take long)."""


class BotProcess:
    """``chaodipi run`` in a subprocess, its log in a file."""

    def __init__(self, server: FakeTelegram, db: Path, **env: str) -> None:
        self.db = db
        self.log_path = db.with_name(f"bot-{len(list(db.parent.glob('bot-*.log')))}.log")
        self.env = {
            **os.environ, "PYTHONPATH": str(REPO), "TELEGRAM_BOT_TOKEN": server.token,
            "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(db), "CHAODIPI_AI_DELAY": "0.02",
            "CHAODIPI_GROUP_INTERVAL": "0.5", **env,
        }
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with open(self.log_path, "wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "run", cwd=REPO, env=self.env,
                stdout=log, stderr=subprocess.STDOUT,
            )

    @property
    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait_alive(self, timeout: float = START_WITHIN) -> None:
        """Until ``chaodipi health`` says the bot is alive (it writes its heartbeat after start-up)."""
        assert self.process is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if self.process.returncode is not None:
                raise AssertionError(f"the bot exited with {self.process.returncode}:\n{self.log}")
            if (await health(self.db)).returncode == 0:
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"the bot did not come up:\n{self.log}")

    async def wait_exit(self, timeout: float, why: str) -> int:
        """The exit status, which must come within ``timeout`` seconds; else every thread's stack goes
        to the log (SIGUSR1, as an operator would ask for them) and the log to the failure."""
        assert self.process is not None
        try:
            return await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            state = process_state(self.process.pid)
            self.process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(1)
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"no exit {timeout} s after {why} (process state then: {state}):\n"
                                 f"{self.log}") from None

    async def terminate(self) -> int:
        """SIGTERM; the exit status, which must come within :data:`STOP_WITHIN` seconds."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return await self.wait_exit(STOP_WITHIN, "SIGTERM")


def process_state(pid: int) -> str:
    """The state letter in ``/proc/<pid>/stat`` (``Z``: exited, not yet reaped), or why there is none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError) as exc:
        return f"unknown ({exc.__class__.__name__})"


async def health(db: Path) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "bot.cli", "health", "--db", str(db)], cwd=REPO,
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def event_count(db: Path) -> int:
    """Stored events, read beside the running bot (WAL lets a reader in)."""
    with closing(sqlite3.connect(db, timeout=5)) as conn:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


async def wait_events(db: Path, more_than: int, timeout: float = 20.0) -> int:
    for _ in range(int(timeout / 0.1)):
        count = event_count(db)
        if count > more_than:
            return count
        await asyncio.sleep(0.1)
    raise AssertionError(f"no more than {more_than} events after {timeout} s")


def assert_stopped_cleanly(bot: BotProcess, status: int) -> None:
    assert status == 0, bot.log
    assert "Traceback" not in bot.log, bot.log
    assert " WARNING " not in bot.log and " ERROR " not in bot.log, bot.log  # e.g. a last edit that failed
    assert "database closed" in bot.log, bot.log
    assert not bot.db.with_name(bot.db.name + ".heartbeat").exists()
    assert not bot.db.with_name(bot.db.name + "-wal").exists(), "the database was not closed"
    with closing(sqlite3.connect(bot.db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_sigterm_while_the_ai_plays_stores_everything_and_exits_0(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Friends", [alice])
    db = tmp_path / "chaodipi.db"
    bot = BotProcess(server, db)
    await bot.start()
    await bot.wait_alive()

    # The AI playing as fast as it can: Alice opens a table, fills it with the AI, blocks the bot (so
    # that the AI plays for her too, until the hand ends: then the table pauses) and starts.
    await alice.command(group, "newgame")
    await server.wait_for(lambda: group.bot_messages(), timeout=10, what="the table message")
    for _ in range(3):
        await (await alice.press(group.bot_messages()[0], "+ AI")).answer()
    await server.wait_for(lambda: "(empty)" not in (group.bot_messages()[0].text or ""), what="a full table")
    alice.block_bot()  # her hand message then bounces, and the AI plays for her
    await (await alice.press(group.bot_messages()[0], "▶️ Start")).answer()
    await wait_events(db, 0)
    playing = await wait_events(db, event_count(db) + 20)

    assert_stopped_cleanly(bot, await bot.terminate())
    stopped_at = event_count(db)
    assert stopped_at >= playing
    async with await storage.open_database(db) as database:
        active = await storage.load_active_tables(database)
        assert len(active) == 1 and active[0].hand is not None
        storage.check_log(active[0].hand.hand_id, active[0].events)

    # The next start carries on from the stored log, and stops cleanly again.
    again = BotProcess(server, db)
    await again.start()
    await again.wait_alive()
    await wait_events(db, stopped_at + 5)
    assert_stopped_cleanly(again, await again.terminate())


async def test_sigterm_in_webhook_mode(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    registered = accept_set_webhook(server)
    port = free_port()
    bot = BotProcess(server, tmp_path / "chaodipi.db", CHAODIPI_WEBHOOK_URL="https://bot.example",
                     CHAODIPI_WEBHOOK_LISTEN="127.0.0.1", CHAODIPI_WEBHOOK_PORT=str(port))
    await bot.start()
    await bot.wait_alive()
    async with aiohttp.ClientSession() as http:
        for _ in range(100):
            try:
                async with http.get(f"http://127.0.0.1:{port}/health") as response:
                    assert response.status == 200
                    assert (await response.json())["mode"] == "webhook"
                    break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"no /health answer:\n{bot.log}")
    assert registered and registered[0]["url"] == "https://bot.example/telegram"
    assert registered[0]["secret_token"], "a webhook without a secret token"
    assert_stopped_cleanly(bot, await bot.terminate())
    assert server.calls.count("getUpdates") == 0


async def test_a_refused_webhook_stops_cleanly_with_a_message(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    accept_set_webhook(server)
    bot = BotProcess(server, tmp_path / "chaodipi.db", CHAODIPI_WEBHOOK_URL="https://bot.example:8080",
                     CHAODIPI_WEBHOOK_LISTEN="127.0.0.1", CHAODIPI_WEBHOOK_PORT=str(free_port()))
    await bot.start()
    assert bot.process is not None
    # It stops by itself, having started: a start-up and a stop.
    status = await bot.wait_exit(START_WITHIN + STOP_WITHIN, "its start")
    assert status == 1, bot.log
    assert "chaodipi run: Telegram refused a start-up call: Bad webhook: webhook can be set up only on ports" \
        in bot.log
    assert "Traceback" not in bot.log, bot.log
    assert "database closed" in bot.log
    assert not bot.db.with_name(bot.db.name + ".heartbeat").exists()
    assert not bot.db.with_name(bot.db.name + "-wal").exists()


async def test_sigusr1_writes_every_threads_stack_to_the_log_and_the_bot_runs_on(fake_telegram: FakeTelegram,
                                                                                 tmp_path: Path) -> None:
    bot = BotProcess(fake_telegram, tmp_path / "chaodipi.db")
    await bot.start()
    await bot.wait_alive()
    assert bot.process is not None
    bot.process.send_signal(signal.SIGUSR1)
    for _ in range(100):
        if "Current thread" in bot.log:
            break
        await asyncio.sleep(0.1)
    assert "Current thread" in bot.log and "bot/cli.py" in bot.log, bot.log
    assert bot.process.returncode is None
    assert (await health(bot.db)).returncode == 0
    assert_stopped_cleanly(bot, await bot.terminate())
