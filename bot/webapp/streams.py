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
from dataclasses import dataclass
from typing import Final

TICKET_LIFE: Final = 30.0
"""Seconds a ticket may wait before its stream opens."""
PER_PERSON: Final = 4
"""Streams one person may have open at once, over all tables (a phone and a desktop, each with a reload
on its way)."""
PER_TABLE: Final = 16
"""Streams one table may have open at once: every change of a table wakes each of its streams, so this
bounds the work a move costs."""
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


class StreamCapError(Exception):
    """The person, or the table, has as many streams open (or tickets waiting) as allowed."""


class Streams:
    """Tickets waiting to be used, and the streams open now.

    A ticket takes its place under the caps when it is issued: a stream
    opened with it only turns that place from waiting to open, and a ticket
    never used gives it back when it expires.  So no burst of tickets asked
    for at once can open more streams than the caps allow.
    """

    def __init__(self) -> None:
        self._tickets: OrderedDict[str, Ticket] = OrderedDict()
        self._people: Counter[int] = Counter()
        """Per person: streams open and tickets waiting."""
        self._tables: Counter[int] = Counter()
        """Per table: streams open and tickets waiting."""
        self._open = 0

    def issue(self, user_id: int, table_id: int, seat: int, auth_date: int, language_code: str | None) -> str:
        """A new ticket; raises :class:`StreamCapError` if the person or the table has no place left."""
        now = time.monotonic()
        while self._tickets and (len(self._tickets) >= TICKETS_KEPT or next(iter(self._tickets.values())).expires < now):
            self._release(self._tickets.popitem(last=False)[1])
        if self._people[user_id] >= PER_PERSON or self._tables[table_id] >= PER_TABLE:
            raise StreamCapError
        token = secrets.token_urlsafe(32)
        self._tickets[token] = Ticket(user_id, table_id, seat, auth_date, language_code, now + TICKET_LIFE)
        self._people[user_id] += 1
        self._tables[table_id] += 1
        return token

    def redeem(self, token: str, table_id: int) -> Ticket | None:
        """The ticket, used up now: its place counts as an open stream until :meth:`closed`.  None if there
        is no such ticket, it expired, or it is another table's."""
        ticket = self._tickets.pop(token, None)
        if ticket is None:
            return None
        if ticket.expires < time.monotonic() or ticket.table_id != table_id:
            self._release(ticket)
            return None
        self._open += 1
        return ticket

    def closed(self, ticket: Ticket) -> None:
        """The stream opened with this ticket ended: its place is free."""
        self._open -= 1
        self._release(ticket)

    def _release(self, ticket: Ticket) -> None:
        for counter, key in ((self._people, ticket.user_id), (self._tables, ticket.table_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]

    def open_count(self) -> int:
        """Streams open now."""
        return self._open
