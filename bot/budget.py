"""A budget for answering commands, per chat and per person, so a flood of commands cannot flood back.

Telegram lets a bot post about one message a second in a chat (a burst of
a few tolerated) and 20 a minute in a group; a table's own messages need
part of that.  Every command takes one unit from its chat's windows (a
short burst window and a minute window) and its sender's.  Past a budget,
the first excess command gets one short notice if the chat's burst window
still has room for it, and the rest are dropped unanswered (no handler runs
for them).  Button presses are not budgeted: each is answered by its popup,
which posts nothing to the chat.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Final, Literal

Verdict = Literal["answer", "notice", "drop"]

CHAT_BURST: Final = (3, 3.0)
"""Commands answered per chat in a burst: at most 3 in any 3 seconds (Telegram: about one a second)."""
PER_CHAT: Final = (10, 60.0)
"""Commands answered per chat: at most 10 in any 60 seconds (Telegram: 20 messages a minute in a group)."""
PER_PERSON: Final = (5, 30.0)
"""Commands answered per person (in all chats): at most 5 in any 30 seconds."""


class Window:
    """Events in a sliding time window, up to a limit."""

    __slots__ = ("limit", "span", "times", "noticed")

    def __init__(self, limit: int, span: float) -> None:
        self.limit = limit
        self.span = span
        self.times: deque[float] = deque()
        self.noticed = False
        """Whether the notice for this run of excess has been given."""

    def room(self, now: float) -> bool:
        """True if one more event fits in the window now."""
        while self.times and self.times[0] <= now - self.span:
            self.times.popleft()
        return len(self.times) < self.limit

    def take(self, now: float) -> None:
        """Count one event now (the caller checked :meth:`room`)."""
        self.times.append(now)
        self.noticed = False


class CommandBudget:
    """The per-chat and per-person windows of every chat and person that sent a command lately."""

    def __init__(self, chat_burst: tuple[int, float] = CHAT_BURST, per_chat: tuple[int, float] = PER_CHAT,
                 per_person: tuple[int, float] = PER_PERSON, clock: Callable[[], float] = time.monotonic) -> None:
        self.chat_burst = chat_burst
        self.per_chat = per_chat
        self.per_person = per_person
        self.clock = clock
        self._bursts: dict[int, Window] = {}
        self._chats: dict[int, Window] = {}
        self._people: dict[int, Window] = {}

    def verdict(self, chat_id: int, user_id: int) -> Verdict:
        """Whether to answer this command, give the one notice, or drop it."""
        now = self.clock()
        self._forget_idle(now)
        burst = self._bursts.setdefault(chat_id, Window(*self.chat_burst))
        chat = self._chats.setdefault(chat_id, Window(*self.per_chat))
        person = self._people.setdefault(user_id, Window(*self.per_person))
        # Every window must have room; a refused command takes from none.
        if burst.room(now) and chat.room(now) and person.room(now):
            for window in (burst, chat, person):
                window.take(now)
            return "answer"
        full = person if not person.room(now) else chat if not chat.room(now) else None
        if full is None or full.noticed or not burst.room(now):
            return "drop"  # a burst is dropped silently: a notice would be one message too many
        full.noticed = True
        burst.take(now)
        return "notice"

    def _forget_idle(self, now: float) -> None:
        """Drop windows whose every event has left them (memory stays bounded by recent senders)."""
        if len(self._chats) + len(self._people) < 10_000:
            return
        for table in (self._bursts, self._chats, self._people):
            for key in [k for k, w in table.items() if not w.times or w.times[-1] <= now - w.span]:
                del table[key]

