"""A press on the hand keyboard, through its handler (``on_hand_button``) and the real table service's one call
(:meth:`bot.tables.Tables.perform`), with no database: who may press, selecting cards (which copy is ticked),
clearing, the hint, the moves each button makes (the trump a 亮主 button names, a pass with cards selected),
what a refused or failed move is answered, a second press of the same button, the one-tap plays, 🃏 and
「下一局」, coming back after a timeout, a busy table, and a late bid or steal.

The move itself (``bot.tables.play.act``, which stores it) and a come-back (``take_back``, which stores it
too) are replaced, where ``perform`` calls them, by recorders that can fail on request; everything else is
the service's own: the lock, the seat, the keyboard's selection (``table.presses``), staleness, and the
refresh, counted through :meth:`Tables.follow`.

``tests/bot/handlers/test_hand_buttons.py`` covers stale buttons, ``tests/bot/tables/test_perform.py`` the
service over a real database; the end-to-end tests press real keyboards.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from bot import callbacks, story
from bot.config import Settings
from bot.handlers.hand_buttons import on_hand_button, request_of
from bot.i18n import translator
from bot.messages import refusal, storage_refusal
from bot.model import Seat, Table
from bot.presses import Presses
from bot.render_private import one_tap_bids, one_tap_plays, peek_text
from bot.tables import TableError, Tables
from bot.tables import perform as perform_room
from bot.tables.perform import trump_choices
from bot.tables.requests import SELECTING
from bot.tables.turns import turn_key
from engine.cards import Card
from engine.errors import IllegalActionError
from engine.hand import Action
from engine.notices import ThrowFailed
from storage.errors import StorageError, StorageFault
from tests.bot import builders as T

TR = translator("en")
OUT_OF_DATE = "That button is out of date; your hand is shown again."
BACK = "You are back: you play your seat again. Your hand is shown again."
SELECTING_OPS = ("sel", "clear", "hint")
"""The buttons that only change the selection: they carry the hand's version, not the question's."""


class _Room:
    """The real table service with no database, and what ``perform`` was made to do: the moves it sent, the
    come-backs, the hints asked, the refreshes; a move (or a come-back) fails on request."""

    def __init__(self) -> None:
        # The AI seats never wake during a test (their moves would need a database); teardown stops them.
        self.tables = Tables(db=None, config=Settings(token="1:x", ai_delay=3600.0))  # type: ignore[arg-type]
        self.table: Table | None = None
        self.refreshed: list[Table] = []
        self.tables.follow(self.refreshed.append)
        self.moves: list[tuple[int | None, str, tuple[Card, ...], str | None]] = []
        self.fail: Exception | None = None
        self.notices: tuple[Any, ...] = ()
        self.came_back: list[int] = []
        self.back_fails: Exception | None = None
        self.suggestion: tuple[Card, ...] | None = None
        """What the hint suggests (None: the casual player's own choice)."""
        self.hinted: list[int] = []

    def sit(self, table: Table) -> Table:
        self.table = table
        self.tables.register(table)
        return table

    async def act(self, house: Any, table: Table, action: Action) -> Any:
        assert house is self.tables and table is self.table and table.lock.locked()
        if self.fail is not None:
            raise self.fail
        self.moves.append((action.seat, action.kind, tuple(action.cards), action.trump))
        return SimpleNamespace(notices=self.notices)

    async def take_back(self, house: Any, table: Table, seat: int) -> bool:
        assert house is self.tables and table is self.table and table.lock.locked()
        info = table.seats[seat]
        if info is None or not info.timed_out:
            return False
        if self.back_fails is not None:
            raise self.back_fails
        info.timed_out = False
        self.came_back.append(seat)
        return True


@pytest.fixture
async def room(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[_Room]:
    room = _Room()
    real_hint = perform_room.hint

    def hint(house: Any, table: Table, seat: int) -> tuple[Card, ...]:
        assert house is room.tables and table is room.table
        room.hinted.append(seat)
        return real_hint(house, table, seat) if room.suggestion is None else room.suggestion

    monkeypatch.setattr(perform_room, "act", room.act)
    monkeypatch.setattr(perform_room, "take_back", room.take_back)
    monkeypatch.setattr(perform_room, "hint", hint)
    try:
        yield room
    finally:
        await room.tables.tasks.close(timeout=5)


def _table(room: _Room) -> tuple[Table, int]:
    """A yancheng table in the play, at the turn of a seat a person holds."""
    table = room.sit(T.playing("yancheng", tricks=2))
    seat = _person(table)
    T.advance(table, lambda h: h.turn == seat)
    return table, seat


def _person(table: Table) -> int:
    """The first seat a person holds."""
    return next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]


async def _press(room: _Room, seat: int | None, op: str, arg: str = "", *, version: str | None = None,
                 user_id: int | None = None, chat_id: int | None = None) -> list[tuple[str | None, bool]]:
    """The person of ``seat`` presses a hand-keyboard button (``version``: the keyboard's current one) on their
    private hand message (``chat_id``: elsewhere); the answers.  The room's refreshes are counted afresh."""
    table = room.table
    assert table is not None
    if user_id is None:
        info = table.seats[seat] if seat is not None else None
        assert info is not None and info.user_id is not None
        user_id = info.user_id
    if version is None:
        assert seat is not None
        version = table.hand_version(seat) if op in SELECTING_OPS else table.version(seat)
    # The table already waits for this turn (its deadline armed): a move starts no timer and no deadline write.
    table.turn_key, table.deadline = turn_key(table), time.time() + 3600
    room.refreshed.clear()
    answers: list[tuple[str | None, bool]] = []

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    query = SimpleNamespace(from_user=SimpleNamespace(id=user_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=user_id if chat_id is None else chat_id),
                                                    message_id=77))
    decoded = callbacks.decode(callbacks.hand(table.id, version, op, arg))
    assert decoded is not None
    context = SimpleNamespace(bot_data={"tables": room.tables})
    await on_hand_button(context, query, table, decoded, TR)  # type: ignore[arg-type]
    return answers


