"""Presses at the edges: one action per press, a seat read under the lock, the last press of a match.

* Twenty presses of the same 不亮 (pass) store one pass; the others are told
  it is done.  A round-1 pass pressed again after a new bid (round 2) is out
  of date and counts for nothing.
* 🃏 "my hand" pressed right after /leave, while the table is busy, shows no
  card of the seat just left; a press that cannot get the table in time is
  answered "try again" rather than left past Telegram's window.
* The press that ends a match is answered even when /newgame opens the next
  table while the group's last edit is still in flight.
* 🃏 pressed on a table message still showing the last hand, once the pause
  between hands has begun, shows no card of the next deal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import storage
from bot.i18n import translator
from bot.model import Table
from bot.tables import perform

from .botkit import bot_running, current_hand_message, table_message, tables
from .endings import find_ending, store_table
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import MessageView
from .plans import find_plan
from .scenario import (
    ANSWER_TIMEOUT,
    announced,
    fill_with_ai,
    hand_button,
    make_move,
    sit_from_group,
    start_match,
    up_to_date_hand,
    wait_seated,
)

EN, ZH = translator("en"), translator("zh")

NO_AI_MOVES = 3600.0
"""An AI delay longer than any test: the AI seats never move, people decide everything."""


def _button(op: str) -> Callable[[Any], bool]:
    return lambda b: (b.callback_data or "").split(":")[3:4] == [op]


async def _passes(db: storage.Database, table: Table, seat: int) -> int:
    """Passes of this seat stored in the current hand's log."""
    assert table.hand_id is not None
    events = await storage.load_events(db, table.hand_id)
    return sum(1 for e in events if e.kind == "pass" and e.payload.get("seat") == seat)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_pass_is_stored_once_and_only_for_its_round(fake_telegram: FakeTelegram, tmp_path: Path,
                                                              lang: str) -> None:
    server = fake_telegram
    code = "zh-hans" if lang == "zh" else "en"
    alice = server.person("Alice", "alice", language_code=code, started=True)
    bob = server.person("Bob", "bob", language_code=code, started=True)
    group = server.group("Twenty taps", [alice, bob])
    tr = translator(lang)
    plan = find_plan("yancheng", bidders=1, steal=False)
    bidder = plan.bids[0].seat
    async with bot_running(server, tmp_path / "t.db", ai_delay=NO_AI_MOVES) as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        bob_seat = bidder if bidder != 0 else 1
        await sit_from_group(server, bob, group, bob_seat)
        await wait_seated(server, app, group, bob)
        await fill_with_ai(server, alice, group, 2)
        table = await start_match(server, app, alice, group, plan.seed_index)
        db = tables(app).db
        assert table.match is not None
        hand = table.match.hand
        people = {0: alice, bob_seat: bob}
        passer_seat = 0 if bidder != 0 else bob_seat
        passer, bid_person = people[passer_seat], people[bidder]

        # Twenty presses of the same Pass, at once: one pass is stored, the others are "already done".
        round_one = await up_to_date_hand(server, passer, table, passer_seat)
        presses = await asyncio.gather(*(passer.press(round_one, _button("pass")) for _ in range(20)))
        answers = [await press.answer(ANSWER_TIMEOUT) for press in presses]
        assert [a.show_alert for a in answers].count(False) == 1, answers
        assert {a.text for a in answers if a.show_alert} == {tr("You have already done that.")}
        assert await _passes(db, table, passer_seat) == 1
        assert passer_seat in hand.passed

        # A bid opens round 2: the round-1 Pass pressed again is out of date and stores nothing.
        await make_move(server, bid_person, table, bidder, plan.bids[0], "bid")
        assert passer_seat not in hand.passed
        replay = await (await passer.press(round_one, _button("pass"))).answer(ANSWER_TIMEOUT)
        assert replay.show_alert and replay.text == tr("That button is out of date; your hand is shown again.")
        assert await _passes(db, table, passer_seat) == 1
        assert passer_seat not in hand.passed
        # The round-2 keyboard takes a pass again.
        round_two = await up_to_date_hand(server, passer, table, passer_seat)
        answer = await (await passer.press(round_two, _button("pass"))).answer(ANSWER_TIMEOUT)
        assert not answer.show_alert, answer
        assert await _passes(db, table, passer_seat) == 2 and passer_seat in hand.passed


