"""The league's picture for a stretch (a season, or all time): its words and data, and the cache that keeps it.

A picture is drawn once and kept until the next hand of its group ends
(the current season's and all time's; a season that is over never changes,
so its picture is kept until the cache is full or the group's seasons are
changed by its admins).  Once Telegram has taken a picture, its ``file_id``
is kept with it: sending it again uploads nothing.  The table it shows
(:class:`Board`: the standings and their headings) is kept the same way, so
a /leaderboard between two hands reads nothing from the database but which
season it is, and so is the league page's answer (its JSON).  A picture that
cannot be drawn is remembered as such, under the same rule: the table is sent
as text, and nothing is drawn again until the group's data changes.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final, Literal

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase, signed
from bot.league.chart import ChartData, Line, Row
from bot.league.standings import Standings, champions_text, rule_text

KEPT: Final = 64
"""Pictures kept at most (about 100 KB each), and as many tables and league pages."""
LINES: Final = 20
"""Lines drawn at most (the best ranked people): more could not be told apart, and would grow the page."""
ROWS: Final = 50
"""People in the picture's and the page's table at most (the rest are counted in a line under it)."""

Kind = Literal["board", "picture", "page"]
Key = tuple[int, str, bool, str]
"""A group, a stretch's key, whether it is the current one, a language."""


@dataclass(frozen=True, slots=True)
class Stretch:
    """What a leaderboard shows: a season, or all time (``season`` None)."""

    key: str
    """``all`` or the season's id: what a button names."""
    season: storage.Season | None
    current: bool
    """The season under way (or all time): its picture changes when a hand ends."""

    @property
    def since(self) -> float:
        """The first moment counted."""
        return self.season.starts_at if self.season is not None else 0.0

    @property
    def until(self) -> float | None:
        """The first moment not counted (None: none)."""
        return self.season.ends_at if self.season is not None else None

    @property
    def finished(self) -> bool:
        """A season that is over: its first place are its champions (all time and the season under way have
        none yet, only a lead)."""
        return self.season is not None and not self.current


@dataclass(frozen=True, slots=True)
class Board:
    """A stretch's table and its headings, as counted when it was kept."""

    standings: Standings
    title: str
    subtitle: str
    buttons: tuple[tuple[str, str], ...]
    """(label, stretch key) of the other stretches worth a look."""


@dataclass(slots=True)
class Picture:
    """A drawn picture and, once Telegram took it, its ``file_id``; ``png`` None: it could not be drawn (the
    table is sent as text until the group's data changes)."""

    png: bytes | None
    file_id: str | None = None


