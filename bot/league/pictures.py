"""The league's picture for a stretch (a season, or all time): its words and data, and the cache that keeps it.

A picture is drawn once and kept until the next hand of its group ends
(the current season's and all time's; a season that is over never changes,
so its picture is kept until the cache is full or the group's seasons are
changed by its admins).  Once Telegram has taken a picture, its ``file_id``
is kept with it: sending it again uploads nothing.  The table it shows
(:class:`Board`: the standings and their headings) is kept the same way, so
a /leaderboard between two hands reads nothing from the database but which
season it is.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase, signed
from bot.league.chart import ChartData, Line, Row
from bot.league.standings import Standings, champions_text, rule_text

KEPT: Final = 64
"""Pictures kept at most (about 100 KB each)."""


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
    """A drawn picture and, once Telegram took it, its ``file_id``."""

    png: bytes
    file_id: str | None = None


class PictureCache:
    """The pictures and tables of every group, by group, stretch and language (least recently used first out)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, str, bool, str], Picture] = OrderedDict()
        self._boards: OrderedDict[tuple[int, str, bool, str], Board] = OrderedDict()

    def board(self, chat_id: int, stretch: Stretch, lang: str) -> Board | None:
        """The kept table, if any."""
        return self._boards.get((chat_id, stretch.key, stretch.current, lang))

    def keep_board(self, chat_id: int, stretch: Stretch, lang: str, board: Board) -> None:
        """Keep a stretch's table until the group's next hand ends."""
        self._boards[(chat_id, stretch.key, stretch.current, lang)] = board
        while len(self._boards) > KEPT:
            self._boards.popitem(last=False)

    def get(self, chat_id: int, stretch: Stretch, lang: str) -> Picture | None:
        """The kept picture, if any."""
        key = (chat_id, stretch.key, stretch.current, lang)
        picture = self._kept.get(key)
        if picture is not None:
            self._kept.move_to_end(key)
        return picture

    def store(self, chat_id: int, stretch: Stretch, lang: str, png: bytes, file_id: str | None = None) -> None:
        """Keep a picture (and its ``file_id``, once known)."""
        key = (chat_id, stretch.key, stretch.current, lang)
        self._kept[key] = Picture(png, file_id)
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)

    def hand_ended(self, chat_id: int) -> None:
        """A hand of the group ended: its current season's and all time's pictures and tables are out of date
        (and the buttons of its past seasons' tables, which may now lead to the current one)."""
        for kept in (self._kept, self._boards):
            for key in [key for key in kept if key[0] == chat_id and (key[2] or kept is self._boards)]:
                del kept[key]

    def forget(self, chat_id: int) -> None:
        """Every picture and table of the group (its seasons were changed)."""
        for kept in (self._kept, self._boards):
            for key in [key for key in kept if key[0] == chat_id]:
                del kept[key]


def chart_data(tr: Translator, title: str, subtitle: str, standings: Standings,
               series: list[storage.SeriesPoint], *, finished: bool) -> ChartData:
    """What the picture of a stretch shows: a line for each ranked person (for everyone while nobody is ranked
    yet: a new season's first hands are worth a picture), and the whole table.  ``finished``: the stretch is a
    season that is over (its first place are champions; otherwise they lead)."""
    hands: dict[int, int] = {}
    for point in series:
        hands.setdefault(point.hand_id, len(hands))
    drawn = standings.ranked or standings.everyone
    order = [placed.line.user_id for placed in drawn]
    column = {user_id: index for index, user_id in enumerate(order)}
    steps: list[list[int]] = [[0] * len(hands) for _ in order]
    for point in series:
        index = column.get(point.user_id)
        if index is not None:
            steps[index][hands[point.hand_id]] += point.score
    lines = []
    for user_placed, changes in zip(drawn, steps):
        total, points = 0, []
        for change in changes:
            total += change
            points.append(total)
        lines.append(Line(user_placed.line.display_name, tuple(points)))
    rows = tuple(
        Row(placed.place, placed.line.display_name,
            (signed(placed.line.jifen), str(placed.line.hands), str(placed.line.hands_won),
             str(placed.line.matches_won), str(placed.line.escapes)),
            column.get(placed.line.user_id))
        for placed in standings.everyone)
    footer = [_plain(champions_text(tr, standings, finished=finished)), rule_text(tr, standings.min_hands)]
    return ChartData(
        title=title, subtitle=subtitle, x_label=tr("Hands played in the group, in order"), y_label=tr("积分"),
        headers=("#", tr("Player"), tr("积分"), tr("Hands"), tr("Won"), tr("Matches"), tr("Escapes")),
        lines=tuple(lines), rows=rows,
        below_line=tr("Below the line: fewer than {hands}, not ranked", hands=hands_phrase(tr, standings.min_hands)),
        footer=tuple(footer), empty=tr("No hand has been played yet."))


def _plain(html_text: str) -> str:
    """Text meant for HTML messages, for the picture (no markup)."""
    return html_text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
