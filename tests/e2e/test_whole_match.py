"""One person and three AI seats play a whole match of 新炒地皮 to its end."""

from __future__ import annotations

from pathlib import Path

import pytest

import storage

from .botkit import bot_running, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .scenario import announced, choose_setting, fill_with_ai, play_hand, start_match, wait_seated

SEED_INDEX = 1
"""A deal whose match is short (7 hands, about 11 s); any seed plays a match to its end.

The AI seats play the casual AI, whose moves depend on the deal alone: the strong AI's search
stops at a time budget, so on a loaded machine it plays other moves, and the match could run to
its 40-hand limit (a CI run spent over eight minutes in this test that way)."""


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_one_person_and_three_ai_play_a_whole_match(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Lunch break", [alice])
    async with bot_running(server, tmp_path / "t.db", group_interval=3.5) as app:
        await alice.command(group, "newgame", "xin")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        await choose_setting(server, alice, group, "strength", "casual")
        table = await start_match(server, app, alice, group, SEED_INDEX)
        assert table.settings.ai_strength == "casual"
        match = table.match
        assert match is not None
        for _ in range(40):
            if match.over:
                break
            await play_hand(server, table, {0: alice})
        assert match.over, "the match did not end in 40 hands"
        hands = match.hands_played
        assert hands >= 2
        await server.wait_for(lambda: announced(group, "win the match!"), what="the end of the match")
        assert table.status == "finished"
        for n in range(1, hands + 1):
            assert announced(group, f"Hand {n} is over"), n

        # Storage agrees: the match is finished and the league counted every hand.
        db = tables(app).db
        assert table.match_id is not None
        record = await storage.get_match(db, table.match_id)
        assert record is not None and record.status == "finished" and record.winner_side == match.winner_side
        standings = await storage.player_standings(db, group.id)
        assert [row.hands for row in standings if row.display_name == "Alice"] == [hands]

        # The finished match does not hold the group: a new table opens.
        before = len(group.bot_messages())
        await alice.command(group, "newgame")
        await server.wait_for(lambda: len(group.bot_messages()) > before, what="an answer to /newgame")
        reply = group.bot_messages()[-1]
        assert "already has a table" not in (reply.text or ""), reply.text
        new_table = tables(app).in_chat(group.id)
        assert new_table is not None and new_table is not table and new_table.status == "open"
