"""Telegram's flood limits, chat by chat: a 429 in one chat delays that chat only.

PTB's ``AIORateLimiter`` halts every request of the bot while it waits out one
chat's ``retry_after``: at a hundred tables, one busy group pauses them all.
:class:`ChatRateLimiter` keeps the same throttles (about 30 messages a second
overall, 20 a minute in a group, one a second in a private chat after a short
burst; edits count in groups only, as Telegram counts them) but remembers a
429 per chat: that chat's requests wait it out, and every other chat goes on.
Requests without a chat (button answers) are never throttled, so a press is
answered at once.

When more calls wait than the overall limit lets through, the ones a person
is looking at go first: the publisher sets :data:`PRIORITY` for an edit of a
presser's own message (:data:`PRESSER`), then the next mover's
(:data:`MOVER`); other private messages come next, and the group's last (a
group message that waits is only edited later to its latest state).  Only
messages (sends and edits) count against the overall limit; lookups, deletes
and button answers do not.

Coalescing group edits to the latest state is the publisher's part: a message
has one edit in flight at most, and what it shows next is rendered when that
edit is made (:mod:`bot.publisher`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import time
import warnings
from collections import deque
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.tasks import Supervisor

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]

IDLE = 120.0
"""Seconds after which a quiet chat's throttle is forgotten (it is full again by then)."""


ANSWER, PRESSER, MOVER, PRIVATE, GROUP = -1, 0, 1, 2, 3
"""The order in which requests waiting for the overall limit are served."""

HEAD_START = {ANSWER: -3600.0, PRESSER: 0.0, MOVER: 30.0, PRIVATE: 34.0, GROUP: 35.0}
"""Seconds a request of each priority waits behind one that arrived at the same time.  A message a
button's answer waits for (:data:`ANSWER`) goes before every other: Telegram takes no answer after
about 15 s, however far behind the bot is (it is one message per press of someone the bot has not
reached yet, so it cannot crowd the others out).  A presser's own message goes before any other message
less than 30 seconds old: a person sees their press take effect at once however busy the bot is, even
when the next movers wait 15 s to see their turn (at 300 tables of four people, a 10 s margin let the
presses wait 4 s).  Presses cannot swamp the others: each person presses again only once they have seen
their message change, and nobody presses a move before seeing their turn.  Then the next movers: any
other private message (a result, a new hand, a clock, a waiting player's edit) goes before a new next
mover's only once it has waited 4 seconds, a group's message once it has waited 5, so no message
starves while many tables keep the overall limit busy, yet the turns do not queue behind a burst of
hands' ends (with 1.5 and 3.5 s, at 69 tables sending 25 messages a second, one turn in twenty took
1.5 s to show and one in a hundred 2 s)."""

PRIORITY: ContextVar[int | None] = ContextVar("PRIORITY", default=None)
"""Set (in the task making the request) for a message someone is waiting for: :data:`ANSWER` (a message
the answer to their press waits for), :data:`PRESSER` (their own hand message after a press) or
:data:`MOVER`."""

COUNTED = ("send", "copy", "forward")
"""Calls a private chat's window counts: new messages (an edit there is not held back)."""
COUNTED_IN_GROUPS = (*COUNTED, "edit")
"""Calls a group's window counts: new messages and edits (a lookup such as getChatMember is not a message)."""


def retry_seconds(exc: RetryAfter) -> float:
    """Seconds Telegram asked to wait, read from the public ``retry_after`` (an int in PTB 22, a timedelta
    from PTB 23 or with ``PTB_TIMEDELTA`` set), without PTB 22's deprecation warning about that change."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class Bucket:
    """A token bucket that never lets more than ``most`` calls through in any ``span`` seconds.

    ``burst`` calls go at once; the rest are paced at ``(most - burst) / span`` a
    second, so a burst and the refill over a whole window add up to ``most``:
    safe under a sliding window (the way Telegram counts), yet a call queued
    behind a burst waits seconds, not the rest of the minute.
    """

    __slots__ = ("burst", "rate", "tokens", "updated")

    def __init__(self, most: int, span: float, burst: int) -> None:
        self.burst = burst
        self.rate = (most - burst) / span
        self.tokens = float(burst)
        self.updated: float | None = None

    def take(self, now: float) -> float:
        """Take a token if there is one (0.0); else the seconds until there is one."""
        if self.updated is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1 - 1e-9:  # rounding must not leave a token a hair short
            self.tokens = max(0.0, self.tokens - 1)
            return 0.0
        return max(0.01, (1 - self.tokens) / self.rate)

    async def acquire(self, clock: Callable[[], float]) -> None:
        """Wait for a token, and take it."""
        while wait := self.take(clock()):
            await asyncio.sleep(wait)


WAITS_SPAN = 20.0
"""Seconds of recent requests over which :class:`Waits` reads how long they waited."""


class Waits:
    """How long requests waited for the overall limit lately, and how many were served (the last
    :data:`WAITS_SPAN` s)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: deque[tuple[float, float]] = deque()

    def add(self, now: float, waited: float) -> None:
        """A request was served at ``now`` after waiting ``waited`` seconds."""
        self._seen.append((now, waited))
        self._expire(now)

    def high(self, now: float, share: float = 0.9) -> float:
        """The wait that ``share`` of the recent requests did not exceed (0.0 when none was made lately)."""
        self._expire(now)
        if not self._seen:
            return 0.0
        waits = sorted(waited for _, waited in self._seen)
        return waits[min(len(waits) - 1, int(share * len(waits)))]

    def per_second(self, now: float) -> float:
        """Requests served a second, on average over the span."""
        self._expire(now)
        return len(self._seen) / WAITS_SPAN

    def _expire(self, now: float) -> None:
        while self._seen and self._seen[0][0] < now - WAITS_SPAN:
            self._seen.popleft()


