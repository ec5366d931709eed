"""Who is watching which table, waking them when it changes, and each seat's revision.

:func:`bot.tables.showing.refresh` runs after every change of a table (a
move, a selection, a seat); :meth:`Live.changed` is registered there and
wakes every stream of that table.  A waiter takes the table's current
:class:`asyncio.Event` *before* it reads the state, so no change falls
between its read and its wait.

Waking is not showing: a stream sends a frame only when what its seat is
shown differs from what it sent last (:mod:`bot.webapp.events`), and the
revision a seat's state carries (:meth:`Live.revision`) moves only when
that seat's own state does.  So a change that is someone else's alone (a
card they tap on their keyboard) sends nothing to anyone else, and no
count of changes reaches another seat.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any

from bot.model import Table


class Live:
    """Change signals per table, each seat's revision, and the finished hand each table last had."""

    def __init__(self) -> None:
        self._changes: dict[int, asyncio.Event] = {}
        self._hand_ids: dict[int, int | None] = {}
        self.changes: dict[int, int] = {}
        """Table id → how many changes it has had (counted for :meth:`caught_up`; never sent to a page)."""
        self._seats: dict[tuple[int, int], tuple[int, bytes]] = {}
        """(table id, seat) → the seat's revision and a digest of the state it was given for."""
        self._handled: dict[object, tuple[int, int]] = {}
        """Open stream → (its table id, the changes it has handled: -1 before its first frame)."""
        self.last_hand: dict[int, int] = {}
        """Table id → id of its most recently finished hand."""
        self.closing = asyncio.Event()
        """Set by :meth:`close` when the server stops: every stream ends."""

    def changed(self, table: Table) -> None:
        """The table changed: wake its streams."""
        previous = self._hand_ids.get(table.id)
        if previous is not None and previous != table.hand_id:
            self.last_hand[table.id] = previous
        self._hand_ids[table.id] = table.hand_id
        self.changes[table.id] = self.changes.get(table.id, 0) + 1
        event = self._changes.pop(table.id, None)
        if event is not None:
            event.set()

    def revision(self, table_id: int, seat: int, state: dict[str, Any]) -> int:
        """The revision of ``state`` (without its ``rev``), the state of ``seat`` as it is now.

        The page keeps the newest state it was given (a move's answer and
        the stream may arrive in either order).  The revision moves only
        when the seat's state does, so it counts nothing another seat did;
        it moves to at least the time in milliseconds, so it also grows
        across a restart of the bot and a move to another seat.
        """
        digest = hashlib.blake2b(json.dumps(state, sort_keys=True, ensure_ascii=False).encode(),
                                 digest_size=16).digest()
        key = (table_id, seat)
        rev, known = self._seats.get(key, (0, b""))
        if known != digest:
            rev = max(rev + 1, int(time.time() * 1000))
            self._seats[key] = (rev, digest)
        return rev

    def handled(self, stream: object, table_id: int, changes: int) -> None:
        """An open stream of the table has shown (or found nothing new in) its state as of ``changes``."""
        self._handled[stream] = (table_id, changes)

    def gone(self, stream: object) -> None:
        """The stream ended."""
        self._handled.pop(stream, None)

    def caught_up(self, table_id: int) -> bool:
        """Every open stream of the table has handled its latest change (what tests and benches wait for)."""
        latest = self.changes.get(table_id, 0)
        return all(seen == latest for table, seen in self._handled.values() if table == table_id)

    def signal(self, table_id: int) -> asyncio.Event:
        """The event the next change of this table sets."""
        return self._changes.setdefault(table_id, asyncio.Event())

    def close(self) -> None:
        """The server stops: every stream wakes and ends."""
        self.closing.set()
        for event in self._changes.values():
            event.set()

    async def wait(self, change: asyncio.Event, timeout: float) -> None:
        """Until ``change`` is set, the server stops (:meth:`close` sets every change), or ``timeout``
        seconds pass."""
        if self.closing.is_set():
            return
        try:
            async with asyncio.timeout(timeout):
                await change.wait()
        except TimeoutError:
            pass
