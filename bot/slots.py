"""One message kept current by edits (a :class:`Slot`), and how Telegram's answers about it are read.

The publisher (:mod:`bot.publisher`) holds a slot per message: where it is,
what it shows as Telegram last accepted it, when it may next be touched, and
whether a change still waits to go out.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Final

from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest

Render = Callable[[], tuple[str, InlineKeyboardMarkup | None]]
"""Produces a message's current text and keyboard when it is about to be sent."""


def shown_as(text: str, markup: InlineKeyboardMarkup | None) -> str:
    """A digest of a message's content (its text and buttons), to compare with the next render: short,
    fit to be stored (:mod:`storage.shown`), and saying nothing of the text itself."""
    content = json.dumps([text, markup.to_dict() if markup is not None else None], sort_keys=True,
                         ensure_ascii=False)
    return hashlib.blake2b(content.encode(), digest_size=12).hexdigest()


def not_modified(exc: BadRequest) -> bool:
    """True for Telegram's "message is not modified" (PTB changes its case)."""
    return "not modified" in exc.message.lower()


def message_gone(exc: BadRequest) -> bool:
    """True when the message to edit no longer exists or cannot be edited (``MESSAGE_ID_INVALID`` too: the
    answer when Telegram's server was not told that the person deleted it in their private chat)."""
    text = exc.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text or "message_id_invalid" in text


TAP_GAP: Final = 1.0
"""Seconds between two edits of one private message asked for at once: quick taps are coalesced into one
edit a second, under Telegram's limit of about one message a second in a private chat."""

RETRY_DELAYS: Final = (1.0, 2.0, 5.0, 15.0, 30.0)
"""Seconds before a message Telegram could not take is tried again, by failures in a row (the last repeats)."""


def retry_delay(failures: int) -> float:
    """How long to wait after ``failures`` failures in a row that can pass."""
    return RETRY_DELAYS[min(failures, len(RETRY_DELAYS)) - 1]


def served_before(wanted: int | None, flying: int | None) -> bool:
    """True if a call of priority ``wanted`` is served before one of ``flying`` (None: served last)."""
    return wanted is not None and (flying is None or wanted < flying)


class Slot:
    """One message kept current by edits: where it is and when it may next be touched."""

    __slots__ = ("chat_id", "message_id", "interval", "next_at", "task", "dirty", "render", "on_sent", "sending",
                 "busy", "shown", "priority", "flying", "failures", "sent_at", "thread_id", "shown_at")

    def __init__(self, chat_id: int, interval: float, thread_id: int | None = None) -> None:
        self.chat_id = chat_id
        self.thread_id = thread_id
        """The forum topic a new message goes to (None: the chat itself, or a forum's General topic)."""
        self.message_id: int | None = None
        self.interval = interval
        self.next_at = 0.0
        self.task: asyncio.Task[None] | None = None
        self.dirty = False
        self.render: Render | None = None
        self.on_sent: Callable[[int], Awaitable[None]] | None = None
        self.sending = False
        """True while a new message is being sent (and its id stored)."""
        self.busy = False
        """True while a call to Telegram is in flight (perhaps waiting out a flood-control answer)."""
        self.shown: str | None = None
        """What the message shows now, as Telegram last accepted it (None: not known, e.g. after a restart)."""
        self.priority: int | None = None
        """Someone waits to see this change (:data:`~bot.ratelimit.PRESSER`: their press; ``MOVER``: their
        move): served before other messages under the overall limit."""
        self.flying: int | None = None
        """The priority of the call in flight (None: the default, served last)."""
        self.failures = 0
        """Calls in a row that failed for a reason that can pass (the message waits to be tried again)."""
        self.sent_at = float("-inf")
        self.shown_at = 0.0
        """When Telegram last accepted this message's content (unix time; 0: not since the bot started)."""
        """When (monotonic) the message was last sent or edited: quick taps wait for :data:`TAP_GAP` after it."""


class ChatPace:
    """When each private chat's next edit may go: the tap gap holds for the person's chat, whichever table's
    message it is, so one person's messages at two tables are paced together (a group's message keeps its own
    interval)."""

    def __init__(self) -> None:
        self._next: dict[int, float] = {}

    def next_at(self, chat_id: int) -> float:
        """The monotonic time before which this chat gets no edit (0: any time)."""
        return self._next.get(chat_id, 0.0)

    def spent(self, chat_id: int, gap: float) -> None:
        """An edit of this chat goes now: the next waits ``gap`` seconds (private chats only)."""
        if chat_id <= 0:
            return
        now = time.monotonic()
        if len(self._next) > 256:  # chats whose gap is over are forgotten
            self._next = {chat: at for chat, at in self._next.items() if at > now}
        self._next[chat_id] = now + gap

    async def turn(self, chat_id: int, gap: float) -> None:
        """Wait for this private chat's turn and take it: a new message (a nudge, a result) goes in turn with
        the edits there, as Telegram may count both against one message a second in a chat (issue 55: one
        person's quick taps at two tables drew 429s from nudges and results sent between their edits)."""
        if chat_id <= 0 or gap <= 0:
            return
        while (delay := self.next_at(chat_id) - time.monotonic()) > 0:
            await asyncio.sleep(delay)
        self.spent(chat_id, gap)

