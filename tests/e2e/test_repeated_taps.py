"""A second tap of a button that has just worked: quiet, and nothing done twice.

People double-tap, and tap again on a keyboard that the first tap is
redrawing.  Take a seat, Leave, Start and the escape's 「离座」 each find
their effect done at the second tap: the answer is a toast saying how things
stand (never an alert, as for an error), and the table changes once.
「+ AI」 is not one of them: each tap adds one AI seat.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.i18n import translator

from .botkit import bot_running, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import CallbackAnswer, Group, MessageView, Person
from .scenario import ANSWER_TIMEOUT, fill_with_ai, lobby_button, play_until, wait_seated

EN = translator("en")


async def _tap(person: Person, message: MessageView, op: str, arg: str = "") -> CallbackAnswer:
    """Tap the lobby button ``op`` of ``message`` (as the person saw it) and read the answer."""
    button = lobby_button(message, op, arg)
    assert button is not None, (op, arg)
    return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer(ANSWER_TIMEOUT)


async def _twice(person: Person, message: MessageView, op: str, arg: str = "") -> tuple[CallbackAnswer, CallbackAnswer]:
    """Tap the lobby button ``op`` of ``message`` (as the person saw it) twice in a row, then read both answers."""
    button = lobby_button(message, op, arg)
    assert button is not None, (op, arg)
    first = await person.press(message, lambda b: b.callback_data == button.callback_data)
    second = await person.press(message, lambda b: b.callback_data == button.callback_data)
    return await first.answer(ANSWER_TIMEOUT), await second.answer(ANSWER_TIMEOUT)


def _question(group: Group) -> MessageView | None:
    for message in reversed(group.bot_messages()):
        if any(":esc:" in (b.callback_data or "") for b in message.all_buttons()):
            return message
    return None


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_sit_leave_and_start_tapped_twice_answer_quietly_and_act_once(fake_telegram: FakeTelegram,
                                                                             tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    bo = server.person("Bo", "bo", language_code="en", started=True)
    group = server.group("Double taps", [ann, bo])
    async with bot_running(server, tmp_path / "t.db", ai_delay=3600.0) as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        table = tables(app).in_chat(group.id)
        assert table is not None
        lobby = await server.wait_for(lambda: lobby_button(table_message(group), "sit", "2") and table_message(group),
                                      what="the lobby")
        # Sit 南, twice: seated once; the second tap says so quietly.
        first, second = await _twice(bo, lobby, "sit", "2")
        assert not first.show_alert and first.text is None, first
        assert not second.show_alert and second.text == EN("You already have a seat at this table."), second
        assert table.seat_of(bo.id) == 2 and sum(s is not None for s in table.seats) == 2
        # Another seat's button on the keyboard as it was before the first tap: still no alert, no move.
        other = await _tap(bo, lobby, "sit", "1")
        assert not other.show_alert and table.seat_of(bo.id) == 2, other
        # Leave, twice: the second tap finds him not seated.
        first, second = await _twice(bo, lobby, "leave")
        assert not first.show_alert, first
        assert not second.show_alert and second.text == EN("You are not seated at this table."), second
        assert table.seat_of(bo.id) is None
        # + AI three times: three AI seats (that is what it is for).
        for _ in range(3):
            answer = await _tap(ann, lobby, "ai")
            assert not answer.show_alert, answer
        assert sum(1 for s in table.seats if s is not None and s.is_ai) == 3
        # Start, twice: one match; the second tap is told it has started, quietly.
        first, second = await _twice(ann, lobby, "start")
        assert not first.show_alert, first
        assert not second.show_alert and second.text == EN("The match has already started."), second
        rows = await tables(app).db.fetchall("SELECT match_id FROM matches WHERE table_id = ?", (table.id,))
        assert len(rows) == 1 and table.status == "playing"


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_escape_confirmed_twice_escapes_once_and_answers_quietly(fake_telegram: FakeTelegram,
                                                                           tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    group = server.group("Double escape", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await fill_with_ai(server, ann, group, 3)
        table = tables(app).in_chat(group.id)
        assert table is not None
        start = await server.wait_for(lambda: lobby_button(table_message(group), "start") and table_message(group),
                                      what="Start")
        await _tap(ann, start, "start")
        await server.wait_for(lambda: table.match is not None, what="the match")
        assert table.match is not None
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and len(h.tricks) >= 1 and h.turn == 0)
        hand = table.match.hand
        await ann.command(group, "leave")
        question = await server.wait_for(lambda: _question(group), what="the escape question")
        escape = next(b for b in question.all_buttons() if ":esc:" in (b.callback_data or ""))
        first = await ann.press(question, lambda b: b.callback_data == escape.callback_data)
        again = await ann.press(question, lambda b: b.callback_data == escape.callback_data)
        one, two = await first.answer(ANSWER_TIMEOUT), await again.answer(ANSWER_TIMEOUT)
        assert not one.show_alert, one
        assert not two.show_alert and two.text == EN("You left this seat. The AI plays it now."), two
        assert table.seat_of(ann.id) is None and hand.phase == "abandoned"

        def told() -> int:
            return sum("Ann left the table (escape)" in (m.text or "") for m in group.bot_messages())

        await server.wait_for(lambda: told() >= 1, what="the escape announced")
        await asyncio.sleep(0.5)
        assert told() == 1
