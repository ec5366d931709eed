"""Who may replay a hand in the web app: the people who held its seats when it was played, nobody else.

Alice plays a hand with three AI seats, escapes from the next one (the AI
takes her seat; nobody is left, so the table pauses) and Carol then takes
a seat at the paused table.  Alice may still replay both hands she played
(the escaped one too); Carol, who sits there now, may replay neither; the
hand in play is nobody's to replay; a stranger gets 403 throughout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.budget import PersonBudget
from bot.tables import replays

from .appkit import AppClient, app_base, init_data_for, webapp_running
from .fake_telegram import FakeTelegram, FloodLimits
from .leaks import Tenure
from .scenario import fill_with_ai, play_hand, start_match, wait_seated
from .seat_changes import leave

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


async def test_the_people_who_played_a_hand_replay_it_and_nobody_else(fake_telegram: FakeTelegram,
                                                                       tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    carol = server.person("Carol", "carol", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group("Replays", [alice, carol, mallory])
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        await alice.command(group, "newgame", "yancheng")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group)
        assert table.match is not None
        for _deal in range(5):  # a deal nobody bids on is dealt again: no result, nobody's to replay
            assert table.match is not None
            first, hand = table.hand_id, table.match.hand
            await play_hand(server, table, {0: alice})
            await server.wait_for(lambda: table.hand_id != first and table.match is not None
                                  and not table.match.hand.over, what="the next hand")
            if hand.phase == "finished":
                break
        assert hand.phase == "finished", "five deals in a row that nobody bid on"
        second = table.hand_id
        assert first is not None and second is not None
        clients = {p.name: AppClient(session, app_base(app), init_data_for(server, p)) for p in (alice, carol, mallory)}

        async def status(person: str, hand_id: int) -> int:
            return (await clients[person].get(f"/app/api/hands/{hand_id}"))[0]

        assert await status("Alice", second) == 403, "a hand in play is nobody's to replay"
        assert await leave(server, app, group, alice, [Tenure(0, 0.0)])  # an escape: the AI takes her seat
        await server.wait_for(lambda: table.paused, what="the table to pause (nobody left)")
        await carol.command(group, "join")
        await server.wait_for(lambda: table.seat_of(carol.id) is not None, what="Carol seated")
        await server.wait_for(lambda: not table.paused and table.hand_id not in (first, second),
                              what="the next hand under way")
        third = table.hand_id
        assert third is not None

        assert await status("Alice", first) == 200, "played it and left"
        assert await status("Alice", second) == 200, "escaped from it"
        assert await status("Carol", first) == 403, "joined later"
        assert await status("Carol", second) == 403, "joined later"
        for person in ("Alice", "Carol", "Mallory"):
            assert await status(person, third) == 403, f"{person}: a hand in play"
        for hand_id in (first, second):
            assert await status("Mallory", hand_id) == 403, "never at the table"
        _status, body = await clients["Alice"].get(f"/app/api/hands/{first}")
        assert body["replay"]["hand_id"] == first and body["replay"]["seats"][0]["name"] == "Alice"
        # The trump, the dealer and how the trump was set, in the table's words (Alice reads Chinese).
        facts = body["replay"]["facts"]
        assert facts and facts[0].startswith(("主 ", "打无主", "扛旗")) and " · 庄家 " in facts[0], facts
        assert "抓分方" in facts[0] and len(facts) == 2 and facts[1].startswith(("亮主经过", "无人亮主")), facts
        assert body["replay"]["words"]["Attackers' points"] == "抓分方得分"  # the term used everywhere else


async def test_replays_are_rebuilt_once_and_past_the_budget_get_429(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay deals the match again up to its hand: the people of the table asking for the same hand make one
    rebuild (its view is kept), and one person asking faster than the budget gets a 429 saying when to try
    again, before any work; somebody else's budget is their own."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Replays", [alice])
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        await alice.command(group, "newgame", "yancheng")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group)
        played: int | None = None
        for _deal in range(5):  # a deal nobody bids on is dealt again: no result, nobody's to replay
            assert table.match is not None
            first, hand = table.hand_id, table.match.hand
            await play_hand(server, table, {0: alice})
            if hand.phase == "finished":
                played = first
                break
        assert played is not None, "five deals in a row that nobody bid on"
        rebuilt = Counted(replays.finished_hand)
        monkeypatch.setattr(replays, "finished_hand", rebuilt)
        app.bot_data["replay_budget"] = PersonBudget((3, 600.0))
        client = AppClient(session, app_base(app), init_data_for(server, alice))
        for _ in range(3):
            status, body = await client.get(f"/app/api/hands/{played}")
            assert status == 200 and body["replay"]["hand_id"] == played
        assert rebuilt.calls == 1, "the finished hand's view is kept"
        status, body = await client.get(f"/app/api/hands/{played}")
        assert status == 429 and body["retry_after"] > 500 and "Too many requests" in body["error"], body
        assert rebuilt.calls == 1
        bob = server.person("Bob", "bob", language_code="en", started=True)
        status, _body = await AppClient(session, app_base(app), init_data_for(server, bob)).get(
            f"/app/api/hands/{played}")
        assert status == 403, "not his hand, and not his budget that ran out"


class Counted:
    """Counts the calls of an async function it stands in for."""

    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, 0

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.real(*args, **kwargs)
