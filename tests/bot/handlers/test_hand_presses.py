"""A press on the hand keyboard, through its handler (``on_hand_button``), with a table service that records
what it is asked: who may press, selecting cards (which copy is ticked), clearing, the hint, the moves each
button makes (the trump a 亮主 button names, a pass with cards selected), what a refused or failed move is
answered, a second press of the same button, the one-tap plays, 🃏 and 「下一局」, and a busy table.

``tests/bot/test_hand_buttons.py`` covers stale buttons; the end-to-end tests press real keyboards.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from bot import callbacks, story
from bot.handlers import hand_buttons
from bot.handlers.hand_buttons import on_hand_button
from bot.i18n import translator
from bot.messages import refusal, storage_refusal
from bot.model import Seat, Table
from bot.render_private import one_tap_plays, peek_text
from bot.tables import TableError
from engine.cards import Card
from engine.errors import IllegalActionError
from engine.notices import ThrowFailed
from storage.errors import StorageError, StorageFault
from tests.bot import builders as T

TR = translator("en")
OUT_OF_DATE = "That button is out of date; your hand is shown again."


class _Service:
    """The table service as the handler sees it: records moves, hints, refreshes; fails a move on request."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.app_seats: dict[tuple[int, int, int], int] = {}
        self.refreshed: list[int | None] = []
        self.moves: list[tuple[int, str, tuple[Card, ...], str | None]] = []
        self.suggestion: Counter[Card] = Counter()
        self.fail: Exception | None = None
        self.notices: tuple[Any, ...] = ()
        self.next_hands = 0
        self.came_back: list[int] = []
        self.back_fails: Exception | None = None

    def refresh(self, table: Table, *, pressed: int | None = None) -> None:
        assert table is self.table
        self.refreshed.append(pressed)

    async def move(self, table: Table, seat: int, kind: str, cards: tuple[Card, ...], trump: str | None) -> Any:
        assert table is self.table
        if self.fail is not None:
            raise self.fail
        self.moves.append((seat, kind, tuple(cards), trump))
        return SimpleNamespace(notices=self.notices)

    def hint(self, table: Table, seat: int) -> Counter[Card]:
        assert table is self.table and table.seat_of(100 + seat) == seat
        return Counter(self.suggestion)

    def next_hand(self, table: Table) -> None:
        assert table is self.table
        if self.fail is not None:
            raise self.fail
        self.next_hands += 1

    async def come_back(self, table: Table, seat: int) -> bool:
        assert table is self.table
        if self.back_fails is not None:
            raise self.back_fails
        self.came_back.append(seat)
        return True


def _table() -> tuple[Table, int]:
    """A yancheng table in the play, at the turn of a seat a person holds."""
    table = T.playing("yancheng", tricks=2)
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    T.advance(table, lambda h: h.turn == seat)
    return table, seat


async def _press(table: Table, seat: int | None, op: str, arg: str = "", *, version: str | None = None,
                 service: _Service | None = None, user_id: int | None = None, chat_id: int | None = None,
                 ) -> tuple[list[tuple[str | None, bool]], _Service]:
    """The person of ``seat`` presses a hand-keyboard button (``version``: the keyboard's current one)."""
    service = service or _Service()
    service.table = table
    if user_id is None:
        info = table.seats[seat] if seat is not None else None
        assert info is not None and info.user_id is not None
        user_id = info.user_id
    if version is None:
        assert seat is not None
        version = table.hand_version(seat) if op in hand_buttons.SELECTING else table.version(seat)
    answers: list[tuple[str | None, bool]] = []

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    query = SimpleNamespace(from_user=SimpleNamespace(id=user_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=user_id if chat_id is None else chat_id),
                                                    message_id=77))
    decoded = callbacks.decode(callbacks.hand(table.id, version, op, arg))
    assert decoded is not None
    context = SimpleNamespace(bot_data={"tables": service})
    await on_hand_button(context, query, table, decoded, TR)  # type: ignore[arg-type]
    return answers, service


# --- who may press ------------------------------------------------------------------------------------------

async def test_only_a_seated_person_in_their_own_chat_while_a_hand_is_played() -> None:
    table, seat = _table()
    answers, service = await _press(table, None, "play", version="x", user_id=555)
    assert answers == [("You are not playing at this table.", True)] and service.moves == []
    answers, service = await _press(table, seat, "play", chat_id=-100)  # a hand keyboard pressed elsewhere
    assert answers == [("That button is not valid.", True)] and service.moves == [] and service.refreshed == []
    table.status = "finished"
    answers, service = await _press(table, seat, "play")
    assert answers == [("No hand is being played at this table.", True)]


