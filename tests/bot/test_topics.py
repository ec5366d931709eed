"""A forum topic closed to the bot or gone (:mod:`bot.topics`): which refusals say so, kept by group and topic,
each change told once."""

from __future__ import annotations

import asyncio

import pytest
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.faults import group_gone, refuses_writing
from bot.tasks import Supervisor
from bot.topics import Topics, topic_closed, topic_deleted

GROUP = -1001234


def test_a_closed_topic_is_neither_a_mute_nor_a_removal() -> None:
    exc = BadRequest("TOPIC_CLOSED")
    assert topic_closed(exc) and not topic_deleted(exc)
    assert not refuses_writing(exc, GROUP) and not group_gone(exc, GROUP)  # the group's other topics play on


@pytest.mark.parametrize("exc", [BadRequest("Message thread not found"), BadRequest("TOPIC_DELETED")])
def test_a_topic_gone(exc: BadRequest) -> None:
    assert topic_deleted(exc) and not topic_closed(exc) and not group_gone(exc, GROUP)


@pytest.mark.parametrize("exc", [BadRequest("Not enough rights to send text messages to the chat"),
                                 Forbidden("bot was kicked from the supergroup chat"), BadRequest("Chat not found"),
                                 BadRequest("Message to edit not found")])
def test_other_refusals_say_nothing_of_a_topic(exc: TelegramError) -> None:
    topics = Topics(Supervisor())
    assert not topics.refused(GROUP, 5, exc) and not topics.closed and not topics.deleted


async def test_closed_and_reopened_once_each_by_group_and_topic() -> None:
    told: list[str] = []
    topics = Topics(Supervisor())

    async def closed(chat_id: int, thread_id: int | None) -> None:
        told.append(f"closed {chat_id} {thread_id}")

    async def reopened(chat_id: int, thread_id: int | None) -> None:
        told.append(f"reopened {chat_id} {thread_id}")
    topics.on_closed, topics.on_reopened = closed, reopened
    refusal = BadRequest("TOPIC_CLOSED")
    assert topics.refused(GROUP, 5, refusal)  # one refusal is enough: a closed topic is no moment's rule
    assert topics.refused(GROUP, 5, refusal)
    topics.close(GROUP, 5, "the service message")
    assert topics.closed == {(GROUP, 5)}
    topics.wrote(GROUP, 6)  # another topic, the General topic, the group itself: not this one
    topics.wrote(GROUP, None)
    assert not topics.refused(42, None, refusal)  # a private chat has no topics
    assert topics.closed == {(GROUP, 5)}
    topics.wrote(GROUP, 5)  # a message went through: it is open to the bot again
    topics.reopen(GROUP, 5, "the service message")
    assert topics.closed == set()
    await asyncio.gather(*topics.tasks.running())
    assert told == [f"closed {GROUP} 5", f"reopened {GROUP} 5"]


async def test_a_topic_gone_is_told_once_and_is_closed_no_more() -> None:
    told: list[str] = []
    topics = Topics(Supervisor())

    async def deleted(chat_id: int, thread_id: int | None) -> None:
        told.append(f"deleted {chat_id} {thread_id}")
    topics.on_deleted = deleted
    topics.close(GROUP, 5, "closed first")
    gone = BadRequest("Message thread not found")
    assert topics.refused(GROUP, 5, gone) and topics.refused(GROUP, 5, gone)
    assert not topics.refused(GROUP, None, gone)  # no topic named: nothing is gone
    assert topics.closed == set() and topics.deleted == {(GROUP, 5)}
    topics.close(GROUP, 5, "a late refusal")
    assert topics.closed == set()
    topics.forget(GROUP)
    assert topics.deleted == set()
    await asyncio.gather(*topics.tasks.running())
    assert told == [f"deleted {GROUP} 5"]
