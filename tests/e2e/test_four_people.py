"""Four people open a table, take their seats three different ways, and play a whole hand.

Alice (中文) opens the table, Bob (English) takes a seat with its button,
Carol (中文) has never talked to the bot: her seat button sends her to the
private chat, and she sits only once she pressed Start there; Dave
(English) uses /join.  Then they bid (selecting level cards on their
keyboards), bury, steal and play every card through their private hand
keyboards, to the result the bot announces in the group.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import storage
from engine.hand import Action

from .botkit import bot_running, hand_message, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .plans import find_plan
from .scenario import announced, play_hand, sit_from_group, start_match, wait_seated

PRESETS = [
    # (preset, bidders): the default preset and three others (open bids, 新炒地皮's reinforce, 安徽)
    pytest.param("yancheng", 2, id="yancheng-default"),
    pytest.param("nantong", 2, id="nantong"),
    pytest.param("xin", 1, id="xin"),
    pytest.param("anhui", 2, id="anhui"),
]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize(("preset", "bidders"), PRESETS)
async def test_four_people_play_a_whole_hand(fake_telegram: FakeTelegram, tmp_path: Path, preset: str,
                                             bidders: int) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    carol = server.person("Carol", "carol", language_code="zh-hans")  # never pressed Start
    dave = server.person("Dave", "dave", language_code="en", started=True)
    group = server.group("周五牌局", [alice, bob, carol, dave])
    plan = find_plan(preset, bidders=bidders)
    assert plan.steal is not None and len(plan.bids) == bidders

    # PTB's own rate limiter lets a group have 20 calls at once, then one every 3 s: a group
    # interval of 1 s stays within it for a hand played this fast (production uses 3.5 s).
    async with bot_running(server, tmp_path / "t.db", group_interval=1.0) as app:
        await alice.command(group, "newgame", preset)
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        assert await wait_seated(server, app, group, alice) == 0

        answer = await sit_from_group(server, bob, group, 1)
        assert answer.url is None and not answer.show_alert, answer
        assert await wait_seated(server, app, group, bob) == 1

        # Carol cannot be reached: the button answers with the deep link, and she is not seated yet.
        table = tables(app).in_chat(group.id)
        assert table is not None
        answer = await (await carol.press(table_message(group), "坐南")).answer()
        assert answer.url is not None and f"start=s{table.id}_2_" in answer.url, answer
        assert table.seat_of(carol.id) is None
        await server.wait_for(lambda: "Carol" in (table_message(group).text or "")
                              and "⚠️" in (table_message(group).text or ""), what="the lobby asking Carol to start")
        await carol.open_link(answer.url)
        assert await wait_seated(server, app, group, carol) == 2
        await server.wait_for(lambda: any("你已在" in (m.text or "") for m in carol.bot_private_messages()),
                              what="Carol's welcome")

        await dave.command(group, "join")
        assert await wait_seated(server, app, group, dave) == 3

        table = await start_match(server, app, alice, group, plan.seed_index)
        assert table.match is not None
        hand = table.match.hand
        people = {0: alice, 1: bob, 2: carol, 3: dave}
        log = await play_hand(server, table, people, plan)

        # Everything went through the buttons as planned, to the same end as the engine's own replay.
        assert log.bids == plan.bids and log.steals == [plan.steal]
        assert plan.hand is not None
        assert [_same(e.action) for e in hand.events] == [_same(e.action) for e in plan.hand.events]
        assert hand.phase == "finished" and hand.result is not None
        assert any(b.kind == "steal" for b in hand.bids)

        await server.wait_for(lambda: announced(group, "第 1 局结束"), what="the result announcement")
        result = next(m for m in group.bot_messages() if "第 1 局结束" in (m.text or ""))
        assert f"抓分方共得 {hand.result.attacker_points} 分" in (result.text or "")
        assert "底牌" in (result.text or "") and "积分" in (result.text or "")

        # Each person saw their own hand message in their own language, and the next hand is dealt.
        assert table.match.hand is not hand and table.match.hand.setup.number == 2
        for person, marker in ((alice, "第 2 局 · 你坐"), (bob, "hand 2 · you sit"), (carol, "第 2 局 · 你坐"),
                               (dave, "hand 2 · you sit")):
            await server.wait_for(lambda: marker in (getattr(hand_message(person), "text", "") or ""),  # noqa: B023
                                  what=f"{person.name}'s hand 2 message")

        # The league has the hand: /leaderboard lists all four (below the line: one hand, ten needed).
        db = tables(app).db
        standings = await storage.player_standings(db, group.id)
        assert {row.display_name for row in standings} == {"Alice", "Bob", "Carol", "Dave"}
        await bob.command(group, "leaderboard")
        board = await server.wait_for(lambda: next((m for m in group.bot_messages() if m.photo_id), None),
                                      timeout=60, what="the league table")  # the first picture imports matplotlib
        assert board.caption is not None and all(name in board.caption for name in ("Alice", "Bob", "Carol", "Dave"))


def _same(action: Action) -> tuple[object, ...]:
    """An action with its cards as a multiset (a selection has no order)."""
    return (action.kind, action.seat, sorted(map(str, action.cards)), action.trump)
