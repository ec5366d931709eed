"""Every message kind renders valid Telegram HTML whatever the names and the group's title hold.

Names and titles go through one escaping path (``bot.labels.name_html``):
``<b>``, ``&``, ``<3``, 200 characters, RTL marks and emoji come out as
text, and Telegram's parser (the fake's, the same rules) accepts the message.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import storage
from bot.i18n import translator
from bot.league.standings import champions_text, rank, table_text
from bot.model import Table
from bot.render_group import render_lobby, render_match_over, render_result, render_settings, render_table
from bot.render_private import render_hand
from bot.tables import hand_messages, seats
from bot.untrusted import BIDI_CONTROLS, shown

from . import builders as T
from .checks import assert_telegram_html

HOSTILE = ["<b>", "Tom & Jerry <3", "\u202eevil\u202c 🃏" + "長" * 196, "&amp;<i>x</i>🙂\u200f"]


def _hostile(table: Table) -> Table:
    for seat, info in enumerate(table.seats):
        if info is not None and not info.is_ai:
            info.name = HOSTILE[seat]
    table.title = HOSTILE[1]
    table.pending = {555: (None, HOSTILE[3])}
    return table


def _kinds(lang: str) -> dict[str, Callable[[], str]]:
    tr = translator(lang)
    playing = _hostile(T.playing())
    finished, record = T.finished()
    escaped, escape_record = T.escaped()
    over, over_record = T.match_over()
    lobby = _hostile(T.make_table())
    lobby.status, lobby.match = "open", None
    rows = [storage.LeagueLine(100 + i, name, 3 + i % 2, 1, 2, 0, 0, 1, 1, 1, 0.0) for i, name in enumerate(HOSTILE)]
    pairs = [storage.PartnershipStanding((100, 102), (HOSTILE[0], HOSTILE[2]), 2, 1, 4, 1, 1, 2, 1, 0, 2)]
    return {
        "lobby": lambda: render_lobby(tr, lobby, "https://t.me/b?start=t1__0123456789ab")[0],
        "settings": lambda: render_settings(tr, lobby)[0],
        "table": lambda: render_table(tr, playing)[0],
        "hand": lambda: render_hand(tr, playing, 0, HOSTILE[1])[0],
        "result": lambda: render_result(tr, _hostile(finished), record),
        "escape": lambda: render_result(tr, _hostile(escaped), escape_record, HOSTILE[2]),
        "match over": lambda: render_match_over(tr, _hostile(over)),
        "frozen (left)": lambda: hand_messages.frozen_text(tr, playing, HOSTILE[1], "left"),
        "frozen (away)": lambda: hand_messages.frozen_text(tr, playing, HOSTILE[3], "away"),
        "escape question": lambda: seats.escape_question(tr, _hostile(T.playing()), 0, 15)[0],
        "leaderboard": lambda: table_text(tr, "<b>League</b>", rank(rows, pairs, 4)),
        "champions": lambda: champions_text(tr, rank(rows, pairs, 3), finished=True),
    }


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("kind", list(_kinds("en")))
def test_every_message_kind_survives_hostile_names(lang: str, kind: str) -> None:
    text = _kinds(lang)[kind]()
    plain = assert_telegram_html(text)
    assert len(text) <= 4096
    hostile_shown = [name for name in HOSTILE if shown(name)[:20] in plain]
    assert hostile_shown or kind in ("settings", "escape question", "result"), (kind, plain)
    assert not BIDI_CONTROLS & set(plain), (kind, plain)  # a U+202E in a name never turns a message around


async def test_a_season_name_with_bidi_controls_is_stored_and_told_without_them(db: storage.Database) -> None:
    """An admin's /season new ‮name: the reply said 「‮name」 starts now… with the U+202E, which turned the rest
    of the line around (the reply escaped the name for HTML but kept its controls); the name is cleaned before
    it is stored, so the reply, /season and the season's end all show it as text, and a name of nothing but
    controls is refused like an empty one."""
    from bot.league.admin import change_season
    from bot.league.board import League

    await storage.upsert_chat(db, -1001, "牌友群")
    await storage.upsert_user(db, 1, "Ann")
    league = League(db, bot_username="b", public_url=None, clock=lambda: 1_800_000_000.0)
    tr = translator("en")
    reply = await change_season(league, tr, -1001, 1, "new", "\u202e春季赛\u202c &<b>")
    assert reply is not None and not BIDI_CONTROLS & set(assert_telegram_html(reply)), reply
    assert "春季赛 &amp;&lt;b&gt;" in reply
    assert (await storage.current_season(db, -1001, 1_800_000_001.0)).name == "春季赛 &<b>"
    refused = await change_season(league, tr, -1001, 1, "new", "\u202e\u202c")
    assert refused is not None and refused.startswith("A season's name has 1 to 32 characters"), refused