async def test_a_keyboard_press_takes_the_seat_back_from_the_web_app_and_notes_the_message() -> None:
    table, seat = _table()
    info = table.seats[seat]
    assert info is not None and info.user_id is not None
    info.hand_message_id = None
    service = _Service()
    service.app_seats[(table.id, seat, info.user_id)] = 1
    service.app_seats[(table.id, seat, 9)] = 1
    before = time.time()
    answers, _ = await _press(table, seat, "clear", service=service)
    assert answers == [(None, False)] and info.last_active >= before
    assert service.app_seats == {(table.id, seat, 9): 1} and info.hand_message_id == 77
    assert service.refreshed == [seat]


# --- selecting ----------------------------------------------------------------------------------------------

async def test_each_copy_of_a_card_is_ticked_and_unticked_on_its_own() -> None:
    table, seat = _table()
    hand = T.hand_of(table)
    pair = next((c for c, n in Counter(hand.hands[seat]).items() if n == 2), None)
    single = next(c for c, n in Counter(hand.hands[seat]).items() if n == 1)
    await _press(table, seat, "sel", f"{single}0")
    assert table.selected(seat)[single] == 1 and table.ticked[seat][single] == {0}
    await _press(table, seat, "sel", f"{single}1")  # one copy held: a second tick selects no more
    assert table.selected(seat)[single] == 1
    await _press(table, seat, "sel", f"{single}0")
    assert table.selected(seat)[single] == 0 and table.ticked[seat][single] == set()
    if pair is not None:
        await _press(table, seat, "sel", f"{pair}1")
        assert table.selected(seat)[pair] == 1 and table.ticked[seat][pair] == {1}
        await _press(table, seat, "sel", f"{pair}0")
        assert table.selected(seat)[pair] == 2 and table.ticked[seat][pair] == {0, 1}
        await _press(table, seat, "sel", f"{pair}1")
        assert table.selected(seat)[pair] == 1 and table.ticked[seat][pair] == {0}


async def test_a_tap_after_a_hint_unticks_the_copy_tapped() -> None:
    """A hint selects the first copies; tapping the second copy of a hinted pair then leaves the first."""
    table, seat = _table()
    pair = next(c for c, n in Counter(T.hand_of(table).hands[seat]).items() if n == 2)
    service = _Service()
    service.suggestion = Counter({pair: 2})
    await _press(table, seat, "hint", service=service)
    await _press(table, seat, "sel", f"{pair}1")
    assert table.selected(seat)[pair] == 1 and table.ticked[seat][pair] == {0}


async def test_in_the_bidding_cards_are_selected_with_the_hands_version_and_moves_need_the_questions() -> None:
    table = T.bidding_fresh("yancheng")
    seat = 0
    card = T.hand_of(table).hands[seat][0]
    assert table.version(seat) != table.hand_version(seat)
    answers, _ = await _press(table, seat, "sel", f"{card}0", version=table.hand_version(seat))
    assert answers == [(None, False)] and table.selected(seat)[card] == 1
    answers, service = await _press(table, seat, "bid", version=table.hand_version(seat))
    assert answers == [(OUT_OF_DATE, True)] and service.moves == []


async def test_a_card_not_in_the_hand_is_out_of_date() -> None:
    table, seat = _table()
    missing = next(c for c in T.hand_of(table).hands[(seat + 1) % 4] if c not in T.hand_of(table).hands[seat])
    answers, service = await _press(table, seat, "sel", f"{missing}0")
    assert answers == [(OUT_OF_DATE, True)] and not table.selected(seat) and service.refreshed == [seat]


async def test_a_hint_replaces_the_selection_and_clear_empties_it() -> None:
    table, seat = _table()
    cards = T.hand_of(table).hands[seat]
    await _press(table, seat, "sel", f"{cards[0]}0")
    service = _Service()
    service.suggestion = Counter([cards[-1]])
    answers, _ = await _press(table, seat, "hint", service=service)
    assert answers == [(None, False)] and table.selected(seat) == Counter([cards[-1]]) and seat not in table.ticked
    answers, _ = await _press(table, seat, "hint")  # nothing to suggest: the selection is emptied
    assert answers == [("Nothing to suggest now.", True)] and not +table.selected(seat)
    await _press(table, seat, "sel", f"{cards[0]}0")
    await _press(table, seat, "clear")
    assert not +table.selected(seat) and seat not in table.ticked


# --- moves --------------------------------------------------------------------------------------------------

