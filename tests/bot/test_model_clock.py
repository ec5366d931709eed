"""A table's turn and clock bookkeeping (``Table.new_turn``, ``Table.read_clock``), with the keys
:func:`bot.tables.turns.turn_key` makes: who a steal round asked first, and the whole seconds a window shows."""

from __future__ import annotations

from tests.bot import builders as T


def test_a_steal_round_notes_the_seat_it_asks_first_and_keeps_it_through_the_round() -> None:
    table = T.make_table()
    table.turn_key = (1, "burying", 40, 0)
    table.turn_shown = 4.0
    table.new_turn((1, "stealing", 41, 2), 100.0)
    assert (table.steal_first, table.turn_since, table.turn_shown) == (2, 100.0, 0.0)
    table.turn_key = (1, "stealing", 41, 2)
    table.turn_shown = 3.0
    table.new_turn((1, "stealing", 42, 3), 130.0)  # the next seat of the same round
    assert (table.steal_first, table.turn_since, table.turn_shown) == (2, 130.0, 0.0)


def test_a_steal_round_after_no_turn_at_all_is_a_new_round_and_other_turns_are_not() -> None:
    table = T.make_table()
    table.turn_key = None
    table.new_turn((2, "stealing", 50, 1), 10.0)
    assert table.steal_first == 1
    table.steal_first = None
    table.turn_key = (2, "stealing", 50, 1)
    for key in ((2, "playing", 60, 1), (3, "bidding"), None):
        table.new_turn(key, 20.0)
        assert table.steal_first is None and table.turn_since == 20.0


def test_the_clock_shows_whole_seconds_left_rounded_up_and_the_bids_it_was_read_at() -> None:
    table, _bid = T.bidding_with_bid("yancheng")
    bids = len(T.hand_of(table).bids)
    assert bids > 0
    table.deadline = 100.0
    for now, shown in ((97.7, 3.0), (99.0, 1.0), (100.0, 0.0), (130.0, 0.0)):
        table.read_clock(now)
        assert (table.clock, table.clock_bids) == (shown, bids), now
    table.deadline = None
    table.read_clock(50.0)
    assert table.clock == 0.0
    table.match = None
    table.read_clock(50.0)
    assert table.clock_bids == 0
