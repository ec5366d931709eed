"""The ranking rule of a league, and its tables as text.

积分 ranks.  Only people with at least the season's minimum of hands are
ranked; the others are listed below the line.  Ties are broken, in order,
by hands won, matches won, fewer escapes, and who got there first (the
earlier last hand); people still level after all of that share a place.
Partnerships rank by 积分, then hands won, among the pairs who played at
least half the minimum together (pairs level in both share a place).  AI seats never rank: the stored results
count for nobody there.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase, name_html, signed

CAPTION_LIMIT = 1024
"""Telegram's longest photo caption, in characters."""


@dataclass(frozen=True, slots=True)
class Placed:
    """A person's line with their place (None: below the line, not ranked)."""

    place: int | None
    line: storage.LeagueLine


@dataclass(frozen=True, slots=True)
class Standings:
    """A stretch's table: the ranked people, the others, the ranked partnerships, and the rule's minimum."""

    ranked: tuple[Placed, ...]
    unranked: tuple[Placed, ...]
    pairs: tuple[storage.PartnershipStanding, ...]
    min_hands: int

    @property
    def champions(self) -> tuple[storage.LeagueLine, ...]:
        """Everyone in first place (usually one person)."""
        return tuple(p.line for p in self.ranked if p.place == 1)

    @property
    def everyone(self) -> tuple[Placed, ...]:
        """The ranked, then the others."""
        return self.ranked + self.unranked


def order_key(line: storage.LeagueLine) -> tuple[int, int, int, int, float]:
    """What ranks a person: 积分, hands won, matches won, fewer escapes, the earlier last hand."""
    return (-line.jifen, -line.hands_won, -line.matches_won, line.escapes, line.last_at)


def pair_key(pair: storage.PartnershipStanding) -> tuple[int, int]:
    """What ranks a partnership: 积分, then hands won."""
    return (-pair.jifen, -pair.hands_won)


def pair_places(pairs: Sequence[storage.PartnershipStanding]) -> list[int]:
    """The place of each ranked partnership, in order: pairs level in 积分 and hands won share one."""
    places: list[int] = []
    for index, pair in enumerate(pairs):
        tied = index > 0 and pair_key(pairs[index - 1]) == pair_key(pair)
        places.append(places[-1] if tied else index + 1)
    return places


def pair_minimum(min_hands: int) -> int:
    """Hands a partnership needs together to be ranked: half the people's minimum, rounded up."""
    return (min_hands + 1) // 2


def rank(lines: Sequence[storage.LeagueLine], pairs: Sequence[storage.PartnershipStanding],
         min_hands: int) -> Standings:
    """The table of a stretch under the rule above."""
    ranked: list[Placed] = []
    for index, line in enumerate(sorted((one for one in lines if one.hands >= min_hands), key=order_key)):
        tied = ranked and order_key(ranked[-1].line) == order_key(line)
        ranked.append(Placed(ranked[-1].place if tied else index + 1, line))
    others = sorted((one for one in lines if one.hands < min_hands), key=lambda one: (-one.hands, -one.jifen, one.user_id))
    minimum = pair_minimum(min_hands)
    duos = sorted((p for p in pairs if p.hands >= minimum), key=lambda p: (-p.jifen, -p.hands_won, p.user_ids))
    return Standings(tuple(ranked), tuple(Placed(None, one) for one in others), tuple(duos), min_hands)


def rule_text(tr: Translator, min_hands: int) -> str:
    """The rule as it is stated under every table."""
    return tr("Ranked by 积分 with at least {hands}; ties: hands won, matches won, fewer escapes, "
              "then who got there first.", hands=hands_phrase(tr, min_hands))


def person_text(tr: Translator, placed: Placed) -> str:
    """One person's line: 「1. 张伟 · +34 · 40 局 胜 21 · 胜场 2 · 逃跑 1」 (HTML)."""
    line = placed.line
    head = f"{placed.place}. " if placed.place is not None else "· "
    figures = tr("{hands}, {w} won", hands=hands_phrase(tr, line.hands), w=line.hands_won)
    if line.matches_won:
        figures += " · " + tr("{n} matches won", n=line.matches_won)
    if line.escapes:
        figures += " · " + tr("{n} escapes", n=line.escapes)
    return f"{head}{name_html(line.display_name)} · {signed(line.jifen)} · {figures}"


