"""Sending the outbox: each group's stored announcements, in order, once each.

:mod:`storage.announcements` keeps them; a hand's result is queued in the
transaction that stores it.  One sender task per chat sends what is pending,
oldest first, and marks each one sent; nobody waits for it, so a button press
that ends a hand is answered at once, not after the group's flood limit has
let the announcements through.  At start-up every pending announcement is
sent (a crash between storing a result and announcing it loses nothing).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Final

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

import storage
from bot.faults import passes
from bot.tasks import Supervisor

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
                    sent, message_id = await self._deliver(item)
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
        """Send one announcement: (done, message id); done with no id when the chat refuses it for good."""
        try:
            if item.photo is not None:  # a season's end: its picture, the text as its caption
                message = await self.bot.send_photo(item.chat_id, item.photo, caption=item.text,
                                                    parse_mode=ParseMode.HTML)
            else:
                message = await self.bot.send_message(item.chat_id, item.text, parse_mode=ParseMode.HTML)
        except (Forbidden, BadRequest) as exc:
            log.warning("outbox: chat %s refused announcement %s (%s); not sent", item.chat_id,
                        item.announcement_id, exc.message)
            return True, None
        except TelegramError as exc:
            if not passes(exc):
                log.warning("outbox: announcement %s to chat %s failed, will retry: %s", item.announcement_id,
                            item.chat_id, exc)
            return False, None
        return True, message.message_id
