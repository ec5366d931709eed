"""Tables in group chats and their four seats."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from storage.db import Database
from storage.errors import NotFound, StorageError, TableAlreadyActive
from storage.records import SeatRecord, TableRecord, TableStatus, to_json

_UNSET: Any = object()

SEATS = range(4)
"""Seat numbers in turn order; partners sit at 0+2 and 1+3."""


async def create_table(
    db: Database,
    chat_id: int,
    *,
    creator_id: int | None = None,
    settings: dict[str, Any] | None = None,
    thread_id: int | None = None,
) -> TableRecord:
    """Open a new table in a chat (status ``open``), in a forum's topic ``thread_id`` if given.

    Raises :class:`TableAlreadyActive` if the chat (that topic of it) has an
    open or playing table, and :class:`NotFound` if the chat (or creator) was
    never recorded.
    """
    now = time.time()
    async with db.transaction():
        if await get_active_table(db, chat_id, thread_id) is not None:
            raise TableAlreadyActive(chat_id)
        try:
            rows = await db.execute(
                """INSERT INTO tables (chat_id, creator_id, settings, thread_id, created_at, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?) RETURNING *""",
                (chat_id, creator_id, to_json(settings or {}), thread_id, now, now),
            )
        except sqlite3.IntegrityError as exc:
            raise _integrity(exc, chat_id=chat_id) from exc
    return TableRecord.from_row(rows[0])


async def get_table(db: Database, table_id: int) -> TableRecord | None:
    """The table, or ``None``."""
    row = await db.fetchone("SELECT * FROM tables WHERE table_id = ?", (table_id,))
    return TableRecord.from_row(row) if row is not None else None


async def get_active_table(db: Database, chat_id: int, thread_id: int | None = None) -> TableRecord | None:
    """The chat's open or playing table (in the forum topic ``thread_id``; None: a group without topics,
    or a forum's General topic), or ``None``."""
    row = await db.fetchone(
        """SELECT * FROM tables WHERE chat_id = ? AND COALESCE(thread_id, 0) = COALESCE(?, 0)
           AND status IN ('open', 'playing')""", (chat_id, thread_id),
    )
    return TableRecord.from_row(row) if row is not None else None


async def update_table(
    db: Database,
    table_id: int,
    *,
    status: TableStatus = _UNSET,
    settings: dict[str, Any] = _UNSET,
    turn_deadline: float | None = _UNSET,
    message_id: int | None = _UNSET,
    thread_id: int | None = _UNSET,
) -> TableRecord:
    """Change some of a table's columns; those not passed are kept.

    ``turn_deadline=None`` clears the timer.  Reopening a table while its chat
    has another active one raises :class:`TableAlreadyActive`.
    """
    changes: list[tuple[str, Any]] = []
    if status is not _UNSET:
        if status not in ("open", "playing", "finished", "stopped"):
            raise ValueError(f"unknown table status {status!r}")
        changes.append(("status", status))
    if settings is not _UNSET:
        changes.append(("settings", to_json(settings)))
    if turn_deadline is not _UNSET:
        changes.append(("turn_deadline", turn_deadline))
    if message_id is not _UNSET:
        changes.append(("message_id", message_id))
    if thread_id is not _UNSET:
        changes.append(("thread_id", thread_id))
    try:
        rows = await db.update_row("tables", "table_id", table_id, changes)
    except sqlite3.IntegrityError as exc:
        table = await get_table(db, table_id)
        raise _integrity(exc, chat_id=table.chat_id if table else None) from exc
    if not rows:
        raise NotFound(f"No table {table_id}.")
    return TableRecord.from_row(rows[0])


async def set_seat(
    db: Database, table_id: int, seat: int, *, user_id: int | None, is_ai: bool = False
) -> SeatRecord:
    """Sit a player (or, with ``user_id=None, is_ai=True``, an AI) at a seat.

    Replacing the occupant clears the seat's message ids: they belonged to the
    previous occupant's private chat.  A user already at another seat of the
    table raises :class:`StorageError`.
    """
    _check_seat(seat)
    if user_id is None and not is_ai:
        raise ValueError("a seat without a user must be an AI seat")
    async with db.transaction():
        try:
            rows = await db.execute(
                """INSERT INTO seats (table_id, seat, user_id, is_ai) VALUES (?, ?, ?, ?)
                   ON CONFLICT (table_id, seat) DO UPDATE SET
                       user_id = excluded.user_id,
                       is_ai = excluded.is_ai,
                       hand_message_id = CASE WHEN seats.user_id IS excluded.user_id
                                              THEN seats.hand_message_id END,
                       nudge_message_id = CASE WHEN seats.user_id IS excluded.user_id
                                               THEN seats.nudge_message_id END
                   RETURNING *""",
                (table_id, seat, user_id, int(is_ai)),
            )
        except sqlite3.IntegrityError as exc:
            raise _integrity(exc, table_id=table_id, user_id=user_id) from exc
        await _touch(db, table_id)
    return SeatRecord.from_row(rows[0])


async def clear_seat(db: Database, table_id: int, seat: int) -> None:
    """Empty a seat (a player stands up before the match starts)."""
    _check_seat(seat)
    async with db.transaction():
        await db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
        await _touch(db, table_id)


async def get_seats(db: Database, table_id: int) -> list[SeatRecord]:
    """The table's occupied seats, by seat number."""
    rows = await db.fetchall("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
    return [SeatRecord.from_row(row) for row in rows]


async def set_seat_messages(
    db: Database,
    table_id: int,
    seat: int,
    *,
    hand_message_id: int | None = _UNSET,
    nudge_message_id: int | None = _UNSET,
) -> SeatRecord:
    """Record the ids of a seat's private hand message and nudge message (``None`` clears)."""
    _check_seat(seat)
    changes: list[tuple[str, Any]] = []
    if hand_message_id is not _UNSET:
        changes.append(("hand_message_id", hand_message_id))
    if nudge_message_id is not _UNSET:
        changes.append(("nudge_message_id", nudge_message_id))
    if not changes:
        raise ValueError("nothing to change")
    assignments = ", ".join(f"{column} = ?" for column, _ in changes)
    async with db.transaction():
        rows = await db.execute(
            f"UPDATE seats SET {assignments} WHERE table_id = ? AND seat = ? RETURNING *",
            (*(value for _, value in changes), table_id, seat),
        )
    if not rows:
        raise NotFound(f"Seat {seat} of table {table_id} is empty.")
    return SeatRecord.from_row(rows[0])


async def _touch(db: Database, table_id: int) -> None:
    rows = await db.execute(
        "UPDATE tables SET updated_at = ? WHERE table_id = ? RETURNING table_id",
        (time.time(), table_id),
    )
    if not rows:
        raise NotFound(f"No table {table_id}.")


def _check_seat(seat: int) -> None:
    if seat not in SEATS:
        raise ValueError(f"seat must be 0..3, not {seat}")


def _integrity(
    exc: sqlite3.IntegrityError,
    *,
    chat_id: int | None = None,
    table_id: int | None = None,
    user_id: int | None = None,
) -> StorageError:
    """Turn a constraint failure into the error the caller can act on."""
    text = str(exc)
    if ("tables.chat_id" in text or "tables_one_active" in text) and chat_id is not None:
        return TableAlreadyActive(chat_id)
    if "seats.table_id, seats.user_id" in text:
        return StorageError(f"User {user_id} already sits at table {table_id}.")
    if "FOREIGN KEY" in text:
        return NotFound(f"A referenced chat, table or user does not exist ({text}).")
    return StorageError(f"Constraint failed: {text}")