def test_the_selecting_buttons_are_the_selecting_requests() -> None:
    """``_press`` gives the selecting buttons the hand's version, as the keyboard does."""
    card = T.hand_of(T.make_table()).hands[0][0]
    for op in ("sel", "clear", "hint", "play", "bid", "go"):
        request = request_of(callbacks.Callback("H", 1, op, f"{card}0" if op == "sel" else "", "1.25.p"))
        assert isinstance(request, SELECTING) == (op in SELECTING_OPS), op


# --- who may press ------------------------------------------------------------------------------------------

async def test_only_a_seated_person_in_their_own_chat_while_a_hand_is_played(room: _Room) -> None:
    table, seat = _table(room)
    answers = await _press(room, None, "play", version="x", user_id=555)
    assert answers == [("You are not playing at this table.", True)] and room.moves == [] and room.refreshed == []
    answers = await _press(room, seat, "play", chat_id=-100)  # a hand keyboard pressed elsewhere
    assert answers == [("That button is not valid.", True)] and room.moves == [] and room.refreshed == []
    table.status = "finished"
    answers = await _press(room, seat, "play")
    assert answers == [("No hand is being played at this table.", True)] and room.refreshed == []


async def test_a_keyboard_press_takes_the_seat_back_from_the_web_app_and_notes_the_message(room: _Room) -> None:
    table, seat = _table(room)
    info = table.seats[seat]
    assert info is not None and info.user_id is not None
    info.hand_message_id = None
    room.tables.apps.opened(table.id, seat, info.user_id)
    room.tables.apps.opened(table.id, seat, 9)  # someone else's stream, still open for them
    before = time.time()
    answers = await _press(room, seat, "clear")
    assert answers == [(None, False)] and info.last_active >= before
    assert not room.tables.apps.is_open(table.id, seat, info.user_id) and room.tables.apps.is_open(table.id, seat, 9)
    assert info.hand_message_id == 77
    assert room.refreshed == [table]


# --- selecting ----------------------------------------------------------------------------------------------

