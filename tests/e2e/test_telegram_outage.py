"""A Telegram outage longer than a turn leaves nobody locked out and nothing unsent.

The fake Telegram goes down as a real outage does, in turns: calls hang
unanswered, then every call gets 502 Bad Gateway, then connections are
refused.  Ann's turn ran out just as it began: the AI plays for her, and the
messages that say so cannot go out.  While it lasts ``/health`` says
Telegram is unreachable; the log has one line for the outage, not a
traceback per failed call.  Afterwards every message is brought up to date
(her frozen hand message, the away notice with 「I'm back」, the group's
table), and her first press, on any button she still has, brings her back
and shows her hand; she plays on.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from bot.tables.turns import set_timer

from .botkit import bot_running, hand_message, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .scenario import choose_setting, fill_with_ai, play_until, press_hand, start_match, wait_seated

FROZEN = "The AI plays for you until you are back."


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_after_an_outage_everyone_plays_from_their_own_message_and_the_away_person_is_back_on_a_press(
        fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Outage", [ann])
    async with bot_running(server, tmp_path / "t.db", ai_delay=0.3) as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await fill_with_ai(server, ann, group, 3)
        await choose_setting(server, ann, group, "strength", "casual")
        table = await start_match(server, app, ann, group, seed_index=3)
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0)
        await settled(server, app)
        before = hand_message(ann)  # her keyboard as she last saw it, before the outage
        assert before is not None and before.buttons
        health = app.bot_data["health"]
        with caplog.at_level(logging.INFO):
            # Telegram stops answering, and her deadline passes at that moment.
            await server.set_outage("hang")
            async with table.lock:
                table.deadline = time.time() - 1
                set_timer(tables(app), table)
            await server.wait_for(lambda: table.seats[0].timed_out, what="the AI taking over")  # type: ignore[union-attr]
            await server.wait_for(lambda: "telegram" in tables(app).faults.open, timeout=20,
                                  what="the outage noticed")
            fault = tables(app).faults.open["telegram"]
            for outage in ("502", "refuse"):  # each way of failing met more than once, not for some seconds
                await server.set_outage(outage)
                failures = fault.failures
                await server.wait_for(lambda seen=failures: fault.failures >= seen + 2, timeout=20,  # type: ignore[misc]
                                      what=f"requests failing ({outage})")
            status = health.status()
            assert status["ok"] is False and "telegram" in status["faults"], status
            await server.set_outage(None)
            await server.wait_for(lambda: "telegram" not in tables(app).faults.open, timeout=20,
                                  what="Telegram answering again")
        # What failed during the outage is sent now: her frozen message, the notice with I'm back.
        await server.wait_for(lambda: any(FROZEN in (m.text or "") and not m.buttons
                                          for m in ann.bot_private_messages()), timeout=20,
                              what="her hand message frozen after the outage")
        await server.wait_for(lambda: any("I'm back" in b.text for m in ann.bot_private_messages()
                                          for b in m.all_buttons()), timeout=20, what="the away notice")
        assert table.seats[0].timed_out  # type: ignore[union-attr]
        # Her first press, on the keyboard she had before the outage, brings her back and shows her hand.
        card = next(b for b in before.all_buttons() if ":sel:" in (b.callback_data or ""))
        answer = await (await ann.press(before, lambda b: b.callback_data == card.callback_data)).answer()
        assert answer.show_alert and "You are back" in answer.text, answer.text
        assert not table.seats[0].timed_out  # type: ignore[union-attr]
        await server.wait_for(lambda: (m := hand_message(ann)) is not None and FROZEN not in (m.text or "")
                              and any(":sel:" in (b.callback_data or "") for b in m.all_buttons()),
                              what="her hand shown again")
        # She plays on from her own message.
        assert table.match is not None
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0)
        hand = table.match.hand
        events = len(hand.events)
        assert not (await press_hand(server, ann, table, 0, "go")).show_alert
        await server.wait_for(lambda: len(hand.events) > events or table.match.hand is not hand,  # type: ignore[union-attr]
                              what="her move")
    outage = [r.getMessage() for r in caplog.records if "Telegram is unreachable" in r.getMessage()]
    assert len(outage) == 2 and outage[0].startswith("fault: ") and outage[1].startswith("fault over: "), outage
    tracebacks = [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
    assert not tracebacks, [r.getMessage() for r in tracebacks]
