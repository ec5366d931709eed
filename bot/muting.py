"""Groups that do not let the bot write: it was muted (restricted without the right to send messages).

A muted bot is still in the group: its table is not closed, as when the bot
is removed (:mod:`bot.tables.groups`), but paused until the bot may write
again, its players told privately.  The bot learns it from a
``my_chat_member`` update (status "restricted", ``can_send_messages`` false),
or from Telegram refusing what it sends there ("Bad Request: not enough rights
to send text messages to the chat", ``CHAT_WRITE_FORBIDDEN``) again and again
for :data:`MUTED_AFTER` seconds with nothing sent in between (one refusal may
be a moment's rule; the update may have been missed while the bot was down).
It may write again at the ``my_chat_member`` update back to member or
administrator (or restricted with the right to send), or when a message it
sends there goes through.

:class:`Muting` keeps that state for the publisher and the outbox, which tell
it of each refusal and each message sent, and calls the tables (``on_muted``,
``on_unmuted``) in a supervised task, once per change.  The tables store the
mute with each match (:func:`bot.tables.seats.match_extra`): at start-up a
group whose table was paused so is :meth:`Muting.remember`-ed as muting the
bot, without telling anyone again, and goes on as above.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final

from telegram.error import TelegramError

from bot.faults import refuses_writing
from bot.tasks import Supervisor

log = logging.getLogger(__name__)

MUTED_AFTER: Final = 120.0
"""Seconds of refusals in a row ("not enough rights") after which a group counts as muting the bot."""


class Muting:
    """Which groups mute the bot (see the module's docstring)."""

    def __init__(self, tasks: Supervisor, *, after: float = MUTED_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tasks = tasks
        self.after = after
        """Seconds of refusals in a row before a group counts as muting the bot."""
        self.clock = clock
        self.muted: set[int] = set()
        """Groups where the bot may not write now."""
        self._refusing: dict[int, tuple[float, int]] = {}  # group: (first refusal of the streak, refusals)
        self.on_muted: Callable[[int], Awaitable[None]] | None = None
        """Told once when a group mutes the bot (its tables pause)."""
        self.on_unmuted: Callable[[int], Awaitable[None]] | None = None
        """Told once when the bot may write there again (its tables go on)."""

    def refused(self, chat_id: int, exc: TelegramError) -> bool:
        """A call to ``chat_id`` was refused for good: True if because the bot may not write there (counted:
        the group mutes the bot once refusals have lasted :attr:`after` seconds)."""
        if not refuses_writing(exc, chat_id):
            return False
        now = self.clock()
        since, count = self._refusing.get(chat_id, (now, 0))
        self._refusing[chat_id] = (since, count + 1)
        if chat_id in self.muted:
            log.warning("group %s (muting the bot) refused a message: %s", chat_id, exc.message)
        else:
            if count + 1 >= 2 and now - since >= self.after:
                self.mute(chat_id, f"{count + 1} refusals in {now - since:.0f} s: {exc.message}")
            else:
                log.warning("group %s refused a message (%s); the table pauses if it goes on for %.0f s",
                            chat_id, exc.message, self.after)
        return True

    def wrote(self, chat_id: int) -> None:
        """A message went to ``chat_id``: the bot may write there."""
        if chat_id >= 0:
            return
        self._refusing.pop(chat_id, None)
        if chat_id in self.muted:
            self.unmute(chat_id, "a message went through")

    def mute(self, chat_id: int, why: str) -> None:
        """The bot may not write in this group: its tables pause (told once)."""
        if chat_id in self.muted:
            return
        self.muted.add(chat_id)
        log.warning("group %s does not let the bot write (%s): its tables pause", chat_id, why)
        if self.on_muted is not None:
            on_muted = self.on_muted
            self.tasks.start(f"muted {chat_id}", lambda: on_muted(chat_id))

    def remember(self, chat_id: int) -> None:
        """At start-up: the group muted the bot before the restart (its table was stored paused so), and still
        does until told otherwise.  Nobody is told (they were, once)."""
        self.muted.add(chat_id)

    def unmute(self, chat_id: int, why: str) -> None:
        """The bot may write in this group again: its tables go on (told once)."""
        self._refusing.pop(chat_id, None)
        if chat_id not in self.muted:
            return
        self.muted.discard(chat_id)
        log.warning("group %s lets the bot write again (%s): its tables go on", chat_id, why)
        if self.on_unmuted is not None:
            on_unmuted = self.on_unmuted
            self.tasks.start(f"unmuted {chat_id}", lambda: on_unmuted(chat_id))

    def moved(self, old: int, new: int) -> None:
        """The group became the supergroup ``new``: a mute goes with it (its tables moved there, paused)."""
        if old in self.muted:
            self.muted.discard(old)
            self.muted.add(new)
        self._refusing.pop(old, None)

    def forget(self, chat_id: int) -> None:
        """The group is lost or moved: nothing of it is kept."""
        self.muted.discard(chat_id)
        self._refusing.pop(chat_id, None)