async def test_each_copy_of_a_card_is_ticked_and_unticked_on_its_own(room: _Room) -> None:
    table, seat = _table(room)
    hand = T.hand_of(table)
    pair = next((c for c, n in Counter(hand.hands[seat]).items() if n == 2), None)
    single = next(c for c, n in Counter(hand.hands[seat]).items() if n == 1)
    presses = table.presses
    await _press(room, seat, "sel", f"{single}0")
    assert table.selected(seat)[single] == 1 and presses.ticks(seat, single) == {0}
    assert room.refreshed == [table]
    await _press(room, seat, "sel", f"{single}1")  # one copy held: a second tick selects no more
    assert table.selected(seat)[single] == 1 and presses.ticks(seat, single) == {0}
    await _press(room, seat, "sel", f"{single}0")
    assert table.selected(seat)[single] == 0 and presses.ticks(seat, single) == set()
    if pair is not None:
        await _press(room, seat, "sel", f"{pair}1")
        assert table.selected(seat)[pair] == 1 and presses.ticks(seat, pair) == {1}
        await _press(room, seat, "sel", f"{pair}0")
        assert table.selected(seat)[pair] == 2 and presses.ticks(seat, pair) == {0, 1}
        await _press(room, seat, "sel", f"{pair}1")
        assert table.selected(seat)[pair] == 1 and presses.ticks(seat, pair) == {0}
    assert room.moves == []


async def test_a_tap_after_a_hint_unticks_the_copy_tapped(room: _Room) -> None:
    """A hint selects the first copies; tapping the second copy of a hinted pair then leaves the first."""
    table, seat = _table(room)
    pair = next(c for c, n in Counter(T.hand_of(table).hands[seat]).items() if n == 2)
    room.suggestion = (pair, pair)
    await _press(room, seat, "hint")
    assert room.hinted == [seat] and table.presses.ticks(seat, pair) is None  # selected by the hint
    await _press(room, seat, "sel", f"{pair}1")
    assert table.selected(seat)[pair] == 1 and table.presses.ticks(seat, pair) == {0}


async def test_in_the_bidding_cards_are_selected_with_the_hands_version_and_moves_need_the_questions(
        room: _Room) -> None:
    table = room.sit(T.bidding_fresh("yancheng"))
    seat = 0
    card = T.hand_of(table).hands[seat][0]
    assert table.version(seat) != table.hand_version(seat)
    answers = await _press(room, seat, "sel", f"{card}0", version=table.hand_version(seat))
    assert answers == [(None, False)] and table.selected(seat)[card] == 1
    answers = await _press(room, seat, "bid", version=table.hand_version(seat))
    assert answers == [(OUT_OF_DATE, True)] and room.moves == [] and table.selected(seat)[card] == 1


async def test_a_card_not_in_the_hand_is_out_of_date(room: _Room) -> None:
    table, seat = _table(room)
    missing = next(c for c in T.hand_of(table).hands[(seat + 1) % 4] if c not in T.hand_of(table).hands[seat])
    answers = await _press(room, seat, "sel", f"{missing}0")
    assert answers == [(OUT_OF_DATE, True)] and not table.selected(seat) and room.refreshed == [table]


async def test_a_hint_replaces_the_selection_and_clear_empties_it(room: _Room) -> None:
    table, seat = _table(room)
    cards = T.hand_of(table).hands[seat]
    await _press(room, seat, "sel", f"{cards[0]}0")
    room.suggestion = (cards[-1],)
    answers = await _press(room, seat, "hint")
    assert answers == [(None, False)] and table.selected(seat) == Counter([cards[-1]])
    assert table.presses.ticks(seat, cards[0]) is None and table.presses.ticks(seat, cards[-1]) is None
    assert room.hinted == [seat] and room.refreshed == [table]
    room.suggestion = ()
    answers = await _press(room, seat, "hint")  # nothing to suggest: the selection is emptied
    assert answers == [("Nothing to suggest now.", True)] and not +table.selected(seat)
    await _press(room, seat, "sel", f"{cards[0]}0")
    answers = await _press(room, seat, "clear")
    assert answers == [(None, False)] and not +table.selected(seat) and table.presses.ticks(seat, cards[0]) is None
    assert room.refreshed == [table] and room.moves == []


async def test_the_casual_players_hint_is_selected(room: _Room) -> None:
    """The control of the hints above: with no suggestion set, the service's own hint is selected."""
    table, seat = _table(room)
    answers = await _press(room, seat, "hint")
    assert answers == [(None, False)] and room.hinted == [seat]
    assert +table.selected(seat) and not table.selected(seat) - Counter(T.hand_of(table).hands[seat])


