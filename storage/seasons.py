"""A group's league in seasons: calendar months in the group's time zone, or seasons its admins name.

A season is a stretch of time ``[starts_at, ends_at)``; a hand counts in the
season in which its result was stored (a hand that straddles a boundary
counts where it ended).  A *monthly* season ends at the group's local
midnight on the first of the next month; a *named* season (``/season new
春季赛``) runs until the admins start the next one or go back to monthly
seasons.  Seasons follow one another without gaps: the rows are made when
first needed (:func:`current_season`), month after month from the group's
first result, so a group that played before seasons existed has its past
months too.  Standings are never stored here: they are counted from the
results of each season's stretch (:mod:`storage.league`).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage.db import Database
from storage.errors import NotFound

SeasonKind = Literal["monthly", "named"]

DEFAULT_TIME_ZONE = "Asia/Shanghai"
"""A group's time zone until its admins choose one: where most of this game's players live."""
DEFAULT_MIN_HANDS = 10
"""Hands a person must have finished in a season to be ranked, until the admins say otherwise."""
MAX_NAME = 32
"""The longest season name, in characters."""


@dataclass(frozen=True, slots=True)
class Season:
    """One season of a group's league."""

    season_id: int
    chat_id: int
    kind: SeasonKind
    name: str
    """A named season's name; a monthly season's month, ``YYYY-MM`` in the group's time zone."""
    starts_at: float
    ends_at: float | None
    """None: a named season that runs until the admins start the next."""
    min_hands: int
    """Hands a person needs in this season to be ranked (the others are listed below the line)."""
    started_by: int | None
    closed_at: float | None
    """When the season's end was told (or found to need no telling)."""

    def holds(self, moment: float) -> bool:
        """True if a hand stored at ``moment`` counts in this season."""
        return self.starts_at <= moment and (self.ends_at is None or moment < self.ends_at)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Season:
        """Build from a ``seasons`` row."""
        return cls(row["season_id"], row["chat_id"], row["kind"], row["name"], row["starts_at"], row["ends_at"],
                   row["min_hands"], row["started_by"], row["closed_at"])


def zone(name: str | None) -> ZoneInfo:
    """The time zone of that IANA name (None: :data:`DEFAULT_TIME_ZONE`); raises ValueError for an unknown one."""
    try:
        return ZoneInfo(name or DEFAULT_TIME_ZONE)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "Asia" is a folder, a long name no file
        raise ValueError(f"unknown time zone {name!r}"[:100]) from None


def month_start(moment: float, tz: ZoneInfo) -> float:
    """Local midnight on the first of the month that holds ``moment``."""
    local = datetime.fromtimestamp(moment, tz)
    return datetime(local.year, local.month, 1, tzinfo=tz).timestamp()


def next_month_start(moment: float, tz: ZoneInfo) -> float:
    """Local midnight on the first of the month after the one that holds ``moment``."""
    local = datetime.fromtimestamp(moment, tz)
    year, month = (local.year + 1, 1) if local.month == 12 else (local.year, local.month + 1)
    return datetime(year, month, 1, tzinfo=tz).timestamp()


def month_name(moment: float, tz: ZoneInfo) -> str:
    """``YYYY-MM`` of the month that holds ``moment``, in that zone."""
    return datetime.fromtimestamp(moment, tz).strftime("%Y-%m")


async def time_zone(db: Database, chat_id: int) -> str:
    """The group's time zone name (:data:`DEFAULT_TIME_ZONE` until its admins choose)."""
    row = await db.fetchone("SELECT time_zone FROM chats WHERE chat_id = ?", (chat_id,))
    return str(row[0]) if row is not None and row[0] else DEFAULT_TIME_ZONE


async def seasons_of(db: Database, chat_id: int) -> list[Season]:
    """Every season of the group, oldest first."""
    rows = await db.fetchall("SELECT * FROM seasons WHERE chat_id = ? ORDER BY starts_at", (chat_id,))
    return [Season.from_row(row) for row in rows]