class PictureCache:
    """The pictures, tables and league pages of every group, by group, stretch and language (least recently used
    first out), and each group's version: it changes whenever what they show may have changed, and something
    counted under an older version is not kept (a hand that ended while it was being counted is in the next)."""

    def __init__(self) -> None:
        self._kept: dict[Kind, OrderedDict[Key, Any]] = {kind: OrderedDict() for kind in ("board", "picture", "page")}
        self._versions: dict[int, int] = {}

    def version(self, chat_id: int) -> int:
        """The group's version: take it before counting, hand it back when keeping what was counted."""
        return self._versions.get(chat_id, 0)

    def _get(self, kind: Kind, chat_id: int, stretch: Stretch, lang: str) -> Any:
        key = (chat_id, stretch.key, stretch.current, lang)
        kept = self._kept[kind].get(key)
        if kept is not None:
            self._kept[kind].move_to_end(key)
        return kept

    def _keep(self, kind: Kind, chat_id: int, stretch: Stretch, lang: str, value: Any, version: int | None) -> None:
        if version is not None and version != self.version(chat_id):
            return  # counted before the group's last change: out of date already
        kept = self._kept[kind]
        kept[(chat_id, stretch.key, stretch.current, lang)] = value
        kept.move_to_end((chat_id, stretch.key, stretch.current, lang))
        while len(kept) > KEPT:
            kept.popitem(last=False)

    def board(self, chat_id: int, stretch: Stretch, lang: str) -> Board | None:
        """The kept table, if any."""
        board: Board | None = self._get("board", chat_id, stretch, lang)
        return board

    def keep_board(self, chat_id: int, stretch: Stretch, lang: str, board: Board, *, version: int | None = None) -> None:
        """Keep a stretch's table until the group's next hand ends."""
        self._keep("board", chat_id, stretch, lang, board, version)

    def get(self, chat_id: int, stretch: Stretch, lang: str) -> Picture | None:
        """The kept picture (or the memory that it could not be drawn), if any."""
        picture: Picture | None = self._get("picture", chat_id, stretch, lang)
        return picture

    def store(self, chat_id: int, stretch: Stretch, lang: str, png: bytes | None, file_id: str | None = None, *,
              version: int | None = None) -> None:
        """Keep a picture (and its ``file_id``, once known); ``png`` None: it could not be drawn."""
        self._keep("picture", chat_id, stretch, lang, Picture(png, file_id), version)

    def page(self, chat_id: int, stretch: Stretch, lang: str) -> bytes | None:
        """The kept league page's answer (its JSON), if any."""
        body: bytes | None = self._get("page", chat_id, stretch, lang)
        return body

    def keep_page(self, chat_id: int, stretch: Stretch, lang: str, body: bytes, *, version: int | None = None) -> None:
        """Keep a stretch's league page until the group's next hand ends."""
        self._keep("page", chat_id, stretch, lang, body, version)

    def hand_ended(self, chat_id: int) -> None:
        """A hand of the group ended: its current season's and all time's pictures, tables and pages are out of
        date (and the buttons of its past seasons' tables and pages, which may now lead to the current one)."""
        self._versions[chat_id] = self.version(chat_id) + 1
        for kind, kept in self._kept.items():
            for key in [key for key in kept if key[0] == chat_id and (key[2] or kind != "picture")]:
                del kept[key]

    def forget(self, chat_id: int) -> None:
        """Every picture, table and page of the group (its seasons were changed)."""
        self._versions[chat_id] = self.version(chat_id) + 1
        for kept in self._kept.values():
            for key in [key for key in kept if key[0] == chat_id]:
                del kept[key]


def ranked_ids(standings: Standings) -> list[int]:
    """The people whose lines are drawn: the best :data:`LINES` ranked (everyone's while nobody is ranked)."""
    return [placed.line.user_id for placed in (standings.ranked or standings.everyone)[:LINES]]


def chart_data(tr: Translator, title: str, subtitle: str, standings: Standings,
               series: storage.JifenSeries, *, finished: bool) -> ChartData:
    """What the picture of a stretch shows: a line for each of the best ranked people (:func:`ranked_ids`;
    everyone's while nobody is ranked yet: a new season's first hands are worth a picture), sampled by
    :func:`storage.jifen_lines`, and the table's first :data:`ROWS` people.  ``finished``: the stretch is a
    season that is over (its first place are champions; otherwise they lead)."""
    lines: list[Line] = []
    column: dict[int, int] = {}
    for placed in (standings.ranked or standings.everyone)[:LINES]:
        points = series.lines.get(placed.line.user_id, ())
        column[placed.line.user_id] = len(lines)
        lines.append(Line(placed.line.display_name, tuple(v for _, v in points), tuple(x for x, _ in points)))
    rows = tuple(
        Row(placed.place, placed.line.display_name,
            (signed(placed.line.jifen), str(placed.line.hands), str(placed.line.hands_won),
             str(placed.line.matches_won), str(placed.line.escapes)),
            column.get(placed.line.user_id))
        for placed in standings.everyone[:ROWS])
    footer = [_plain(champions_text(tr, standings, finished=finished)), rule_text(tr, standings.min_hands)]
    if len(standings.everyone) > ROWS:
        footer.insert(0, tr("… and {n} more people", n=len(standings.everyone) - ROWS))
    return ChartData(
        title=title, subtitle=subtitle, x_label=tr("Hands played in the group, in order"), y_label=tr("积分"),
        headers=("#", tr("Player"), tr("积分"), tr("Hands"), tr("Won"), tr("Matches"), tr("Escapes")),
        lines=tuple(lines), rows=rows,
        below_line=tr("Below the line: fewer than {hands}, not ranked", hands=hands_phrase(tr, standings.min_hands)),
        footer=tuple(footer), empty=tr("No hand has been played yet."))


def _plain(html_text: str) -> str:
    """Text meant for HTML messages, for the picture (no markup)."""
    return html_text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")  # "&amp;" last: "&amp;lt;" is "&lt;"