# --- moves --------------------------------------------------------------------------------------------------

async def test_play_sends_the_selected_cards_once(room: _Room) -> None:
    table, seat = _table(room)
    card = T.hand_of(table).hands[seat][0]
    answers = await _press(room, seat, "play")
    assert answers == [("Select the cards first.", True)] and room.moves == [] and room.refreshed == [table]
    await _press(room, seat, "sel", f"{card}0")
    version = table.version(seat)
    answers = await _press(room, seat, "play")
    assert answers == [(None, False)] and room.moves == [(seat, "play", (card,), None)]
    assert room.refreshed == [table], "a move refreshes once"
    assert not table.selected(seat), "a move clears the selection"
    assert table.presses.already(seat, version, "play", table.version(seat))
    answers = await _press(room, seat, "play", version=version)  # the same button again
    assert answers == [("You have already done that.", True)] and len(room.moves) == 1


async def test_after_a_restart_an_empty_selection_is_explained_once(room: _Room) -> None:
    table, seat = _table(room)
    table.presses.restarted()
    answers = await _press(room, seat, "play")
    assert answers == [("I restarted and your selection was lost; your hand is shown again: select the cards "
                        "again.", True)]
    answers = await _press(room, seat, "play")
    assert answers == [("Select the cards first.", True)] and room.moves == []
    table.presses.restarted()
    await _press(room, seat, "clear")  # any selecting press is the person choosing again
    assert not table.presses.lost(seat)
    assert table.presses.lost((seat + 1) % 4), "the other seats' loss is still to be told"


@pytest.mark.parametrize(("op", "arg", "kind", "trump"), [
    ("bid", "", "bid", None), ("steal", "", "steal", None), ("bury", "", "bury", None),
    ("trump", "bid-H", "bid", "H"), ("trump", "steal-S", "steal", "S"), ("trump", "bid-NT", "bid", None),
    ("trump", "bid-D", "bid", "D"), ("trump", "steal-C", "steal", "C"),
])
async def test_each_button_makes_its_move(room: _Room, op: str, arg: str, kind: str, trump: str | None) -> None:
    table, seat = _table(room)
    card = T.hand_of(table).hands[seat][0]
    await _press(room, seat, "sel", f"{card}0")
    version = table.version(seat)
    answers = await _press(room, seat, op, arg)
    assert answers == [(None, False)] and room.moves == [(seat, kind, (card,), trump)]
    assert table.presses.already(seat, version, op, table.version(seat)), "the button pressed is remembered"


async def test_a_red_five_pair_bid_asks_for_its_trump_then_its_button_names_it(room: _Room) -> None:
    """A bid whose cards name no trump is not sent: the keyboard shows the trumps (no-trump among them for
    a red-five pair), and the 亮主 button pressed then sends the bid with the trump it names."""
    table, seat = T.pair_selected("yancheng", "5H")
    room.sit(table)
    five = Card.parse("5H")
    answers = await _press(room, seat, "bid")
    assert answers == [("Choose the trump suit for this bid.", True)] and room.moves == []
    assert room.refreshed == [table] and table.selected(seat)[five] == 2, "the keyboard is redrawn, still selected"
    answers = await _press(room, seat, "trump", "bid-NT")
    assert answers == [(None, False)] and room.moves == [(seat, "bid", (five, five), None)]


async def test_a_one_tap_bid_sends_the_cards_its_button_named(room: _Room) -> None:
    """「▶ 亮主 ♦2」: one press bids those cards, whatever is selected; pressed again, it is already done."""
    table = room.sit(T.bidding_fresh("yancheng", 14))
    seat, cards = next((s, taps[0]) for s in range(4) if not table.seats[s].is_ai  # type: ignore[union-attr]
                       and (taps := one_tap_bids(table, table.view(s))) and not trump_choices(table, taps[0]))
    version = table.version(seat)
    answers = await _press(room, seat, "tap", callbacks.tap_arg("bid", cards))
    assert answers == [(None, False)] and room.moves == [(seat, "bid", cards, None)]
    assert table.presses.already(seat, version, "tap", table.version(seat))
    answers = await _press(room, seat, "tap", callbacks.tap_arg("bid", cards), version=version)
    assert answers == [("You have already done that.", True)] and len(room.moves) == 1


