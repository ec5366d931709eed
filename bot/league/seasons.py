"""Seasons as people read them, and the watcher that ends each one on time and tells the group.

:class:`SeasonWatcher` is one supervised task (``seasons``): it sleeps
until the next season of any group ends (a monthly season at the group's
local midnight on the first), then, a few seconds later (so that a hand
stored at the last moment is in), queues the season's final table and
champions in the group's outbox, with its picture, in the transaction that
marks the season told.  A season nobody played in ends silently.  Hands
that end make sure their group's season exists (so that its end is told
even if nobody asked for the table), and a bot that was down at midnight
tells the season's end when it starts.
"""

from __future__ import annotations

import asyncio
import calendar
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Final

import storage
from bot.i18n import Translator
from bot.labels import name_html

log = logging.getLogger(__name__)

GRACE: Final = 5.0
"""Seconds after a season's end before it is told: a hand stored in its last moment is in it by then."""
LONGEST_SLEEP: Final = 3600.0
"""The watcher looks again at least this often (a season started or a time zone changed meanwhile)."""


def season_title(tr: Translator, season: storage.Season) -> str:
    """「2026年12月赛季」 / "December 2026 season" for a monthly season, the name for a named one."""
    if season.kind == "named":
        return season.name
    year, month = (int(part) for part in season.name.split("-"))
    if tr.lang == "zh":
        return tr("{month} season", month=f"{year}年{month}月")
    return tr("{month} season", month=f"{calendar.month_name[month]} {year}")


def day_label(tr: Translator, moment: float, tz_name: str) -> str:
    """「12月1日」 / "Dec 1" in the group's time zone."""
    day = datetime.fromtimestamp(moment, storage.zone(tz_name))
    return f"{day.month}月{day.day}日" if tr.lang == "zh" else f"{calendar.month_abbr[day.month]} {day.day}"


def season_dates(tr: Translator, season: storage.Season, tz_name: str) -> str:
    """「12月1日 – 12月31日」, or 「3月5日起」 for a season that runs until the admins start the next."""
    start = day_label(tr, season.starts_at, tz_name)
    if season.ends_at is None:
        return tr("since {day}", day=start)
    # ends_at is the midnight that ends it: its last day is the one before.
    return f"{start} – {day_label(tr, max(season.starts_at, season.ends_at - 1), tz_name)}"


class SeasonWatcher:
    """Ends seasons on time and tells each group its season's final table (see the module's docstring).

    ``tell(season)`` queues the telling of one season's end (the caller's
    transaction also closes it) and returns the chat to wake, or None when
    there was nothing to tell; ``ensure(chat_id)`` makes sure the group's
    current season exists.
    """

    def __init__(self, db: storage.Database, tell: Callable[[storage.Season], Awaitable[int | None]],
                 wake: Callable[[int], None], clock: Callable[[], float]) -> None:
        self.db = db
        self.tell = tell
        self.wake = wake
        self.clock = clock
        self._chats: set[int] = set()
        self._changed = asyncio.Event()

    def hand_ended(self, chat_id: int) -> None:
        """A hand ended in this group: its season must exist (see :meth:`run`)."""
        self._chats.add(chat_id)
        self._changed.set()

    def poke(self) -> None:
        """Look again now (a season was ended or started by the admins)."""
        self._changed.set()

    async def run(self) -> None:
        """Forever: make the seasons hands ended in, tell the seasons that ended, sleep until the next end."""
        while True:
            self._changed.clear()
            await self.step()
            upcoming = await storage.next_season_end(self.db)
            delay = LONGEST_SLEEP if upcoming is None else min(LONGEST_SLEEP, upcoming + GRACE - self.clock())
            # At least a second (below): a season that could not be closed must not make this loop spin.
            try:
                async with asyncio.timeout(max(delay, 1.0)):
                    await self._changed.wait()
            except TimeoutError:
                pass

    async def step(self) -> int:
        """One look: the seasons of the groups whose hands ended, then every season due to be told; how many
        ends were told."""
        now = self.clock()
        while self._chats:
            chat_id = self._chats.pop()
            await storage.current_season(self.db, chat_id, now)
        told = 0
        for season in await storage.seasons_to_close(self.db, now - GRACE):
            chat_id = await self.tell(season)
            if chat_id is not None:
                told += 1
                self.wake(chat_id)
        return told


async def season_text(db: storage.Database, tr: Translator, chat_id: int, now: float) -> str:
    """/season: the season under way (name, dates, hands so far, how it ends, its minimum) and the admins'
    commands (HTML)."""
    season = await storage.current_season(db, chat_id, now)
    tz_name = await storage.time_zone(db, chat_id)
    hands = await storage.counted_hands(db, chat_id, since=season.starts_at, until=season.ends_at)
    lines = ["<b>" + tr("This season: {season}", season=name_html(season_title(tr, season))) + "</b>",
             tr("{dates} (time zone {zone}) · {n} hands so far", dates=season_dates(tr, season, tz_name),
                zone=tz_name, n=hands)]
    if season.kind == "monthly":
        days = max(0, int(((season.ends_at or now) - now) // 86400))
        lines.append(tr("Seasons are monthly: this one ends at midnight on the 1st, in {days} days.", days=days))
    else:
        lines.append(tr("This season runs until an admin starts the next one."))
    lines.append(tr("At least {n} hands to be ranked.", n=season.min_hands))
    lines.append(tr("Admins: /season new NAME starts a named season · /season monthly goes back to monthly "
                    "seasons · /season min N · /season tz Asia/Shanghai"))
    return "\n".join(lines)
