"""A person at two tables (issue 55): their private messages of both tables are paced together, so quick
taps at both draw no 429; a result names its group.

Private edits count against Telegram's one-a-second limit here (the fake's ``edits_count_in_private``):
the strictest reading, as the run of issue 55 met it (41 × 429, all in one person's chat).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from bot.model import Table

from .botkit import bot_running, hand_message, settled, table_message, tables
from .call_reasons import Classifier
from .fake_telegram import FakeTelegram, FloodLimits, Group, Person
from .scenario import lobby_button, offered_move, press_lobby, take_offered_move

TAPS = 30
"""Taps at each table, each a fifth of a second after the last one at the other table."""


async def _open(server: FakeTelegram, app, person: Person, group: Group,  # type: ignore[no-untyped-def]
                settings: tuple[tuple[str, str], ...] = ()) -> Table:
    """/newgame, the ``settings`` chosen in the lobby's panel, three AI seats and Start: the table."""
    await person.command(group, "newgame")
    await server.wait_for(lambda: group.bot_messages(), what="the table message")
    if settings:
        for op, arg in (("set", ""), *settings, ("back", "")):
            await press_lobby(server, person, group, op, arg)
        await server.wait_for(lambda: lobby_button(table_message(group), "ai") is not None, what="the lobby again")
    for _ in range(3):
        await (await person.press(table_message(group), "+ AI")).answer()
    await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
    table = tables(app).in_chat(group.id)
    assert table is not None
    assert not (await (await person.press(table_message(group), "▶️ Start")).answer()).show_alert
    return table


def _hand_of(person: Person, table: Table):  # type: ignore[no-untyped-def]
    """The person's hand message of this table (its buttons carry the table's id)."""
    for message in reversed(person.bot_private_messages()):
        if any(b.callback_data and b.callback_data.startswith(f"H:{table.id}:") for b in message.all_buttons()):
            return message
    return None


@pytest.mark.fake_telegram(limits=FloodLimits(edits_count_in_private=True))
async def test_quick_taps_at_two_tables_draw_no_429_in_the_persons_chat(fake_telegram: FakeTelegram,
                                                                         tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    first, second = server.group("Monday", [alice]), server.group("Friday", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=600.0, tap_gap=1.0) as app:
        tables_ = [await _open(server, app, alice, group) for group in (first, second)]
        messages = [await server.wait_for(lambda t=t: _hand_of(alice, t), timeout=15, what="a hand message")
                    for t in tables_]
        assert all(m.text is not None and g.chat.title in m.text for m, g in zip(messages, (first, second)))
        assert hand_message(alice) is not None
        mark = server.calls.mark()
        for tap in range(TAPS):  # select and unselect one card, at both tables in turn, quicker than 1 a second
            for message in messages:
                card = next(b for b in message.all_buttons() if b.callback_data and ":sel:" in b.callback_data)
                await (await alice.press(message, lambda b, c=card.callback_data: b.callback_data == c)).answer()
                await asyncio.sleep(0.2)
        publisher = tables(app).publisher
        assert publisher is not None
        await server.wait_for(lambda: publisher.settled, timeout=60, what="every edit made")
        calls = server.calls.since(mark)
    edits = [r for r in calls if r.method == "editMessageText" and r.chat_id == alice.id]
    assert edits, "no edit was made: the test proves nothing"
    refused = [r for r in calls if r.status == 429]
    print(f"private edits {len(edits)}, 429s {len(refused)}")
    assert not refused, f"{len(refused)} × 429 in {len(edits)} edits"
    assert server.flood.rejections_by_chat[alice.id] == 0


HANDS = 2
"""Hands each table plays in the scripted run."""
TAP = 0.2
"""Seconds between two taps, alternating between the tables: five taps a second, quicker than Telegram's one
message a second in a private chat."""


async def _open_with(server: FakeTelegram, app, person: Person, group: Group, pace: str) -> Table:  # type: ignore[no-untyped-def]
    """A table of one person and three casual AI seats at ``pace``, its match started."""
    return await _open(server, app, person, group, (("strength", "casual"), ("pace", pace)))


async def _tap(person: Person, group: Group, table: Table) -> None:
    """One quick tap at this table: the move its hand message offers (Pass, Don't steal, eight cards then
    Bury, Hint then Play), 「Next hand」 between hands at the relaxed pace, else a card selected or unselected
    while the AI seats move."""
    if table.between_hands is not None:
        for message in reversed(group.bot_messages()):
            if any(":next" in (b.callback_data or "") for b in message.all_buttons()):
                await (await person.press(message, lambda b: ":next" in (b.callback_data or ""))).answer()
                return
        return
    message = _hand_of(person, table)
    if message is None:
        return
    if offered_move(message) is not None:
        await take_offered_move(person, message)
        return
    card = next((b.callback_data for b in message.all_buttons() if b.callback_data and ":sel:" in b.callback_data),
                None)
    if card is not None:
        await (await person.press(message, lambda b: b.callback_data == card)).answer()


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits(edits_count_in_private=True))
async def test_one_person_tapping_quickly_at_two_tables_for_whole_hands_draws_no_429_and_every_line_names_its_group(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Issue 55's scripted hour, compressed: one person at a real-time table and a relaxed one (a "your turn"
    message at every turn there), three AI seats at each, taps at both in turn five times a second (moves, and
    cards selected while the AI moves) through two hands at each.  Not one 429 in their private chat, and every
    private result and nudge names its group."""
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    monday, friday = server.group("Monday", [alice]), server.group("Friday", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=0.2, tap_gap=1.0, hand_pause=1.0) as app:
        mark = server.calls.mark()
        pairs = [(monday, await _open_with(server, app, alice, monday, "realtime")),
                 (friday, await _open_with(server, app, alice, friday, "relaxed"))]
        taps = 0

        def done(table: Table) -> bool:
            return table.match is None or table.status != "playing" or table.match.hand.setup.number > HANDS

        while not all(done(table) for _, table in pairs):
            for group, table in pairs:
                if not done(table):
                    await _tap(alice, group, table)
                    taps += 1
                    await asyncio.sleep(TAP)
            assert taps < 3000, "the hands did not end"
        await settled(server, app)
        calls = [r for r in server.calls.since(mark) if r.chat_id == alice.id]
    classifier = Classifier(server.state)
    told = [(classifier.reason(r), str(r.params.get("text", ""))) for r in calls if r.method == "sendMessage"]
    results = [text for why, text in told if why == "result"]
    nudges = [text for why, text in told if why == "nudge"]
    edits = [r for r in calls if r.method == "editMessageText"]
    refused = [r for r in calls if r.status == 429]
    print(f"{taps} taps, {len(edits)} private edits, {len(told)} private messages ({len(results)} results, "
          f"{len(nudges)} nudges), {len(refused)} × 429 {dict(Counter(r.method for r in refused))}")
    assert len(results) >= 2 * HANDS and nudges, told
    for text in results + nudges:
        assert "Monday" in text or "Friday" in text, text
    assert not refused, f"{len(refused)} × 429 in {len(calls)} calls"
    assert server.flood.rejections_by_chat[alice.id] == 0
