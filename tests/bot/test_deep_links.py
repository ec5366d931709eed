"""Deep-link payloads that seat a person who first had to press Start."""

from __future__ import annotations

from bot.config import Settings
from bot.handlers import _seat_request
from bot.model import Table
from bot.service import Tables


def _tables() -> Tables:
    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    table = Table(id=7, chat_id=-1, creator_id=1, lang="en")
    table.pending[42] = (2, "Bob")
    tables._register(table)
    return tables


def test_a_seat_button_link_names_table_and_seat() -> None:
    table, seat = _seat_request(_tables(), "s7_3", 99)  # type: ignore[misc]
    assert table is not None and table.id == 7 and seat == 3


def test_the_lobby_link_gives_a_waiting_person_the_seat_they_asked_for() -> None:
    table, seat = _seat_request(_tables(), "t7", 42)  # type: ignore[misc]
    assert table is not None and seat == 2
    assert _seat_request(_tables(), "t7", 99)[1] is None  # type: ignore[index]


def test_unknown_tables_and_other_payloads() -> None:
    assert _seat_request(_tables(), "s8_1", 42) == (None, 1)
    assert _seat_request(_tables(), "", 42) is None
    assert _seat_request(_tables(), "hello", 42) is None
    assert _seat_request(_tables(), "tx", 42) is None
