"""Stream tickets, and the streams open now: counted per person and per table, within caps.

A browser's ``EventSource`` cannot send headers, and ``initData`` in the
stream's URL would land in every proxy's access log.  So the page first
asks for a ticket with an authenticated POST (``initData`` in the header);
the ticket is a random token, good for :data:`TICKET_LIFE` seconds and one
stream, bound to the person, the table and the seat, and it carries the
``initData``'s ``auth_date`` so the stream keeps checking its age.  What a
proxy may log of a stream's URL is then a spent ticket.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

TICKET_LIFE: Final = 30.0
"""Seconds a ticket may wait before its stream opens."""
PER_PERSON: Final = 4
"""Streams one person may have open at once, over all tables (a phone and a desktop, each with a reload
on its way)."""
PER_TABLE: Final = 16
"""Streams the people seated at one table may have open at once: every change of a table wakes each of its
streams, so this bounds the work a move costs.  The places of someone who no longer holds their seat do not
count (their tickets are voided, their streams end at their next check), so they never lock out whoever
sits down next."""
TICKETS_KEPT: Final = 10_000
"""At most this many unused tickets are remembered (a bound on memory)."""


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a stream is opened for: one person at one seat of one table, with their ``initData``'s date."""

    user_id: int
    table_id: int
    seat: int
    auth_date: int
    language_code: str | None
    expires: float
    """``time.monotonic()`` after which the ticket is void."""


Holds = Callable[[int, int], bool]
"""``holds(user_id, seat)``: whether that person holds that seat of the table now."""


def _always(user_id: int, seat: int) -> bool:
    return True


class StreamCapError(Exception):
    """The person, or the table, has as many streams open (or tickets waiting) as allowed."""


class Streams:
    """Tickets waiting to be used, and the streams open now.

    A ticket takes its place under the caps when it is issued: a stream
    opened with it only turns that place from waiting to open, and a ticket
    never used gives it back when it expires.  So no burst of tickets asked
    for at once can open more streams than the caps allow.  A person who
    leaves their seat leaves no place behind at the table: their waiting
    tickets are voided at the next ticket asked for there, and their open
    streams (ending at their next check) no longer count.
    """

    def __init__(self) -> None:
        self._tickets: OrderedDict[str, Ticket] = OrderedDict()
        self._waiting: dict[int, set[str]] = {}
        """Per table: the tokens of its tickets not used yet."""
        self._people: Counter[int] = Counter()
        """Per person: streams open and tickets waiting."""
        self._places: dict[int, Counter[tuple[int, int]]] = {}
        """Per table, per (person, seat): streams open and tickets waiting."""
        self._open = 0

    def issue(self, user_id: int, table_id: int, seat: int, auth_date: int, language_code: str | None,
              holds: Holds = _always) -> str:
        """A new ticket; raises :class:`StreamCapError` if the person or the table has no place left.

        ``holds`` says who holds which seat of the table now: the tickets still waiting of anyone who
        left their seat are voided first, and only the places of people seated count under
        :data:`PER_TABLE`."""
        now = time.monotonic()
        while self._tickets and (len(self._tickets) >= TICKETS_KEPT or next(iter(self._tickets.values())).expires < now):
            self._void(next(iter(self._tickets)))
        for token in [t for t in self._waiting.get(table_id, ()) if not holds(*self._holder(t))]:
            self._void(token)
        if self._people[user_id] >= PER_PERSON or self.seated_places(table_id, holds) >= PER_TABLE:
            raise StreamCapError
        token = secrets.token_urlsafe(32)
        self._tickets[token] = Ticket(user_id, table_id, seat, auth_date, language_code, now + TICKET_LIFE)
        self._waiting.setdefault(table_id, set()).add(token)
        self._people[user_id] += 1
        self._places.setdefault(table_id, Counter())[(user_id, seat)] += 1
        return token

    def seated_places(self, table_id: int, holds: Holds = _always) -> int:
        """The table's streams open and tickets waiting, of people who hold their seat now."""
        return sum(n for (user_id, seat), n in self._places.get(table_id, Counter()).items() if holds(user_id, seat))

    def redeem(self, token: str, table_id: int) -> Ticket | None:
        """The ticket, used up now: its place counts as an open stream until :meth:`closed`.  None if there
        is no such ticket, it expired, or it is another table's."""
        ticket = self._tickets.get(token)
        if ticket is None:
            return None
        self._forget(token)
        if ticket.expires < time.monotonic() or ticket.table_id != table_id:
            self._release(ticket)
            return None
        self._open += 1
        return ticket

    def closed(self, ticket: Ticket) -> None:
        """The stream opened with this ticket ended: its place is free."""
        self._open -= 1
        self._release(ticket)

    def _holder(self, token: str) -> tuple[int, int]:
        ticket = self._tickets[token]
        return ticket.user_id, ticket.seat

    def _void(self, token: str) -> None:
        """A ticket never used: forgotten, its place given back."""
        ticket = self._tickets[token]
        self._forget(token)
        self._release(ticket)

    def _forget(self, token: str) -> None:
        ticket = self._tickets.pop(token)
        waiting = self._waiting[ticket.table_id]
        waiting.discard(token)
        if not waiting:
            del self._waiting[ticket.table_id]

    def _release(self, ticket: Ticket) -> None:
        self._people[ticket.user_id] -= 1
        if self._people[ticket.user_id] <= 0:
            del self._people[ticket.user_id]
        places = self._places[ticket.table_id]
        places[(ticket.user_id, ticket.seat)] -= 1
        if places[(ticket.user_id, ticket.seat)] <= 0:
            del places[(ticket.user_id, ticket.seat)]
            if not places:
                del self._places[ticket.table_id]

    def open_count(self) -> int:
        """Streams open now."""
        return self._open
