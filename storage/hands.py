"""Matches, their hands, and how each hand was scored."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from storage.db import Database
from storage.errors import NotFound, StorageError
from storage.records import (
    HandRecord,
    HandResult,
    HandStatus,
    MatchRecord,
    MatchStatus,
    Outcome,
    SeatResult,
    from_json,
    to_json,
)

_UNSET: Any = object()

_INT64 = range(-(2**63), 2**63)


async def create_match(
    db: Database,
    table_id: int,
    *,
    preset: str,
    ruleset: dict[str, Any],
    levels: tuple[int, int] = (2, 2),
    laps: tuple[int, int] = (0, 0),
    extra: dict[str, Any] | None = None,
) -> MatchRecord:
    """Start a match at a table (status ``playing``).

    ``ruleset`` is the engine's ``Ruleset.to_dict()``, kept whole so that a
    match goes on under the rules it began with even if a preset changes.
    Raises :class:`StorageError` if the table already has a playing match.
    """
    now = time.time()
    async with db.transaction():
        try:
            rows = await db.execute(
                """INSERT INTO matches (table_id, preset, ruleset, level0, level1, laps0, laps1,
                                        extra, created_at, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *""",
                (table_id, preset, to_json(ruleset), *levels, *laps, to_json(extra or {}), now, now),
            )
        except sqlite3.IntegrityError as exc:
            if "matches.table_id" in str(exc):
                raise StorageError(f"Table {table_id} already has a playing match.") from exc
            raise _integrity(exc) from exc
    return MatchRecord.from_row(rows[0])


async def get_match(db: Database, match_id: int) -> MatchRecord | None:
    """The match, or ``None``."""
    row = await db.fetchone("SELECT * FROM matches WHERE match_id = ?", (match_id,))
    return MatchRecord.from_row(row) if row is not None else None


async def get_playing_match(db: Database, table_id: int) -> MatchRecord | None:
    """The table's playing match, or ``None``."""
    row = await db.fetchone(
        "SELECT * FROM matches WHERE table_id = ? AND status = 'playing'", (table_id,)
    )
    return MatchRecord.from_row(row) if row is not None else None


async def update_match(
    db: Database,
    match_id: int,
    *,
    levels: tuple[int, int] = _UNSET,
    laps: tuple[int, int] = _UNSET,
    status: MatchStatus = _UNSET,
    winner_side: int | None = _UNSET,
    extra: dict[str, Any] = _UNSET,
) -> MatchRecord:
    """Change some of a match's columns (levels after a hand, its end…); the rest is kept."""
    changes: list[tuple[str, Any]] = []
    if levels is not _UNSET:
        changes += [("level0", levels[0]), ("level1", levels[1])]
    if laps is not _UNSET:
        changes += [("laps0", laps[0]), ("laps1", laps[1])]
    if status is not _UNSET:
        changes.append(("status", status))
    if winner_side is not _UNSET:
        changes.append(("winner_side", winner_side))
    if extra is not _UNSET:
        changes.append(("extra", to_json(extra)))
    try:
        rows = await db.update_row("matches", "match_id", match_id, changes)
    except sqlite3.IntegrityError as exc:
        raise _integrity(exc) from exc
    if not rows:
        raise NotFound(f"No match {match_id}.")
    return MatchRecord.from_row(rows[0])


async def create_hand(
    db: Database,
    match_id: int,
    *,
    seed: int,
    ruleset: dict[str, Any],
    dealer_seat: int | None = None,
    context: dict[str, Any] | None = None,
) -> HandRecord:
    """Deal a new hand in a match (status ``active``), numbered after the last one.

    ``seed`` must fit SQLite's signed 64-bit integers.  Raises
    :class:`StorageError` if the match already has an active hand.
    """
    if seed not in _INT64:
        raise ValueError("a hand's seed must fit in a signed 64-bit integer")
    now = time.time()
    async with db.transaction():
        try:
            rows = await db.execute(
                """INSERT INTO hands (match_id, number, seed, ruleset, dealer_seat, context,
                                      created_at, updated_at)
                   VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM hands WHERE match_id = ?),
                           ?, ?, ?, ?, ?, ?)
                   RETURNING *""",
                (match_id, match_id, seed, to_json(ruleset), dealer_seat,
                 to_json(context or {}), now, now),
            )
        except sqlite3.IntegrityError as exc:
            if "hands.match_id" in str(exc):
                raise StorageError(f"Match {match_id} already has an active hand.") from exc
            raise _integrity(exc) from exc
    return HandRecord.from_row(rows[0])


async def get_hand(db: Database, hand_id: int) -> HandRecord | None:
    """The hand, or ``None``."""
    row = await db.fetchone("SELECT * FROM hands WHERE hand_id = ?", (hand_id,))
    return HandRecord.from_row(row) if row is not None else None


async def match_hands(db: Database, match_id: int) -> list[HandRecord]:
    """Every hand dealt in the match, in the order dealt (redeals included)."""
    rows = await db.fetchall("SELECT * FROM hands WHERE match_id = ? ORDER BY hand_id", (match_id,))
    return [HandRecord.from_row(row) for row in rows]


async def get_active_hand(db: Database, match_id: int) -> HandRecord | None:
    """The match's active hand, or ``None``."""
    row = await db.fetchone(
        "SELECT * FROM hands WHERE match_id = ? AND status = 'active'", (match_id,)
    )
    return HandRecord.from_row(row) if row is not None else None


async def update_hand(
    db: Database,
    hand_id: int,
    *,
    status: HandStatus = _UNSET,
    dealer_seat: int | None = _UNSET,
    context: dict[str, Any] = _UNSET,
) -> HandRecord:
    """Change a hand's status, dealer seat (set when hand 1's bidding closes) or context."""
    changes: list[tuple[str, Any]] = []
    if status is not _UNSET:
        changes.append(("status", status))
    if dealer_seat is not _UNSET:
        changes.append(("dealer_seat", dealer_seat))
    if context is not _UNSET:
        changes.append(("context", to_json(context)))
    try:
        rows = await db.update_row("hands", "hand_id", hand_id, changes)
    except sqlite3.IntegrityError as exc:
        raise _integrity(exc) from exc
    if not rows:
        raise NotFound(f"No hand {hand_id}.")
    return HandRecord.from_row(rows[0])


async def record_hand_result(
    db: Database,
    hand_id: int,
    *,
    attacker_points: int,
    dealer_side: int,
    winner_side: int,
    level_changes: tuple[int, int],
    scores: Sequence[int],
    special: dict[str, Any] | None = None,
    outcomes: Sequence[Outcome | None] | None = None,
) -> HandResult:
    """Store how a hand was scored and mark the hand ``finished``, in one transaction.

    ``scores`` is the 积分 of seats 0..3.  Who sat at each seat is copied from
    the table's seats now, so later seat changes do not rewrite the league.
    ``outcomes`` says whom the hand counts for (default: won for the winner
    side's seats, lost for the others; an escape passes its own); a seat the
    AI holds, or plays for an absent person, counts for nobody whatever it
    says.  Raises :class:`StorageError` if the hand already has a result or a
    seat is empty.
    """
    if len(scores) != 4:
        raise ValueError("scores holds the 积分 of the four seats")
    if outcomes is None:
        outcomes = ["won" if seat % 2 == winner_side else "lost" for seat in range(4)]
    if len(outcomes) != 4 or any(o not in ("won", "lost", None) for o in outcomes):
        raise ValueError("outcomes holds won, lost or None for each of the four seats")
    if dealer_side not in (0, 1) or winner_side not in (0, 1):
        raise ValueError("sides are 0 (seats 0+2) and 1 (seats 1+3)")
    now = time.time()
    async with db.transaction():
        seats = await db.fetchall(
            """SELECT s.seat, s.user_id, s.is_ai, t.chat_id FROM hands AS h
               JOIN matches AS m ON m.match_id = h.match_id
               JOIN tables AS t ON t.table_id = m.table_id
               JOIN seats AS s ON s.table_id = m.table_id
               WHERE h.hand_id = ? ORDER BY s.seat""",
            (hand_id,),
        )
        if [row["seat"] for row in seats] != [0, 1, 2, 3]:
            if await get_hand(db, hand_id) is None:
                raise NotFound(f"No hand {hand_id}.")
            raise StorageError(f"Hand {hand_id}'s table does not have all four seats filled.")
        try:
            rows = await db.execute(
                """INSERT INTO hand_results (hand_id, attacker_points, dealer_side, winner_side,
                                             level_change0, level_change1, special, created_at, chat_id)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING created_at""",
                (hand_id, attacker_points, dealer_side, winner_side, *level_changes,
                 to_json(special or {}), now, seats[0]["chat_id"]),
            )
        except sqlite3.IntegrityError as exc:
            if "hand_results.hand_id" in str(exc):
                raise StorageError(f"Hand {hand_id} already has a result.") from exc
            raise _integrity(exc) from exc
        seat_results = tuple(
            SeatResult(row["seat"], row["user_id"], bool(row["is_ai"]), int(scores[row["seat"]]),
                       None if row["is_ai"] or row["user_id"] is None else outcomes[row["seat"]])
            for row in seats
        )
        await db.executemany(
            """INSERT INTO hand_result_seats (hand_id, seat, user_id, is_ai, score, outcome)
               VALUES (?, ?, ?, ?, ?, ?)""",
            [(hand_id, s.seat, s.user_id, int(s.is_ai), s.score, s.outcome) for s in seat_results],
        )
        await db.execute(
            "UPDATE hands SET status = 'finished', updated_at = ? WHERE hand_id = ?", (now, hand_id)
        )
    return HandResult(
        hand_id, attacker_points, dealer_side, winner_side, level_changes, seat_results,
        dict(special or {}), rows[0][0],
    )


async def get_hand_result(db: Database, hand_id: int) -> HandResult | None:
    """How the hand was scored, or ``None`` if it has no result yet."""
    async with db.transaction(write=False):
        row = await db.fetchone("SELECT * FROM hand_results WHERE hand_id = ?", (hand_id,))
        if row is None:
            return None
        seats = await db.fetchall(
            "SELECT * FROM hand_result_seats WHERE hand_id = ? ORDER BY seat", (hand_id,)
        )
    return HandResult(
        row["hand_id"], row["attacker_points"], row["dealer_side"], row["winner_side"],
        (row["level_change0"], row["level_change1"]),
        tuple(SeatResult(s["seat"], s["user_id"], bool(s["is_ai"]), s["score"], s["outcome"]) for s in seats),
        from_json(row["special"]), row["created_at"],
    )


def _integrity(exc: sqlite3.IntegrityError) -> StorageError:
    text = str(exc)
    if "FOREIGN KEY" in text:
        return NotFound(f"A referenced table, match or hand does not exist ({text}).")
    return StorageError(f"Constraint failed: {text}")
