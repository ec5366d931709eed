"""The bench's calls by reason (``tests/e2e/call_reasons.py``): read from the fake's side, checked against what
was done on a short run of the real bot, step by step, where each call's reason is known.

Four people at a 盐城 table: a card tap (the tapper's own press), a play (the mover's own press, the next
mover's turn), a slow turn (the thinking line in the group and every waiting player's message, its time
shortened for the test); one person and three AI seats: the bidding clock's last stretch (the paces shortened).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import model
from bot.model import Pace
from bot.tables import turns
from tests.e2e.botkit import bot_running, hand_message, settled, table_message, tables
from tests.e2e.call_reasons import Classifier, per_play, tally
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits
from tests.e2e.fake_telegram.recording import CallRecord
from tests.e2e.plans import find_plan
from tests.e2e.scenario import play_hand, press_hand
from tests.e2e.test_budget import four_people, seat_four_and_start


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(limits=FloodLimits.unlimited()) as fake:
        yield fake


def reasons(server: FakeTelegram, since: int) -> list[tuple[str, str, int | None]]:
    """(method, reason, chat) of every call since the mark, polling and membership checks left out."""
    classifier = Classifier(server.state)
    return [(r.method, classifier.reason(r), r.chat_id) for r in calls_since(server, since)]


def calls_since(server: FakeTelegram, since: int) -> list[CallRecord]:
    return [r for r in server.calls.since(since) if r.method not in ("getUpdates", "getChatMember")]


async def test_a_tap_a_play_and_a_slow_turn_are_told_apart(server: FakeTelegram, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    people, group = four_people(server, "Reasons")
    plan = find_plan("yancheng", bidders=2)
    async with bot_running(server, tmp_path / "t.db", group_interval=0.5, tap_gap=1.0) as app:
        table = await seat_four_and_start(server, app, people, group, plan.seed_index)
        assert table.match is not None
        hand = table.match.hand
        await play_hand(server, table, people, plan, until=lambda h: h.phase == "playing")
        await settled(server, app)
        mover = hand.turn
        assert mover is not None
        # A tap: the tapper's button answered and their message edited, nothing else.
        mark = server.calls.mark()
        assert not (await press_hand(server, people[mover], table, mover, "sel", f"{min(hand.hands[mover])}0")).show_alert
        await settled(server, app)
        assert sorted(reasons(server, mark)) == sorted([("answerCallbackQuery", "own press", people[mover].id),
                                                        ("editMessageText", "own press", people[mover].id)])
        assert not (await press_hand(server, people[mover], table, mover, "clear")).show_alert
        await settled(server, app)
        # A play: the mover's press, the next mover's turn.
        mark = server.calls.mark()
        assert not (await press_hand(server, people[mover], table, mover, "go")).show_alert
        await settled(server, app)
        following = hand.turn
        assert following is not None and following != mover
        assert sorted(reasons(server, mark)) == sorted([("answerCallbackQuery", "own press", people[mover].id),
                                                        ("editMessageText", "own press", people[mover].id),
                                                        ("editMessageText", "next mover", people[following].id)])
        # A slow turn: once the mover has thought a while, the group and the waiting players are told whose turn.
        mark = server.calls.mark()
        monkeypatch.setitem(model.THINKING, "realtime", 1.0)
        async with table.lock:
            turns.set_timer(tables(app), table)  # the turn's timer again, with the shortened thinking time
        await server.wait_for(lambda: table.thinking(time.time()), timeout=20, what="the thinking line")
        await settled(server, app)
        found = reasons(server, mark)
        waiting = {people[s].id for s in range(4) if s != following}
        assert ("editMessageText", "turn line", group.id) in found, found
        # (The mover's own message may be redrawn too: its "(50 s left)" moved on meanwhile.)
        assert waiting | {group.id} <= {chat for method, why, chat in found if why == "turn line"}, found
        assert all(why == "turn line" for _, why, _ in found), found
        counts = tally(calls_since(server, 0), server.state)
    lines = per_play(counts, plays=1)
    print("\n".join(lines))
    assert lines[1].startswith("  by kind:") and "turn line" in lines[2] and "next mover" in lines[2]


async def test_the_bidding_clocks_last_stretch_is_a_clock_edit(server: FakeTelegram, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(turns.PACES, "realtime", Pace(turn=30, bidding=4, reminder=2))
    alice = server.person("Alice", None, language_code="zh-hans", started=True)
    group = server.group("牌友", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=30.0) as app:  # the AI seats never bid first
        # (No settled(): the AI seats' moves wait the whole test.)
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "（空位）" not in (table_message(group).text or ""), what="a full table")
        table = tables(app).in_chat(group.id)
        assert table is not None
        assert not (await (await alice.press(table_message(group), "▶️ 开始")).answer()).show_alert
        await server.wait_for(lambda: (m := hand_message(alice)) is not None and "4 秒" in (m.text or ""),
                              timeout=10, what="the clock at the window's start")
        mark = server.calls.mark()
        await server.wait_for(lambda: "2 秒" in ((hand_message(alice) or table_message(group)).text or "")
                              and "2 秒" in (table_message(group).text or ""), timeout=10,
                              what="the last stretch's reading in both messages")
        found = reasons(server, mark)
    assert ("editMessageText", "clock", alice.id) in found, found
    assert ("editMessageText", "clock", group.id) in found, found
