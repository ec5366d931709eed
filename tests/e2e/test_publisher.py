"""The publisher against the fake Bot API: a message already gone counts as deleted."""

from __future__ import annotations

import logging

import pytest
import telegram

from bot.publisher import Publisher

from .fake_telegram import FakeTelegram


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
