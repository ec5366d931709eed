"""Sending the outbox: each group's stored announcements, in order, once each.

:mod:`storage.announcements` keeps them; a hand's result is queued in the
transaction that stores it.  One sender task per chat sends what is pending,
oldest first, and marks each one sent; nobody waits for it, so a button press
that ends a hand is answered at once, not after the group's flood limit has
let the announcements through.  At start-up every pending announcement is
sent (a crash between storing a result and announcing it loses nothing).

Only a failure that can pass (:func:`bot.faults.passes`) is tried again.  A
refusal that will not pass gives the announcement up with one log line (a
picture refused is sent as its text alone: groups that let nobody send photos); a
group the bot is no longer in is reported (``on_group_lost``) and the rest of
its announcements dropped (:meth:`Outbox.drop`); a group that became a
supergroup is reported (``on_moved``: its tables follow) and the
announcement goes to the new chat.  A group that mutes the bot is told to
:mod:`bot.muting`, a forum topic closed or gone to :mod:`bot.topics`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from telegram import Bot, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

import storage
from bot.faults import group_gone, moved_to, passes
from bot.muting import Muting
from bot.tasks import Supervisor
from bot.topics import Topics

log = logging.getLogger(__name__)

RETRY_DELAYS: Final = (1.0, 2.0, 5.0, 15.0, 60.0)
"""Seconds between attempts while Telegram cannot be reached (the last one repeats)."""


class Outbox:
    """Sends the stored announcements of every chat."""

    def __init__(self, db: storage.Database, bot: Bot, tasks: Supervisor | None = None) -> None:
        self.db = db
        self.bot = bot
        self.tasks = tasks if tasks is not None else Supervisor()
        self._senders: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._back = asyncio.Event()
        """Set (and replaced) when Telegram answers again: senders waiting to retry go at once."""
        self.on_group_lost: Callable[[int], Awaitable[None]] | None = None
        """Told of a group that refused an announcement because the bot is no longer in it."""
        self.on_moved: Callable[[int, int], Awaitable[None]] | None = None
        """Told of a group that refused an announcement because it became a supergroup (old id, new id)."""
        self._dropped: set[int] = set()
        self.muting: Muting | None = None
        """Told of each refusal to write in a group, and each announcement sent there (:mod:`bot.muting`)."""
        self.topics: Topics | None = None
        """Told of each refusal to write in a forum topic, and each announcement sent there (:mod:`bot.topics`)."""

    def sending(self, chat_id: int) -> bool:
        """True while this chat's announcements are still going out."""
        sender = self._senders.get(chat_id)
        return sender is not None and not sender.done()

    def telegram_back(self, family: str) -> None:
        """A fault ended (:class:`bot.faults.Faults` listener): senders waiting to retry go now."""
        self._back.set()
        self._back = asyncio.Event()

    def wake(self, chat_id: int) -> None:
        """Send what is pending for this chat (soon, in a task of its own)."""
        self._dropped.discard(chat_id)
        sender = self._senders.get(chat_id)
        if sender is not None and not sender.done():
            self._again.add(chat_id)  # it looks once more before it stops
            return
        self._senders[chat_id] = self.tasks.start(f"outbox {chat_id}", lambda: self._send_pending(chat_id))

    async def resume(self, hosts: Callable[[int], bool]) -> int:
        """At start-up: wake the sender of every chat this run hosts (:meth:`bot.config.Settings.hosts`) with
        something pending; how many are pending there."""
        pending = [item for item in await storage.pending_announcements(self.db) if hosts(item.chat_id)]
        for chat_id in dict.fromkeys(item.chat_id for item in pending):
            self.wake(chat_id)
        return len(pending)

    async def drop(self, chat_id: int) -> int:
        """The bot is no longer in this group: what waits for it is given up (stored as not sent) and its
        sender stops; how many announcements were dropped."""
        self._dropped.add(chat_id)
        self._again.discard(chat_id)
        pending = await storage.pending_announcements(self.db, chat_id)
        for item in pending:
            await storage.mark_announced(self.db, item.announcement_id, None)
        if pending:
            log.warning("outbox: %d announcement(s) to group %s dropped: the bot is no longer there",
                        len(pending), chat_id)
        return len(pending)

    async def drain(self) -> None:
        """Wait for the senders (shut-down; the caller bounds the wait)."""
        await asyncio.gather(*list(self._senders.values()), return_exceptions=True)

    async def _send_pending(self, chat_id: int) -> None:
        failures = 0
        while True:
            self._again.discard(chat_id)
            try:
                pending = await storage.pending_announcements(self.db, chat_id)
                for item in pending:
                    if chat_id in self._dropped:
                        return
                    sent, message_id = await self._deliver(item)
                    if chat_id in self._dropped:  # the group is lost, or moved (its new id's sender goes on)
                        return
                    if not sent:
                        break
                    await storage.mark_announced(self.db, item.announcement_id, message_id)
                else:
                    failures = 0
                    if chat_id not in self._again:
                        return
                    continue
            except storage.StorageFault:
                pass  # logged once by bot.faults; the announcements wait in storage
            except storage.StorageError:
                log.exception("outbox of chat %s: storage error", chat_id)
            failures += 1
            back = self._back
            try:
                async with asyncio.timeout(RETRY_DELAYS[min(failures, len(RETRY_DELAYS)) - 1]):
                    await back.wait()
            except TimeoutError:
                pass

    async def _deliver(self, item: storage.Announcement) -> tuple[bool, int | None]:
        """Send one announcement: (done, message id); done with no id when the chat refuses it for good.
        Not done (tried again later) only when the failure can pass (logged once by :mod:`bot.faults`)."""
        chat_id = item.chat_id
        try:
            message = await self._send(chat_id, item)
        except TelegramError as exc:
            if passes(exc):
                return False, None
            new = moved_to(exc)
            if new is not None:  # the group became a supergroup: its tables (and so this) move there
                log.warning("outbox: group %s became supergroup %s; its announcements go there", chat_id, new)
                if self.on_moved is not None:
                    await self.on_moved(chat_id, new)  # stored: the announcements are the new chat's now
                self._dropped.add(chat_id)
                self.wake(new)
                return False, None
            log.warning("outbox: chat %s refused announcement %s for good (%s); not sent", chat_id,
                        item.announcement_id, exc)
            if self.muting is not None:
                self.muting.refused(chat_id, exc)
            if self.topics is not None:
                self.topics.refused(chat_id, item.thread_id, exc)
            if group_gone(exc, chat_id):
                self._dropped.add(chat_id)
                if self.on_group_lost is not None:
                    await self.on_group_lost(chat_id)
            return True, None
        if self.muting is not None:
            self.muting.wrote(chat_id)
        if self.topics is not None:
            self.topics.wrote(chat_id, item.thread_id)
        return True, message.message_id

    async def _send(self, chat_id: int, item: storage.Announcement) -> Message:
        """One call to Telegram: the announcement's text, or its picture with the text as its caption."""
        if item.photo is not None:  # a season's end: its picture, the text as its caption
            try:
                return await self.bot.send_photo(chat_id, item.photo, caption=item.text, parse_mode=ParseMode.HTML,
                                                 message_thread_id=item.thread_id)
            except BadRequest as exc:  # a group that lets nobody send photos: the words are told all the same
                log.warning("outbox: chat %s refused the picture of announcement %s (%s); its text is sent alone",
                            chat_id, item.announcement_id, exc.message)
        return await self.bot.send_message(chat_id, item.text, parse_mode=ParseMode.HTML,
                                           message_thread_id=item.thread_id)
