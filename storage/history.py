"""A group's match history: its last matches, who played them, how far each side got, every scored hand.

Read from the stored matches, hands and results (no second record): a
match's final levels are its row's, its winner the side its row names, its
players the people (or the AI) its results name seat by seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage.db import Database
from storage.records import MatchStatus, from_json


@dataclass(frozen=True, slots=True)
class PastHand:
    """A scored hand of a match: its id (for its replay), its number and when it ended."""

    hand_id: int
    number: int
    ended_at: float


@dataclass(frozen=True, slots=True)
class PastMatch:
    """One match of the group's history."""

    match_id: int
    preset: str
    ruleset: dict[str, Any]
    status: MatchStatus
    winner_side: int | None
    levels: tuple[int, int]
    """The level of side 0 (seats 0+2) and side 1 (seats 1+3) when it ended, or now."""
    laps: tuple[int, int]
    """The lap of side 0 and side 1 when it ended, or now, from 1 (as :attr:`MatchRecord.laps`)."""
    started_at: float
    players: tuple[tuple[str | None, ...], ...]
    """Per seat, everyone who held it in a scored hand, in order (None: the AI)."""
    hands: tuple[PastHand, ...]
    """Its scored hands, in order."""

    @property
    def ended_at(self) -> float:
        """When its last scored hand ended."""
        return self.hands[-1].ended_at if self.hands else self.started_at


async def match_history(db: Database, chat_id: int, *, limit: int = 5,
                        before: int | None = None) -> list[PastMatch]:
    """The group's last ``limit`` matches with a scored hand, newest first (``before``: older than that match)."""
    rows = await db.fetchall(
        """SELECT m.* FROM tables AS t JOIN matches AS m ON m.table_id = t.table_id
           WHERE t.chat_id = ? AND m.match_id < ?
             AND EXISTS (SELECT 1 FROM hands AS h JOIN hand_results AS r ON r.hand_id = h.hand_id
                         WHERE h.match_id = m.match_id)
           ORDER BY m.match_id DESC LIMIT ?""",
        (chat_id, before if before is not None else 2**62, limit))
    if not rows:
        return []
    ids = [int(row["match_id"]) for row in rows]
    marks = ", ".join("?" * len(ids))
    hands: dict[int, list[PastHand]] = {match_id: [] for match_id in ids}
    for row in await db.fetchall(
            f"""SELECT h.match_id, h.hand_id, h.number, r.created_at FROM hands AS h
                JOIN hand_results AS r ON r.hand_id = h.hand_id
                WHERE h.match_id IN ({marks}) ORDER BY h.match_id, h.number""", ids):
        hands[int(row["match_id"])].append(PastHand(row["hand_id"], row["number"], row["created_at"]))
    seats: dict[int, list[list[str | None]]] = {match_id: [[], [], [], []] for match_id in ids}
    for row in await db.fetchall(
            f"""SELECT h.match_id, s.seat, s.user_id,
                       COALESCE(u.display_name, CAST(s.user_id AS TEXT)) AS name, MIN(h.number) AS first
                FROM hands AS h JOIN hand_result_seats AS s ON s.hand_id = h.hand_id
                LEFT JOIN users AS u ON u.user_id = s.user_id
                WHERE h.match_id IN ({marks})
                GROUP BY h.match_id, s.seat, s.user_id ORDER BY h.match_id, s.seat, first""", ids):
        seats[int(row["match_id"])][row["seat"]].append(row["name"] if row["user_id"] is not None else None)
    return [PastMatch(
        int(row["match_id"]), row["preset"], from_json(row["ruleset"]), row["status"], row["winner_side"],
        (row["level0"], row["level1"]), (row["laps0"], row["laps1"]), row["created_at"],
        tuple(tuple(names) for names in seats[int(row["match_id"])]), tuple(hands[int(row["match_id"])]),
    ) for row in rows]