async def get_season(db: Database, season_id: int) -> Season | None:
    """A season by id."""
    row = await db.fetchone("SELECT * FROM seasons WHERE season_id = ?", (season_id,))
    return Season.from_row(row) if row is not None else None


async def current_season(db: Database, chat_id: int, now: float | None = None) -> Season:
    """The season that holds ``now`` (default: the clock), making the rows up to it if needed.

    A group without seasons gets monthly ones from the month of its first
    result on; after a monthly season that has ended comes the next month's.
    Raises :class:`NotFound` for a chat the bot never recorded.
    """
    now = time.time() if now is None else now
    last = await _last(db, chat_id)
    if last is not None and last.holds(now):  # the usual case, read without taking the write lock
        return last
    async with db.transaction():
        tz = zone(await time_zone(db, chat_id))
        last = await _last(db, chat_id)
        if last is None:
            if await db.fetchone("SELECT 1 FROM chats WHERE chat_id = ?", (chat_id,)) is None:
                raise NotFound(f"No chat {chat_id}.")
            first = await db.fetchone("SELECT MIN(created_at) FROM hand_results WHERE chat_id = ?", (chat_id,))
            start = month_start(min(now, first[0]) if first is not None and first[0] is not None else now, tz)
            last = await _add(db, chat_id, "monthly", month_name(start, tz), start,
                              next_month_start(start, tz), DEFAULT_MIN_HANDS, None)
        while last.ends_at is not None and last.ends_at <= now:
            start = last.ends_at
            last = await _add(db, chat_id, "monthly", month_name(start, tz), start, next_month_start(start, tz),
                              last.min_hands, None)
    return last


async def start_named_season(db: Database, chat_id: int, name: str, *, by: int | None,
                             now: float | None = None) -> tuple[Season, Season]:
    """End the current season now and start one named ``name`` that runs until the admins start the next.

    Returns (the season that ended, the new one).  A current season that
    began at this very moment is renamed instead (nothing was played in it).
    """
    name = _clean_name(name)
    now = time.time() if now is None else now
    async with db.transaction():
        ended = await current_season(db, chat_id, now)
        if ended.starts_at >= now:
            renamed = await _update(db, ended.season_id, kind="named", name=name, ends_at=None, started_by=by)
            return renamed, renamed
        ended = await _update(db, ended.season_id, ends_at=now)
        new = await _add(db, chat_id, "named", name, now, None, ended.min_hands, by)
    return ended, new


async def start_monthly_seasons(db: Database, chat_id: int, *, by: int | None,
                                now: float | None = None) -> tuple[Season, Season] | None:
    """Back to monthly seasons: end the current named season now; the new one runs to the month's end.

    None if the group's seasons are monthly already (nothing changes).
    """
    now = time.time() if now is None else now
    async with db.transaction():
        ended = await current_season(db, chat_id, now)
        if ended.kind == "monthly":
            return None
        tz = zone(await time_zone(db, chat_id))
        if ended.starts_at >= now:
            renamed = await _update(db, ended.season_id, kind="monthly", name=month_name(now, tz),
                                    ends_at=next_month_start(now, tz), started_by=by)
            return renamed, renamed
        ended = await _update(db, ended.season_id, ends_at=now)
        new = await _add(db, chat_id, "monthly", month_name(now, tz), now, next_month_start(now, tz),
                         ended.min_hands, by)
    return ended, new


async def set_min_hands(db: Database, chat_id: int, hands: int, now: float | None = None) -> Season:
    """Change the current season's minimum of hands to be ranked (seasons after it keep it)."""
    if not 0 <= hands <= 10000:
        raise ValueError("the minimum of hands is between 0 and 10000")
    async with db.transaction():
        season = await current_season(db, chat_id, now)
        return await _update(db, season.season_id, min_hands=hands)


