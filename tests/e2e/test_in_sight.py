"""The table in sight (issue 55): the bidding's clock where people bid, and a late bid told "bidding closed".

The paces are shortened for the test (the real bidding window is 45 s, its last stretch the last 20 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model import Pace
from bot.tables import turns as service

from .botkit import bot_running, hand_message, play_my_turn, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .scenario import announced, choose_setting

MOVE_WAIT = 60.0
"""Seconds a wait for Alice's move may take: the three strong AI seats' searches share busy cores."""


@pytest.fixture(autouse=True)
def quick_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    # A short bidding window for the clock's test; a turn long enough that Alice, playing through her keyboard
    # on busy cores, never runs out of time (away, with three AI seats the table would pause for good).
    monkeypatch.setitem(service.PACES, "realtime", Pace(turn=120, bidding=4, reminder=2))


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_bidding_clock_shows_and_a_late_bid_is_told_bidding_closed(fake_telegram: FakeTelegram,
                                                                             tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=30.0) as app:  # the AI seats never bid first
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
        table = tables(app).in_chat(group.id)
        assert table is not None
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        # The window's clock: in the bidder's hand message and in the group, read at its start …
        opened = await server.wait_for(lambda: (m := hand_message(alice)) is not None
                                       and "⏳ Bidding closes in 4 s." in (m.text or "") and m or None,
                                       timeout=10, what="the clock in Alice's hand message")
        await server.wait_for(lambda: "⏳ Bidding closes in 4 s." in (table_message(group).text or ""),
                              timeout=10, what="the clock in the group")
        # … and at its last stretch (one reading, one edit; not one a second).
        await server.wait_for(lambda: "⏳ Bidding closes in 2 s." in ((hand_message(alice) or opened).text or ""),
                              timeout=10, what="the last stretch's reading")
        assert table.match is not None
        deal = table.match.deals
        await server.wait_for(lambda: table.match is not None and (table.match.deals != deal
                                                                   or table.match.hand.phase != "bidding"),
                              timeout=15, what="the bidding to close (the kitty flipped, or a new deal)")
        # Alice presses Pass on the keyboard she saw while the window was open: closed, not out of date.
        answer = await (await alice.press(opened, "Pass")).answer()
        assert answer.text == "Bidding is closed; your hand is shown again.", answer.text
        assert "out of date" not in (answer.text or "")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_table_message_is_pinned_at_every_hands_start_for_one_call_a_match(fake_telegram: FakeTelegram,
                                                                                      tmp_path: Path) -> None:
    """However many messages come under it (results, reveals, reminders), the group sees the table message
    pinned at the top of the chat at each hand's start: one pin a match (not a call a hand), and unpinned
    when the match is stopped."""
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
        table = tables(app).in_chat(group.id)
        assert table is not None
        mark = server.calls.mark()
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        assert table.match is not None
        hands = 3
        for number in range(1, hands + 1):
            await server.wait_for(lambda n=number: table.match is not None and table.match.deals >= n
                                  and table.between_hands is None, timeout=30, what=f"hand {number}'s start")
            await server.wait_for(lambda: server.state.pinned.get(group.id, [])[-1:] == [table.message_id],
                                  timeout=10, what=f"the table message pinned at hand {number}")
            deal = table.match.deals
            for _ in range(400):
                if table.match.deals != deal:
                    break
                if not await play_my_turn(server, alice, table):
                    await server.wait_for(lambda d=deal: table.match.deals != d or _alice_to_move(table, alice.id),
                                          timeout=MOVE_WAIT, what="Alice's move")
        pins = [r for r in server.calls.since(mark) if r.method == "pinChatMessage"]
        assert len(pins) == 1, pins
        await alice.command(group, "stop")
        await server.wait_for(lambda: not server.state.pinned.get(group.id), timeout=10, what="the unpin")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_where_the_bot_may_not_pin_a_table_message_too_old_to_delete_loses_its_buttons(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Hand 1 of a relaxed table took two days: Telegram lets a bot delete its message for 48 hours only, so
    when 「Next hand」 starts hand 2 the old table message cannot go.  It is shrunk instead (before, it kept
    its 「Next hand」 button and "the next hand starts when someone presses" for good): no buttons, no stale
    hand, a line pointing to the table below; the group holds one table message with buttons."""
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    group.chat.pins_allowed = False
    async with bot_running(server, tmp_path / "t.db", hand_pause=1.0) as app:
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
        await choose_setting(server, alice, group, "pace", "relaxed")
        table = tables(app).in_chat(group.id)
        assert table is not None and table.settings.pace == "relaxed"
        await server.wait_for(lambda: any(b.text == "▶️ Start" for b in table_message(group).all_buttons()),
                              what="the lobby again")
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        assert table.match is not None
        first = table.message_id
        assert first is not None
        server.state.messages[group.id][first].date -= 49 * 3600  # sent two days ago
        for _ in range(800):  # hand 1 ends: played, or dealt again when nobody bid (the deal is not seeded)
            if table.between_hands is not None:
                break
            if not await play_my_turn(server, alice, table):
                await server.wait_for(lambda: table.between_hands is not None or _alice_to_move(table, alice.id),
                                      timeout=MOVE_WAIT, what="Alice's move")
        await server.wait_for(lambda: any(b.text == "▶️ Next hand" for b in table_message(group).all_buttons()),
                              what="the Next hand button")
        assert not (await (await alice.press(table_message(group), "▶️ Next hand")).answer()).show_alert
        await server.wait_for(lambda: table.between_hands is None and table.message_id not in (None, first)
                              and group.messages()[-1].message_id == table.message_id, timeout=30,
                              what="hand 2's table message, the group's latest")
        await server.wait_for(lambda: server.calls.calls("deleteMessage", chat_id=group.id), what="the delete")
        old = await server.wait_for(lambda: (m := next(m for m in group.bot_messages() if m.message_id == first))
                                    and not m.all_buttons() and m or None, timeout=10, what="the old one shrunk")
        assert "below" in (old.text or "") and "Alice" not in (old.text or ""), old.text
        copies = [m for m in group.bot_messages() if any(b.callback_data and ":peek" in b.callback_data
                                                         for b in m.all_buttons())]
        assert [m.message_id for m in copies] == [table.message_id]