class Queue:
    """The overall limit: a :class:`Bucket` whose waiting requests are served by priority, then in order.

    One task hands out tokens while anyone waits; a request whose waiter was
    cancelled (its edit made obsolete) is skipped.
    """

    def __init__(self, bucket: Bucket, tasks: Supervisor | None = None) -> None:
        self.bucket = bucket
        self.tasks = tasks if tasks is not None else Supervisor()
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._server: asyncio.Task[None] | None = None
        self.movers = Waits()
        """How long the next movers' messages (:data:`MOVER`) waited lately: what admission watches."""
        self.served = Waits()
        """Every message served lately: its rate is what admission forecasts from."""

    @property
    def waiting(self) -> int:
        """Requests waiting for a token (a cancelled one until its turn comes)."""
        return len(self._waiting)

    async def acquire(self, clock: Callable[[], float], priority: int) -> None:
        """Wait for a token; waiting requests are served by arrival plus their priority's
        :data:`HEAD_START`."""
        asked = clock()
        if not self._waiting and not self.bucket.take(asked):
            self.served.add(asked, 0.0)
            if priority == MOVER:
                self.movers.add(asked, 0.0)
            return  # nobody ahead, and a token at hand
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (asked + HEAD_START[priority], next(self._order), future))
        if self._server is None or self._server.done():
            self._server = self.tasks.start("overall-limit", lambda: self._serve(clock))
        await future
        now = clock()
        self.served.add(now, now - asked)
        if priority == MOVER:
            self.movers.add(now, now - asked)

    async def _serve(self, clock: Callable[[], float]) -> None:
        while self._waiting:
            due, order, future = heapq.heappop(self._waiting)
            if future.done():  # its request was cancelled meanwhile
                continue
            heapq.heappush(self._waiting, (due, order, future))  # served only once a token is in hand
            await self.bucket.acquire(clock)
            while self._waiting and self._waiting[0][2].done():
                heapq.heappop(self._waiting)
            if self._waiting:
                heapq.heappop(self._waiting)[2].set_result(None)


class _Chat:
    """One chat's bucket and the time until which Telegram asked it to wait."""

    __slots__ = ("window", "blocked_until", "used")

    def __init__(self, window: Bucket) -> None:
        self.window = window
        self.blocked_until = 0.0
        self.used = 0.0


