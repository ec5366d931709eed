"""Deep-link payloads that seat a person who first had to press Start: unguessable, parsed strictly."""

from __future__ import annotations

from bot import links
from bot.config import Settings
from bot.handlers.commands import _seat_request
from bot.model import Table
from bot.tables import Tables

SECRET = "123:secret"


def _tables() -> Tables:
    tables = Tables(db=None, config=Settings(token=SECRET))  # type: ignore[arg-type]
    table = Table(id=7, chat_id=-1, creator_id=1, lang="en")
    table.pending[42] = (2, "Bob")
    tables.register(table)
    return tables


def test_a_seat_button_link_names_table_and_seat() -> None:
    table, seat = _seat_request(_tables(), links.payload(SECRET, 7, 3), 99)  # type: ignore[misc]
    assert table is not None and table.id == 7 and seat == 3


def test_the_lobby_link_gives_a_waiting_person_the_seat_they_asked_for() -> None:
    table, seat = _seat_request(_tables(), links.payload(SECRET, 7), 42)  # type: ignore[misc]
    assert table is not None and seat == 2
    assert _seat_request(_tables(), links.payload(SECRET, 7), 99)[1] is None  # type: ignore[index]


def test_a_guessed_or_forged_payload_seats_nobody() -> None:
    """The old payloads (table and seat only), another table's token, another bot's secret."""
    for payload in ("s7_3", "t7", "s7_3_000000000000", links.payload(SECRET, 8, 3).replace("s8", "s7"),
                    links.payload("999:other", 7, 3), links.payload(SECRET, 7, 3) + "0", "hello"):
        assert _seat_request(_tables(), payload, 42) == (None, None), payload


def test_unknown_tables_and_plain_start() -> None:
    assert _seat_request(_tables(), links.payload(SECRET, 8, 1), 42) == (None, 1)
    assert _seat_request(_tables(), "", 42) is None


def test_tokens_differ_by_table_and_fit_a_payload() -> None:
    tokens = {links.table_token(SECRET, t) for t in range(1000)}
    assert len(tokens) == 1000
    longest = links.payload(SECRET, 10**17, 3)
    assert len(longest) <= 64 and all(c.isalnum() or c in "_-" for c in longest)