async def _while_held(server: FakeTelegram, table: Table, *steps: Callable[[], Awaitable[object]]) -> list[object]:
    """Hold the table's lock (as a slow announcement would) while each step queues behind it; then let go."""
    def waiting() -> int:
        return len(getattr(table.lock, "_waiters", None) or ())

    await table.lock.acquire()
    results = []
    try:
        for queued, step in enumerate(steps, start=1):
            results.append(await step())
            await server.wait_for(lambda: waiting() >= queued, what="the update waiting for the table")
    finally:
        table.lock.release()
    return results


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_my_hand_right_after_leave_shows_no_card_of_the_seat_left(fake_telegram: FakeTelegram,
                                                                        tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Quick exit", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=NO_AI_MOVES) as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group, 1)
        assert table.match is not None
        peek = await server.wait_for(lambda: hand_button(table_message(group), "peek") and table_message(group),
                                     what="the table message with 🃏")
        first = table.match.hand

        # A press that cannot get the table in time is answered at once: try again.
        monkeypatch.setattr(perform, "PRESS_WAIT", 0.2)
        await table.lock.acquire()
        try:
            busy = await (await alice.press(peek, _button("peek"))).answer(ANSWER_TIMEOUT)
        finally:
            table.lock.release()
        assert busy.show_alert and busy.text == EN("The table is busy; please try again in a moment.")
        monkeypatch.setattr(perform, "PRESS_WAIT", 8.0)

        # /leave, then 🃏, both waiting behind a busy table: the seat is the AI's by the time 🃏 is answered.
        async def leave() -> MessageView:
            return await alice.command(group, "leave")

        async def press_peek() -> Any:
            return await alice.press(peek, _button("peek"))

        _sent, press = await _while_held(server, table, leave, press_peek)
        answer = await press.answer(ANSWER_TIMEOUT)  # type: ignore[attr-defined]
        assert table.match.hand is not first and table.seat_of(alice.id) is None  # escaped; the AI holds seat 0
        assert answer.show_alert and answer.text == EN("You are not playing at this table."), answer
        assert EN("Your hand") not in (answer.text or "")  # no card of the AI's new hand in seat 0


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_press_that_ends_the_match_is_answered_when_newgame_follows(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Last card", [alice])
    ending = find_ending("nantong", match_point=True)
    db_path = tmp_path / "t.db"
    await store_table(ending, db_path, group.id, "Last card", alice.id, "Alice", monkeypatch)

    # The group's edits wait at the door once armed: the last edit of the match stays in flight.
    door = asyncio.Event()
    armed = False
    knocked = asyncio.Event()
    edit = server.api.handlers["editmessagetext"]

    async def held_edit(params: Any) -> Any:
        if armed and params.get_int("chat_id") == group.id:
            knocked.set()
            await door.wait()
        return await edit(params)
    monkeypatch.setitem(server.api.handlers, "editmessagetext", held_edit)

    async with bot_running(server, db_path, ai_delay=NO_AI_MOVES) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        card = ending.last.cards[0]
        hand_message = await up_to_date_hand(server, alice, table, 0)
        answer = await (await alice.press(hand_message, lambda b: (b.callback_data or "").endswith(f":sel:{card}0"))
                        ).answer(ANSWER_TIMEOUT)
        assert not answer.show_alert, answer
        ready = await server.wait_for(lambda: (m := current_hand_message(alice, table, 0)) is not None
                                      and any((b.callback_data or "").endswith(":play") and "✓" in str(m.labels)
                                              for b in m.all_buttons()) and m, what="Play, the card selected")
        armed = True
        last_press = await alice.press(ready, _button("play"))
        await asyncio.wait_for(knocked.wait(), 10)
        await alice.command(group, "newgame")
        await server.wait_for(lambda: (t := tables(app).in_chat(group.id)) is not None and t is not table,
                              what="the next table")
        door.set()
        answer = await last_press.answer(ANSWER_TIMEOUT)
        assert not answer.show_alert, answer
        assert table.match.over and table.status == "finished"
        await server.wait_for(lambda: announced(group, "win the match!"), what="the end of the match")
        outbox = tables(app).outbox
        assert outbox is not None
        await outbox.drain()
    assert sum("win the match!" in (m.text or "") for m in group.bot_messages()) == 1
    assert sum("Hand 1 is over" in (m.text or "") for m in group.bot_messages()) == 1



@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_pass_on_the_keyboard_shown_after_passing_stores_nothing(fake_telegram: FakeTelegram,
                                                                       tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Twice", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=NO_AI_MOVES) as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group, 1)
        db = tables(app).db
        first = await up_to_date_hand(server, alice, table, 0)
        assert not (await (await alice.press(first, _button("pass"))).answer(ANSWER_TIMEOUT)).show_alert
        after = await up_to_date_hand(server, alice, table, 0)  # the keyboard of a seat that passed
        again = await (await alice.press(after, _button("pass"))).answer(ANSWER_TIMEOUT)
        assert again.show_alert and again.text == EN("You have already done that.")
        assert await _passes(db, table, 0) == 1


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_my_hand_in_the_pause_between_hands_shows_no_card_of_the_next_deal(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group's table message drops 🃏 when the pause begins, but its edit may wait (the group's budget,
    the result going out first): a 🃏 pressed meanwhile is told the next hand has not started, and shows
    none of its cards, which nothing else shows before the pause ends."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Peek early", [alice])
    db_path = tmp_path / "t.db"
    ending = find_ending("nantong")
    await store_table(ending, db_path, group.id, "Peek early", alice.id, "Alice", monkeypatch)
    async with bot_running(server, db_path, ai_delay=NO_AI_MOVES, hand_pause=3600.0) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        peek = await server.wait_for(lambda: group.bot_messages() and hand_button(table_message(group), "peek")
                                     and table_message(group), what="the table message with 🃏")
        hand_message = await up_to_date_hand(server, alice, table, 0)
        answer = await (await alice.press(hand_message, _button("go"))).answer(ANSWER_TIMEOUT)
        assert not answer.show_alert, answer  # her last card ends hand 1: hand 2 is dealt, the pause begins
        await server.wait_for(lambda: table.between_hands is not None, what="the pause between hands")
        dealt = table.match.hand
        assert dealt.setup.number == 2 and not dealt.events
        answer = await (await alice.press(peek, _button("peek"))).answer(ANSWER_TIMEOUT)
        assert answer.show_alert and answer.text == EN("The next hand has not started yet."), answer
        assert EN("Your hand") not in (answer.text or "")
