"""One seat's event stream: its state at every change, for as long as its person holds the seat.

Before every frame, under the table's lock and in the same step as the
state is read, the stream asks again whether it may still show the seat:
the table is still live, the person still holds the seat and is not away,
and the ``initData`` the stream was opened with is still young enough.  The
moment one of these fails the stream sends why (``closed`` for a table that
closed, ``left`` with a reason otherwise, each with a line in the reader's
language) and ends; nothing of the seat's later state goes out.  The same
questions are asked every second while the table is quiet, so a change that
wakes no stream (a table stopped, ``initData`` expiring) ends it too.

A stream wakes at every change of its table, but sends a frame only when
what its seat is shown changed (its revision aside, which moves only then
too: :meth:`bot.webapp.live.Live.revision`), and times its heartbeat from
its own last write: another seat's private change (a card tapped on their
keyboard) leaves no trace in it.

While a stream is open its seat counts as "the app is open" for the person
who opened it (``Tables.apps``): their hand message waits, and nobody
else's does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from aiohttp import web

from bot.i18n import Translator
from bot.model import Table
from bot.tables import Tables
from bot.webapp.live import Live
from bot.webapp.streams import Ticket

HEARTBEAT: Final = 15.0
"""Seconds between keep-alive comments on a quiet stream (a dead connection shows up at the next one)."""
CHECK_EVERY: Final = 1.0
"""Seconds between the checks of a quiet stream: its app still open, its seat still the person's."""


@dataclass(frozen=True, slots=True)
class End:
    """Why a stream stops: its last event (``closed`` or ``left``) and the reason it gives."""

    event: str
    reason: str

    def text(self, tr: Translator) -> str:
        """The line the page shows, in the reader's language."""
        if self.reason == "table":
            return tr("The table is closed.")
        if self.reason == "away":
            return tr("The AI plays for you until you are back.")
        if self.reason == "expired":
            return tr("This page has expired: open it again from Telegram.")
        return tr("You no longer hold this seat.")


def why_it_ends(tables: Tables, table: Table, ticket: Ticket, max_age: float) -> End | None:
    """Why the stream of this ticket may no longer show its seat, or None while it may."""
    if tables.get(table.id) is not table:
        return End("closed", "table")
    if not tables.holds(table, ticket.seat, ticket.user_id):
        return End("left", "seat")
    if time.time() - ticket.auth_date > max_age:
        return End("left", "expired")
    info = table.seats[ticket.seat]
    if info is not None and info.timed_out:
        # Like the keyboard's frozen message: no card while the AI plays for them.
        return End("left", "away")
    return None


StateOf = Callable[[Translator, Table, int], dict[str, Any]]


class SeatStream:
    """The stream of one ticket: :meth:`run` answers the request until the seat may no longer be shown."""

    def __init__(self, tables: Tables, live: Live, ticket: Ticket, table: Table, tr: Translator, max_age: float,
                 state_of: StateOf) -> None:
        self.tables, self.live, self.ticket = tables, live, ticket
        self.table, self.tr, self.max_age, self.state_of = table, tr, max_age, state_of

    def _end(self) -> End | None:
        return why_it_ends(self.tables, self.table, self.ticket, self.max_age)

    async def run(self, request: web.Request) -> web.StreamResponse:
        """Serve the stream (the caller redeemed the ticket, and frees its place when this returns)."""
        table, seat, tables, live = self.table, self.ticket.seat, self.tables, self.live
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        await response.prepare(request)
        user_id = self.ticket.user_id
        tables.apps.opened(table.id, seat, user_id)
        live.handled(self, table.id, -1)
        loop = asyncio.get_running_loop()
        beat_at = loop.time() + HEARTBEAT
        last = ""
        try:
            while not live.closing.is_set():
                change = live.signal(table.id)
                async with table.lock:
                    # The check and the read in one step: no change can fall between them.
                    end = self._end()
                    seen = live.changes.get(table.id, 0)
                    state = None if end is not None else self.state_of(self.tr, table, seat)
                if end is not None:
                    data = _dumps({"reason": end.reason, "text": end.text(self.tr)})
                    await response.write(f"event: {end.event}\ndata: {data}\n\n".encode())
                    break
                assert state is not None
                # Sent only when what the seat is shown changed: every change of the table wakes every
                # stream, and a change that is another seat's alone (a card tapped) must show nowhere else.
                shown = _dumps({name: value for name, value in state.items() if name != "rev"})
                if shown != last:
                    await response.write(f"event: state\ndata: {_dumps(state)}\n\n".encode())
                    last = shown
                    beat_at = loop.time() + HEARTBEAT
                live.handled(self, table.id, seen)
                if not await self._quiet(request, change, beat_at):
                    # Timed from this stream's last write only, so a wake that sent nothing leaves no trace.
                    await response.write(b": keep-alive\n\n")
                    beat_at = loop.time() + HEARTBEAT
        except ConnectionResetError:
            pass  # the app was closed; the stream ends
        finally:
            live.gone(self)
            if tables.apps.closed(table.id, seat, user_id) and tables.get(table.id) is table:
                tables.refresh(table, urgent=[seat])  # the hand message catches up with the app
        return response

    async def _quiet(self, request: web.Request, change: asyncio.Event, beat_at: float) -> bool:
        """Until the table changes, the seat may no longer be shown (True), or the heartbeat is due at
        ``beat_at`` (False); raises ConnectionResetError once the app has gone."""
        loop = asyncio.get_running_loop()
        while not change.is_set() and not self.live.closing.is_set() and loop.time() < beat_at:
            # Checked every second: a closed app must give its seat's hand message back promptly, and a
            # seat lost without a change of the table (a stop, initData expiring) must end the stream.
            if request.transport is None or request.transport.is_closing():
                raise ConnectionResetError
            if self._end() is not None:
                return True
            await self.live.wait(change, min(CHECK_EVERY, max(0.0, beat_at - loop.time())))
        return change.is_set() or self.live.closing.is_set()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
