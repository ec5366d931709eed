"""Turn deadlines: a reminder that mentions the player, then the table's timeout policy.

The paces are shortened for the test (the real ones are 60 s, an hour and a day).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.model import Pace
from bot.ratelimit import ChatRateLimiter
from bot.tables import turns as service

from .botkit import bot_running, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits


@pytest.fixture(autouse=True)
def quick_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(service.PACES, "realtime", Pace(turn=1.5, bidding=1.5, reminder=1.0))


async def _table_with_ai(server: FakeTelegram, tmp_path: Path, app, alice, group):  # type: ignore[no-untyped-def]
    await alice.command(group, "newgame")
    await server.wait_for(lambda: group.bot_messages(), what="the table message")
    for _ in range(3):
        await (await alice.press(table_message(group), "+ AI")).answer()
    await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
    return tables(app).in_chat(group.id)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_silent_player_is_reminded_then_the_ai_plays_for_them(fake_telegram: FakeTelegram,
                                                                     tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await _table_with_ai(server, tmp_path, app, alice, group)
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        # Alice never moves. The bidding window closes by its deadline, and each of her turns
        # brings a reminder that mentions her, then the AI moves for her.
        await server.wait_for(lambda: any(m.reply_to_message_id is None and "waiting for your move" in (m.text or "")
                                          for m in group.bot_messages()), timeout=10, what="a reminder")
        assert any("waiting for your move" in (m.text or "") for m in alice.notifications()), \
            "the reminder must notify Alice (a mention in a new message)"
        await server.wait_for(lambda: any("ran out of time" in (m.text or "") for m in group.bot_messages()),
                              timeout=15, what="the timeout announcement")
        seat = table.seat_of(alice.id)
        first = table.match.hand
        await server.wait_for(lambda: table.match.hand is not first or table.seats[seat].timed_out,
                              timeout=15, what="the AI to take over")
        # The hand goes on without her.
        moves = len(first.events)
        await server.wait_for(lambda: table.match.hand is not first or len(first.events) > moves + 4,
                              timeout=15, what="the hand to go on")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_escape_policy_scores_an_escape_and_seats_the_ai(fake_telegram: FakeTelegram,
                                                                    tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await _table_with_ai(server, tmp_path, app, alice, group)
        async with table.lock:
            await tables(app).change_setting(table, "timeout", "escape")
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        await server.wait_for(lambda: any("escape" in (m.text or "") for m in group.bot_messages()),
                              timeout=30, what="the escape announcement")
        await server.wait_for(lambda: table.seat_of(alice.id) is None, timeout=10,
                              what="the AI to take the seat of the player who escaped")
        result = await server.wait_for(lambda: next((m for m in group.bot_messages() if "left the table" in
                                                     (m.text or "")), None), timeout=10, what="the escape result")
        # Her window closed before any card was played: by the 15 rule the escape costs nothing (RULES A26),
        # and the hand counts for nobody; the stored result says the same as the group was told.
        assert "Alice left the table before any card was played: it costs nothing" in (result.text or "")
        rows = await tables(app).db.fetchall(
            "SELECT seat, user_id, score, outcome FROM hand_result_seats ORDER BY hand_id, seat")
        assert [(r["seat"], r["user_id"], r["score"], r["outcome"]) for r in rows] == \
            [(0, alice.id, 0, None), (1, None, 0, None), (2, None, 0, None), (3, None, 0, None)]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_clock_waits_until_the_player_has_been_shown_their_cards(fake_telegram: FakeTelegram,
                                                                         tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """On a bot behind Telegram's limits the deal's messages may wait: a window that closed before a player
    saw their cards would deal again and again (at 300 tables, hundreds of hands were dealt, and closed,
    unseen).  The deadline passes only once the player's hand message is on Telegram."""
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await _table_with_ai(server, tmp_path, app, alice, group)
        limiter = app.bot.rate_limiter
        assert isinstance(limiter, ChatRateLimiter)
        # When the timer times the window out, the calls Telegram has answered so far (by sequence number).
        timed_out: list[int] = []
        time_out = service.time_out

        async def recorded_time_out(house, table):  # type: ignore[no-untyped-def]
            timed_out.append(server.calls.mark())
            await time_out(house, table)
        monkeypatch.setattr(service, "time_out", recorded_time_out)
        held = 4.0  # as if Telegram had answered her chat "retry after 4 s": her cards wait past the deadline
        limiter.chat(alice.id).blocked_until = time.monotonic() + held
        start = server.calls.mark()
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        first = table.match.hand
        await server.wait_for(lambda: table.match.hand is not first or first.phase != "bidding",
                              timeout=30, what="the window to close after she saw her cards")
        cards = [r for r in server.calls.since(start) if r.method == "sendMessage" and r.chat_id == alice.id
                 and r.ok and "H:" in str(r.params.get("reply_markup"))]
        # The window closed by its timer, and only once her cards were on Telegram.
        assert timed_out, "the window closed, but not by its timer"
        assert cards and cards[0].seq <= timed_out[0], "the bidding window timed out before she saw her cards"


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_no_turn_times_out_while_the_bot_is_far_behind_telegrams_limits(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An overloaded bot would time people out for its own lag, and every timeout's messages (the reminder,
    "ran out of time", the private notice, "is back") would add to the backlog: the clock starts again."""
    server = fake_telegram
    backlog = [0.0]  # seconds of messages waiting for Telegram's overall limit (none until the match starts:
    # a bot far behind starts no new match)
    monkeypatch.setattr(ChatRateLimiter, "backlog", property(lambda self: backlog[0]))
    alice = server.person("Alice", None, language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await _table_with_ai(server, tmp_path, app, alice, group)
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert
        backlog[0] = 60.0
        first = table.match.hand
        deadlines: set[float] = set()
        await server.wait_for(lambda: deadlines.add(table.deadline) or len(deadlines) >= 3, timeout=30,
                              what="the clock to start again twice")
        assert first.phase == "bidding" and table.match.hand is first
        assert not any("waiting for your move" in (m.text or "") or "ran out of time" in (m.text or "")
                       for m in group.bot_messages())
        backlog[0] = 0.0  # caught up: the window closes by its deadline
        await server.wait_for(lambda: table.match.hand is not first or first.phase != "bidding", timeout=30,
                              what="the window to close once the bot caught up")
