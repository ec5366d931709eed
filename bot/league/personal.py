"""/stats: a person's league, in a group (that group's) or in private (every group they play in).

The season's line and place (or how many hands are still missing to be
ranked), all time's, the win rate as dealer side and as attackers, the best
partner, and the red fives: 逼红5 their side forced out of the other side,
their own red fives forced out (被逼红5), and 保红5 — counted from the
engine's notices stored with each result, over the hands that count for
them.
"""

from __future__ import annotations

from typing import Final

import storage
from bot.i18n import Translator
from bot.labels import hands_phrase, name_html, signed
from bot.league.board import League
from bot.league.pictures import Stretch
from bot.league.seasons import season_title
from bot.league.standings import Standings

GROUPS_SHOWN: Final = 5
"""Groups in a private /stats at most (the most recently played first)."""


def _rate(won: int, hands: int) -> str:
    return f"{round(100 * won / hands)}%" if hands else "—"


def _place(standings: Standings, user_id: int) -> int | None:
    return next((p.place for p in standings.ranked if p.line.user_id == user_id), None)


async def group_stats(league: League, tr: Translator, chat_id: int, user_id: int, *,
                      with_title: bool = False) -> str | None:
    """The person's league in one group (HTML); None if no hand of the group counts for them."""
    current = await storage.current_season(league.db, chat_id, league.clock())
    overall = await league.standings(chat_id, Stretch("all", None, True))
    mine = next((p.line for p in overall.everyone if p.line.user_id == user_id), None)
    if mine is None:
        return None
    season = await league.standings(chat_id, Stretch(str(current.season_id), current, True))
    lines = []
    if with_title:
        chat = await storage.get_chat(league.db, chat_id)
        lines.append("<b>" + name_html(chat.title if chat is not None and chat.title else str(chat_id)) + "</b>")
    else:
        lines.append("<b>" + name_html(mine.display_name) + "</b>")
    now = next((p.line for p in season.everyone if p.line.user_id == user_id), None)
    title = name_html(season_title(tr, current))
    if now is None:
        lines.append(tr("{season}: no hands yet", season=title))
    else:
        place = _place(season, user_id)
        where = (tr("place {n} of {total}", n=place, total=len(season.ranked)) if place is not None
                 else tr("not ranked yet: {hands} more to play", hands=hands_phrase(tr, current.min_hands - now.hands)))
        lines.append(tr("{season}: {where}", season=title, where=where))
        lines.append(tr("积分 {j} · hands {h} · won {w} · matches won {m} · escapes {e}", j=signed(now.jifen),
                        h=now.hands, w=now.hands_won, m=now.matches_won, e=now.escapes))
    place = _place(overall, user_id)
    lines.append(tr("All time: 积分 {j} · hands {h} · won {w}", j=signed(mine.jifen), h=mine.hands, w=mine.hands_won)
                 + (" · " + tr("place {n} of {total}", n=place, total=len(overall.ranked)) if place else ""))
    lines.append(tr("As dealer side: {hands}, {rate} won, 积分 {j}", hands=hands_phrase(tr, mine.dealer_hands),
                    rate=_rate(mine.dealer_won, mine.dealer_hands), j=signed(mine.dealer_jifen)))
    lines.append(tr("As attackers: {hands}, {rate} won, 积分 {j}", hands=hands_phrase(tr, mine.attacker_hands),
                    rate=_rate(mine.attacker_won, mine.attacker_hands), j=signed(mine.attacker_jifen)))
    partners = [p for p in await storage.partnership_lines(league.reader, chat_id) if user_id in p.user_ids]
    if partners:
        best = max(partners, key=lambda p: (p.jifen, p.hands_won, -p.hands))
        other = best.display_names[1] if best.user_ids[0] == user_id else best.display_names[0]
        lines.append(tr("Best partner: {name} ({hands} together, {w} won, 积分 {j})", name=name_html(other),
                        hands=hands_phrase(tr, best.hands), w=best.hands_won, j=signed(best.jifen)))
    fives = await storage.red_fives(league.reader, chat_id, user_id)
    lines.append(tr("逼红5 {forced} · 被逼红5 {lost} · 保红5 {kept}", forced=fives.forced,
                    lost=fives.forced_out_of_me, kept=fives.kept))
    return "\n".join(lines)


async def private_stats(league: League, tr: Translator, user_id: int) -> str:
    """/stats in private: the person's league in each group they play in (the most recent first)."""
    chats = await storage.league_chats(league.reader, user_id)
    if not chats:
        return tr("You have not finished a hand in any group yet.")
    parts = []
    for chat_id, _title in chats[:GROUPS_SHOWN]:
        text = await group_stats(league, tr, chat_id, user_id, with_title=True)
        if text is not None:
            parts.append(text)
    if len(chats) > GROUPS_SHOWN:
        parts.append(tr("… and {n} more groups: send /stats there.", n=len(chats) - GROUPS_SHOWN))
    return "\n\n".join(parts)
