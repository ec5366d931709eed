"""Showing tables on Telegram: edits in place, coalesced, within the flood limits.

* The group's table message is edited at most once every ``group_interval``
  seconds (it may lag a few seconds; a hand costs a few dozen group calls).
* A player's private hand message is edited at once when it is their move,
  and coalesced otherwise.
* "Message is not modified" is success; a message that vanished is sent
  again; a person who blocked the bot is reported once to the caller.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

log = logging.getLogger(__name__)

Render = Callable[[], tuple[str, InlineKeyboardMarkup | None]]
"""Produces a message's current text and keyboard when it is about to be sent."""


def not_modified(exc: BadRequest) -> bool:
    """True for Telegram's "message is not modified" (PTB changes its case)."""
    return "not modified" in exc.message.lower()


def message_gone(exc: BadRequest) -> bool:
    """True when the message to edit no longer exists or cannot be edited."""
    text = exc.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class Slot:
    """One message kept current by edits: where it is and when it may next be touched."""

    __slots__ = ("chat_id", "message_id", "interval", "next_at", "task", "dirty", "render", "on_sent", "sending")

    def __init__(self, chat_id: int, interval: float) -> None:
        self.chat_id = chat_id
        self.message_id: int | None = None
        self.interval = interval
        self.next_at = 0.0
        self.task: asyncio.Task[None] | None = None
        self.dirty = False
        self.render: Render | None = None
        self.on_sent: Callable[[int], Awaitable[None]] | None = None
        self.sending = False
        """True while a new message is being sent (and its id stored)."""


class Publisher:
    """Sends and edits messages for all tables."""

    def __init__(self, bot: Bot, on_blocked: Callable[[int], Awaitable[None]]) -> None:
        self.bot = bot
        self.on_blocked = on_blocked
        self._slots: dict[tuple[int, str], Slot] = {}

    def slot(self, key: tuple[int, str], chat_id: int, interval: float, message_id: int | None) -> Slot:
        """The slot for a message (created on first use)."""
        found = self._slots.get(key)
        if found is None or found.chat_id != chat_id:
            found = Slot(chat_id, interval)
            found.message_id = message_id
            self._slots[key] = found
        return found

    def forget(self, key: tuple[int, str]) -> None:
        """Stop keeping a message current (the table closed, the seat emptied)."""
        slot = self._slots.pop(key, None)
        if slot is not None and slot.task is not None:
            slot.task.cancel()

    def forget_table(self, table_id: int) -> None:
        """Stop keeping every message of a table current (it closed)."""
        for key in [key for key in self._slots if key[0] == table_id]:
            self.forget(key)

    def schedule(self, slot: Slot, render: Render, *, now: bool = False) -> None:
        """Bring the message up to date: at once (``now``) or after the slot's interval."""
        slot.render = render
        slot.dirty = True
        if now:
            slot.next_at = 0.0
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._flush_later(slot))
        elif now and not slot.sending:
            # A task sending a new message is not cancelled: that would lose the
            # message's id (a second message next time, none stored).  It sees
            # next_at = 0 and flushes again at once.  An edit may be cut short.
            slot.task.cancel()
            slot.task = asyncio.create_task(self._flush_later(slot))

    async def _flush_later(self, slot: Slot) -> None:
        while slot.dirty:
            delay = slot.next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            slot.dirty = False
            slot.next_at = time.monotonic() + slot.interval
            slot.sending = slot.message_id is None
            try:
                await self.flush(slot)
            finally:
                slot.sending = False

    async def flush(self, slot: Slot) -> None:
        """Edit (or send) the slot's message with its latest content now."""
        if slot.render is None:
            return
        text, markup = slot.render()
        if markup is not None and not any(markup.inline_keyboard):
            # PTB sends an empty keyboard as {}, which Telegram refuses in an edit
            # ("inline keyboard expected"); no markup removes the buttons instead.
            markup = None
        if slot.message_id is not None:
            try:
                await self.bot.edit_message_text(text, slot.chat_id, slot.message_id,
                                                 parse_mode=ParseMode.HTML, reply_markup=markup)
                return
            except BadRequest as exc:
                if not_modified(exc):
                    return
                if not message_gone(exc):
                    log.warning("edit refused in chat %s: %s", slot.chat_id, exc.message)
                    return
            except Forbidden:
                await self.on_blocked(slot.chat_id)
                return
            except TelegramError as exc:
                log.warning("edit failed in chat %s: %s", slot.chat_id, exc)
                return
        sent = await self.send(slot.chat_id, text, markup)
        if sent is not None:
            slot.message_id = sent.message_id
            if slot.on_sent is not None:
                await slot.on_sent(sent.message_id)

    async def send(self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None,
                   *, silent: bool = False) -> Message | None:
        """Send a new message; None if the chat cannot be reached (reported if blocked)."""
        try:
            return await self.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                               disable_notification=silent)
        except Forbidden:
            await self.on_blocked(chat_id)
        except TelegramError as exc:
            log.warning("send failed in chat %s: %s", chat_id, exc)
        return None

    async def delete(self, chat_id: int, message_id: int | None) -> None:
        """Delete a message, ignoring one that is already gone."""
        if message_id is None:
            return
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError:
            pass

    async def settle(self, slot: Slot, render: Render, timeout: float = 30.0) -> None:
        """Bring the message up to date and wait until it is, without cutting short an edit in flight.

        An edit waiting out a flood-control answer is let finish (cancelling it
        would drop that edit); the latest content follows it.
        """
        self.schedule(slot, render)
        if slot.task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(slot.task), timeout)
            except TimeoutError:
                log.warning("the last edit in chat %s did not finish in time", slot.chat_id)

    async def drain(self) -> None:
        """Flush every pending edit now (used at shut-down)."""
        for slot in list(self._slots.values()):
            if slot.task is not None and not slot.task.done():
                if slot.sending:  # let it finish (and store what it sent), then flush the rest
                    slot.next_at = 0.0
                    await asyncio.wait({slot.task})
                else:
                    slot.task.cancel()
            if slot.dirty:
                slot.dirty = False
                await self.flush(slot)
