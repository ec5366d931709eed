"""A finished hand's replay as the page draws it: the spectator's view at the hand's end, and who sat where.

Who may replay which hand, and the hand rebuilt from the log, are the
service's (:meth:`bot.tables.Tables.replay`); this only shapes its answer,
with the facts the table message told while the hand was played — the
trump, the dealer, how the trump was set — in the table's own words.
"""

from __future__ import annotations

from typing import Any

from bot import story
from bot.i18n import Translator
from bot.labels import flag_phrase, name_html, seat_label, trump_phrase
from bot.tables import Replay
from bot.untrusted import shown
from bot.webapp.state import words


def replay_json(replay: Replay, tr: Translator) -> dict[str, Any]:
    """The replay, JSON-ready (names as HTML, as the state's; ``facts`` as plain lines)."""
    return {"hand_id": replay.hand_id, "view": replay.view.to_dict(), "words": words(tr), "lang": tr.lang,
            "facts": facts(replay, tr),
            "seats": [{"label": seat_label(tr, seat), "name": name_html(name) if name is not None else "🤖 AI"}
                      for seat, name in enumerate(replay.names)]}


def facts(replay: Replay, tr: Translator) -> list[str]:
    """「主 ♠ · 庄家 东 Bob · 抓分方 85 分」 and how the trump was set (the bids, or the flipped kitty), as the
    table message said them."""
    view = replay.view
    out: list[str] = []
    if view.dealer is not None:
        name = replay.names[view.dealer]
        dealer = f"{seat_label(tr, view.dealer)} {shown(name) if name is not None else '🤖 ' + tr('AI')}"
        trump = flag_phrase(tr) if view.flag else trump_phrase(tr, view.trump)
        out.append(tr("{trump} · dealer {dealer} · attackers {points} points", trump=trump, dealer=dealer,
                      points=view.attacker_points))
    if view.flipped:
        out.append(story.flip(tr, view.flipped, view.flipped_by, view.flip_decider, view.trump))
    elif view.bid_history:
        out.append(story.reveal(tr, view.bid_history, view.trump))
    return out
