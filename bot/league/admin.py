"""The admins' changes to a group's seasons (/season new NAME, monthly, min N, tz ZONE), and their replies.

A season the admins end is told before the next one starts: its final table,
then the new season's start, both through the group's outbox in that order.
"""

from __future__ import annotations

import html

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase
from bot.league.board import League
from bot.league.seasons import season_title
from bot.untrusted import parse_int, shown, zone_name


async def _after_the_end(league: League, ended: storage.Season, started: storage.Season, text: str) -> str:
    """The admins ended a season: its final table is told first, then the new season's start (``text``), both
    through the group's outbox in that order; "" once so queued, or ``text`` to reply with when the season that
    ended is told to nobody (nobody played in it, or it was only renamed)."""
    if ended.season_id == started.season_id or await league.tell_season_end(ended) is None:
        return text
    return "" if await league.announce(ended.chat_id, "season_start", text) else text


async def change_season(league: League, tr: Translator, chat_id: int, user_id: int | None, verb: str,
                         rest: str) -> str | None:
    """Make an admin's change (``user_id``: a stored person, or None for the group's anonymous admins); the
    reply, or None for a verb /season does not know."""
    now = league.clock()
    if verb == "new":
        try:
            # The name is stored as it is shown (no bidi controls: a U+202E would turn every line naming it
            # around), and one of nothing but controls is refused as an empty one.
            ended, season = await storage.start_named_season(league.db, chat_id, shown(rest), by=user_id, now=now)
        except ValueError:
            return tr("A season's name has 1 to {n} characters: /season new 春季赛", n=storage.MAX_NAME)
        return await _after_the_end(league, ended, season, tr(
            "The season 「{name}」 starts now and runs until an admin starts the next one.",
            name=html.escape(season.name, quote=False)))
    if verb == "monthly":
        changed = await storage.start_monthly_seasons(league.db, chat_id, by=user_id, now=now)
        if changed is None:
            return tr("Seasons are monthly already.")
        return await _after_the_end(league, *changed, tr(
            "Back to monthly seasons: {season} starts now.", season=html.escape(season_title(tr, changed[1]),
                                                                               quote=False)))
    if verb == "min":
        minimum = parse_int(rest.strip(), 0, 1000)
        if minimum is None:
            return tr("Give the minimum as a number of hands from 0 to 1000: /season min 10")
        await storage.set_min_hands(league.db, chat_id, minimum, now)
        return tr("From now on this season ranks people with at least {hands}.", hands=hands_phrase(tr, minimum))
    if verb == "tz":
        name = zone_name(rest.strip())
        try:
            if name is None:
                raise ValueError(rest)
            await storage.set_time_zone(league.db, chat_id, name, now)
        except ValueError:
            return tr("Unknown time zone. Use a name such as Asia/Shanghai or Europe/London.")
        return tr("The group's time zone is now {zone}: monthly seasons end at its midnight.",
                  zone=html.escape(name, quote=False))
    return None
