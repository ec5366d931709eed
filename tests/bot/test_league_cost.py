"""What the league costs: answers kept until the group's next hand ends (pages and pictures), a burst counted
once, a picture that cannot be drawn sent as text and tried once, the per-person budget, the reader connection."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import storage
from bot.budget import PersonBudget
from bot.i18n import translator
from bot.league import board as board_module
from bot.league.board import ALL_TIME, CURRENT, League, leaderboard
from bot.league.chart import ChartData
from bot.league.pictures import Board
from bot.webapp.league import page_data
from tests.storage.league_kit import CHAT, Hands, at, hands_at


def encode(board: Board, data: ChartData) -> bytes:
    return json.dumps({"subtitle": board.subtitle, "chart": page_data(data)}, ensure_ascii=False).encode()


async def played(db: storage.Database, hands: int) -> Hands:
    """``hands`` hands in December, Ann and Cy winning two of every three."""
    table = await hands_at(db)
    for n in range(hands):
        await table.play(at(2026, 12, 1) + 600 * n, winner=int(n % 3 == 2))
    await storage.set_min_hands(db, CHAT, 2, at(2026, 12, 1))
    return table


class Spy:
    """Counts the calls of a function it replaces (and can make them fail)."""

    def __init__(self, real: Callable[..., Any], fail: bool = False) -> None:
        self.real, self.fail, self.calls = real, fail, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.fail:
            raise ValueError("mathtext cannot parse $x^$")  # what matplotlib raises on a name it misreads
        return self.real(*args, **kwargs)


async def test_the_page_is_kept_until_a_hand_ends_and_then_shows_it(db: storage.Database,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    table = await played(db, 6)
    league = League(db, bot_username="b", public_url=None, clock=lambda: at(2026, 12, 20))
    reads = Spy(storage.jifen_lines)
    monkeypatch.setattr(storage, "jifen_lines", reads)
    tr = translator("en")
    stretch = await league.stretch(CHAT, ALL_TIME)
    assert stretch is not None
    first = json.loads(await league.page(tr, CHAT, stretch, encode))
    assert first["subtitle"].endswith("6 hands") and reads.calls == 1
    ann = first["chart"]["lines"][0]
    assert ann["name"] == "player1" and ann["points"][-1] == [6, 2]  # won 4, lost 2
    await table.play(at(2026, 12, 2), winner=0)  # a seventh hand is stored ...
    assert json.loads(await league.page(tr, CHAT, stretch, encode)) == first  # ... but not ended yet: kept
    assert reads.calls == 1
    league.hand_ended(CHAT)
    after = json.loads(await league.page(tr, CHAT, stretch, encode))
    assert after["subtitle"].endswith("7 hands") and reads.calls == 2
    assert after["chart"]["lines"][0]["points"][-1] == [7, 3]  # the new hand is on Ann's line


async def test_a_hand_that_ends_while_the_page_is_counted_is_not_hidden_by_it(db: storage.Database) -> None:
    await played(db, 3)
    league = League(db, bot_username="b", public_url=None, clock=lambda: at(2026, 12, 20))
    stretch = await league.stretch(CHAT, ALL_TIME)
    assert stretch is not None

    def ends_a_hand_meanwhile(board: Board, data: ChartData) -> bytes:
        league.hand_ended(CHAT)  # a hand of the group ended while this answer was being counted
        return encode(board, data)

    await league.page(translator("en"), CHAT, stretch, ends_a_hand_meanwhile)
    assert league.cache.page(CHAT, stretch, "en") is None  # counted before the change: not kept


async def test_a_burst_of_page_requests_counts_once(db: storage.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    await played(db, 5)
    league = League(db, bot_username="b", public_url=None, clock=lambda: at(2026, 12, 20))
    reads, lines = Spy(storage.jifen_lines), Spy(storage.league_lines)
    monkeypatch.setattr(storage, "jifen_lines", reads)
    monkeypatch.setattr(storage, "league_lines", lines)
    stretch = await league.stretch(CHAT, ALL_TIME)
    assert stretch is not None
    answers = await asyncio.gather(*(league.page(translator("zh"), CHAT, stretch, encode) for _ in range(4)))
    assert len(set(answers)) == 1 and reads.calls == 1 and lines.calls == 1


async def test_a_picture_that_cannot_be_drawn_is_sent_as_text_and_tried_once(
        db: storage.Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    await played(db, 6)
    league = League(db, bot_username="b", public_url=None, clock=lambda: at(2026, 12, 20))
    render = Spy(board_module.render, fail=True)
    monkeypatch.setattr(board_module, "render", render)
    with caplog.at_level(logging.ERROR, logger="bot.league.board"):
        answers = [await leaderboard(league, CHAT, "zh", CURRENT) for _ in range(5)]
        answers += await asyncio.gather(*(leaderboard(league, CHAT, "zh", CURRENT) for _ in range(5)))
    for answer in answers:
        assert answer is not None and answer.photo is None and answer.file_id is None
        assert "1. player1 · +2" in answer.text  # the table, as text
    assert render.calls == 1
    assert len([r for r in caplog.records if "cannot be drawn" in r.getMessage()]) == 1
    league.hand_ended(CHAT)  # the data changed: tried again (and it works now)
    render.fail = False
    drawn = await leaderboard(league, CHAT, "zh", CURRENT)
    assert drawn is not None and drawn.photo is not None and render.calls == 2


def test_the_budget_refuses_the_press_past_it_and_says_when_to_come_back() -> None:
    now = [100.0]
    budget = PersonBudget((3, 10.0), clock=lambda: now[0])
    assert [budget.allows(7) for _ in range(4)] == [True, True, True, False]
    assert budget.allows(8)  # another person has a budget of their own
    assert budget.retry_after(7) == 10.0 and budget.retry_after(8) == 0.0
    now[0] += 5
    assert not budget.allows(7) and budget.retry_after(7) == 5.0  # a refused press takes nothing
    now[0] += 5
    assert budget.allows(7)


async def test_the_league_reads_on_its_reader(db: storage.Database, tmp_path: Path) -> None:
    await played(db, 4)
    reader = await storage.open_reader(tmp_path / "league.db")
    try:
        league = League(db, bot_username="b", public_url=None, clock=lambda: at(2026, 12, 20), reader=reader)
        answer = await leaderboard(league, CHAT, "en", ALL_TIME)
        assert answer is not None and answer.photo is not None and "4 hands" in answer.text
    finally:
        await reader.close()


async def test_a_season_that_ends_forgets_what_was_kept_of_its_group(db: storage.Database) -> None:
    await played(db, 3)
    now = [at(2026, 12, 20)]
    league = League(db, bot_username="b", public_url=None, clock=lambda: now[0])
    december = await storage.current_season(db, CHAT, now[0])
    stretch = await league.stretch(CHAT, ALL_TIME)
    assert stretch is not None
    await league.page(translator("en"), CHAT, stretch, encode)
    assert league.cache.page(CHAT, stretch, "en") is not None
    now[0] = at(2027, 1, 2)
    assert await league.tell_season_end(december) == CHAT
    assert league.cache.page(CHAT, stretch, "en") is None  # its buttons named December as the season under way