def _alice_to_move(table, user_id: int) -> bool:  # type: ignore[no-untyped-def]
    seat = table.seat_of(user_id)
    hand = table.match.hand
    if hand.phase == "bidding":
        return seat not in hand.passed
    return hand.turn == seat


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_where_the_bot_may_not_pin_the_table_message_is_the_groups_latest_at_every_hands_start(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The group refuses the pin (the bot is no admin with the right): at each new hand's start the table
    message is sent anew, below the last hand's result and every other message, and the old one deleted; the
    group holds one table message, the latest at every hand's start."""
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    group.chat.pins_allowed = False
    async with bot_running(server, tmp_path / "t.db", hand_pause=1.0) as app:  # a pause as in production
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
        table = tables(app).in_chat(group.id)
        assert table is not None
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        assert table.match is not None
        hands, seen = 4, []
        for number in range(1, hands + 1):
            # The hand's start: dealt, the last hand's result announced and the pause over (the match deals the
            # next hand the moment a hand ends, before the bot has stored the result and begun the pause).
            await server.wait_for(lambda n=number: table.match is not None and table.match.hand.setup.number >= n
                                  and (n == 1 or announced(group, f"Hand {n - 1} is over"))
                                  and table.between_hands is None, timeout=30, what=f"hand {number}'s start")
            # Hand 1's table message is the lobby's, under which nothing came; every later one is sent anew.
            latest = await server.wait_for(
                lambda n=number: (m := group.messages()[-1]).message_id == table.message_id
                and f"hand {n}" in (m.text or "") and m or None, timeout=30,
                what=f"the table message the group's latest at hand {number}'s start")
            seen.append(latest.message_id)
            copies = [m for m in group.bot_messages() if any(b.callback_data and ":peek" in b.callback_data
                                                             for b in m.all_buttons())]
            assert [m.message_id for m in copies] == [latest.message_id], "one table message in the group"
            for _ in range(800):  # on over a redeal (nobody bid: the same hand's number, dealt again)
                if table.match.hands_played >= number:
                    break
                if not await play_my_turn(server, alice, table):
                    await server.wait_for(lambda n=number: table.match.hands_played >= n
                                          or _alice_to_move(table, alice.id), timeout=30, what="Alice's move")
        assert len(set(seen)) == hands, seen  # a new message at every hand's start after the first
        assert not server.state.pinned.get(group.id)
        assert all(server.state.messages[group.id][old].deleted for old in seen[:-1])
