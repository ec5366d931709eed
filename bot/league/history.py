"""/history: the group's last matches — when, which preset, the four players, the final levels, the winner —
with a replay link per hand where the web app is on.

A replay link is the private chat's deep link ``t.me/<bot>?start=r<hand_id>``,
as on each hand's result: who may replay a hand (the people who played it)
is decided by the tables service when the link is opened, not here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase, level_label, name_html, preset_label, seat_label, side_label
from bot.league.board import League

MATCHES_SHOWN: Final = 5
"""Matches a page of /history shows."""


def _players(tr: Translator, match: storage.PastMatch) -> str:
    """「北 Ann · 东 Bo · 南 Cy · 西 Di/AI」: everyone who held each seat, in order."""
    seats = []
    for seat, names in enumerate(match.players):
        who = "/".join(name_html(name) if name is not None else tr("AI") for name in names) or "—"
        seats.append(f"{seat_label(tr, seat)} {who}")
    return " · ".join(seats)


def _levels(tr: Translator, match: storage.PastMatch) -> str:
    """「南北 打 A · 东西 打 9」, with the lap where the preset has several."""
    laps = int(match.ruleset.get("laps", 1) or 1)
    parts = []
    for side in (0, 1):
        text = tr("{side} at {level}", side=side_label(tr, side), level=level_label(match.levels[side]))
        if laps > 1:
            text += tr(" (lap {lap})", lap=max(1, match.laps[side]))  # the lap the side is on, as results say
        parts.append(text)
    return " · ".join(parts)


def _outcome(tr: Translator, match: storage.PastMatch) -> str:
    if match.status == "finished" and match.winner_side is not None:
        side = match.winner_side
        names = " &amp; ".join(name_html(n[-1]) if n and n[-1] is not None else tr("AI")
                               for n in (match.players[side], match.players[side + 2]))
        return "🏆 " + tr("{side} won: {names}", side=side_label(tr, side), names=names)
    if match.status == "playing":
        return tr("still being played")
    return tr("stopped before its end")


def _when(tr: Translator, moment: float, tz_name: str) -> str:
    day = datetime.fromtimestamp(moment, storage.zone(tz_name))
    if tr.lang == "zh":
        return f"{day.year}年{day.month}月{day.day}日 {day:%H:%M}"
    return f"{day:%Y-%m-%d %H:%M}"


async def history_text(league: League, tr: Translator, chat_id: int,
                       before: int | None = None) -> tuple[str, int | None]:
    """A page of the group's history (HTML), and the match to page back from (None: nothing older)."""
    matches = await storage.match_history(league.db, chat_id, limit=MATCHES_SHOWN + 1, before=before)
    if not matches:
        return tr("No match has been played in this group yet."), None
    tz_name = await storage.time_zone(league.db, chat_id)
    more = matches[MATCHES_SHOWN - 1].match_id if len(matches) > MATCHES_SHOWN else None
    lines = ["<b>" + (tr("Last matches") if before is None else tr("Earlier matches")) + "</b>"]
    for match in matches[:MATCHES_SHOWN]:
        lines.append("")
        lines.append(f"<b>{_when(tr, match.ended_at, tz_name)}</b> · {preset_label(tr, match.preset)} · "
                     + hands_phrase(tr, len(match.hands)))
        lines.append(_players(tr, match))
        lines.append(_levels(tr, match) + " · " + _outcome(tr, match))
        if league.public_url is not None:
            links = " ".join(f'<a href="https://t.me/{league.bot_username}?start=r{hand.hand_id}">{hand.number}</a>'
                             for hand in match.hands)
            lines.append(tr("Replays: {links}", links=links))
    return "\n".join(lines), more
