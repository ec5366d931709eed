"""A side's level (lap and rank) and the level move of a finished hand (RULES.md §2.15, decisions 13, 17).

:class:`LevelMove` tells what a hand did to one side's level exactly as it
happened: from where to where, the level table's number, and — when the two
differ — why (:class:`MoveReason`).  Callers never subtract levels to say it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

RANKS_PER_LAP = 13


@dataclass(frozen=True, slots=True)
class SideLevel:
    """One side's position: lap (from 1) and level rank (2…14), and whether it owes a flag hand."""

    lap: int = 1
    rank: int = 2
    at_flag: bool = False

    def index(self) -> int:
        """Absolute position counting laps: 0 is lap 1 level 2."""
        return (self.lap - 1) * RANKS_PER_LAP + self.rank - 2

    @classmethod
    def at(cls, index: int, at_flag: bool = False) -> SideLevel:
        """The level at an absolute position."""
        lap, offset = divmod(index, RANKS_PER_LAP)
        return cls(lap + 1, offset + 2, at_flag)

    def to_list(self) -> list[Any]:
        """A JSON-ready form: ``[lap, rank, at_flag]``."""
        return [self.lap, self.rank, self.at_flag]

    @classmethod
    def from_list(cls, data: list[Any]) -> SideLevel:
        """The inverse of :meth:`to_list`."""
        return cls(int(data[0]), int(data[1]), bool(data[2]) if len(data) > 2 else False)


class MoveReason(Enum):
    """Why a side's level move is not simply the level table's number."""

    MUST_PLAY = "must_play"
    """A jump stopped at a must-play level (J or A), or a side taking over there stays on it."""
    STOPPED_AT_ACE = "stopped_at_ace"
    """The climb ends at A: a jump beyond it stops there (decision 13)."""
    LAP_WRAP = "lap_wrap"
    """盐城 laps 1–2: A is jumped and the level goes on from 2 of the next lap (A29)."""
    PASSED_ACE = "passed_ace"
    """Won as the dealer side at A: A is passed, and the preset's ``after_ace`` follows
    (the match is won, the flag hand is owed, or 安徽's end bonus is paid)."""
    FLAG_WON = "flag_won"
    """The flag hand (扛旗) was held: the match is won, no level moves."""
    FLAG_FAILED = "flag_failed"
    """The flag hand failed: the attackers take over at their own level, no level moves."""
    DEMOTED = "demoted"
    """J到底 / 池州's J/A rule set the dealer side's level down."""
    HEAVEN_AND_EARTH = "heaven_and_earth"
    """上天入地 set the winners to A and the losers to 2."""
    ESCAPE = "escape"
    """A player escaped: the hand was abandoned and no level moves."""
    REDEAL = "redeal"
    """Nobody bid in hand 1: the cards were dealt again and no level moves."""


@dataclass(frozen=True, slots=True)
class LevelMove:
    """What one hand did to one side's level."""

    side: int
    """0 for seats 0 and 2, 1 for seats 1 and 3."""
    before: SideLevel
    after: SideLevel
    table: int
    """Levels the level table gives this side (0 for the side that does not rise)."""
    reason: MoveReason | None = None
    """Why the move is not the table's number (None when it is exactly that)."""

    @property
    def moved(self) -> int:
        """Signed levels moved, laps counted (negative for a demotion)."""
        return self.after.index() - self.before.index()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"side": self.side, "before": self.before.to_list(), "after": self.after.to_list(),
                "table": self.table, "reason": None if self.reason is None else self.reason.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LevelMove:
        """The inverse of :meth:`to_dict`."""
        reason = data.get("reason")
        return cls(int(data["side"]), SideLevel.from_list(data["before"]), SideLevel.from_list(data["after"]),
                   int(data.get("table", 0)), None if reason is None else MoveReason(reason))
