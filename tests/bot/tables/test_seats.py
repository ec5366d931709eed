"""Taking a seat back from the AI: at once when the hand has not started (or the table says so), else from
the next hand; the table is told; a restart keeps who may come back; the seat taken back speaks the
language its person chose meanwhile."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.model import Table
from bot.tables import Tables
from bot.tables.seats import store_extra
from bot.tables.startup import load_tables
from engine.hand import Action

CHAT = -100800


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tables]:
    db = await storage.open_database(tmp_path / "back.db")
    await storage.upsert_chat(db, CHAT, "Back")
    for user, name in ((1, "Ann"), (2, "Dave")):
        await storage.upsert_user(db, user, name)
    tables = Tables(db, Settings(token="1:back", hand_pause=0.0))
    try:
        yield tables
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()


async def _started(tables: Tables, returns: str = "next") -> Table:
    table = await tables.new_table(CHAT, "Back", 1, "en", "yancheng")
    await tables.change_setting(table, "strength", "casual")
    await tables.change_setting(table, "returns", returns)
    await tables.sit(table, 1, "Ann", "en", 0)
    await tables.sit(table, 2, "Dave", "en", 2)
    while not table.full:
        await tables.add_ai(table)
    await tables.start(table)
    return table


async def test_before_the_hand_has_started_the_seat_is_back_at_once(service: Tables) -> None:
    table = await _started(service)
    await service.escape(table, 2)  # before any card: free, and the next hand is dealt
    assert table.seat_of(2) is None and service.left_seat(table, 2) == 2
    assert table.match is not None and not table.match.hand.events
    assert await service.take_seat_back(table, 2) is True
    assert table.seat_of(2) == 2 and not table.left
    seats = await storage.get_seats(service.db, table.id)
    assert {s.seat: s.user_id for s in seats}[2] == 2


async def test_mid_hand_the_seat_is_back_from_the_next_hand_and_a_restart_keeps_it(service: Tables,
                                                                                  tmp_path: Path) -> None:
    table = await _started(service)
    await service.escape(table, 2)
    assert table.match is not None
    hand = table.match.hand
    await service.act(table, Action("pass", 0))  # the hand has begun: Ann passed
    assert await service.take_seat_back(table, 2) is False
    assert table.seat_of(2) is None and table.coming_back == {2}
    # A restart remembers who comes back.
    again = Tables(service.db, service.config)
    await load_tables(again)
    reloaded = again.get(table.id)
    assert reloaded is not None and reloaded.coming_back == {2} and reloaded.left[2].user_id == 2
    # The next hand: the seat is his.
    await service.escape(table, 0)  # ends this hand at once (Ann leaves, free before any card)
    assert hand.over and table.seat_of(2) == 2 and not table.coming_back


async def test_at_a_table_that_says_so_the_seat_is_back_at_once_mid_hand(service: Tables) -> None:
    table = await _started(service, returns="now")
    await service.escape(table, 2)
    await service.act(table, Action("pass", 0))
    assert await service.take_seat_back(table, 2) is True and table.seat_of(2) == 2


async def test_a_language_chosen_after_leaving_is_the_seats_when_it_is_taken_back(service: Tables) -> None:
    """Dave leaves, chooses Chinese with /lang in private, and takes his seat back: his hand message speaks
    Chinese (he came back in the language he left in)."""
    table = await _started(service)
    await service.escape(table, 2)
    await service.people.set_language(2, "zh")  # /lang zh in private, as the handler does it
    service.person_speaks(2, "zh")
    assert await service.take_seat_back(table, 2) is True
    seat = table.seats[2]
    assert seat is not None and seat.user_id == 2 and seat.lang == "zh"


async def test_a_hand_settled_after_a_crash_seats_whoever_asked_back(service: Tables) -> None:
    """The bot was killed after storing the move that ended a hand and before settling it: the next start
    settles it, and Dave, who had asked for his seat back from the next hand, has it (he was left to the
    AI for another hand, and the stored match forgot he had left at all: after one more restart he could
    not take the seat back)."""
    table = await _started(service)
    await service.escape(table, 2)
    assert table.match is not None and table.hand_id is not None
    await service.act(table, Action("pass", 0))  # the hand has begun: Ann passed
    assert await service.take_seat_back(table, 2) is False and table.coming_back == {2}
    # Ann's escape is stored, and the bot dies before the hand is settled.
    seq = len(table.match.hand.events) + 1
    await storage.append_event(service.db, table.hand_id, seq, "escape", Action("escape", 0).to_dict())
    again = Tables(service.db, service.config)
    await load_tables(again)
    reloaded = again.get(table.id)
    assert reloaded is not None
    assert reloaded.seat_of(2) == 2 and not reloaded.coming_back and 2 not in reloaded.left
    assert reloaded.seat_of(1) is None and reloaded.left[0].user_id == 1
    assert reloaded.match_id is not None
    match = await storage.get_match(service.db, reloaded.match_id)
    assert match is not None and match.extra["left"] == {"0": 1} and match.extra["coming_back"] == []
    seats = await storage.get_seats(service.db, table.id)
    assert {s.seat: s.user_id for s in seats}[2] == 2


async def test_a_hand_settled_after_a_crash_leaves_its_deadline_behind(service: Tables) -> None:
    """The hand that ended as the bot died was waiting for a move with a deadline (stored): the start that
    settles it does not give that deadline to the next hand (its bidding window closed when the ended turn
    would have, a few minutes on at the relaxed pace, or at once with the reminder's grace)."""
    table = await service.new_table(CHAT, "Back", 1, "en", "yancheng")
    await service.change_setting(table, "pace", "relaxed")
    await service.sit(table, 1, "Ann", "en", 0)
    while not table.full:
        await service.add_ai(table)
    await service.start(table)
    assert table.match is not None and table.hand_id is not None
    ended = table.hand_id
    await storage.update_table(service.db, table.id, turn_deadline=time.time() + 120)  # Ann's turn, 2 min left
    await storage.append_event(service.db, ended, len(table.match.hand.events) + 1, "escape",
                               Action("escape", 0).to_dict())  # stored; the bot dies before settling the hand
    again = Tables(service.db, service.config)
    await load_tables(again)
    reloaded = again.get(table.id)
    assert reloaded is not None and reloaded.hand_id != ended
    assert reloaded.deadline is None


async def test_a_write_of_the_extra_that_waited_for_the_database_stores_the_table_as_it_is_then(
        service: Tables) -> None:
    """A background write of the match's extra (a reminder sent, a pause ended) waits while the database is
    busy with a change of the table: Dave takes his seat back.  It used to compute the extra before it waited,
    and then store that older extra over the newer one: after a restart Dave was listed as having left his
    seat again (the AI's to play, his to ask back)."""
    table = await _started(service)
    await service.escape(table, 2)  # before any card: free, and he may take the seat back at once
    assert table.left.keys() == {2}
    async with table.lock:  # as a handler holds it
        async with service.db.transaction():  # the database is busy with this change of the table
            service.spawn("extra", partial(store_extra, service, table), table)
            await asyncio.sleep(0.05)  # the write starts, and waits for the database
            assert await service.take_seat_back(table, 2) is True
        assert not table.left
    writing = service.tasks.get(f"extra {table.id}")
    if writing is not None:
        await writing
    assert table.match_id is not None
    match = await storage.get_match(service.db, table.match_id)
    assert match is not None and match.extra["left"] == {} and match.extra["coming_back"] == []
    again = Tables(service.db, service.config)
    await load_tables(again)
    reloaded = again.get(table.id)
    assert reloaded is not None and not reloaded.left and reloaded.seat_of(2) == 2