async def set_time_zone(db: Database, chat_id: int, name: str, now: float | None = None) -> Season:
    """Set the group's time zone (an IANA name such as ``Asia/Shanghai``); raises ValueError for an unknown one.

    A monthly season under way then ends at the month's end in the new zone (now, if the new zone is in the
    next month already).
    """
    tz = zone(name)
    now = time.time() if now is None else now
    async with db.transaction():
        season = await current_season(db, chat_id, now)
        await db.execute("UPDATE chats SET time_zone = ?, updated_at = ? WHERE chat_id = ?", (tz.key, now, chat_id))
        if season.kind == "monthly":
            # A zone already in a later month (London's 31 December evening is Shanghai's 1 January) ends the
            # month's season now: its next first of the month would be a month too late.
            end = now if month_name(now, tz) > season.name else next_month_start(now, tz)
            season = await _update(db, season.season_id, ends_at=max(end, season.starts_at))
    return season


async def seasons_to_close(db: Database, now: float) -> list[Season]:
    """Every season of every group that ended before ``now`` and whose end was not told yet, oldest first."""
    rows = await db.fetchall(
        "SELECT * FROM seasons WHERE closed_at IS NULL AND ends_at IS NOT NULL AND ends_at <= ? ORDER BY ends_at",
        (now,))
    return [Season.from_row(row) for row in rows]


async def next_season_end(db: Database, after: float | None = None) -> float | None:
    """When the next season of any group ends (its end not told yet), after ``after`` if given; None if none is
    due to end."""
    row = await db.fetchone(
        "SELECT MIN(ends_at) FROM seasons WHERE closed_at IS NULL AND ends_at IS NOT NULL AND ends_at > ?",
        (float("-inf") if after is None else after,))
    return float(row[0]) if row is not None and row[0] is not None else None


async def close_season(db: Database, season_id: int, now: float | None = None) -> bool:
    """Record that the season's end was told; False if it was already (call it in the telling's transaction)."""
    async with db.transaction():
        rows = await db.execute(
            "UPDATE seasons SET closed_at = ? WHERE season_id = ? AND closed_at IS NULL RETURNING season_id",
            (time.time() if now is None else now, season_id))
    return bool(rows)


async def season_before(db: Database, season: Season) -> Season | None:
    """The season that came before this one in its group, if any."""
    row = await db.fetchone(
        "SELECT * FROM seasons WHERE chat_id = ? AND starts_at < ? ORDER BY starts_at DESC LIMIT 1",
        (season.chat_id, season.starts_at))
    return Season.from_row(row) if row is not None else None


def _clean_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > MAX_NAME:
        raise ValueError(f"a season's name has 1 to {MAX_NAME} characters")
    return cleaned


async def _last(db: Database, chat_id: int) -> Season | None:
    row = await db.fetchone("SELECT * FROM seasons WHERE chat_id = ? ORDER BY starts_at DESC LIMIT 1", (chat_id,))
    return Season.from_row(row) if row is not None else None


async def _add(db: Database, chat_id: int, kind: SeasonKind, name: str, starts_at: float, ends_at: float | None,
               min_hands: int, by: int | None) -> Season:
    rows = await db.execute(
        """INSERT INTO seasons (chat_id, kind, name, starts_at, ends_at, min_hands, started_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *""",
        (chat_id, kind, name, starts_at, ends_at, min_hands, by, time.time()))
    return Season.from_row(rows[0])


_UNSET: object = object()


async def _update(db: Database, season_id: int, *, kind: SeasonKind | None = None, name: str | None = None,
                  ends_at: float | None | object = _UNSET, min_hands: int | None = None,
                  started_by: int | None | object = _UNSET) -> Season:
    changes: list[tuple[str, object]] = []
    if kind is not None:
        changes.append(("kind", kind))
    if name is not None:
        changes.append(("name", name))
    if ends_at is not _UNSET:
        changes.append(("ends_at", ends_at))
    if min_hands is not None:
        changes.append(("min_hands", min_hands))
    if started_by is not _UNSET:
        changes.append(("started_by", started_by))
    sets = ", ".join(f"{column} = ?" for column, _ in changes)
    rows = await db.execute(f"UPDATE seasons SET {sets} WHERE season_id = ? RETURNING *",
                            (*[value for _, value in changes], season_id))
    return Season.from_row(rows[0])
