"""A group that mutes the bot (:mod:`bot.muting`): which refusals say so, and when they count."""

from __future__ import annotations

import asyncio

import pytest
from telegram.error import BadRequest, Forbidden

from bot.faults import group_gone, refuses_writing
from bot.muting import Muting
from bot.tasks import Supervisor

GROUP = -1001234


@pytest.mark.parametrize("exc", [
    BadRequest("Not enough rights to send text messages to the chat"),
    BadRequest("CHAT_WRITE_FORBIDDEN"),
    Forbidden("CHAT_WRITE_FORBIDDEN"),
    BadRequest("Have no rights to send a message"),
])
def test_a_muted_bot_is_still_in_the_group(exc: BadRequest | Forbidden) -> None:
    """A mute refused the message: the bot is not gone (the table must not close), it may not write."""
    assert refuses_writing(exc, GROUP) and not group_gone(exc, GROUP)
    assert not refuses_writing(exc, 42)  # a private chat is no group


@pytest.mark.parametrize("exc", [Forbidden("Forbidden: bot was kicked from the supergroup chat"),
                                 BadRequest("Chat not found")])
def test_a_removed_bot_is_not_muted(exc: BadRequest | Forbidden) -> None:
    assert group_gone(exc, GROUP) and not refuses_writing(exc, GROUP)


def test_a_group_that_refuses_pictures_does_not_mute_the_bot() -> None:
    """A group may let nobody send photos and still take text (the league's tables then go as text)."""
    exc = BadRequest("Not enough rights to send photos to the chat")
    assert not refuses_writing(exc, GROUP) and not group_gone(exc, GROUP)


def test_message_thread_not_found_is_no_mute() -> None:
    """A topic's refusal says nothing of the group (and Telegram says it of busy topics that exist)."""
    exc = BadRequest("Message thread not found")
    assert not refuses_writing(exc, GROUP) and not group_gone(exc, GROUP)


async def test_refusals_mute_once_they_last_and_a_message_sent_unmutes() -> None:
    now = [0.0]
    told: list[str] = []
    muting = Muting(Supervisor(), after=120.0, clock=lambda: now[0])

    async def muted(chat_id: int) -> None:
        told.append(f"muted {chat_id}")

    async def unmuted(chat_id: int) -> None:
        told.append(f"unmuted {chat_id}")
    muting.on_muted, muting.on_unmuted = muted, unmuted
    refusal = BadRequest("Not enough rights to send text messages to the chat")
    assert muting.refused(GROUP, refusal)
    now[0] = 119.0
    muting.refused(GROUP, refusal)
    assert GROUP not in muting.muted  # refusals for less than two minutes: a moment's rule, maybe
    muting.wrote(GROUP)  # a message went through: the streak starts again
    now[0] = 200.0
    muting.refused(GROUP, refusal)
    now[0] = 320.0
    muting.refused(GROUP, refusal)
    muting.refused(GROUP, refusal)
    assert GROUP in muting.muted
    assert not muting.refused(GROUP, BadRequest("Message to edit not found"))
    muting.wrote(GROUP)
    muting.wrote(GROUP)
    await asyncio.gather(*muting.tasks.running())
    assert told == [f"muted {GROUP}", f"unmuted {GROUP}"]  # once each


async def test_a_mute_remembered_at_start_up_tells_nobody_and_a_message_sent_unmutes() -> None:
    """The group muted the bot before a restart (its table was stored paused so): remembered, nobody is told
    again, a refusal is only logged, and the first message that goes through lets the tables go on, once."""
    told: list[str] = []
    muting = Muting(Supervisor(), after=0.0)

    async def muted(chat_id: int) -> None:
        told.append(f"muted {chat_id}")

    async def unmuted(chat_id: int) -> None:
        told.append(f"unmuted {chat_id}")
    muting.on_muted, muting.on_unmuted = muted, unmuted
    muting.remember(GROUP)
    refusal = BadRequest("Not enough rights to send text messages to the chat")
    assert muting.refused(GROUP, refusal) and muting.refused(GROUP, refusal)
    muting.mute(GROUP, "restricted by an admin")  # the update, fetched again after the restart
    assert GROUP in muting.muted
    await asyncio.gather(*muting.tasks.running())
    assert told == []
    muting.wrote(GROUP)
    await asyncio.gather(*muting.tasks.running())
    assert told == [f"unmuted {GROUP}"] and GROUP not in muting.muted
