"""The real bot, end to end: a person opens a table, fills it with the AI, and plays a hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from .botkit import bot_running, play_my_turn, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_one_person_and_three_ai_play_a_hand(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "▶️ Start" in str(table_message(group).labels) and
                              "(empty)" not in (table_message(group).text or ""), what="a full table")
        answer = await (await alice.press(table_message(group), "▶️ Start")).answer()
        assert not answer.show_alert, answer.text
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        for _ in range(800):  # on over a redeal (nobody bid: hand 1 dealt again)
            if table.match.hands_played >= 1:
                break
            if not await play_my_turn(server, alice, table):
                await server.wait_for(lambda: table.match.hands_played >= 1
                                      or _alice_to_move(table, alice.id), timeout=10, what="Alice's move")
        assert table.match.hands_played >= 1, "the hand did not finish"
        await server.wait_for(lambda: any("Hand 1 is over" in (m.text or "") for m in group.bot_messages()),
                              what="the result announcement")


def _alice_to_move(table, user_id: int) -> bool:  # type: ignore[no-untyped-def]
    seat = table.seat_of(user_id)
    hand = table.match.hand
    if hand.phase == "bidding":
        return seat not in hand.passed
    return hand.turn == seat
