"""When a stream must stop showing its seat (bot.webapp.events.why_it_ends), and whose app counts as open."""

from __future__ import annotations

import time

from bot.config import Settings
from bot.model import Seat, Table
from bot.tables import Tables
from bot.webapp.events import End, why_it_ends
from bot.webapp.streams import Ticket
from tests.bot import builders as T


def seated() -> tuple[Tables, Table]:
    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    table = T.make_table()
    tables.register(table)
    return tables, table


def ticket(user_id: int = 100, seat: int = 0, age: float = 0.0) -> Ticket:
    return Ticket(user_id, T.TABLE_ID, seat, int(time.time() - age), "zh", time.monotonic() + 30)


def test_a_stream_shows_its_seat_while_its_person_holds_it_present() -> None:
    tables, table = seated()
    assert why_it_ends(tables, table, ticket(), 3600) is None


def test_each_way_of_losing_the_seat_ends_the_stream_saying_why() -> None:
    tables, table = seated()
    assert why_it_ends(tables, table, ticket(age=3601), 3600) == End("left", "expired")
    info = table.seats[0]
    assert info is not None
    info.timed_out = True
    assert why_it_ends(tables, table, ticket(), 3600) == End("left", "away")
    table.seats[0] = Seat(None, "AI", is_ai=True)
    assert why_it_ends(tables, table, ticket(), 3600) == End("left", "seat")
    table.seats[0] = Seat(555, "Carol")
    assert why_it_ends(tables, table, ticket(), 3600) == End("left", "seat")
    tables.unregister(table)
    assert why_it_ends(tables, table, ticket(), 3600) == End("closed", "table")


def test_the_app_counts_as_open_for_the_person_who_opened_it_only() -> None:
    tables, table = seated()
    tables.apps.opened(T.TABLE_ID, 0, 100)
    assert tables.app_open(table, 0)
    table.seats[0] = Seat(555, "Carol")
    assert not tables.app_open(table, 0), "a leaver's stream holds back nobody else's hand message"
    table.seats[0] = None
    assert not tables.app_open(table, 0)
