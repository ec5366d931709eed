"""One request, one service call (``bot/tables/perform.py``): both front ends go through it, so the keyboard
and the Mini App can no longer disagree.  A real table service over a real database; no Telegram."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.i18n import translator
from bot.model import Table
from bot.render_group import render_table
from bot.tables import ComeBack, Done, Front, Hint, Move, NextHand, Peek, Person, Refused, Request, Select, Tables
from bot.tables import perform as perform_room
from bot.tables.seats import set_away


@asynccontextmanager
async def started(db: storage.Database, pace: str = "realtime",
                  hand_pause: float = 0.0) -> AsyncIterator[tuple[Tables, Table]]:
    """Four people (ids 1 to 4 in seats 0 to 3) at a 盐城 table whose first hand is being bid; no publisher."""
    await storage.upsert_chat(db, -1, "G")
    for user in range(1, 5):
        await storage.upsert_user(db, user, f"P{user}")
    tables = Tables(db, Settings(token="1:perform", hand_pause=hand_pause))
    try:
        table = await tables.new_table(-1, "G", 1, "en", "yancheng")
        for seat in range(4):
            await tables.sit(table, seat + 1, f"P{seat + 1}", "en", seat)
        await tables.change_setting(table, "pace", pace)
        tables.rng = random.Random(3)
        await tables.start(table)
        assert table.playing and table.match is not None and table.match.hand.phase == "bidding"
        yield tables, table
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)


def person(seat: int, front: Front) -> Person:
    return Person(seat + 1, front)


def shape(outcome: object) -> object:
    """An outcome as both front ends must agree on it (the error objects compared by what they say)."""
    if isinstance(outcome, Refused):
        return ("refused", outcome.code, outcome.back, outcome.window, outcome.text(translator("en")))
    return outcome


@pytest.mark.parametrize("front", ["keyboard", "app"])
async def test_a_pass_is_carried_out_once_and_the_same_press_again_is_already_done(
        db: storage.Database, front: Front) -> None:
    async with started(db) as (tables, table):
        assert table.match is not None
        old = table.version(0)
        assert await tables.perform(person(0, front), table, Move("pass", (), old)) == Done()
        assert 0 in table.match.hand.passed and table.version(0) != old
        again = await tables.perform(person(0, front), table, Move("pass", (), old))
        assert isinstance(again, Refused) and again.code == "already"
        stale = await tables.perform(person(1, front), table, Move("pass", (), "1.25.d.9"))
        assert isinstance(stale, Refused) and stale.code == "stale"
        assert table.match.hand.passed == {0}


async def test_the_keyboard_and_the_app_answer_every_request_alike(tmp_path: Path) -> None:
    """The same requests through either front end: the same outcomes, and the same hand after them."""
    results: dict[str, tuple[list[object], object]] = {}
    fronts: tuple[Front, ...] = ("keyboard", "app")
    for front in fronts:
        db = await storage.open_database(tmp_path / f"{front}.db")
        async with started(db) as (tables, table):
            assert table.match is not None
            hand = table.match.hand
            card = hand.hands[2][0]
            old = table.version(1)
            requests: list[tuple[int, Request]] = [
                (1, Move("pass", (), old)), (1, Move("pass", (), old)), (3, Move("bury", (card,), table.version(3))),
                (2, Move("play", (), table.version(2))), (0, Hint(table.version(0), select=False)),
                (0, Select(card, 0, table.hand_version(0))), (2, ComeBack()), (2, NextHand("1")), (3, Peek()),
            ]
            outcomes = [shape(await tables.perform(person(seat, front), table, request)) for seat, request in requests]
            results[front] = (outcomes, (hand.fingerprint(), [+table.selected(s) for s in range(4)]))
        await db.close()
    assert results["keyboard"] == results["app"]


@pytest.mark.parametrize("front", ["keyboard", "app"])
async def test_an_away_person_is_back_with_any_request_an_out_of_date_one_included(
        db: storage.Database, front: Front) -> None:
    """The one come-back rule (the keyboard and the app once differed): any request of the person's brings
    them back, then it is judged; an old one is told they are back, and shown their hand again."""
    async with started(db) as (tables, table):
        info = table.seats[2]
        assert info is not None
        await set_away(tables, table, 2, info, True)
        outcome = await tables.perform(person(2, front), table, Move("pass", (), "0.0.d"))
        assert isinstance(outcome, Refused) and outcome.code == "stale" and outcome.back
        assert outcome.text(translator("en")) == \
            "Bidding is closed; your hand is shown again. You are back: you play your seat again."
        assert not info.timed_out
        again = await tables.perform(person(2, front), table, ComeBack())
        assert isinstance(again, Refused) and again.code == "present"


@pytest.mark.parametrize("front", ["keyboard", "app"])
async def test_a_move_or_a_selection_refreshes_the_table_once(db: storage.Database, front: Front) -> None:
    async with started(db) as (tables, table):
        refreshed: list[Table] = []
        tables.follow(refreshed.append)
        assert await tables.perform(person(0, front), table, Move("pass", (), table.version(0))) == Done()
        assert refreshed == [table]
        refreshed.clear()
        card = table.match.hand.hands[1][0] if table.match is not None else None
        assert card is not None
        assert await tables.perform(person(1, front), table, Select(card, 0, table.hand_version(1))) == Done()
        assert refreshed == [table]


@pytest.mark.parametrize("front", ["keyboard", "app"])
async def test_next_hand_pressed_by_someone_away_brings_them_back(db: storage.Database, front: Front) -> None:
    """「下一局」 is a request of the seat's like any other: someone the AI played for who presses it is back, and
    a table paused for want of anyone present goes on.  Before, the pause ended with nobody to play: the group
    saw the next hand's bidding open, and nothing moved (the AI does not play a paused table)."""
    async with started(db, pace="relaxed") as (tables, table):
        for seat in (1, 2, 3):  # away: the AI plays for them
            info = table.seats[seat]
            assert info is not None
            await set_away(tables, table, seat, info, True)
        async with table.lock:
            await tables.escape(table, 0)  # before any card: hand 1 ends, hand 2 is dealt, the pause begins
        assert table.match is not None and table.between_hands is not None and table.paused
        outcome = await tables.perform(person(2, front), table, NextHand(str(table.match.deals)))
        assert outcome == Done(back=True)
        info = table.seats[2]
        assert info is not None and not info.timed_out
        assert table.between_hands is None and not table.paused
        assert tables.waiting_humans(table) == [2], "the next hand waits for the person who pressed 「下一局」"