async def test_play_sends_the_selected_cards_once() -> None:
    table, seat = _table()
    card = T.hand_of(table).hands[seat][0]
    answers, _ = await _press(table, seat, "play")
    assert answers == [("Select the cards first.", True)]
    await _press(table, seat, "sel", f"{card}0")
    version = table.version(seat)
    answers, service = await _press(table, seat, "play")
    assert answers == [(None, False)] and service.moves == [(seat, "play", (card,), None)]
    assert table.acted[seat] == (version, "play", version)
    answers, service = await _press(table, seat, "play", version=version)  # the same button again
    assert answers == [("You have already done that.", True)] and service.moves == []


async def test_after_a_restart_an_empty_selection_is_explained_once() -> None:
    table, seat = _table()
    table.restarted.add(seat)
    answers, _ = await _press(table, seat, "play")
    assert answers == [("I restarted and your selection was lost; your hand is shown again: select the cards "
                        "again.", True)]
    assert seat not in table.restarted
    answers, _ = await _press(table, seat, "play")
    assert answers == [("Select the cards first.", True)]
    table.restarted.add(seat)
    await _press(table, seat, "clear")  # any selecting press is the person choosing again
    assert seat not in table.restarted


@pytest.mark.parametrize(("op", "arg", "kind", "trump"), [
    ("bid", "", "bid", None), ("steal", "", "steal", None), ("bury", "", "bury", None),
    ("trump", "bid-H", "bid", "H"), ("trump", "steal-S", "steal", "S"), ("trump", "bid-NT", "bid", None),
    ("trump", "bid-D", "bid", "D"), ("trump", "steal-C", "steal", "C"),
])
async def test_each_button_makes_its_move(op: str, arg: str, kind: str, trump: str | None) -> None:
    table, seat = _table()
    card = T.hand_of(table).hands[seat][0]
    await _press(table, seat, "sel", f"{card}0")
    answers, service = await _press(table, seat, op, arg)
    assert answers == [(None, False)] and service.moves == [(seat, kind, (card,), trump)]


