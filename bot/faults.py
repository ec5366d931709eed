"""Faults that can pass: Telegram unreachable, the database locked by another process, storage full, disk
errors.  One log line when a fault starts and one when it ends, with counts; their state for ``/health``.

A fault is *open* from its first failure until something shows it is over:
for Telegram, any answer from the Bot API (:mod:`bot.reachability` watches
every request, ``getUpdates`` included); for storage, a write transaction
that commits (:class:`storage.Database` tells its observer).  In between,
failures are only counted: under a fault the log stays readable, and the
callers (the supervisor, the publisher, the handlers) need not log again.
Listeners hear when a fault ends (the publisher then retries at once what
waited for Telegram).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from storage import StorageFault

log = logging.getLogger(__name__)

LABELS: Final = {
    "telegram": "Telegram is unreachable",
    "locked": "the database is locked by another process",
    "full": "storage is full",
    "io": "storage fails to read or write",
}
"""What each kind of fault means, for the log and ``/health``."""

FAMILIES: Final = {"telegram": "telegram", "locked": "storage", "full": "storage", "io": "storage"}
"""Which evidence ends a fault: an answer from Telegram, or a write that commits."""


def passes(exc: BaseException) -> bool:
    """True for a failure that can pass by itself, so that trying again later is right: a storage fault,
    Telegram unreachable or answering 5xx or timing out, or flood control that outlasted the rate limiter's
    retries.  (A ``BadRequest`` is a ``NetworkError`` in python-telegram-bot, but Telegram refused it: it
    does not pass.)"""
    if isinstance(exc, BadRequest):
        return False
    return isinstance(exc, StorageFault | NetworkError | RetryAfter)


def group_gone(exc: TelegramError, chat_id: int) -> bool:
    """True when Telegram answered that the bot cannot write to this group any more: it was removed
    (403 "bot was kicked", "bot is not a member") or the group is gone ("chat not found").  A private
    chat's 403 is a person blocking the bot, never this."""
    if chat_id >= 0 or refuses_writing(exc, chat_id):
        return False  # a muted bot is still in the group (bot.muting)
    if isinstance(exc, Forbidden):
        return True
    return isinstance(exc, BadRequest) and "chat not found" in exc.message.lower()


NO_RIGHTS: Final = ("not enough rights to send text messages", "have no rights to send a message",
                    "chat_write_forbidden", "chat_send_plain_forbidden")
"""What Telegram answers (400, at times 403) to a bot that may not send messages in a group it is in (not
"… to send photos": a group may refuse pictures and take text, and the league then sends its tables as text)."""


def refuses_writing(exc: TelegramError, chat_id: int) -> bool:
    """True when a group refused a message because the bot may not write there (it is muted), not because it
    is gone from it."""
    if chat_id >= 0 or not isinstance(exc, BadRequest | Forbidden):
        return False
    text = exc.message.lower()
    return any(words in text for words in NO_RIGHTS)


def moved_to(exc: BaseException) -> int | None:
    """The supergroup's id when Telegram refused a call because the group was upgraded (``ChatMigrated``)."""
    return exc.new_chat_id if isinstance(exc, ChatMigrated) else None


@dataclass(slots=True)
class Fault:
    """One open fault: since when, how many failures, the last one's detail."""

    kind: str
    since: float
    failures: int = 1
    detail: str = ""


class Faults:
    """The open faults of the bot, logged once when they start and once when they end."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.open: dict[str, Fault] = {}
        self.listeners: list[Callable[[str], None]] = []
        """Called with the family (``"telegram"``, ``"storage"``) whenever a fault of it has ended."""
        self.seen: dict[str, int] = {}
        """Faults started since the bot started, by kind."""

    def failed(self, kind: str, detail: str = "") -> None:
        """A call failed with a fault of ``kind``: the fault starts (one WARNING line) or goes on (counted)."""
        fault = self.open.get(kind)
        if fault is not None:
            fault.failures += 1
            fault.detail = detail
            return
        self.open[kind] = Fault(kind, self.clock(), 1, detail)
        self.seen[kind] = self.seen.get(kind, 0) + 1
        log.warning("fault: %s (%s); retrying quietly until it passes", LABELS.get(kind, kind), detail or kind)

    def passed(self, family: str) -> None:
        """Something of ``family`` worked: its open faults end (one WARNING line each, with counts)."""
        ended = [kind for kind in self.open if FAMILIES.get(kind, kind) == family]
        for kind in ended:
            fault = self.open.pop(kind)
            log.warning("fault over: %s for %.0f s (%d failure%s)", LABELS.get(kind, kind),
                        self.clock() - fault.since, fault.failures, "" if fault.failures == 1 else "s")
        if ended:
            for listener in list(self.listeners):
                listener(family)

    def since(self, kind: str) -> float | None:
        """When the open fault of ``kind`` started (None: it is not open)."""
        fault = self.open.get(kind)
        return fault.since if fault is not None else None

    def status(self) -> dict[str, Any]:
        """For ``/health``: per open fault, how long it has lasted and how many calls failed."""
        now = self.clock()
        return {kind: {"for": round(now - fault.since, 1), "failures": fault.failures, "what": LABELS.get(kind, kind)}
                for kind, fault in self.open.items()}