def pair_text(tr: Translator, place: int, pair: storage.PartnershipStanding) -> str:
    """One partnership's line (HTML)."""
    names = " &amp; ".join(name_html(n) for n in pair.display_names)
    return f"{place}. {names} · {signed(pair.jifen)} · " + tr("{hands}, {w} won", hands=hands_phrase(tr, pair.hands),
                                                                 w=pair.hands_won)


def table_text(tr: Translator, heading: str, standings: Standings, *, limit: int = CAPTION_LIMIT) -> str:
    """The table as text within ``limit`` characters (a caption): the top of it, then the rule.

    Lines are left out from the bottom of each part when the whole would be
    too long; the line saying how many are not ranked is always kept.
    """
    rule = rule_text(tr, standings.min_hands)
    for shown in (10, 6, 3, 1):
        lines = [heading]
        lines += [person_text(tr, p) for p in standings.ranked[:shown]]
        if len(standings.ranked) > shown:
            lines.append(tr("… and {n} more ranked", n=len(standings.ranked) - shown))
        if standings.unranked:
            lines.append(tr("Below the line (under {hands}): {names}", hands=hands_phrase(tr, standings.min_hands),
                            names=("、" if tr.lang == "zh" else ", ").join(
                                name_html(p.line.display_name) for p in standings.unranked[:shown])
                            + ("…" if len(standings.unranked) > shown else "")))
        if standings.pairs:
            lines.append("<b>" + tr("Partnerships") + "</b>")
            lines += [pair_text(tr, place, pair) for place, pair in zip(pair_places(standings.pairs),
                                                                          standings.pairs[:min(shown, 3)])]
        lines.append("<i>" + rule + "</i>")
        text = "\n".join(lines)
        if _visible_length(text) <= limit:
            return text
    return heading + "\n<i>" + rule + "</i>"


def champions_text(tr: Translator, standings: Standings, *, finished: bool) -> str:
    """「冠军：张伟（+34）· 最佳搭档：张伟 & 王芳（+50）」 for a season that is over (``finished``), 「领先：…」
    while it is under way (and for all time), or that nobody is ranked (HTML)."""
    people = standings.champions
    if not people:
        if finished:
            return tr("No champion: nobody played {hands}.", hands=hands_phrase(tr, standings.min_hands))
        return tr("Nobody has {hands} yet.", hands=hands_phrase(tr, standings.min_hands))
    names = ("、" if tr.lang == "zh" else ", ").join(
        tr("{name} ({jifen})", name=name_html(p.display_name), jifen=signed(p.jifen)) for p in people)
    text = tr("Champion: {names}", names=names) if finished else tr("Leading: {names}", names=names)
    best = [pair for pair, place in zip(standings.pairs, pair_places(standings.pairs)) if place == 1]
    if len(best) == 1:
        pair = best[0]
        names = " &amp; ".join(name_html(n) for n in pair.display_names)
        text += " · " + (tr("Best partnership: {names} ({jifen})", names=names, jifen=signed(pair.jifen)) if finished
                         else tr("Best partnership so far: {names} ({jifen})", names=names, jifen=signed(pair.jifen)))
    elif best:  # level in all of their rule: each of them is named (three at most: the caption has 1024 characters)
        names = ("、" if tr.lang == "zh" else ", ").join(
            tr("{name} ({jifen})", name=" &amp; ".join(name_html(n) for n in pair.display_names),
               jifen=signed(pair.jifen)) for pair in best[:3]) + ("…" if len(best) > 3 else "")
        text += " · " + (tr("Best partnerships: {names}", names=names) if finished
                         else tr("Best partnerships so far: {names}", names=names))
    return text


def _visible_length(html_text: str) -> int:
    """Characters Telegram counts: the text without its tags and with entities as one character."""
    return len(html.unescape(re.sub(r"<[^>]+>", "", html_text)))