async def test_a_one_tap_bid_whose_cards_name_no_trump_asks_for_it_with_those_cards_selected(room: _Room) -> None:
    table, seat = T.pair_selected("yancheng", "5H")
    room.sit(table)
    table.presses.clear(seat)
    five = Card.parse("5H")
    assert (five, five) in one_tap_bids(table, table.view(seat))
    answers = await _press(room, seat, "tap", callbacks.tap_arg("bid", (five, five)))
    assert answers == [("Choose the trump suit for this bid.", True)] and room.moves == []
    assert table.selected(seat)[five] == 2 and room.refreshed == [table], "the keyboard shows the trumps"
    answers = await _press(room, seat, "trump", "bid-H")
    assert answers == [(None, False)] and room.moves == [(seat, "bid", (five, five), "H")]


async def test_a_one_tap_steal_sends_its_pair(room: _Room) -> None:
    table, thief = T.steal_turn("anhui")  # a pair of level cards: it names its trump
    table.seats[thief] = Seat(100 + thief, "Thief", lang="en")  # a person holds the seat asked to steal
    room.sit(table)
    pair = one_tap_bids(table, table.view(thief))[0]
    answers = await _press(room, thief, "tap", callbacks.tap_arg("steal", pair))
    assert answers == [(None, False)] and room.moves == [(thief, "steal", pair, None)]


async def test_a_one_tap_bid_drawn_before_another_bid_is_out_of_date(room: _Room) -> None:
    table = room.sit(T.bidding_fresh("yancheng", 14))
    seat, cards = next((s, taps[0]) for s in range(4) if not table.seats[s].is_ai  # type: ignore[union-attr]
                       and (taps := one_tap_bids(table, table.view(s))))
    version = table.version(seat)
    T.hand_of(table).apply(Action("pass", (seat + 1) % 4))  # the table moved on after the keyboard was drawn
    answers = await _press(room, seat, "tap", callbacks.tap_arg("bid", cards), version=version)
    assert answers[0][1] and room.moves == []


