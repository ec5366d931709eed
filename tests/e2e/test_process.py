"""The real ``chaodipi run`` process: stopped with Ctrl-C in the middle of a hand, started again, plays on.

The bot runs as an operator runs it (its own process, settings from the
environment, ``run_polling``); the test sees only what Telegram sees.  On
SIGINT the bot flushes what it had not shown yet and exits cleanly; started
again on the same database it goes on editing the same messages.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.app import STOP_TIMEOUT

from .botkit import hand_message, table_message
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group
from .scenario import announced, lobby_button, offered_move, play_what_is_offered

ROOT = Path(__file__).resolve().parents[2]
STOPPED_WITHIN = 2 * STOP_TIMEOUT + 15
"""Seconds a Ctrl-C may take to end the bot: by design its tables' last work and then its tasks may each
take up to STOP_TIMEOUT, plus PTB's own stop (30 s, less than that bound, failed once in CI on two busy
cores).  A bot that hangs still fails here."""


@asynccontextmanager
async def chaodipi_run(server: FakeTelegram, db_path: Path, log: list[str]) -> AsyncIterator[asyncio.subprocess.Process]:
    """``chaodipi run`` against the fake server; Ctrl-C (SIGINT) at the end of the block, which must end it cleanly."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": server.token,
           "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(db_path), "CHAODIPI_AI_DELAY": "0",
           "CHAODIPI_GROUP_INTERVAL": "3.5"}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE)
    calls = server.calls.count("deleteWebhook")
    try:  # run_polling deletes the webhook right before it polls (a long poll is logged only when it returns)
        await server.wait_for(lambda: server.calls.count("deleteWebhook") > calls, timeout=30, what="the bot polling")
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        try:
            _out, err = await asyncio.wait_for(process.communicate(), STOPPED_WITHIN)
        except TimeoutError:
            process.kill()
            _out, err = await process.communicate()  # its log says where the stop was held
            raise AssertionError(f"the bot did not stop within {STOPPED_WITHIN:.0f} s of its Ctrl-C:\n"
                                 + err.decode()[-3000:]) from None
        log.append(err.decode())
    assert process.returncode == 0, log[-1][-3000:]
    for bad in ("Traceback", "ERROR", "never retrieved", "not initialized"):
        assert bad not in log[-1], (bad, log[-1][-3000:])


def _group_shows(group: Group, text: str) -> bool:
    return text in (table_message(group).text or "")


def _last_trick(text: str | None) -> str | None:
    """The "Last trick: …" line of a message (the group's message changes once a trick)."""
    return next((line for line in (text or "").split("\n") if line.startswith("Last trick:")), None)


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_bot_process_stops_mid_hand_and_plays_on_after_a_restart(fake_telegram: FakeTelegram,
                                                                           tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Process", [alice])
    db_path = tmp_path / "chaodipi.db"
    log: list[str] = []

    async with chaodipi_run(server, db_path, log):
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages() and lobby_button(table_message(group), "ai"),
                              timeout=20, what="the lobby")
        for _ in range(3):
            assert not (await (await alice.press(table_message(group), "+ AI")).answer()).show_alert
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), timeout=20,
                              what="a full table")
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert

        def played() -> list[int]:
            """Alice's hand size at each of her plays (from the version in the buttons she pressed)."""
            return [int(q.data.split(":")[2].split(".")[1]) for q in server.state.callback_queries.values()
                    if q.from_id == alice.id and q.data.endswith(":play") and q.answered and not q.show_alert]

        def stop_here() -> bool:
            """Alice's turn after three plays of hers (on a message newer than her last play),
            while the group's message still lags behind: it does not show the last trick yet."""
            message = hand_message(alice)
            sizes = played()
            if len(sizes) < 3 or message is None or offered_move(message) != "play":
                return False
            version = message.all_buttons()[0].callback_data.split(":")[2]  # type: ignore[union-attr]
            last = _last_trick(message.text)
            return int(version.split(".")[1]) < min(sizes) and last is not None and not _group_shows(group, last)
        await play_what_is_offered(server, alice, until=stop_here, timeout=60)
        before = hand_message(alice)
        assert before is not None
        last = _last_trick(before.text)
        assert last is not None
    # Ctrl-C: the pending group edit went out before the process ended.
    assert _group_shows(group, last), table_message(group).text
    calls = server.calls.mark()

    # A restart, stopped (Ctrl-C) once it polls: a clean stop finishes everything the bot had to show
    # (as the first stop proved), so what Alice sees now is all the restart did.
    async with chaodipi_run(server, db_path, log):
        polls = server.calls.mark()
        await server.wait_for_call("getUpdates", after=polls, timeout=30)  # started up, and polling
    assert "gave up waiting" not in log[-1], log[-1][-3000:]
    after = hand_message(alice)
    assert after is not None and after.message_id == before.message_id
    assert offered_move(after) == "play" and after.all_buttons() == before.all_buttons()
    assert not [c for c in server.calls.since(calls) if c.method == "sendMessage" and c.chat_id == alice.id]
    async with chaodipi_run(server, db_path, log):
        await play_what_is_offered(server, alice, until=lambda: announced(group, "Hand 1 is over"))
    assert not server.calls.errors() or all(c.status == 400 and "not modified" in (c.description or "")
                                            for c in server.calls.errors()), server.calls.errors()
