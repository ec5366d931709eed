"""The publisher against the fake Bot API: a message already gone counts as deleted."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import telegram

from bot.publisher import Publisher

from .fake_telegram import FakeTelegram
from .fake_telegram.errors import bad_request


async def test_deleting_a_message_already_gone_is_done_quietly(fake_telegram: FakeTelegram, bot: telegram.Bot,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    alice = fake_telegram.person("Alice", "alice", started=True)
    blocked: list[int] = []

    async def on_blocked(chat_id: int) -> None:
        blocked.append(chat_id)

    publisher = Publisher(bot, on_blocked)
    caplog.set_level(logging.INFO, logger="bot")
    sent = await publisher.send(alice.id, "Your turn")
    assert sent is not None
    await publisher.delete(alice.id, sent.message_id)
    await publisher.delete(alice.id, sent.message_id)  # after a restart: the nudge is already gone (400)
    assert fake_telegram.calls.calls("deleteMessage", status=400)
    assert not [r for r in caplog.records if r.levelno >= logging.INFO], caplog.records
    assert not blocked


async def test_the_database_work_of_an_edit_outlives_the_edit_being_cut_short(
        fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    """A 403 on an edit reports the block in a task of its own: cancelling the edit cannot cut that short."""
    alice = fake_telegram.person("Alice", "alice", started=True)
    writing = asyncio.Event()
    may_finish = asyncio.Event()
    stored: list[int] = []

    async def on_blocked(chat_id: int) -> None:  # stands in for the database write
        writing.set()
        await may_finish.wait()
        stored.append(chat_id)

    publisher = Publisher(bot, on_blocked)
    slot = publisher.slot((1, "seat0"), alice.id, 0.0, None)
    publisher.schedule(slot, lambda: ("hand", None), now=True)
    await fake_telegram.wait_for(lambda: slot.message_id is not None, what="the hand message")
    alice.block_bot()
    publisher.schedule(slot, lambda: ("hand, changed", None), now=True)
    await asyncio.wait_for(writing.wait(), 10)
    publisher.forget((1, "seat0"))  # the seat emptied: the edit task is cancelled
    may_finish.set()
    await publisher.drain()
    assert stored == [alice.id]


async def test_an_edit_that_changes_nothing_is_never_sent(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    """The publisher remembers what each message shows: no "message is not modified" call, ever."""
    alice = fake_telegram.person("Alice", "alice", started=True)

    async def on_blocked(chat_id: int) -> None:
        raise AssertionError("nobody blocked the bot")

    publisher = Publisher(bot, on_blocked)
    slot = publisher.slot((1, "seat0"), alice.id, 0.0, None)
    keyboard = telegram.InlineKeyboardMarkup([[telegram.InlineKeyboardButton("♠A", callback_data="x")]])
    shown: list[tuple[str, telegram.InlineKeyboardMarkup | None]] = []
    renders = [("hand", keyboard), ("hand", keyboard), ("hand, changed", keyboard), ("hand, changed", keyboard),
               ("hand, changed", None), ("hand, changed", None)]
    for render in renders:
        shown.append(render)
        publisher.schedule(slot, lambda: shown[-1], now=True)
        await fake_telegram.wait_for(lambda: not slot.dirty and slot.task is not None and slot.task.done(),
                                     what="the slot flushed")
    await publisher.drain()
    assert fake_telegram.calls.count("sendMessage", chat_id=alice.id) == 1
    edits = fake_telegram.calls.calls("editMessageText")
    assert [r.params["text"] for r in edits] == ["hand, changed", "hand, changed"]  # the keyboard went too
    assert all(r.ok for r in edits)
    # A message id stored before a restart: what it shows is not known, so the first edit is made.
    again = Publisher(bot, on_blocked).slot((1, "seat0"), alice.id, 0.0, slot.message_id)
    assert again.shown is None


async def test_a_message_telegram_calls_invalid_is_sent_anew(fake_telegram: FakeTelegram, bot: telegram.Bot,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice deleted her hand message in the private chat.  Telegram's Bot API server is not always told of a
    deletion there, and then answers the next edit with the raw ``MESSAGE_ID_INVALID`` instead of "message to
    edit not found": the message is gone all the same, and is sent anew (not given up, which froze her hand)."""
    alice = fake_telegram.person("Alice", "alice", started=True)

    async def on_blocked(chat_id: int) -> None:
        raise AssertionError("nobody blocked the bot")

    edit = fake_telegram.api.handlers["editmessagetext"]

    async def invalid_when_deleted(params: Any) -> Any:
        message = fake_telegram.state.messages[alice.id].get(params.get_int("message_id"))
        if message is not None and message.deleted:
            raise bad_request("Bad Request: MESSAGE_ID_INVALID")
        return await edit(params)
    monkeypatch.setitem(fake_telegram.api.handlers, "editmessagetext", invalid_when_deleted)

    publisher = Publisher(bot, on_blocked)
    slot = publisher.slot((1, "seat0"), alice.id, 0.0, None)
    publisher.schedule(slot, lambda: ("hand", None), now=True)
    await fake_telegram.wait_for(lambda: slot.message_id is not None, what="the hand message")
    first = slot.message_id
    assert first is not None
    fake_telegram.state.messages[alice.id][first].deleted = True  # Alice deleted it
    publisher.schedule(slot, lambda: ("hand, changed", None), now=True)
    await fake_telegram.wait_for(lambda: slot.message_id != first, what="the hand message sent anew")
    await publisher.drain()
    assert fake_telegram.calls.calls("editMessageText", status=400)
    assert [m.text for m in alice.bot_private_messages()] == ["hand, changed"]
