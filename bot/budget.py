"""A budget for answering commands, per chat and per person, so a flood of commands cannot flood back.

Telegram lets a bot post 20 messages a minute in a group (and about one a
second in a chat, which PTB's rate limiter paces by waiting out a 429); a
table's own messages need part of that.  Every command takes one unit from
its chat's window and its sender's.  Past either, the first excess command
gets one short notice, and the excess commands wait (:mod:`bot.handlers.throttle`)
to be answered, in order, once the windows have room again.  A game command (joining, leaving, opening or stopping a table) is
never dropped: it counts against the budget, and is handled whatever the
budget says (:meth:`CommandBudget.charge`).  Button presses are not budgeted:
each is answered by its popup, which posts nothing to the chat; but the
league's buttons and pages, which may cost a drawing or a long count, are
(:class:`PersonBudget`: a refused one is answered at once and costs nothing).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, MutableMapping
from typing import Any, Final, Literal

Verdict = Literal["answer", "notice", "drop"]

PER_CHAT: Final = (10, 60.0)
"""Commands answered per chat: at most 10 in any 60 seconds (Telegram: 20 messages a minute in a group)."""
PER_PERSON: Final = (6, 30.0)
"""Commands answered per person (in all chats): at most 6 in any 30 seconds."""


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

    def __init__(self, per_chat: tuple[int, float] = PER_CHAT, per_person: tuple[int, float] = PER_PERSON,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_chat = per_chat
        self.per_person = per_person
        self.clock = clock
        self._chats: dict[int, Window] = {}
        self._people: dict[int, Window] = {}

    def verdict(self, chat_id: int, user_id: int) -> Verdict:
        """Whether to answer this command, give the one notice, or drop it."""
        now = self.clock()
        self._forget_idle(now)
        chat = self._chats.setdefault(chat_id, Window(*self.per_chat))
        person = self._people.setdefault(user_id, Window(*self.per_person))
        # Every window must have room; a refused command takes from none.
        if chat.room(now) and person.room(now):
            chat.take(now)
            person.take(now)
            return "answer"
        if chat.noticed or person.noticed:  # one notice for a run, whichever window filled first
            return "drop"
        chat.noticed = person.noticed = True
        return "notice"

    def wait(self, chat_id: int, user_id: int) -> float:
        """Seconds until both this chat's and this person's windows have room (0: now)."""
        now = self.clock()
        waits = [0.0]
        for window in (self._chats.get(chat_id), self._people.get(user_id)):
            if window is not None and not window.room(now):
                waits.append(window.times[len(window.times) - window.limit] + window.span - now)
        return max(waits)

    def take(self, chat_id: int, user_id: int) -> None:
        """Count a command answered now, after it waited for room (see :meth:`wait`)."""
        self.charge(chat_id, user_id)

    def charge(self, chat_id: int, user_id: int) -> None:
        """Count a command that is handled whatever the budget says (a game command): the commands after it
        wait for the room it took."""
        now = self.clock()
        self._forget_idle(now)
        for window in (self._chats.setdefault(chat_id, Window(*self.per_chat)),
                       self._people.setdefault(user_id, Window(*self.per_person))):
            window.room(now)  # forget what left the window
            window.take(now)

    def _forget_idle(self, now: float) -> None:
        """Drop windows whose every event has left them (memory stays bounded by recent senders)."""
        if len(self._chats) + len(self._people) < 10_000:
            return
        for table in (self._chats, self._people):
            for key in [k for k, w in table.items() if not w.times or w.times[-1] <= now - w.span]:
                del table[key]


PER_PERSON_LEAGUE: Final = (12, 30.0)
"""League buttons and league page requests answered per person: at most 12 in any 30 seconds (looking through
a league's seasons takes a few; 40 forged presses in half a minute do not)."""


class PersonBudget:
    """One sliding window per person, for what only reads but may cost the bot a drawing or a long count (the
    league's buttons and pages): past it, a request is refused at once, before any work, and the refusal says
    when to try again.  A refused request takes nothing from the window."""

    def __init__(self, per_person: tuple[int, float] = PER_PERSON_LEAGUE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_person = per_person
        self.clock = clock
        self._people: dict[int, Window] = {}

    def allows(self, user_id: int) -> bool:
        """True (and counted) if this person's request fits in their window now."""
        now = self.clock()
        if len(self._people) >= 10_000:  # forget the people whose window is empty again
            self._people = {k: w for k, w in self._people.items() if w.times and w.times[-1] > now - w.span}
        window = self._people.setdefault(user_id, Window(*self.per_person))
        if not window.room(now):
            return False
        window.take(now)
        return True

    def retry_after(self, user_id: int) -> float:
        """Seconds until this person's next request fits (0: it fits now)."""
        window = self._people.get(user_id)
        now = self.clock()
        if window is None or window.room(now):
            return 0.0
        return max(0.0, window.times[0] + window.span - now)


PER_PERSON_REPLAYS: Final = (20, 60.0)
"""Replays asked in the web app per person: at most 20 in any minute (a replay is the match dealt again up to its
hand, tens of milliseconds for a long match; stepping through a few of one's hands takes one request each)."""


def replay_budget(bot_data: MutableMapping[Any, Any]) -> PersonBudget:
    """The per-person budget of the web app's replays, kept in ``bot_data``."""
    budget = bot_data.get("replay_budget")
    if not isinstance(budget, PersonBudget):
        budget = bot_data["replay_budget"] = PersonBudget(PER_PERSON_REPLAYS)
    return budget


def league_budget(bot_data: MutableMapping[Any, Any]) -> PersonBudget:
    """The per-person budget of the league's buttons and pages (one, shared by both), kept in ``bot_data``."""
    budget = bot_data.get("league_budget")
    if not isinstance(budget, PersonBudget):
        budget = bot_data["league_budget"] = PersonBudget()
    return budget


class Pacer:
    """Spaces the replies to commands in one chat (Telegram: about one message a second per chat).

    Without it, the answers to a burst of commands hit the per-chat limit
    together, and every retry after a 429 collides again.
    """

    def __init__(self, spacing: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.spacing = spacing
        self.clock = clock
        self._next: dict[int, float] = {}

    def delay(self, chat_id: int) -> float:
        """Seconds to wait before replying in this chat now (the slot is taken)."""
        now = self.clock()
        slot = max(now, self._next.get(chat_id, 0.0))
        self._next[chat_id] = slot + self.spacing
        if len(self._next) > 10_000:  # forget chats whose slot has passed
            self._next = {chat: at for chat, at in self._next.items() if at > now}
        return slot - now
