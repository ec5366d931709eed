"""Who is watching which table, and waking them when it changes.

:func:`bot.tables.showing.refresh` runs after every change of a table (a
move, a selection, a seat); :meth:`Live.changed` is registered there and
wakes every stream of that table.  A waiter takes the table's current
:class:`asyncio.Event` *before* it reads the state, so no change falls
between its read and its wait.
"""

from __future__ import annotations

import asyncio

from bot.model import Table


class Live:
    """Change signals per table, and the finished hand each table last had (for the replay button)."""

    def __init__(self) -> None:
        self._changes: dict[int, asyncio.Event] = {}
        self._hand_ids: dict[int, int | None] = {}
        self.revisions: dict[int, int] = {}
        """Table id → how many changes it has had: the page keeps the newest state it was sent."""
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
        self.revisions[table.id] = self.revisions.get(table.id, 0) + 1
        event = self._changes.pop(table.id, None)
        if event is not None:
            event.set()

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
