"""Every stored result is announced exactly once, whatever stops the bot between storing and sending it.

The last card of a hand is played; the bot is stopped at one point between
the result's commit and the group's "Hand 1 is over" (an exception standing
in for a kill, or Telegram failing the send), then started again on the same
database: the group sees the announcement exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.announcements import Outbox

from .botkit import bot_running, current_hand_message, hand_message, tables
from .endings import find_ending, store_table
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.errors import ApiError
from .fake_telegram.people import MessageView, Person
from .scenario import ANSWER_TIMEOUT, up_to_date_hand

RESULT = "Hand 1 is over"

ROOT = Path(__file__).resolve().parents[2]


class Killed(Exception):
    """Stands in for the process dying at this point."""


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("point", ["result committed", "sender about to send", "Telegram failing the send"])
async def test_a_result_is_announced_exactly_once_after_a_stop_before_its_announcement(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Crash course", [alice])
    ending = find_ending("nantong")
    db_path = tmp_path / "t.db"
    await store_table(ending, db_path, group.id, "Crash course", alice.id, "Alice", monkeypatch)

    reached = asyncio.Event()
    send = server.api.handlers["sendmessage"]

    def killed(*_args: Any, **_kwargs: Any) -> None:
        reached.set()
        raise Killed(point)

    async def telegram_down(params: Any) -> Any:
        if RESULT in (params.get("text") or ""):
            reached.set()
            raise ApiError(502, "Bad Gateway")
        return await send(params)

    with monkeypatch.context() as fault:
        if point == "result committed":
            fault.setattr(Outbox, "wake", killed)
        elif point == "sender about to send":
            fault.setattr(Outbox, "_deliver", killed)
        else:
            fault.setitem(server.api.handlers, "sendmessage", telegram_down)
        async with bot_running(server, db_path, ai_delay=3600.0) as app:
            table = tables(app).in_chat(group.id)
            assert table is not None and table.match is not None
            card = ending.last.cards[0]
            message = await up_to_date_hand(server, alice, table, 0)
            await (await alice.press(message, lambda b: (b.callback_data or "").endswith(f":sel:{card}0"))
                   ).answer(ANSWER_TIMEOUT)
            ready = await server.wait_for(
                lambda: (m := current_hand_message(alice, table, 0)) is not None and "✓" in str(m.labels) and m,
                what="the card selected")
            await alice.press(ready, lambda b: (b.callback_data or "").endswith(":play"))
            await asyncio.wait_for(reached.wait(), 10)
            assert table.match.hand.setup.number == 2  # the result is stored: hand 2 is dealt
    assert not any(RESULT in (m.text or "") for m in group.bot_messages())

    async with bot_running(server, db_path, ai_delay=3600.0) as app:
        await server.wait_for(lambda: any(RESULT in (m.text or "") for m in group.bot_messages()),
                              what="the result announced after the restart")
        outbox = tables(app).outbox
        assert outbox is not None
        await outbox.drain()
    assert sum(RESULT in (m.text or "") for m in group.bot_messages()) == 1


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_last_press_of_a_hand_is_answered_before_the_group_hears_the_result(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Slow group", [alice])
    ending = find_ending("nantong")
    db_path = tmp_path / "t.db"
    await store_table(ending, db_path, group.id, "Slow group", alice.id, "Alice", monkeypatch)

    # The group's flood limit, at its worst: the result's message waits until the test lets it go.
    door = asyncio.Event()
    knocked = asyncio.Event()
    send = server.api.handlers["sendmessage"]

    async def slow_group(params: Any) -> Any:
        if RESULT in (params.get("text") or ""):
            knocked.set()
            await door.wait()
        return await send(params)
    monkeypatch.setitem(server.api.handlers, "sendmessage", slow_group)

    async with bot_running(server, db_path, ai_delay=3600.0) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        card = ending.last.cards[0]
        message = await up_to_date_hand(server, alice, table, 0)
        await (await alice.press(message, lambda b: (b.callback_data or "").endswith(f":sel:{card}0"))
               ).answer(ANSWER_TIMEOUT)
        ready = await server.wait_for(
            lambda: (m := current_hand_message(alice, table, 0)) is not None and "✓" in str(m.labels) and m,
            what="the card selected")
        press = await alice.press(ready, lambda b: (b.callback_data or "").endswith(":play"))
        try:
            answer = await press.answer(ANSWER_TIMEOUT)
            assert not answer.show_alert, answer
            assert not any(RESULT in (m.text or "") for m in group.bot_messages())  # answered first
        finally:
            door.set()
        await asyncio.wait_for(knocked.wait(), 10)
        await server.wait_for(lambda: any(RESULT in (m.text or "") for m in group.bot_messages()),
                              what="the result announced")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_real_process_killed_while_announcing_a_result_announces_it_once_after_a_restart(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL while the result's message is on its way (the request never completes), then ``chaodipi run`` again."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Killed", [alice])
    ending = find_ending("nantong")
    db_path = tmp_path / "t.db"
    await store_table(ending, db_path, group.id, "Killed", alice.id, "Alice", monkeypatch)

    knocked = asyncio.Event()
    send = server.api.handlers["sendmessage"]

    async def never_answered(params: Any) -> Any:
        if RESULT in (params.get("text") or ""):
            knocked.set()
            await asyncio.Event().wait()  # until the bot's connection goes away with its process
        return await send(params)
    monkeypatch.setitem(server.api.handlers, "sendmessage", never_answered)

    process = await _chaodipi_run(server, db_path)
    try:
        card = ending.last.cards[0]
        message = await server.wait_for(lambda: _hand_with(alice, f":sel:{card}0"), timeout=30,
                                        what="Alice's hand with her last card")
        await (await alice.press(message, lambda b: (b.callback_data or "").endswith(f":sel:{card}0"))
               ).answer(ANSWER_TIMEOUT)
        ready = await server.wait_for(lambda: _hand_with(alice, ":play", selected=True), what="the card selected")
        await alice.press(ready, lambda b: (b.callback_data or "").endswith(":play"))
        await asyncio.wait_for(knocked.wait(), 30)
    finally:
        process.kill()
        await process.wait()
    monkeypatch.setitem(server.api.handlers, "sendmessage", send)
    assert not any(RESULT in (m.text or "") for m in group.bot_messages())

    process = await _chaodipi_run(server, db_path)
    try:
        await server.wait_for(lambda: any(RESULT in (m.text or "") for m in group.bot_messages()), timeout=30,
                              what="the result announced after the restart")
        # Ctrl-C only once the bot is fully up (PTB cannot stop half-started).
        log = db_path.with_suffix(".log")
        await server.wait_for(lambda: log.read_text().count("Application started") >= 2, timeout=30,
                              what="the restarted bot running")
    finally:
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 30) == 0
    assert sum(RESULT in (m.text or "") for m in group.bot_messages()) == 1


def _hand_with(person: Person, suffix: str, *, selected: bool = False) -> MessageView | None:
    """The person's hand message if it has a button whose callback_data ends with ``suffix``."""
    message = hand_message(person)
    if message is None or (selected and "✓" not in str(message.labels)):
        return None
    return message if any((b.callback_data or "").endswith(suffix) for b in message.all_buttons()) else None


async def _chaodipi_run(server: FakeTelegram, db_path: Path) -> asyncio.subprocess.Process:
    """``chaodipi run`` in its own process against the fake server, once it polls; its log goes beside the database."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": server.token,
           "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(db_path), "CHAODIPI_AI_DELAY": "3600"}
    calls = server.calls.count("deleteWebhook")
    with db_path.with_suffix(".log").open("ab") as log:  # the child keeps its own copy of the file
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", cwd=ROOT,
                                                       env=env, stderr=log)
    await server.wait_for(lambda: server.calls.count("deleteWebhook") > calls, timeout=30, what="the bot polling")
    return process
