"""Forum topics the bot may not write in: closed, or gone.

A table in a forum lives in one topic (:attr:`bot.model.Table.thread_id`).
When an admin *closes* that topic, Telegram refuses what the bot sends there
with "Bad Request: TOPIC_CLOSED" (unless the bot is an admin allowed to
manage topics), and the group gets a ``forum_topic_closed`` service message
in the topic; its table pauses, as a group that mutes the bot does
(:mod:`bot.muting`), until a ``forum_topic_reopened`` service message comes,
or a message the bot sends there goes through.  One refusal is enough: a
closed topic is no moment's rule, and other topics of the group, or its
General topic, are not affected (the state is kept by group *and* topic).

When the topic is *deleted*, Telegram answers "Bad Request: message thread
not found" (it also says so of a topic too old for the Bot API to reach, where
the bot can no more write either; no service message tells either): its table
cannot go on there, and closes.

:class:`Topics` keeps that state for the publisher, the outbox and the command
replies, which tell it of each refusal and each message sent, and calls the
tables (``on_closed``, ``on_reopened``, ``on_deleted``) in a supervised task,
once per change.  The tables store a closed topic with the match
(:func:`bot.tables.seats.match_extra`): at start-up it is
:meth:`Topics.remember`-ed, its table paused, nobody told again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

from telegram.error import BadRequest, TelegramError

from bot.tasks import Supervisor

log = logging.getLogger(__name__)

Topic = tuple[int, int | None]
"""A forum topic: (group, thread id); thread None is a forum's General topic (or a group without topics)."""

CLOSED: Final = ("topic_closed",)
"""What Telegram answers a bot that may not write in a closed topic."""
DELETED: Final = ("message thread not found", "topic_deleted")
"""What Telegram answers a bot writing to a topic that is gone."""


def topic_closed(exc: TelegramError) -> bool:
    """True when Telegram refused a message because its topic is closed."""
    return isinstance(exc, BadRequest) and any(words in exc.message.lower() for words in CLOSED)


def topic_deleted(exc: TelegramError) -> bool:
    """True when Telegram refused a message because its topic is gone (deleted)."""
    return isinstance(exc, BadRequest) and any(words in exc.message.lower() for words in DELETED)


class Topics:
    """Which forum topics are closed to the bot, and which are gone (see the module's docstring)."""

    def __init__(self, tasks: Supervisor) -> None:
        self.tasks = tasks
        self.closed: set[Topic] = set()
        """Topics where the bot may not write now."""
        self.deleted: set[Topic] = set()
        """Topics found gone in this run (told once)."""
        self.on_closed: Callable[[int, int | None], Awaitable[None]] | None = None
        """Told once when a topic closes to the bot (its table pauses)."""
        self.on_reopened: Callable[[int, int | None], Awaitable[None]] | None = None
        """Told once when the bot may write in the topic again (its table goes on)."""
        self.on_deleted: Callable[[int, int | None], Awaitable[None]] | None = None
        """Told once when a topic is found gone (its table closes)."""

    def refused(self, chat_id: int, thread_id: int | None, exc: TelegramError) -> bool:
        """A call to topic ``thread_id`` of group ``chat_id`` was refused for good: True if because the topic is
        closed (it closes to the bot at once) or gone (told once)."""
        if chat_id >= 0:
            return False
        if topic_closed(exc):
            if (chat_id, thread_id) in self.closed:
                log.warning("group %s, topic %s (closed) refused a message: %s", chat_id, thread_id, exc.message)
            self.close(chat_id, thread_id, exc.message)
            return True
        if thread_id is not None and topic_deleted(exc):
            self.delete(chat_id, thread_id, exc.message)
            return True
        return False

    def wrote(self, chat_id: int, thread_id: int | None) -> None:
        """A message went to topic ``thread_id`` of ``chat_id``: the bot may write there."""
        if (chat_id, thread_id) in self.closed:
            self.reopen(chat_id, thread_id, "a message went through")

    def close(self, chat_id: int, thread_id: int | None, why: str) -> None:
        """The bot may not write in this topic: its table pauses (told once)."""
        topic = (chat_id, thread_id)
        if topic in self.closed or topic in self.deleted:
            return
        self.closed.add(topic)
        log.warning("group %s, topic %s is closed to the bot (%s): its table pauses", chat_id, thread_id, why)
        self._tell(self.on_closed, "topic-closed", topic)

    def remember(self, chat_id: int, thread_id: int | None) -> None:
        """At start-up: the topic was closed to the bot before the restart (its table was stored paused so), and
        still is until told otherwise.  Nobody is told (they were, once)."""
        self.closed.add((chat_id, thread_id))

    def reopen(self, chat_id: int, thread_id: int | None, why: str) -> None:
        """The bot may write in this topic again: its table goes on (told once)."""
        topic = (chat_id, thread_id)
        if topic not in self.closed:
            return
        self.closed.discard(topic)
        log.warning("group %s, topic %s is open to the bot again (%s): its table goes on", chat_id, thread_id, why)
        self._tell(self.on_reopened, "topic-reopened", topic)

    def delete(self, chat_id: int, thread_id: int, why: str) -> None:
        """The topic is gone: its table closes (told once)."""
        topic = (chat_id, thread_id)
        if topic in self.deleted:
            return
        self.closed.discard(topic)
        self.deleted.add(topic)
        log.warning("group %s, topic %s is gone (%s): its table closes", chat_id, thread_id, why)
        self._tell(self.on_deleted, "topic-deleted", topic)

    def forget(self, chat_id: int) -> None:
        """The group is lost: nothing of its topics is kept."""
        self.closed = {topic for topic in self.closed if topic[0] != chat_id}
        self.deleted = {topic for topic in self.deleted if topic[0] != chat_id}

    def _tell(self, callback: Callable[[int, int | None], Awaitable[None]] | None, kind: str, topic: Topic) -> None:
        if callback is not None:
            chat_id, thread_id = topic
            self.tasks.start(f"{kind} {chat_id}:{thread_id}", lambda: callback(chat_id, thread_id))
