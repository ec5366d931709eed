"""Each hand's append-only event log, and the optional snapshot cache.

Storage never reads an event's payload: the engine writes it and replays it.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from storage.db import Database
from storage.errors import HandClosed, NotFound, SequenceConflict, StorageError
from storage.records import Snapshot, StoredEvent, from_json, to_json


async def append_event(
    db: Database, hand_id: int, expected_seq: int, kind: str, payload: dict[str, Any]
) -> StoredEvent:
    """Append event ``expected_seq`` to the hand's log and return it as stored.

    ``expected_seq`` must be exactly one more than the log's last event (1
    for an empty log).  Otherwise another writer got there first, and
    :class:`SequenceConflict` tells the caller to reload; nothing is written.
    The check and the insert are one statement under SQLite's write lock, so
    two writers, even in two processes, never both store event N.  Appending
    to a hand that is not ``active`` raises :class:`HandClosed`.
    """
    if not kind:
        raise ValueError("an event needs a kind")
    if expected_seq < 1:
        raise ValueError("event sequence numbers start at 1")
    body = to_json(payload)
    now = time.time()
    async with db.transaction():
        try:
            rows = await db.execute(
                """INSERT INTO events (hand_id, seq, kind, payload, created_at)
                   SELECT ?, ?, ?, ?, ?
                   WHERE EXISTS (SELECT 1 FROM hands WHERE hand_id = ? AND status = 'active')
                     AND (SELECT COALESCE(MAX(seq), 0) FROM events WHERE hand_id = ?) = ?
                   RETURNING seq""",
                (hand_id, expected_seq, kind, body, now, hand_id, hand_id, expected_seq - 1),
            )
        except sqlite3.IntegrityError as exc:
            # Unreachable while the guard above holds; kept so that a broken
            # guard still fails as a conflict rather than as a raw error.
            if "events.hand_id, events.seq" in str(exc):
                raise SequenceConflict(hand_id, expected_seq, await last_seq(db, hand_id)) from exc
            raise StorageError(f"Cannot append to hand {hand_id}: {exc}") from exc
        if not rows:
            raise await _why_refused(db, hand_id, expected_seq)
    # Decoded again so the caller holds exactly what a reload will give.
    return StoredEvent(hand_id, expected_seq, kind, from_json(body), now)


async def _why_refused(db: Database, hand_id: int, expected_seq: int) -> StorageError:
    row = await db.fetchone("SELECT status FROM hands WHERE hand_id = ?", (hand_id,))
    if row is None:
        return NotFound(f"No hand {hand_id}.")
    if row["status"] != "active":
        return HandClosed(f"Hand {hand_id} is {row['status']}; its log takes no more events.")
    return SequenceConflict(hand_id, expected_seq, await last_seq(db, hand_id))


async def last_seq(db: Database, hand_id: int) -> int:
    """The sequence number of the hand's last event; 0 for an empty log."""
    row = await db.fetchone("SELECT COALESCE(MAX(seq), 0) FROM events WHERE hand_id = ?", (hand_id,))
    return int(row[0]) if row is not None else 0


async def load_events(db: Database, hand_id: int, *, after_seq: int = 0) -> list[StoredEvent]:
    """The hand's events with ``seq > after_seq``, in order (all of them by default)."""
    rows = await db.fetchall(
        "SELECT * FROM events WHERE hand_id = ? AND seq > ? ORDER BY seq", (hand_id, after_seq)
    )
    return [StoredEvent.from_row(row) for row in rows]


async def save_snapshot(
    db: Database, hand_id: int, seq: int, version: int, state: dict[str, Any]
) -> Snapshot:
    """Cache the hand's state after event ``seq`` (replacing any older snapshot).

    ``version`` is the engine's state format, so a newer engine can ignore a
    snapshot it cannot read and replay the log instead.  ``seq`` may not run
    ahead of the log.
    """
    body = to_json(state)
    now = time.time()
    async with db.transaction():
        last = await last_seq(db, hand_id)
        if not 0 <= seq <= last:
            raise StorageError(f"Hand {hand_id}'s log ends at event {last}; no snapshot at {seq}.")
        try:
            await db.execute(
                """INSERT INTO snapshots (hand_id, seq, version, state, created_at)
                   VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (hand_id) DO UPDATE SET
                       seq = excluded.seq, version = excluded.version,
                       state = excluded.state, created_at = excluded.created_at""",
                (hand_id, seq, version, body, now),
            )
        except sqlite3.IntegrityError as exc:
            raise NotFound(f"No hand {hand_id}.") from exc
    return Snapshot(hand_id, seq, version, from_json(body), now)


async def load_snapshot(db: Database, hand_id: int) -> Snapshot | None:
    """The hand's cached state, or ``None``."""
    row = await db.fetchone("SELECT * FROM snapshots WHERE hand_id = ?", (hand_id,))
    return Snapshot.from_row(row) if row is not None else None
