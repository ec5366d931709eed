"""Seats changing hands, through the fake Bot API, in both languages.

* /leave before any card is free and says so; after, the bot asks first,
  naming the cost; Stay changes nothing; Leave scores the escape, the AI
  takes the seat, the next hand is dealt, the group is told, and /stats
  counts the escape as the escaper's loss only.
* A timeout hands the seat to the AI: the person's hand message freezes, a
  private message offers 「我回来了」, which brings them back (the group is
  told); /hand does too.  With nobody present the table pauses after the
  hand, and resumes when someone comes back; /stop still closes it.
* /start after unblocking names the table and brings the person back.
* A selection lost in a restart is said so, and the hand is shown again.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import storage
from bot.i18n import translator
from bot.tables.turns import set_timer

from .botkit import bot_running, hand_message, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView, Person
from .leaks import cards_in
from .scenario import (
    App,
    announced,
    fill_with_ai,
    play_hand,
    play_until,
    press_back,
    press_hand,
    select_cards,
    sit_from_group,
    start_match,
    wait_seated,
)

CODES = {"zh": "zh-hans", "en": "en"}


async def _one_person_table(server: FakeTelegram, app: App, person: Person, group: Group) -> None:
    await person.command(group, "newgame")
    await wait_seated(server, app, group, person)
    await fill_with_ai(server, person, group, 3)


def _question(group: Group) -> MessageView | None:
    for message in reversed(group.bot_messages()):
        if any(":esc:" in (b.callback_data or "") for b in message.all_buttons()):
            return message
    return None


async def _time_out(app: App, group: Group) -> None:
    """The turn's deadline passes now (the bot's own timer fires)."""
    service = tables(app)
    table = service.in_chat(group.id)
    assert table is not None
    async with table.lock:
        table.deadline = time.time() - 1
        set_timer(service, table)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_leaving_is_free_before_any_card_and_asked_first_after(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                     lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code=CODES[lang], started=True)
    bo = server.person("Bo", None, language_code=CODES[lang], started=True)
    group = server.group("Leavers", [ann, bo])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await ann.command(group, "lang", lang)
        await sit_from_group(server, bo, group, 2)
        await wait_seated(server, app, group, bo)
        await fill_with_ai(server, ann, group, 2)
        table = await start_match(server, app, ann, group, seed_index=3)
        assert table.match is not None
        people = {0: ann, 2: bo}
        # Bo leaves in the bidding: free, no question, announced; the next hand is dealt.
        first = table.match.hand
        await bo.command(group, "leave")
        await server.wait_for(lambda: table.seat_of(bo.id) is None, what="Bo's free leave")
        assert table.match.hand is not first and first.phase == "abandoned"
        free = tr("{who} left the table before any card was played: it costs nothing, and the hand counts for "
                  "nobody.", who="Bo")
        await server.wait_for(lambda: announced(group, free), what="the free leave announced")
        assert _question(group) is None
        people = {0: ann}
        # Ann plays into the hand's tricks (to a turn of hers: the table waits, the cost holds still),
        # then asks to leave: a question naming the cost.
        await play_until(server, table, people,
                         lambda h: h.phase == "playing" and len(h.tricks) >= 1 and h.turn == 0)
        hand = table.match.hand
        await ann.command(group, "leave")
        question = await server.wait_for(lambda: _question(group), what="the escape question")
        assert "15" in (question.text or "") and "逃跑" in (question.text or "")
        # Stay: nothing changes, the question's buttons go.
        stay = await (await ann.press(question, lambda b: ":stay:" in (b.callback_data or ""))).answer()
        assert not stay.show_alert and table.seat_of(ann.id) == 0 and not hand.over
        await server.wait_for(lambda: _question(group) is None, what="the answered question without buttons")
        # Ask again and confirm.
        await ann.command(group, "leave")
        question = await server.wait_for(lambda: _question(group), what="the question again")
        answer = await (await ann.press(question, lambda b: ":esc:" in (b.callback_data or ""))).answer()
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: table.seat_of(ann.id) is None, what="Ann's escape")
        assert hand.phase == "abandoned" and table.match.hand is not hand
        cost = hand.result.scores[0]  # type: ignore[union-attr]
        assert cost <= -15
        await server.wait_for(lambda: announced(group, tr("{who} left the table (escape): {points} 积分.", who="Ann",
                                                          points=f"−{-cost}")), what="the escape announced")
        assert announced(group, tr("The AI takes the seat; the next hand is dealt."))
        # Her hand message froze without cards or buttons.
        await server.wait_for(lambda: any(tr("You left this seat. The AI plays it now.") in (m.text or "")
                                          and not m.buttons and not cards_in(m.text or "")
                                          for m in ann.bot_private_messages()), what="her frozen hand message")
        # The league: the escape is Ann's loss; Bo's free leave and the escaped hand count for nobody else.
        rows = await storage.player_standings(tables(app).db, group.id)
        assert [(r.user_id, r.hands, r.hands_won, r.jifen) for r in rows] == [(ann.id, 1, 0, cost)]
        # /stats says so too: Ann lost one hand; Bo has none.
        await ann.command(group, "stats")
        await server.wait_for(lambda: announced(group, tr("积分 {j} · hands {h} · won {w} · matches won {m} · escapes {e}",
                                                          j=f"−{-cost}", h=1, w=0, m=0, e=1)), what="Ann's /stats")
        await bo.command(group, "stats")
        await server.wait_for(lambda: announced(group, tr("You have not finished a hand in this group yet.")),
                              what="Bo's /stats")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_timeout_hands_the_seat_to_the_ai_until_i_am_back(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                  lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code=CODES[lang], started=True)
    group = server.group("Sleepy", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await _one_person_table(server, app, ann, group)
        await ann.command(group, "lang", lang)
        table = await start_match(server, app, ann, group, seed_index=3)
        assert table.match is not None
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0)
        await _time_out(app, group)
        await server.wait_for(lambda: table.seats[0].timed_out, what="the AI taking over")  # type: ignore[union-attr]
        await server.wait_for(lambda: any(tr("I'm back") in b.text for m in ann.bot_private_messages()
                                          for b in m.all_buttons()), what="the private notice with I'm back")
        # The hand message is frozen: the reason, no card, no button.
        await server.wait_for(lambda: any(tr("The AI plays for you until you are back.") in (m.text or "")
                                          and not m.buttons for m in ann.bot_private_messages()),
                              what="the frozen hand message")
        # Nobody is present: the hand ends with the AI, then the table pauses and says so.
        await server.wait_for(lambda: table.paused, timeout=30, what="the pause")
        paused_hand = table.match.hand
        assert not paused_hand.events, "no AI-only hand is played"
        await server.wait_for(lambda: announced(group, tr("The table is paused: nobody is left playing. It resumes "
                                                          "when someone comes back (/hand, or 「I'm back」) or takes "
                                                          "a seat (/join); /stop closes it.")),
                              what="the pause announced")
        # 「我回来了」: she is back, the group is told, the table resumes, her hand is shown again.
        answer = await press_back(server, ann)
        assert not answer.show_alert, answer.text
        assert not table.seats[0].timed_out and not table.paused  # type: ignore[union-attr]
        # Told after the press is answered (nobody's press waits for the group's flood limit), in order.
        await server.wait_for(lambda: announced(group, tr("The table resumes.")), what="the group told")
        texts = [m.text or "" for m in group.bot_messages()]
        back = [i for i, t in enumerate(texts) if tr("{who} is back at the table.", who="Ann") in t]
        resumes = [i for i, t in enumerate(texts) if tr("The table resumes.") in t]
        assert back and back[-1] < resumes[-1], texts
        await server.wait_for(lambda: (m := hand_message(ann)) is not None and bool(cards_in(m.text or "") or
                                                                                    m.buttons),
                              what="her hand shown again")
        # /hand brings her back too, after another timeout.
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0)
        await _time_out(app, group)
        await server.wait_for(lambda: table.seats[0].timed_out, what="the AI again")  # type: ignore[union-attr]
        await ann.command(None, "hand")
        await server.wait_for(lambda: not table.seats[0].timed_out, what="/hand bringing her back")  # type: ignore[union-attr]
        # /stop still closes a table.
        await ann.command(group, "stop")
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table closed")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_start_after_unblocking_names_the_table_and_brings_me_back(fake_telegram: FakeTelegram,
                                                                         tmp_path: Path, lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code=CODES[lang], started=True)
    bo = server.person("Bo", None, language_code=CODES[lang], started=True)
    group = server.group("Blockers & co", [ann, bo])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await sit_from_group(server, bo, group, 2)
        await wait_seated(server, app, group, bo)
        await fill_with_ai(server, ann, group, 2)
        table = await start_match(server, app, ann, group, seed_index=3)
        await play_until(server, table, {0: ann, 2: bo}, lambda h: h.phase == "playing")
        bo.block_bot()
        tables(app).refresh(table, urgent=[2])  # the bot tries to show Bo his hand: 403
        await server.wait_for(lambda: table.seats[2] is not None and table.seats[2].timed_out, timeout=30,  # type: ignore[union-attr]
                              what="the AI playing for Bo once a message to him bounces")
        bo.user.has_blocked_bot = False
        await bo.start_private()
        await server.wait_for(lambda: any(tr("You sit at the table in {title}; your cards are below.",
                                             title="Blockers & co") in (m.text or "")
                                          for m in bo.bot_private_messages()), what="where Bo sits")
        await server.wait_for(lambda: not table.seats[2].timed_out, what="Bo back")  # type: ignore[union-attr]
        below = tr("You sit at the table in {title}; your cards are below.", title="Blockers & co")

        def hand_below() -> bool:  # issue 55: what the line promises follows it, a hand message with its keys
            seen = bo.bot_private_messages()
            said = max(m.message_id for m in seen if below in (m.text or ""))
            return any(m.message_id > said and m.buttons for m in seen)

        await server.wait_for(hand_below, what="Bo's hand message below the line saying so")
        await server.wait_for(lambda: announced(group, translator("en")("{who} is back at the table.", who="Bo"),
                                                translator("zh")("{who} is back at the table.", who="Bo")),
                              what="the group told Bo is back")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_selection_lost_in_a_restart_is_said_and_the_hand_shown_again(fake_telegram: FakeTelegram,
                                                                               tmp_path: Path, lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code=CODES[lang], started=True)
    group = server.group("Restarts", [ann])
    db_path = tmp_path / "t.db"
    async with bot_running(server, db_path) as app:
        await _one_person_table(server, app, ann, group)
        table = await start_match(server, app, ann, group, seed_index=3)
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0 and not h.current)
        assert table.match is not None
        hand = table.match.hand
        card = hand.hands[0][0]
        await select_cards(server, ann, table, 0, (card,))
        await settled(server, app)
        before = hand_message(ann)
        assert before is not None
        events = len(hand.events)
    async with bot_running(server, db_path) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        # The old keyboard's Play button (the selection it showed is gone) is answered plainly.
        play = next(b for b in before.all_buttons() if ":play" in (b.callback_data or ""))
        answer = await (await ann.press(before, lambda b: b.callback_data == play.callback_data)).answer()
        assert answer.show_alert and answer.text == tr("I restarted and your selection was lost; your hand is shown "
                                                       "again: select the cards again."), answer
        assert len(table.match.hand.events) == events
        await server.wait_for(lambda: (m := hand_message(ann)) is not None
                              and not any(b.text.startswith("✓") for b in m.all_buttons()),
                              what="the hand shown again without the lost selection")
        # A second empty press is the ordinary answer; selecting again plays on.
        await press_hand(server, ann, table, 0, "sel", f"{card}0")
        await play_hand(server, table, {0: ann})


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_table_everyone_left_pauses_until_someone_takes_a_seat(fake_telegram: FakeTelegram,
                                                                       tmp_path: Path, lang: str) -> None:
    server, tr = fake_telegram, translator(lang)
    ann = server.person("Ann", None, language_code=CODES[lang], started=True)
    cy = server.person("Cy", None, language_code=CODES[lang], started=True)
    group = server.group("Empty chairs", [ann, cy])
    async with bot_running(server, tmp_path / "t.db") as app:
        await _one_person_table(server, app, ann, group)
        await ann.command(group, "lang", lang)
        table = await start_match(server, app, ann, group, seed_index=3)
        assert table.match is not None
        await ann.command(group, "leave")  # in the bidding: free; four AI seats are left
        await server.wait_for(lambda: table.paused, what="the pause")
        paused = table.match.hand
        assert not paused.events, "no AI-only hand is played"
        # Seats are fixed in a match, but a paused table takes someone new in an AI's seat.
        await cy.command(group, "join")
        assert await wait_seated(server, app, group, cy) == 0
        assert not table.paused
        await server.wait_for(lambda: announced(group, tr("The table resumes.")), what="the table resuming")
        await play_hand(server, table, {0: cy})
        assert paused.phase in ("finished", "redeal")