class ChatRateLimiter(BaseRateLimiter[int]):
    """Throttles per chat and overall; a ``RetryAfter`` pauses only the chat it came from.

    ``overall``, ``group`` and ``private`` are (calls, seconds, burst): just under
    Telegram's 30 a second, 20 a minute in a group (three at once at most: one a
    second in any chat after a short burst), and one a second in a private
    chat after a short burst (a margin in each: Telegram counts a call when it
    arrives, and calls paced apart may arrive bunched).  Overall, 27 a second
    after one call at once, so never more than 28 in any second: the steady
    pace is what sets how many tables one bot hosts (each play needs the
    presser's and the next mover's message), and at 24 a second (27 with a
    burst of three) the next player waited 2 s at 100 tables.  The margin is
    for calls that leave paced apart and arrive bunched: with 29 in a second
    (a burst of two), 84 tables drew seven 429s a minute, each a second's wait
    and a call more.

    ``rate_limit_args`` (PTB's per-call argument) overrides ``max_retries``.
    With ``paced`` false nothing is throttled beforehand (a test server without
    flood limits); a 429 is still waited out in its chat only.
    """

    def __init__(self, *, overall: tuple[int, float, int] = (28, 1.0, 1),
                 group: tuple[int, float, int] = (19, 60.0, 3), private: tuple[int, float, int] = (4, 3.0, 2),
                 max_retries: int = 8, paced: bool = True,
                 clock: Callable[[], float] = time.monotonic, tasks: Supervisor | None = None) -> None:
        self._overall = Queue(Bucket(*overall), tasks)
        self._group = group
        self._private = private
        self._max_retries = max_retries
        self._paced = paced
        self._clock = clock
        self._chats: dict[int, _Chat] = {}
        self._requests = 0
        self.in_flight = 0
        """Requests to chats not yet answered (waiting for the limits or on the wire): ``/health`` shows it,
        and a number that keeps growing means the bot asks more of Telegram than its limits allow."""

    @property
    def backlog(self) -> float:
        """Seconds the messages waiting for the overall limit need to go out (0.0: none wait)."""
        return self._overall.waiting / self._overall.bucket.rate

    def movers_wait(self) -> float:
        """Seconds the next movers' messages waited for the overall limit lately (nine in ten waited no
        longer): the first sign that the bot hosts more tables than Telegram's limit carries."""
        return self._overall.movers.high(self._clock())

    def sent_rate(self) -> float:
        """Messages (sends and edits) a second the bot made lately, over every chat: the overall limit's load."""
        return self._overall.served.per_second(self._clock())

    @property
    def behind(self) -> bool:
        """True while more messages wait for the overall limit than it lets through in a second: the bot
        asks more of Telegram than it allows, and a message that can be left out should be."""
        return self.backlog > 1.0

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def chat(self, chat_id: int) -> _Chat:
        """The throttle of one chat (a group's when the id is negative)."""
        found = self._chats.get(chat_id)
        if found is None:
            found = self._chats[chat_id] = _Chat(Bucket(*(self._group if chat_id < 0 else self._private)))
        found.used = self._clock()
        return found

    def _forget_idle(self) -> None:
        self._requests += 1
        if self._requests % 1000:
            return
        now = self._clock()
        for chat_id in [c for c, chat in self._chats.items() if now - chat.used > IDLE and chat.blocked_until < now]:
            del self._chats[chat_id]

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | JSONDict | list[JSONDict]:
        """Make the request within the limits; wait out and retry a 429 in this request's chat only."""
        chat_id: int | None = None
        with contextlib.suppress(TypeError, ValueError):
            chat_id = int(data["chat_id"]) if data.get("chat_id") is not None else None
        retries = self._max_retries if rate_limit_args is None else rate_limit_args
        self._forget_idle()
        if chat_id is None:
            return await self._unthrottled(callback, args, kwargs, retries, endpoint)
        self.in_flight += 1
        try:
            return await self._throttled(callback, args, kwargs, chat_id, chat_id < 0, retries, endpoint)
        finally:
            self.in_flight -= 1

    async def _unthrottled(self, callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
                           args: Any, kwargs: dict[str, Any], retries: int,
                           endpoint: str) -> bool | JSONDict | list[JSONDict]:
        """A request without a chat (a button answer, getUpdates): never paced; a 429 is waited out."""
        for attempt in range(retries + 1):
            outcome = await self._call(callback, args, kwargs, None, attempt, retries, endpoint)
            if outcome is not None:
                return outcome
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _throttled(self, callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
                         args: Any, kwargs: dict[str, Any], chat_id: int, group: bool, retries: int,
                         endpoint: str) -> bool | JSONDict | list[JSONDict]:
        """A request to a chat: paced by the chat's window and the overall limit; a 429 waits in this chat."""
        for attempt in range(retries + 1):
            chat = self.chat(chat_id)
            if self._paced and endpoint.startswith(COUNTED_IN_GROUPS if group else COUNTED):
                await chat.window.acquire(self._clock)
            # Checked once this request's turn in the chat came: a 429 met meanwhile counts.
            wait = chat.blocked_until - self._clock()
            if wait > 0:
                await asyncio.sleep(wait)
            if self._paced and endpoint.startswith(COUNTED_IN_GROUPS):
                chosen = PRIORITY.get()
                await self._overall.acquire(self._clock, chosen if chosen is not None else
                                            GROUP if group else PRIVATE)
            outcome = await self._call(callback, args, kwargs, chat, attempt, retries, endpoint)
            if outcome is not None:
                return outcome
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _call(self, callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
                    args: Any, kwargs: dict[str, Any], chat: _Chat | None, attempt: int, retries: int,
                    endpoint: str) -> bool | JSONDict | list[JSONDict] | None:
        """The result, or None when Telegram said to retry after a while (already waited out)."""
        try:
            return await callback(*args, **kwargs)
        except RetryAfter as exc:
            if attempt >= retries:
                raise
            delay = retry_seconds(exc)
            log.info("%s: flood control, retrying in %s s (this chat only)", endpoint, delay)
            if chat is not None:
                chat.blocked_until = max(chat.blocked_until, self._clock() + delay + 0.1)
            else:
                await asyncio.sleep(delay + 0.1)
            return None
