"""The league's per-person budget, end to end: a person pressing a leaderboard's buttons or fetching league pages
faster than it allows gets one short answer (a toast; a 429 with the reason) and costs nothing more: no
drawing, no count, no edit in the group; and a picture that cannot be drawn is told as text, drawn once and
logged once."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import storage
from bot.budget import PersonBudget
from bot.league import board as board_module
from bot.league.board import League

from .appkit import AppClient, app_base, init_data_for, webapp_running
from .fake_telegram import FakeTelegram, FloodLimits
from .league_kit import past_hands

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


class Counted:
    """Counts the calls of a function it stands in for."""

    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.real(*args, **kwargs)


async def test_league_buttons_past_the_budget_get_a_toast_and_draw_nothing(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in ("Alice", "Bob", "Carol", "Dave")]
    alice, bob = people[0], people[1]
    group = server.group("牌友群", people)
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "leaderboard")
        board = await server.wait_for(lambda: next((m for m in group.bot_messages() if m.photo_id), None),
                                      timeout=60, what="the picture")
        league: League = app.bot_data["league"]
        league.tasks = None  # no drawing ahead when a hand ends: every drawing counted here is a press's
        app.bot_data["league_budget"] = PersonBudget((3, 600.0))
        draws = Counted(board_module.render)
        monkeypatch.setattr(board_module, "render", draws)
        start = server.calls.mark()
        for press in range(3):  # within the budget: each press draws all time's picture afresh
            league.hand_ended(group.id)  # as if a hand had ended: nothing is kept
            answer = await (await bob.forge_callback(board, "B:lb:all")).answer(timeout=60)
            assert answer.text is None and not answer.show_alert
            assert draws.calls == press + 1
        await server.wait_for(lambda: [r.method for r in server.calls.since(start)].count("editMessageMedia") == 3,
                              timeout=30, what="the three pictures in place")
        mark = server.calls.mark()
        for _ in range(5):  # past it: a toast each, and nothing else
            league.hand_ended(group.id)
            answer = await (await bob.forge_callback(board, "B:lb:all")).answer()
            assert answer.text == "按得太快了：请过几秒再试。" and not answer.show_alert
        assert draws.calls == 3
        assert [r.method for r in server.calls.since(mark) if r.method != "getUpdates"] == ["answerCallbackQuery"] * 5
        # Somebody else's budget is their own.
        answer = await (await alice.forge_callback(board, "B:lb:cur")).answer(timeout=60)
        assert answer.text is None and draws.calls == 4


async def test_league_pages_past_the_budget_get_429_with_the_reason(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in ("甲", "乙", "丙", "丁")]
    group = server.group("牌友群", people)
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        league: League = app.bot_data["league"]
        app.bot_data["league_budget"] = PersonBudget((3, 600.0))
        counts = Counted(storage.league_lines)
        monkeypatch.setattr(storage, "league_lines", counts)
        player = AppClient(session, app_base(app), init_data_for(server, people[0]))
        for request in range(3):
            league.hand_ended(group.id)  # nothing kept: each request within the budget counts the table
            status, body = await player.get(f"/app/api/league/{group.id}?stretch=all")
            assert status == 200 and body["ok"], body
            assert counts.calls == request + 1
        league.hand_ended(group.id)
        async with session.get(f"{app_base(app)}/app/api/league/{group.id}?stretch=all",
                               headers=player.headers) as response:
            assert response.status == 429
            assert 1 <= int(response.headers["Retry-After"]) <= 600
            body = await response.json()
        assert body["ok"] is False and body["error"].startswith("请求太频繁") and body["retry_after"] >= 1
        assert (await player.get("/app/api/league"))[0] == 429  # the list of groups is within the same budget
        assert counts.calls == 3
        other = AppClient(session, app_base(app), init_data_for(server, people[1]))
        assert (await other.get(f"/app/api/league/{group.id}?stretch=all"))[0] == 200


async def test_a_picture_that_cannot_be_drawn_is_told_as_text_and_drawn_once(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in ("Alice", "Bob", "Carol", "Dave")]
    alice, bob = people[0], people[1]
    group = server.group("牌友群", people)
    await past_hands(tmp_path / "t.db", group, people)

    def cannot(*args: Any) -> bytes:
        raise ValueError("mathtext: Expected end of text, found '$'")  # a name matplotlib reads as maths

    failing = Counted(cannot)
    monkeypatch.setattr(board_module, "render", failing)
    caplog.set_level(logging.ERROR, logger="bot")
    async with webapp_running(server, tmp_path / "t.db") as app:
        app.bot_data["league"].tasks = None  # no drawing ahead: every attempt counted here is an answer's
        await alice.command(group, "leaderboard")
        board = await server.wait_for(lambda: next((m for m in group.bot_messages() if m.text
                                                    and m.text.startswith("联赛 · ")), None), timeout=60,
                                      what="the leaderboard as text")
        assert "1. Alice & Carol · +4" in board.text  # the table as text: the partnerships
        assert "未满 10 局，不排名：Alice" in board.text and board.labels[0] == ["总榜"] and board.photo_id is None
        for _ in range(5):
            answer = await (await bob.forge_callback(board, "B:lb:all")).answer(timeout=60)
            assert answer.text is None and not answer.show_alert
        await server.wait_for(lambda: (m := group.last_bot_message()).text and "联赛 · 总榜" in m.text, timeout=30,
                              what="all time, as text")
        await alice.command(group, "leaderboard")
        await server.wait_for(lambda: len([m for m in group.bot_messages() if m.text
                                           and m.text.startswith("联赛 · ")]) == 2, timeout=30)
    assert failing.calls == 2  # the season's picture once, all time's once: never again for the same data
    told = [r for r in caplog.records if "cannot be drawn" in r.getMessage()]
    assert len(told) == 2 and all(r.exc_info for r in told)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r not in told]