@pytest.mark.parametrize("front", ["keyboard", "app"])
async def test_a_forged_next_hand_does_not_cut_the_real_time_pause_short(db: storage.Database, front: Front) -> None:
    """At the real-time pace no 「下一局」 is offered: the pause's seconds are for reading the result.  A press
    forged with the right deal (a callback, or the app's API) is refused and the pause goes on."""
    async with started(db, hand_pause=60.0) as (tables, table):
        async with table.lock:
            await tables.escape(table, 0)  # before any card: hand 1 ends, hand 2 is dealt, the pause begins
        assert table.match is not None and table.between_hands is not None
        outcome = await tables.perform(person(1, front), table, NextHand(str(table.match.deals)))
        assert isinstance(outcome, Refused)
        assert outcome.text(translator("en")) == "The next hand starts in a moment."
        assert table.between_hands is not None, "the pause goes on"


async def test_next_hand_on_a_muted_table_is_refused_and_offered_nowhere(db: storage.Database) -> None:
    """A group that mutes the bot pauses its table (bot.muting): no next hand is dealt until the bot may write
    there again, so 「下一局」 is neither shown under the table message nor taken from a press or the app."""
    async with started(db, pace="relaxed") as (tables, table):
        async with table.lock:
            await tables.escape(table, 0)  # before any card: hand 1 ends, hand 2 is dealt, the pause begins
        assert table.match is not None and table.between_hands is not None
        assert render_table(translator("en"), table)[1] is not None, "「下一局」 under the table message"
        table.muted = True
        assert render_table(translator("en"), table)[1] is None
        outcome = await tables.perform(person(1, "app"), table, NextHand(str(table.match.deals)))
        assert isinstance(outcome, Refused) and outcome.text(translator("en")).startswith("The table is paused")
        assert table.between_hands is not None, "the next hand waits"


async def test_someone_without_a_seat_or_at_a_closed_table_is_refused(db: storage.Database) -> None:
    async with started(db) as (tables, table):
        outsider = await tables.perform(Person(99, "app"), table, Move("pass", (), table.version(0)))
        assert isinstance(outsider, Refused) and outsider.code == "not_seated"
        tables.unregister(table)
        closed = await tables.perform(person(0, "keyboard"), table, Move("pass", (), table.version(0)))
        assert isinstance(closed, Refused) and closed.code == "not_seated"


async def test_a_move_with_nothing_selected_after_a_restart_is_told_the_selection_was_lost(
        db: storage.Database) -> None:
    async with started(db) as (tables, table):
        table.presses.restarted()
        first = await tables.perform(person(0, "keyboard"), table, Move("bid", None, table.version(0)))
        second = await tables.perform(person(0, "keyboard"), table, Move("bid", None, table.version(0)))
        app = await tables.perform(person(1, "app"), table, Move("bid", (), table.version(1)))
        assert [o.code for o in (first, second, app) if isinstance(o, Refused)] == ["lost", "select_first",
                                                                                 "select_first"]


async def test_a_request_that_cannot_get_the_table_is_answered_busy(db: storage.Database,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async with started(db) as (tables, table):
        monkeypatch.setattr(perform_room, "PRESS_WAIT", 0.05)
        async with table.lock:
            outcome = await tables.perform(person(0, "app"), table, Move("pass", (), table.version(0)))
        assert isinstance(outcome, Refused) and outcome.code == "busy"
        assert table.match is not None and not table.match.hand.passed
        await asyncio.sleep(0)
