"""Bringing tables back at start-up: load what was saved, then replay each hand's log.

Start-up reads every active table in a handful of queries (one per kind of
row), not a few queries per table, so a thousand tables load in one pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeVar

from storage.db import Database
from storage.errors import CorruptLog
from storage.records import (
    ActiveTable,
    HandRecord,
    MatchRecord,
    SeatRecord,
    Snapshot,
    StoredEvent,
    TableRecord,
)

T = TypeVar("T")

Replayer = Callable[[HandRecord, Sequence[StoredEvent]], T]
"""Rebuilds a hand's state from its record (seed, ruleset, context) and its log, in order."""

# Joins shared by the queries below: the active tables, their playing match,
# and that match's active hand.
_ACTIVE_TABLES = "t.status IN ('open', 'playing')"
_FROM_HANDS = """hands AS h
    JOIN matches AS m ON m.match_id = h.match_id AND m.status = 'playing'
    JOIN tables AS t ON t.table_id = m.table_id AND t.status IN ('open', 'playing')"""


async def load_active_tables(db: Database) -> list[ActiveTable]:
    """Every open or playing table with its seats, playing match, active hand, log and snapshot.

    Read in one transaction, so the picture is consistent even while a
    second process writes.  Ordered by table id.
    """
    return await _load(db, None)


async def load_active_table(db: Database, table_id: int) -> ActiveTable | None:
    """One table as :func:`load_active_tables` gives it, or ``None`` if it is not active.

    This is what a writer reloads after a :class:`~storage.errors.SequenceConflict`.
    """
    tables = await _load(db, table_id)
    return tables[0] if tables else None


async def _load(db: Database, table_id: int | None) -> list[ActiveTable]:
    only = "" if table_id is None else " AND t.table_id = ?"
    params = () if table_id is None else (table_id,)
    async with db.transaction(write=False):
        table_rows = await db.fetchall(
            f"SELECT t.* FROM tables AS t WHERE {_ACTIVE_TABLES}{only} ORDER BY t.table_id", params
        )
        seat_rows = await db.fetchall(
            f"""SELECT s.* FROM seats AS s JOIN tables AS t ON t.table_id = s.table_id
                WHERE {_ACTIVE_TABLES}{only} ORDER BY s.table_id, s.seat""",
            params,
        )
        match_rows = await db.fetchall(
            f"""SELECT m.* FROM matches AS m JOIN tables AS t ON t.table_id = m.table_id
                WHERE m.status = 'playing' AND {_ACTIVE_TABLES}{only}""",
            params,
        )
        hand_rows = await db.fetchall(
            f"SELECT h.* FROM {_FROM_HANDS} WHERE h.status = 'active'{only}", params
        )
        # IN (subquery), not a join: a join lets the planner scan the whole
        # events table, every finished hand of every league included.
        active_hands = f"SELECT h.hand_id FROM {_FROM_HANDS} WHERE h.status = 'active'{only}"
        event_rows = await db.fetchall(
            f"SELECT * FROM events WHERE hand_id IN ({active_hands}) ORDER BY hand_id, seq", params
        )
        snapshot_rows = await db.fetchall(
            f"SELECT * FROM snapshots WHERE hand_id IN ({active_hands})", params
        )

    seats: defaultdict[int, list[SeatRecord]] = defaultdict(list)
    for row in seat_rows:
        seats[row["table_id"]].append(SeatRecord.from_row(row))
    matches = {row["table_id"]: MatchRecord.from_row(row) for row in match_rows}
    hands = {row["match_id"]: HandRecord.from_row(row) for row in hand_rows}
    events: defaultdict[int, list[StoredEvent]] = defaultdict(list)
    for row in event_rows:
        events[row["hand_id"]].append(StoredEvent.from_row(row))
    snapshots = {row["hand_id"]: Snapshot.from_row(row) for row in snapshot_rows}

    out = []
    for row in table_rows:
        table = TableRecord.from_row(row)
        match = matches.get(table.table_id)
        hand = hands.get(match.match_id) if match is not None else None
        out.append(
            ActiveTable(
                table=table,
                seats=tuple(seats.get(table.table_id, ())),
                match=match,
                hand=hand,
                events=tuple(events.get(hand.hand_id, ())) if hand is not None else (),
                snapshot=snapshots.get(hand.hand_id) if hand is not None else None,
            )
        )
    return out


def check_log(hand_id: int, events: Sequence[StoredEvent]) -> None:
    """Raise :class:`CorruptLog` unless ``events`` is the hand's run 1, 2, …, n."""
    for expected, event in enumerate(events, start=1):
        if event.hand_id != hand_id or event.seq != expected:
            raise CorruptLog(
                f"Hand {hand_id}'s log is broken at position {expected}: found event "
                f"{event.seq} of hand {event.hand_id}."
            )


def replay(active: ActiveTable, replayer: Replayer[T]) -> T | None:
    """Rebuild the active hand's state by passing its record and whole log to ``replayer``.

    ``replayer`` is the engine's replay function (the bot supplies it; storage
    does not import the engine's hand).  Returns ``None`` for a table with no
    active hand.  The log is checked to be complete and in order first.
    """
    if active.hand is None:
        return None
    check_log(active.hand.hand_id, active.events)
    return replayer(active.hand, active.events)
