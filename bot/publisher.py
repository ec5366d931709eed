"""Showing tables on Telegram: edits in place, coalesced, within the flood limits.

* The group's table message is edited at most once every ``group_interval`` seconds (it may lag a few
  seconds; a hand costs a few dozen group calls).
* A player's private hand message is edited at once when it is their move, and coalesced otherwise.
* Nothing is sent that did not change: each slot remembers the text and keyboard Telegram last accepted for
  its message, and an identical edit is skipped (no "message is not modified" call, and the slot's interval
  is not spent on it).  "Message is not modified" is still success; a message that vanished is sent again;
  a person who blocked the bot is reported once to the caller.
* A refusal that will not pass is not tried again (one log line).  A group the bot is no longer in (403,
  "chat not found") is *lost*: reported once (``on_group_lost``), nothing more is sent there; a group that
  became a supergroup is reported once (``on_moved``), its notices go to the new id; a group muting the bot
  is told to :mod:`bot.muting`, a topic closed or gone to :mod:`bot.topics`, with every message that goes through.
* Nothing is forgotten when Telegram fails for a reason that can pass (no network, a 5xx, a timeout, flood
  control past the limiter's retries): the message stays marked, and is tried again after
  :func:`retry_delay`, or at once when Telegram answers again (:meth:`Publisher.telegram_back`).  So are
  the notices posted to a chat, in order.  (The fault itself is logged once, by :mod:`bot.faults`.)

The tasks that edit messages only talk to Telegram, so they may be cancelled (an edit made obsolete, a seat
emptied) at any moment.  What must reach the database (a message's new id, a person who blocked the bot)
runs in a task of its own that is never cancelled: cancelling a task that holds or waits for the database
would leave its transaction to chance.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.faults import group_gone, moved_to, passes
from bot.muting import Muting
from bot.posting import Poster
from bot.ratelimit import MOVER, PRESSER, PRIORITY, ChatRateLimiter
from bot.slots import TAP_GAP, ChatPace, Render, Slot, message_gone, not_modified, retry_delay, served_before, shown_as
from bot.tasks import Supervisor
from bot.topics import Topics

log = logging.getLogger(__name__)


class Publisher:
    """Sends and edits messages for all tables."""

    def __init__(self, bot: Bot, on_blocked: Callable[[int], Awaitable[None]], tasks: Supervisor | None = None,
                 on_shown: Callable[[int, int, str], Awaitable[None]] | None = None, tap_gap: float = TAP_GAP) -> None:
        self.bot = bot
        self.tap_gap = tap_gap
        """Seconds a private message waits after its last edit before the next "at once" edit."""
        self.on_blocked = on_blocked
        self.on_shown = on_shown
        """Stores what a message shows (chat, message id, digest) when Telegram accepted a change of it."""
        self.known: dict[tuple[int, int], str] = {}
        """What each message shows, by (chat, message id): loaded at start-up (a restart edits only changes)."""
        self.tasks = tasks if tasks is not None else Supervisor()
        """Runs every edit, notice and database write of the publisher, supervised."""
        self._slots: dict[tuple[int, str], Slot] = {}
        self._chats = ChatPace()
        self._retired: dict[asyncio.Task[None], Slot] = {}  # slots whose last edit is still to be made
        self._handed_off: set[asyncio.Task[None]] = set()
        self._poster = Poster(lambda chat_id, notice: self.send(chat_id, notice[0], notice[1], persist=True,
                                                                thread_id=notice[2]), self.tasks)
        """Notices waiting to be sent, chat by chat, in order."""
        self._back = asyncio.Event()
        """Set (and replaced) when Telegram answers again after a fault: what waits to retry goes at once."""
        self.on_group_lost: Callable[[int], Awaitable[None]] | None = None  # told once of a group lost
        self.on_moved: Callable[[int, int], Awaitable[None]] | None = None  # told once: (old id, new id)
        self.lost: set[int] = set()  # groups the bot is no longer in: nothing is sent there (see regain)
        self.moved: dict[int, int] = {}  # groups that became supergroups, old id to new
        self.muting = Muting(self.tasks)  # told of each refusal to write in a group, and each message sent there
        self.topics = Topics(self.tasks)  # told of each refusal to write in a forum topic, and each message sent there

    def slot(self, key: tuple[int, str], chat_id: int, interval: float, message_id: int | None,
             thread_id: int | None = None) -> Slot:
        """The slot for a message (created on first use, knowing what it shows if stored; in topic ``thread_id``)."""
        found = self._slots.get(key)
        if found is None or found.chat_id != chat_id:
            found = Slot(chat_id, interval, thread_id)
            found.message_id = message_id
            if message_id is not None:
                found.shown = self.known.get((chat_id, message_id))
            self._slots[key] = found
        return found

    def _shown(self, slot: Slot, digest: str) -> None:
        """The slot's message shows ``digest`` now, as Telegram accepted it: remembered, and stored."""
        slot.shown = digest
        slot.shown_at = time.time()
        message_id = slot.message_id
        if message_id is None or self.known.get((slot.chat_id, message_id)) == digest:
            return
        self.known[(slot.chat_id, message_id)] = digest
        if self.on_shown is not None:
            on_shown, chat_id = self.on_shown, slot.chat_id
            self._hand_off(lambda: on_shown(chat_id, message_id, digest))

    def shown_at(self, key: tuple[int, str]) -> float | None:
        """When the message last showed its latest content (unix time); None while a change of it still waits
        to be shown (or is in flight), or for a message this publisher does not keep."""
        slot = self._slots.get(key)
        if slot is None or slot.dirty or slot.busy:
            return None
        return slot.shown_at

    def unsent(self, key: tuple[int, str]) -> bool:
        """True while the message is still to be sent (a new message waiting, or in flight)."""
        slot = self._slots.get(key)
        return slot is not None and slot.message_id is None and (slot.dirty or slot.busy)

    def forget(self, key: tuple[int, str]) -> None:
        """Stop keeping a message current (the table closed, the seat emptied)."""
        slot = self._slots.pop(key, None)
        if slot is not None and slot.task is not None:
            slot.task.cancel()

    def retire(self, slot: Slot, key: tuple[int, str], render: Render) -> None:
        """Show the message one last time and stop keeping it current (a table closed).  Nothing is cancelled
        and nobody waits: the last content follows an edit in flight, and :meth:`drain` still sends it."""
        if self._slots.get(key) is slot:
            del self._slots[key]
        slot.render = render
        slot.dirty = True
        if slot.task is None or slot.task.done():
            slot.task = self._flusher(slot)
        task = slot.task
        self._retired[task] = slot
        task.add_done_callback(lambda done: self._retired.pop(done, None))

    def _hand_off(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run database work (``on_sent``, ``on_blocked``) in a task that is never cancelled (and runs
        again if it fails: a locked database passes)."""
        task = self.tasks.start("store", work)
        self._handed_off.add(task)
        task.add_done_callback(self._handed_off.discard)

    def forget_table(self, table_id: int) -> None:
        """Stop keeping every message of a table current (it closed)."""
        for key in [key for key in self._slots if key[0] == table_id]:
            self.forget(key)

    def schedule(self, slot: Slot, render: Render, *, now: bool = False, pressed: bool = False) -> None:
        """Bring the message up to date: at once (``now``) or after the slot's interval.

        ``now`` serves it before other messages under the overall limit, and
        ``pressed`` (its reader just pressed a button) before those too.
        """
        slot.render = render
        slot.dirty = True
        if now:  # a private message: at once, but not sooner than the tap gap after its last edit
            slot.next_at = slot.sent_at + self.tap_gap if slot.chat_id > 0 else 0.0
            wanted = PRESSER if pressed else MOVER
            slot.priority = wanted if slot.priority is None else min(slot.priority, wanted)
        if slot.task is None or slot.task.done():
            slot.task = self._flusher(slot)
        elif now and (not slot.busy or not slot.sending and served_before(slot.priority, slot.flying)):
            # A task waiting out the slot's interval is cut short; so is an edit waiting under the overall limit
            # when someone now waits for it (a press would wait behind its message's older, less urgent edit):
            # it goes again with the latest content, first.  A new message being sent is let finish (its id
            # would be lost: a second message next time); it sees next_at = 0 and flushes again.
            slot.task.cancel()
            slot.task = self._flusher(slot)

    def _flusher(self, slot: Slot) -> asyncio.Task[None]:
        """The task that brings the slot's message up to date (restarted if an edit fails unexpectedly)."""
        return self.tasks.start(f"edit {slot.chat_id}", lambda: self._flush_later(slot))

    async def _flush_later(self, slot: Slot) -> None:
        while slot.dirty:
            while (delay := max(slot.next_at, self._chats.next_at(slot.chat_id)) - time.monotonic()) > 0:
                await self._pause(delay)  # woken early when Telegram is back (next_at is then 0 if it failed)
            slot.dirty = False
            self._chats.spent(slot.chat_id, self.tap_gap)
            PRIORITY.set(slot.priority)  # this task's own context: read by the rate limiter
            slot.flying, slot.priority = slot.priority, None
            spent, slot.next_at = slot.next_at, time.monotonic() + slot.interval
            slot.sending = slot.message_id is None
            slot.busy = True
            try:
                if not await self.flush(slot):
                    slot.next_at = spent  # nothing was sent: the next change may go at once
                else:
                    slot.sent_at = time.monotonic()
                slot.failures = 0
            except TelegramError as exc:
                if not passes(exc):
                    raise
                # Telegram could not take it now: the latest content goes later, as urgent as it was.
                slot.dirty = True
                slot.failures += 1
                slot.next_at = time.monotonic() + retry_delay(slot.failures)
                slot.priority = slot.flying if slot.priority is None else slot.priority
            finally:
                slot.sending = slot.busy = False

    async def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or until Telegram answers again after a fault."""
        back = self._back
        try:
            async with asyncio.timeout(seconds):
                await back.wait()
        except TimeoutError:
            pass

    def telegram_back(self, family: str) -> None:
        """A fault ended (:class:`bot.faults.Faults` listener): when Telegram answers again, every message and
        notice that waits to be tried again goes now."""
        if family != "telegram":
            return
        for slot in [*self._slots.values(), *self._retired.values()]:
            if slot.failures:
                slot.next_at = 0.0
        self._back.set()
        self._back = asyncio.Event()

    async def flush(self, slot: Slot) -> bool:
        """Edit (or send) the slot's message with its latest content now.

        Returns False when nothing was sent: the message already shows exactly that.
        """
        if slot.render is None or slot.chat_id in self.lost or slot.chat_id in self.moved:
            return False
        text, markup = slot.render()
        if markup is not None and not any(markup.inline_keyboard):
            # PTB sends an empty keyboard as {}, which Telegram refuses in an edit
            # ("inline keyboard expected"); no markup removes the buttons instead.
            markup = None
        shown = shown_as(text, markup)
        if slot.message_id is not None:
            if shown == slot.shown:
                return False
            try:
                await self.bot.edit_message_text(text, slot.chat_id, slot.message_id,
                                                 parse_mode=ParseMode.HTML, reply_markup=markup)
                self._shown(slot, shown)
                return True
            except TelegramError as exc:
                if passes(exc):
                    raise  # tried again later (see _flush_later)
                if isinstance(exc, BadRequest) and not_modified(exc):
                    self._shown(slot, shown)
                    return True
                if not (isinstance(exc, BadRequest) and message_gone(exc)):  # a message gone is sent anew
                    self._refused(slot.chat_id, exc, "edit", slot.thread_id)
                    return True
        # A message kept current is not followed into a supergroup: its table moves there and is shown anew.
        sent = await self._send(slot.chat_id, text, markup, silent=False, follow=False, thread_id=slot.thread_id)
        if sent is not None:
            slot.message_id = sent.message_id
            self._shown(slot, shown)
            on_sent, message_id = slot.on_sent, sent.message_id
            if on_sent is not None:
                self._hand_off(lambda: on_sent(message_id))
        return True

    async def send(self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None,
                   *, silent: bool = False, persist: bool = False, thread_id: int | None = None) -> Message | None:
        """Send a new message, a private chat's in turn with its edits (:class:`ChatPace`); None if the chat cannot
        be reached, or if Telegram could not take it now and ``persist`` (tried again until it goes) is false."""
        await self._chats.turn(chat_id, self.tap_gap)
        failures = 0
        while chat_id not in self.lost:
            try:
                return await self._send(self.moved.get(chat_id, chat_id), text, markup, silent=silent,
                                        thread_id=thread_id)
            except TelegramError:  # only a failure that can pass comes here
                if not persist:
                    return None  # bot.faults logged the fault once
                failures += 1
                await self._pause(retry_delay(failures))
        return None

    async def _send(self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None, *,
                    silent: bool, follow: bool = True, thread_id: int | None = None) -> Message | None:
        """Send once; None if refused for good (:meth:`_refused`; with ``follow``, sent on to a supergroup);
        a failure that can pass raises."""
        if chat_id in self.lost:
            return None
        try:
            sent = await self.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                               disable_notification=silent, message_thread_id=thread_id)
        except TelegramError as exc:
            if passes(exc):
                raise
            self._refused(chat_id, exc, "send", thread_id)
            new = moved_to(exc)
            if follow and new is not None and new not in self.moved:
                return await self._send(new, text, markup, silent=silent, follow=False)
            return None
        self.muting.wrote(chat_id)  # a group that muted the bot lets it write again
        self.topics.wrote(chat_id, thread_id)  # and so does a topic that was closed
        return sent

    def _refused(self, chat_id: int, exc: TelegramError, what: str, thread_id: int | None = None) -> None:
        """A call to ``chat_id`` (topic ``thread_id``) was refused for good: reported, told, else logged."""
        new = moved_to(exc)
        if self.muting.refused(chat_id, exc) or self.topics.refused(chat_id, thread_id, exc):
            return  # muted there, or its topic closed or gone (logged by bot.muting, bot.topics): tables pause
        if new is not None:
            if chat_id not in self.moved:
                self.moved[chat_id] = new
                log.warning("group %s became supergroup %s; its table moves there", chat_id, new)
                if self.on_moved is not None:
                    on_moved = self.on_moved
                    self._hand_off(lambda: on_moved(chat_id, new))
        elif group_gone(exc, chat_id):
            self.lose(chat_id, str(exc))
        elif isinstance(exc, Forbidden):
            self._hand_off(lambda: self.on_blocked(chat_id))
        else:
            log.warning("%s refused in chat %s, given up: %s", what, chat_id, exc)

    def lose(self, chat_id: int, why: str, *, tell: bool = True) -> None:
        """The bot is no longer in this group: its notices dropped, nothing more sent; told once (``tell``)."""
        if chat_id in self.lost:
            return
        self.lost.add(chat_id)
        log.warning("group %s is out of reach (%s): nothing more is sent there", chat_id, why)
        self._poster.drop(chat_id)
        for slot in [*self._slots.values(), *self._retired.values()]:
            if slot.chat_id == chat_id:
                slot.dirty = False
        if tell and self.on_group_lost is not None:
            on_group_lost = self.on_group_lost
            self._hand_off(lambda: on_group_lost(chat_id))

    def regain(self, chat_id: int) -> None:
        """The bot is in this group again: it may write there."""
        self.lost.discard(chat_id)

    @property
    def kept(self) -> int:
        """How many messages are kept current (a number that grows with a steady load is a leak)."""
        return len(self._slots)

    @property
    def settled(self) -> bool:
        """True when every message shows its latest content (closed tables' last edits included)."""
        return not self._retired and all(not slot.dirty and (slot.task is None or slot.task.done())
                                         for slot in self._slots.values())

    @property
    def limiter(self) -> ChatRateLimiter | None:
        """The bot's rate limiter, which admission reads (None for a bot without one: tools, some tests)."""
        limiter = getattr(self.bot, "rate_limiter", None)
        return limiter if isinstance(limiter, ChatRateLimiter) else None

    @property
    def behind(self) -> bool:
        """True while the bot sends more than Telegram's overall limit lets through (``ChatRateLimiter.behind``)."""
        return self.limiter is not None and self.limiter.behind

    @property
    def backlog(self) -> float:
        """Seconds the messages waiting for Telegram's overall limit need to go out."""
        return self.limiter.backlog if self.limiter is not None else 0.0

    def post(self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None, *,
             thread_id: int | None = None) -> None:
        """Send a notice soon, in a task of its own, after the notices posted to that chat before it (for a
        caller that holds a table's lock: nobody's press waits for a group's flood limit)."""
        if chat_id not in self.lost:
            self._poster.post(chat_id, (text, markup, thread_id))

    async def delete(self, chat_id: int, message_id: int | None) -> bool:
        """Delete a message; one already gone (a 400 after a restart, say) counts as deleted.  False when it
        stays: refused (a bot may delete its message for 48 hours only), or Telegram out of reach."""
        if message_id is None:
            return True
        try:
            return await self.bot.delete_message(chat_id, message_id)
        except (BadRequest, Forbidden) as exc:  # gone already, or the chat is out of reach (reported elsewhere)
            log.debug("message %s in chat %s not deleted: %s", message_id, chat_id, exc.message)
            return isinstance(exc, BadRequest) and "not found" in exc.message.lower()
        except TelegramError as exc:
            if not passes(exc):  # one that can pass was logged once by bot.faults; the message stays
                log.warning("delete failed in chat %s: %s", chat_id, exc)
            return False

    async def drain(self) -> None:
        """Shut-down: flush every pending edit now (retired slots' too), send the notices, finish the stores."""
        await asyncio.gather(*self._poster.running(), return_exceptions=True)
        for slot in [*self._slots.values(), *self._retired.values()]:
            if slot.task is not None and not slot.task.done():
                if slot.busy:  # a call in flight (maybe waiting under the limits): let it finish, then the rest
                    slot.next_at = 0.0
                    await asyncio.wait({slot.task})
                else:  # only waiting out the slot's interval: the flush below sends its content now
                    slot.task.cancel()
            if slot.dirty:
                slot.dirty = False
                try:
                    await self.flush(slot)
                except TelegramError:  # Telegram cannot take it: the next start shows every message again
                    pass
        await asyncio.gather(*list(self._handed_off), return_exceptions=True)