@pytest.mark.parametrize(("op", "kind"), [("pass", "pass"), ("nosteal", "pass_steal")])
async def test_a_pass_sends_no_cards_whatever_is_selected(op: str, kind: str) -> None:
    table = T.bidding_fresh("yancheng")
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    await _press(table, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    answers, service = await _press(table, seat, op)
    assert answers == [(None, False)] and service.moves == [(seat, kind, (), None)]


async def test_a_second_pass_in_a_round_is_already_done() -> None:
    table = T.bidding_fresh("yancheng")
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    T.hand_of(table).passed.add(seat)
    answers, service = await _press(table, seat, "pass")
    assert answers == [("You have already done that.", True)] and service.moves == []


@pytest.mark.parametrize(("op", "arg"), [("trump", "bid-X"), ("trump", "look-H"), ("trump", "bid")])
async def test_a_button_the_keyboard_never_draws_is_not_valid(op: str, arg: str) -> None:
    table, seat = _table()
    await _press(table, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    answers, service = await _press(table, seat, op, arg)
    assert answers == [("That button is not valid.", True)] and service.moves == []


async def test_a_refused_or_failed_move_is_answered_with_why() -> None:
    table, seat = _table()
    await _press(table, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    illegal = IllegalActionError("must follow suit")
    fault = StorageFault("disk full", written=False)
    for error, expected in ((illegal, refusal(TR, illegal, table.settings.ruleset())),
                            (TableError("The table has ended."), "The table has ended."),
                            (fault, storage_refusal(TR, fault))):
        service = _Service()
        service.fail = error
        answers, _ = await _press(table, seat, "play", service=service)
        assert answers == [(expected, True)] and service.refreshed == [seat]
        assert seat not in table.acted


async def test_a_failed_throw_is_told_to_the_thrower_only() -> None:
    table, seat = _table()
    await _press(table, seat, "sel", f"{T.hand_of(table).hands[seat][0]}0")
    cards = tuple(T.hand_of(table).hands[seat][:1])
    mine = ThrowFailed(1, seat, cards, cards, (seat + 1) % 4, cards, 10)
    service = _Service()
    service.notices = (ThrowFailed(1, (seat + 2) % 4, cards, cards, seat, cards, 10), mine)
    answers, _ = await _press(table, seat, "play", service=service)
    assert answers == [(story.throw_failed(TR, mine), True)]


# --- one-tap plays, 🃏 and 「下一局」 -------------------------------------------------------------------------

async def test_a_one_tap_play_sends_the_cards_its_button_showed() -> None:
    table, seat = _table()
    plays = one_tap_plays(table, seat)
    assert plays
    for arg in ("", "0"):  # "": a button from before the choices, the hint's play
        answers, service = await _press(table, seat, "go", arg)
        assert answers == [(None, False)] and service.moves == [(seat, "play", plays[0], None)]
        del table.acted[seat]
    for arg in (str(len(plays)), "x"):
        answers, service = await _press(table, seat, "go", arg)
        assert answers == [(OUT_OF_DATE, True)] and service.moves == []
    last = len(plays) - 1
    version = table.version(seat)
    answers, service = await _press(table, seat, "go", str(last))
    assert answers == [(None, False)] and service.moves == [(seat, "play", plays[last], None)]
    assert table.acted[seat] == (version, "go", version)
    answers, service = await _press(table, seat, "go", "0", version=version)
    assert answers == [("You have already done that.", True)] and service.moves == []


async def test_a_one_tap_play_out_of_turn_is_not_valid() -> None:
    table, seat = _table()
    T.step(table)  # the seat plays (as the AI would): no longer its turn
    assert T.hand_of(table).turn != seat
    answers, service = await _press(table, seat, "go", "0")
    assert answers == [("That button is not valid.", True)] and service.moves == []


async def test_the_peek_and_the_next_hand_buttons() -> None:
    table, seat = _table()
    answers, _ = await _press(table, seat, "peek", version="0")
    assert answers == [(peek_text(TR, table, seat), True)]
    assert table.match is not None
    deals = str(table.match.deals)
    answers, service = await _press(table, seat, "next", version=str(table.match.deals + 1))
    assert answers == [("That button is out of date.", True)] and service.next_hands == 0
    answers, service = await _press(table, seat, "next", version=deals)
    assert answers == [(None, False)] and service.next_hands == 1
    service = _Service()
    service.fail = TableError("The table has ended.")
    answers, _ = await _press(table, seat, "next", version=deals, service=service)
    assert answers == [("The table has ended.", True)]


async def test_someone_the_ai_played_for_is_back_with_any_press() -> None:
    table, seat = _table()
    info = table.seats[seat]
    assert info is not None
    info.timed_out = True
    answers, service = await _press(table, seat, "play", version="0.0.0")  # an old button
    assert service.came_back == [seat] and service.refreshed == [seat]
    assert answers == [("You are back: you play your seat again. Your hand is shown again.", True)]


async def test_a_failed_come_back_is_answered_and_nothing_moves() -> None:
    table, seat = _table()
    info = table.seats[seat]
    assert info is not None
    info.timed_out = True
    service = _Service()
    service.back_fails = StorageError("a bug")
    answers, _ = await _press(table, seat, "play", service=service)
    assert answers == [("I could not save that; nothing changed. Please try again.", True)] and service.moves == []


@pytest.mark.parametrize("op, arg", [("bid", ""), ("pass", ""), ("trump", "bid-H")])
async def test_a_bid_pressed_after_the_bidding_closed_is_told_so(op: str, arg: str) -> None:
    table = T.bidding_fresh("yancheng")
    seat = 0
    old = table.version(seat)
    T.advance(table, lambda h: h.phase == "playing")
    answers, service = await _press(table, seat, op, arg, version=old)
    assert answers == [("Bidding is closed; your hand is shown again.", True)] and service.moves == []
    answers, _ = await _press(table, seat, "play", version=old)  # not a bidding button: just out of date
    assert answers == [(OUT_OF_DATE, True)]


@pytest.mark.parametrize("op, arg", [("steal", ""), ("nosteal", ""), ("trump", "steal-S")])
async def test_a_steal_pressed_after_its_turn_is_told_so(op: str, arg: str) -> None:
    table = T.stealing("yancheng")
    hand = T.hand_of(table)
    assert hand.phase == "stealing" and hand.turn is not None
    seat = hand.turn
    table.seats[seat] = Seat(100 + seat, T.NAMES[seat], lang="zh")  # a person holds the seat asked to steal
    old = table.version(seat)
    T.advance(table, lambda h: h.phase == "playing")
    answers, service = await _press(table, seat, op, arg, version=old)
    assert answers == [("Your steal turn is closed; your hand is shown again.", True)] and service.moves == []


async def test_a_press_on_a_busy_table_is_asked_to_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    table, seat = _table()
    monkeypatch.setattr(hand_buttons, "PRESS_WAIT", 0.01)
    await table.lock.acquire()
    try:
        answers, service = await _press(table, seat, "play")
    finally:
        table.lock.release()
    assert answers == [("The table is busy; please try again in a moment.", True)] and service.refreshed == []
    await asyncio.wait_for(table.lock.acquire(), 1)  # the press left the lock as it found it
    table.lock.release()
