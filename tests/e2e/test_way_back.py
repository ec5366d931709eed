"""A way back: someone who left mid-match takes their seat back from the AI at the next hand, while the
others play on; the escape still costs what it cost, and the AI's hands count for nobody.

Ann and Dave play with two AI seats.  Dave leaves in the middle of a hand
(an escape, confirmed, that costs him 积分), regrets it and sends /join:
the group is told he is back from the next hand, the hand the AI plays for
him goes on, and when the next hand starts his seat and his cards are his
again.  (A /join before the hand has started seats him at once:
``tests/bot/tables/test_seats.py``.)  Until the next hand, /leave takes the
/join back: the AI keeps the seat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import storage
from bot.i18n import translator

from .botkit import bot_running, hand_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView
from .scenario import (
    announced,
    choose_setting,
    fill_with_ai,
    play_hand,
    play_until,
    press_lobby,
    start_match,
    wait_seated,
)


def _question(group: Group) -> MessageView | None:
    for message in reversed(group.bot_messages()):
        if any(":esc:" in (b.callback_data or "") for b in message.all_buttons()):
            return message
    return None


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_leaver_takes_the_seat_back_at_the_next_hand_while_the_others_play_on(
        fake_telegram: FakeTelegram, tmp_path: Path, lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code="zh-hans" if lang == "zh" else "en", started=True)
    dave = server.person("Dave", None, started=True)  # no language: the group's is used in the group
    group = server.group("Come back", [ann, dave])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await ann.command(group, "lang", lang)
        assert not (await press_lobby(server, dave, group, "sit", "2")).show_alert
        await wait_seated(server, app, group, dave)
        await fill_with_ai(server, ann, group, 2)
        await choose_setting(server, ann, group, "strength", "casual")
        table = await start_match(server, app, ann, group, seed_index=3)
        people = {0: ann, 2: dave}
        # /join while seated: she has a seat (not 「比赛已经开始，座位不能再变」, issue 55).
        await ann.command(group, "join")
        await server.wait_for(lambda: announced(group, tr("You already have a seat at this table.")),
                              what="the answer to a seated /join")
        assert not announced(group, tr("The match has started; seats are fixed now."))
        hand = await play_until(server, table, people, lambda h: h.phase == "playing" and len(h.tricks) >= 2
                                and h.turn == 2)
        # Dave leaves mid-hand: asked, confirmed, an escape that costs him.
        await dave.command(group, "leave")
        question = await server.wait_for(lambda: _question(group), what="the escape question")
        assert not (await (await dave.press(question, lambda b: ":esc:" in (b.callback_data or ""))).answer()).show_alert
        await server.wait_for(lambda: table.seat_of(dave.id) is None, what="Dave's escape")
        escaped = hand.result
        assert escaped is not None and escaped.escaped == 2 and escaped.scores[2] < 0
        await server.wait_for(lambda: announced(group, tr("{who} can take the seat back from the AI with /join.",
                                                          who="Dave")), what="the way back announced")
        # Mid-hand, for the hand after: /join answers in the group's language, the table is told.
        assert table.match is not None
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and bool(h.events))
        playing = table.match.hand
        await dave.command(group, "join")
        await server.wait_for(lambda: announced(group, tr("{who} takes their seat back from the AI when the next hand "
                                                          "starts.", who="Dave")), what="the table told")
        # Told once (issue 55): no second message saying the same thing as the answer to his /join.
        assert not announced(group, tr("Your seat is yours again when the next hand starts."))
        assert table.seat_of(dave.id) is None and 2 in table.coming_back
        # The others play on; when the next hand starts the seat and its cards are his.
        await play_hand(server, table, {0: ann})
        assert playing.over
        await server.wait_for(lambda: table.seat_of(dave.id) == 2, what="Dave seated at the next hand")
        await server.wait_for(lambda: announced(group, tr("{who} is back in their seat.", who="Dave")),
                              what="his return announced")
        await server.wait_for(lambda: (m := hand_message(dave)) is not None and bool(m.buttons), what="his new hand")
        # The league: his escapes cost him; the hands the AI played for his seat counted for nobody.
        rows = await storage.player_standings(tables(app).db, group.id)
        dave_rows = [r for r in rows if r.user_id == dave.id]
        assert dave_rows and dave_rows[0].hands_won == 0 and dave_rows[0].jifen < 0


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_leaver_waiting_for_the_next_hand_can_change_their_mind_with_leave(fake_telegram: FakeTelegram,
                                                                                   tmp_path: Path) -> None:
    """Dave left, asked for his seat back mid-hand (/join: from the next hand) and thinks better of it: /leave
    cancels that (it answered 'You are not seated', and he was seated again at the next hand)."""
    server, tr = fake_telegram, translator("en")
    ann = server.person("Ann", None, language_code="en", started=True)
    dave = server.person("Dave", None, language_code="en", started=True)
    group = server.group("Second thoughts", [ann, dave])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        assert not (await press_lobby(server, dave, group, "sit", "2")).show_alert
        await wait_seated(server, app, group, dave)
        await fill_with_ai(server, ann, group, 2)
        await choose_setting(server, ann, group, "strength", "casual")
        table = await start_match(server, app, ann, group, seed_index=3)
        await dave.command(group, "leave")  # before any card: free, no question
        await server.wait_for(lambda: table.seat_of(dave.id) is None, what="Dave's escape")
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and bool(h.events))
        await dave.command(group, "join")
        await server.wait_for(lambda: 2 in table.coming_back, what="Dave's seat back from the next hand")
        await dave.command(group, "leave")
        await server.wait_for(lambda: announced(group, tr("{who} stays away after all: the AI keeps the seat.",
                                                          who="Dave")), what="the table told")
        assert not announced(group, tr("You are not seated at a table in this chat."))
        assert table.seat_of(dave.id) is None and not table.coming_back and tables(app).left_seat(table, dave.id) == 2
        assert table.match_id is not None
        match = await storage.get_match(tables(app).db, table.match_id)
        assert match is not None and match.extra["coming_back"] == []
