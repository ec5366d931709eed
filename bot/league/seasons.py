"""Seasons as people read them, and the watcher that ends each one on time and tells the group.

:class:`SeasonWatcher` is one supervised task (``seasons``): it sleeps
until the next season of any group ends (a monthly season at the group's
local midnight on the first), then, a few seconds later (so that a hand
stored at the last moment is in), queues the season's final table and
champions in the group's outbox, with its picture, in the transaction that
marks the season told.  A season nobody played in ends silently.  Each
season's end is told on its own: one that fails (a fault that does not pass)
is logged once, tried again after :data:`RETRY_AFTER` seconds doubling each
time, given up after :data:`MOST_TRIES` tries (until the bot restarts), and
never holds up another group's; :meth:`SeasonWatcher.troubles` lists it for
``/health``.  Hands
that end make sure their group's season exists (so that its end is told
even if nobody asked for the table), and a bot that was down at midnight
tells the season's end when it starts.
"""

from __future__ import annotations

import asyncio
import calendar
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import storage
from bot.faults import passes
from bot.i18n import Translator
from bot.labels import hands_phrase, name_html

log = logging.getLogger(__name__)

GRACE: Final = 5.0
"""Seconds after a season's end before it is told: a hand stored in its last moment is in it by then."""
LONGEST_SLEEP: Final = 3600.0
"""The watcher looks again at least this often (a season started or a time zone changed meanwhile)."""
RETRY_AFTER: Final = 60.0
"""Seconds before a season's end that could not be told is tried again (doubling each time)."""
MOST_TRIES: Final = 4
"""Tries at telling one season's end before the watcher gives up on it until the bot restarts."""


@dataclass(slots=True)
class Failed:
    """A season whose end could not be told: how often, the last error, when to try again (None: given up)."""

    tries: int
    error: str
    retry_at: float | None


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
                 wake: Callable[[int], None], clock: Callable[[], float],
                 hosts: Callable[[int], bool] = lambda chat_id: True) -> None:
        self.db = db
        self.hosts = hosts
        """The groups whose seasons this run tells (:meth:`bot.config.Settings.hosts`)."""
        self.tell = tell
        self.wake = wake
        self.clock = clock
        self._chats: set[int] = set()
        self._changed = asyncio.Event()
        self._failed: dict[int, Failed] = {}
        """Seasons whose end could not be told, by id."""
        self._looked = float("-inf")
        """When the last look began: every season that ended :data:`GRACE` seconds before it was looked at (told,
        failed, or another run's), and is no reason to wake."""

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
            delay = await self._sleep_for()
            # At least a second (below): a season that could not be closed must not make this loop spin.
            try:
                async with asyncio.timeout(max(delay, 1.0)):
                    await self._changed.wait()
            except TimeoutError:
                pass

    async def _sleep_for(self) -> float:
        """Seconds until the next season ends or a failed one is tried again (at most :data:`LONGEST_SLEEP`)."""
        now = self.clock()
        # Not the ends looked at already: one failed is timed below, and one given up on or of a group another
        # run hosts stays due, which would make every other group's end wait for the longest sleep.
        upcoming = await storage.next_season_end(self.db, after=self._looked - GRACE)
        delay = LONGEST_SLEEP
        if upcoming is not None:
            delay = min(delay, upcoming + GRACE - now)
        for failed in self._failed.values():
            if failed.retry_at is not None:
                delay = min(delay, failed.retry_at - now)
        return delay

    async def step(self) -> int:
        """One look: the seasons of the groups whose hands ended, then every season due to be told, each on its
        own (see the module's docstring); how many ends were told."""
        now = self._looked = self.clock()
        while self._chats:
            chat_id = self._chats.pop()
            await storage.current_season(self.db, chat_id, now)
        told = 0
        due = [season for season in await storage.seasons_to_close(self.db, now - GRACE) if self.hosts(season.chat_id)]
        for gone in self._failed.keys() - {season.season_id for season in due}:  # closed meanwhile
            del self._failed[gone]
        for season in due:
            failed = self._failed.get(season.season_id)
            if failed is not None and (failed.retry_at is None or failed.retry_at > now):
                continue
            try:
                woken = await self.tell(season)
            except Exception as exc:  # noqa: BLE001 — one group's season must not hold up another's
                if passes(exc):  # storage or Telegram down: every group alike, the supervisor runs it again
                    raise
                self._fail(season, exc, now)
                continue
            self._failed.pop(season.season_id, None)
            if woken is not None:
                told += 1
                self.wake(woken)
        return told

    def _fail(self, season: storage.Season, exc: Exception, now: float) -> None:
        tries = self._failed[season.season_id].tries + 1 if season.season_id in self._failed else 1
        given_up = tries >= MOST_TRIES
        retry_at = None if given_up else now + RETRY_AFTER * 2 ** (tries - 1)
        self._failed[season.season_id] = Failed(tries, f"{type(exc).__name__}: {exc}"[:200], retry_at)
        if tries == 1:
            log.error("the end of season %s of chat %s could not be told; tried again in %.0f s",
                      season.season_id, season.chat_id, RETRY_AFTER, exc_info=exc)
        elif given_up:
            log.error("the end of season %s of chat %s could not be told after %d tries (%s): given up until the "
                      "bot restarts", season.season_id, season.chat_id, tries, type(exc).__name__)

    def troubles(self) -> list[str]:
        """The seasons whose end could not be told, one phrase each (for ``/health``)."""
        return [f"season {season_id} not told after {failed.tries} tr{'y' if failed.tries == 1 else 'ies'} "
                f"({failed.error})" for season_id, failed in sorted(self._failed.items())]


async def season_text(db: storage.Database, tr: Translator, chat_id: int, now: float) -> str:
    """/season: the season under way (name, dates, hands so far, how it ends, its minimum) and the admins'
    commands (HTML)."""
    season = await storage.current_season(db, chat_id, now)
    tz_name = await storage.time_zone(db, chat_id)
    hands = await storage.counted_hands(db, chat_id, since=season.starts_at, until=season.ends_at)
    lines = ["<b>" + tr("This season: {season}", season=name_html(season_title(tr, season))) + "</b>",
             tr("{dates} (time zone {zone}) · {hands} so far", dates=season_dates(tr, season, tz_name),
                zone=tz_name, hands=hands_phrase(tr, hands))]
    if season.kind == "monthly":
        days = max(0, int(((season.ends_at or now) - now) // 86400))
        lines.append(tr("Seasons are monthly: this one ends at midnight on the 1st, in {days} days.", days=days))
    else:
        lines.append(tr("This season runs until an admin starts the next one."))
    lines.append(tr("At least {hands} to be ranked.", hands=hands_phrase(tr, season.min_hands)))
    lines.append(tr("Admins: /season new NAME starts a named season · /season monthly goes back to monthly "
                    "seasons · /season min N · /season tz Asia/Shanghai"))
    return "\n".join(lines)