@pytest.mark.parametrize(("op", "kind"), [("pass", "pass"), ("nosteal", "pass_steal")])
async def test_a_pass_sends_no_cards_whatever_is_selected(room: _Room, op: str, kind: str) -> None:
    table = room.sit(T.bidding_fresh("yancheng"))
    seat = _person(table)
    await _press(room, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    answers = await _press(room, seat, op)
    assert answers == [(None, False)] and room.moves == [(seat, kind, (), None)]


async def test_a_second_pass_in_a_round_is_already_done(room: _Room) -> None:
    table = room.sit(T.bidding_fresh("yancheng"))
    seat = _person(table)
    T.hand_of(table).passed.add(seat)
    answers = await _press(room, seat, "pass")
    assert answers == [("You have already done that.", True)] and room.moves == []


@pytest.mark.parametrize(("op", "arg"), [("trump", "bid-X"), ("trump", "look-H"), ("trump", "bid")])
async def test_a_button_the_keyboard_never_draws_is_not_valid(room: _Room, op: str, arg: str) -> None:
    table, seat = _table(room)
    await _press(room, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    answers = await _press(room, seat, op, arg)
    assert answers == [("That button is not valid.", True)] and room.moves == [] and room.refreshed == []


async def test_a_refused_or_failed_move_is_answered_with_why(room: _Room) -> None:
    table, seat = _table(room)
    card = T.hand_of(table).hands[seat][0]
    await _press(room, seat, "sel", f"{card}0")
    version = table.version(seat)
    illegal = IllegalActionError("must follow suit")
    fault = StorageFault("disk full", written=False)
    for error, expected in ((illegal, refusal(TR, illegal, table.settings.ruleset())),
                            (TableError("The table has ended."), "The table has ended."),
                            (fault, storage_refusal(TR, fault)),
                            (StorageError("a bug"), "I could not save your move; nothing changed. Please try again.")):
        room.fail = error
        answers = await _press(room, seat, "play")
        assert answers == [(expected, True)] and room.refreshed == [table], error
        assert room.moves == [] and table.selected(seat)[card] == 1, "nothing changed: the selection stays"
        assert not table.presses.already(seat, version, "play", table.version(seat)), "the press may be tried again"


async def test_a_failed_throw_is_told_to_the_thrower_only(room: _Room) -> None:
    table, seat = _table(room)
    await _press(room, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    cards = tuple(T.hand_of(table).hands[seat][:1])
    mine = ThrowFailed(1, seat, cards, cards, (seat + 1) % 4, cards, 10)
    room.notices = (ThrowFailed(1, (seat + 2) % 4, cards, cards, seat, cards, 10), mine)
    answers = await _press(room, seat, "play")
    assert answers == [(story.throw_failed(TR, mine), True)]
    room.notices = (ThrowFailed(1, (seat + 2) % 4, cards, cards, seat, cards, 10),)  # someone else's throw
    await _press(room, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    answers = await _press(room, seat, "bury")
    assert answers == [(None, False)]


# --- one-tap plays, 🃏 and 「下一局」 -------------------------------------------------------------------------

async def test_a_one_tap_play_sends_the_cards_its_button_showed(room: _Room) -> None:
    table, seat = _table(room)
    plays = one_tap_plays(table, seat)
    assert plays
    for arg in ("", "0"):  # "": a button from before the choices, the hint's play
        room.moves.clear()
        answers = await _press(room, seat, "go", arg)
        assert answers == [(None, False)] and room.moves == [(seat, "play", plays[0], None)]
        table.presses = Presses()  # the press is forgotten: the same button again would be "already"
    room.moves.clear()
    for arg in (str(len(plays)), "x"):
        answers = await _press(room, seat, "go", arg)
        assert answers == [(OUT_OF_DATE, True)] and room.moves == []
    last = len(plays) - 1
    version = table.version(seat)
    answers = await _press(room, seat, "go", str(last))
    assert answers == [(None, False)] and room.moves == [(seat, "play", plays[last], None)]
    assert table.presses.already(seat, version, "go", table.version(seat))
    answers = await _press(room, seat, "go", "0", version=version)
    assert answers == [("You have already done that.", True)] and len(room.moves) == 1


async def test_a_one_tap_play_out_of_turn_is_not_valid(room: _Room) -> None:
    table, seat = _table(room)
    T.step(table)  # the seat plays (as the AI would): no longer its turn
    assert T.hand_of(table).turn != seat
    answers = await _press(room, seat, "go", "0")
    assert answers == [("That button is not valid.", True)] and room.moves == []


async def test_the_peek_and_the_next_hand_buttons(room: _Room) -> None:
    table, seat = _table(room)
    answers = await _press(room, seat, "peek", version="0", chat_id=table.chat_id)  # 🃏 is pressed in the group
    assert answers == [(peek_text(TR, table, seat), True)]
    answers = await _press(room, None, "peek", version="0", user_id=555, chat_id=table.chat_id)
    assert answers == [("You are not playing at this table.", True)]
    assert table.match is not None
    deals = str(table.match.deals)
    table.between_hands = time.time() + 3600  # the pause after a hand
    answers = await _press(room, seat, "next", version=deals, chat_id=table.chat_id)
    assert answers == [("The next hand starts in a moment.", True)] and table.between_hands is not None, \
        "no 「下一局」 is offered at the real-time pace: a forged press does not cut the pause short"
    table.settings = replace(table.settings, pace="relaxed")  # where the pause waits for 「下一局」
    answers = await _press(room, seat, "next", version=str(table.match.deals + 1), chat_id=table.chat_id)
    assert answers == [("That button is out of date.", True)] and table.between_hands is not None
    answers = await _press(room, seat, "next", version=deals, chat_id=table.chat_id)
    assert answers == [(None, False)] and table.between_hands is None and room.refreshed == [table]
    answers = await _press(room, seat, "next", version=deals, chat_id=table.chat_id)  # the pause is over
    assert answers == [("That button is out of date.", True)]
    assert room.moves == []


async def test_someone_the_ai_played_for_is_back_with_any_press(room: _Room) -> None:
    table, seat = _table(room)
    info = table.seats[seat]
    assert info is not None
    info.timed_out = True
    answers = await _press(room, seat, "play", version="0.0.0")  # an old button
    assert room.came_back == [seat] and not info.timed_out and room.refreshed == [table]
    assert answers == [(BACK, True)] and room.moves == []
    # A come-back is a change: what follows one runs (the AI seats are looked at again), not a redraw only.
    assert room.tables.tasks.get(f"ai {table.id}") is not None
    info.timed_out = True
    answers = await _press(room, seat, "clear")  # a current one: carried out, too, and they are told they are back
    assert room.came_back == [seat, seat] and room.refreshed == [table]
    assert answers == [("You are back: you play your seat again.", False)]
    answers = await _press(room, seat, "play", version="0.0.0")  # present now: only out of date
    assert answers == [(OUT_OF_DATE, True)] and room.came_back == [seat, seat]


@pytest.mark.parametrize(("error", "expected"), [
    (StorageError("a bug"), "I could not save that; nothing changed. Please try again."),
    (StorageFault("disk full", written=False), None),
])
async def test_a_failed_come_back_is_answered_and_nothing_moves(room: _Room, caplog: pytest.LogCaptureFixture,
                                                                error: StorageError, expected: str | None) -> None:
    table, seat = _table(room)
    info = table.seats[seat]
    assert info is not None
    info.timed_out = True
    card = T.hand_of(table).hands[seat][0]
    table.presses.replace(seat, [card])
    room.back_fails = error
    answers = await _press(room, seat, "play")
    if expected is None:
        assert isinstance(error, StorageFault)
        expected = storage_refusal(TR, error)
    assert answers == [(expected, True)] and room.moves == [] and room.came_back == []
    assert info.timed_out and table.selected(seat)[card] == 1
    bugs = [r for r in caplog.records if r.name == perform_room.__name__ and r.levelname == "ERROR"]
    assert len(bugs) == (0 if isinstance(error, StorageFault) else 1), "a bug is logged, a fault was already"


@pytest.mark.parametrize(("op", "arg"), [("bid", ""), ("pass", ""), ("trump", "bid-H")])
async def test_a_bid_pressed_after_the_bidding_closed_is_told_so(room: _Room, op: str, arg: str) -> None:
    table = room.sit(T.bidding_fresh("yancheng"))
    seat = 0
    old = table.version(seat)
    T.advance(table, lambda h: h.phase == "playing")
    answers = await _press(room, seat, op, arg, version=old)
    assert answers == [("Bidding is closed; your hand is shown again.", True)] and room.moves == []
    assert room.refreshed == [table]
    answers = await _press(room, seat, "play", version=old)  # not a bidding button: just out of date
    assert answers == [(OUT_OF_DATE, True)]
    info = table.seats[seat]
    assert info is not None
    info.timed_out = True  # away when the late bid comes: told both, the bidding's end first
    answers = await _press(room, seat, op, arg, version=old)
    assert answers == [("Bidding is closed; your hand is shown again. You are back: you play your seat again.", True)]
    assert room.moves == []


@pytest.mark.parametrize(("op", "arg"), [("steal", ""), ("nosteal", ""), ("trump", "steal-S")])
async def test_a_steal_pressed_after_its_turn_is_told_so(room: _Room, op: str, arg: str) -> None:
    table = room.sit(T.stealing("yancheng"))
    hand = T.hand_of(table)
    assert hand.phase == "stealing" and hand.turn is not None
    seat = hand.turn
    table.seats[seat] = Seat(100 + seat, T.NAMES[seat], lang="zh")  # a person holds the seat asked to steal
    old = table.version(seat)
    T.advance(table, lambda h: h.phase == "playing")
    answers = await _press(room, seat, op, arg, version=old)
    assert answers == [("Your steal turn is closed; your hand is shown again.", True)] and room.moves == []


async def test_a_press_on_a_busy_table_is_asked_to_wait(room: _Room, monkeypatch: pytest.MonkeyPatch) -> None:
    table, seat = _table(room)
    monkeypatch.setattr(perform_room, "PRESS_WAIT", 0.01)
    card = T.hand_of(table).hands[seat][0]
    table.presses.replace(seat, [card])
    await table.lock.acquire()
    try:
        answers = await _press(room, seat, "play")
    finally:
        table.lock.release()
    assert answers == [("The table is busy; please try again in a moment.", True)]
    assert room.refreshed == [] and room.moves == [] and table.selected(seat)[card] == 1
    await asyncio.wait_for(table.lock.acquire(), 1)  # the press left the lock as it found it
    table.lock.release()
