"""One request of a seated person, from either front end: the one place its policy is written.

:func:`perform` takes the table's lock (a press waits at most
:data:`PRESS_WAIT` seconds for it), finds the person's seat under the lock
(a seat may change hands while a request waits), and then, in this order:

1. a table with no hand being played refuses everything (``no_hand``);
2. any request of someone away (the AI plays for them after a timeout or an
   outage) brings them back first, an out-of-date press included: they are
   plainly at their phone;
3. the press that made the seat's last move, again, is ``already`` done;
4. a request drawn before the question changed is ``stale`` (selecting
   needs only the hand unchanged; a bid or a steal for a window that has
   closed says so: ``window``); a second pass in one round is ``already``;
5. the request is carried out: the selection changes, or the move is
   checked, stored and applied (:func:`bot.tables.play.act`);
6. what must follow runs once: after a change (a move, a come-back, the
   next hand) the deadline, the AI seats, nudges and every message
   (:func:`bot.tables.turns.after_change`); after anything else the
   messages only, the pressing seat's first (one refresh a request).

It returns a typed :data:`~bot.tables.requests.Outcome`; the front end
renders it in its own words (:func:`bot.messages.refused_text`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import replace
from typing import Final

from bot.model import Table
from bot.render_private import ONE_TAP, one_tap_plays
from bot.tables.house import House, TableError
from bot.tables.play import act
from bot.tables.requests import (
    SELECTING,
    Choose,
    Clear,
    ComeBack,
    Done,
    Hint,
    Move,
    MoveKind,
    NextHand,
    OneTap,
    Outcome,
    Peek,
    Person,
    Refused,
    Request,
    Select,
)
from bot.tables.seats import take_back
from bot.tables.showing import refresh
from bot.tables.turns import after_change, end_pause
from engine.ai import choose_action
from engine.bidding import needs_choice, read_step
from engine.cards import Card
from engine.errors import EngineError
from engine.hand import Action
from engine.views import view_for
from storage import StorageError, StorageFault

log = logging.getLogger(__name__)

PRESS_WAIT: Final = 8.0
"""Seconds a request waits for its table; Telegram stops waiting for a button's answer after about 15."""

TRUMP_CHOICES: Final = ("S", "H", "D", "C")
"""The suits a bid that does not name its trump may choose (plus ``NT`` for a red-five pair)."""


async def perform(house: House, person: Person, table: Table, request: Request) -> Outcome:
    """Carry out one request of ``person`` at ``table`` (see the module's steps); never raises for a
    refusal."""
    try:
        async with asyncio.timeout(PRESS_WAIT):  # not wait_for, which in 3.11 can drop a cancellation
            await table.lock.acquire()
    except TimeoutError:
        return Refused("busy")
    try:
        return await _locked(house, person, table, request)
    finally:
        table.lock.release()


async def _locked(house: House, person: Person, table: Table, request: Request) -> Outcome:
    seat = table.seat_of(person.user_id)
    if house.get(table.id) is not table or seat is None:
        return Refused("not_seated")
    if not table.playing:
        return Refused("no_hand")
    if isinstance(request, Peek):
        if table.between_hands is not None:  # the seat holds the next deal, which nothing shows before it starts
            return Refused("table", table_error=TableError("The next hand has not started yet."))
        return Done()
    if isinstance(request, NextHand):
        return await _next_hand(house, table, seat, request)
    info = table.seats[seat]
    assert info is not None
    if person.front == "keyboard":  # keep the hand message current, even while the app is open too
        house.apps.keyboard_used(table.id, seat, person.user_id)
    info.last_active = time.time()
    try:
        back = await take_back(house, table, seat)
    except StorageError as exc:
        _log_storage(table, exc)
        return Refused("storage", storage=exc, move=False)
    outcome = await _carry_out(house, person, table, seat, request, back)
    if back or (isinstance(outcome, Done) and isinstance(request, Move | OneTap)):
        after_change(house, table, actor=seat)
    else:
        refresh(house, table, pressed=seat)
    return outcome


async def _carry_out(house: House, person: Person, table: Table, seat: int, request: Request,
                     back: bool) -> Outcome:
    """Steps 3 to 5, for a present (or just returned) seated person."""
    if isinstance(request, ComeBack):
        return Done(back=True) if back else Refused("present")
    assert table.match is not None and not isinstance(request, NextHand | Peek)
    if table.between_hands is not None:  # the next hand is dealt, not started: nothing of it to select or hint
        return Refused("table", back=back, table_error=TableError("The next hand has not started yet."))
    presses = table.presses
    if isinstance(request, Move | OneTap) and presses.already(seat, request.version, _button(request),
                                                                table.version(seat)):
        return Refused("already", back=back)
    if request.version is not None and table.stale(seat, request.version, selecting=isinstance(request, SELECTING)):
        kind = request.kind if isinstance(request, Move) else ""
        return Refused("stale", back=back, window=table.window_closed(seat, request.version, kind))
    if isinstance(request, Move) and request.kind == "pass" and seat in table.match.hand.passed:
        return Refused("already", back=back)  # one pass a round; the keyboard keeps Pass for the look
    info = table.seats[seat]
    if info is not None and info.hand_message_id is None and person.message_id is not None:
        info.hand_message_id = person.message_id
    if isinstance(request, Select | Clear | Hint):
        return _select(house, table, seat, request, back)
    if isinstance(request, OneTap):
        hand = table.match.hand
        if hand.phase != "playing" or hand.turn != seat:
            return Refused("invalid", back=back)
        plays = one_tap_plays(table, seat)
        if not 0 <= request.index < min(len(plays), ONE_TAP):
            return Refused("stale", back=back)
        return await _move(house, table, seat, Move("play", plays[request.index], request.version, button="go"),
                           back)
    cards = request.cards if request.cards is not None else tuple(presses.selected(seat).elements())
    if request.kind not in ("pass", "pass_steal") and not cards:
        # Only the keyboard's selection lives in the bot's memory, and so only it can be lost to a restart.
        lost = request.cards is None and presses.lost(seat)
        return Refused("lost" if lost else "select_first", back=back)
    if request.kind in ("bid", "steal") and request.trump is None:
        choices = trump_choices(table, cards)
        if choices is not None:
            if request.cards is not None and person.front == "keyboard":  # a ▶ bid: its keyboard names the trumps
                presses.replace(seat, cards)
            return Choose(choices, back=back)
    return await _move(house, table, seat, replace(request, cards=cards), back)


def _select(house: House, table: Table, seat: int, request: Select | Clear | Hint, back: bool) -> Outcome:
    """The keyboard's selection changes (or, for the Mini App's hint, is only told)."""
    assert table.match is not None
    presses = table.presses
    presses.touched(seat)
    if isinstance(request, Select):
        held = Counter(table.match.hand.hands[seat])[request.card]
        if held == 0:
            return Refused("stale", back=back)
        presses.toggle(seat, request.card, request.copy, held)
        return Done(back=back)
    if isinstance(request, Clear):
        presses.clear(seat)
        return Done(back=back)
    try:
        suggestion = hint(house, table, seat)
    except EngineError as exc:  # not this seat's turn: the app's hint may be asked at any moment
        return Refused("engine", back=back, error=exc)
    if request.select:
        presses.replace(seat, suggestion)
    return Done(cards=suggestion, back=back) if suggestion else Refused("no_hint", back=back)


async def _move(house: House, table: Table, seat: int, move: Move, back: bool) -> Outcome:
    """Check, store and apply the move; the seat's selection is cleared and its press remembered."""
    cards = () if move.kind in ("pass", "pass_steal") or move.cards is None else move.cards
    trump = None if move.trump == "NT" else move.trump
    try:
        applied = await act(house, table, Action(move.kind, seat, cards, trump))
    except EngineError as exc:
        return Refused("engine", back=back, error=exc)
    except TableError as exc:
        return Refused("table", back=back, table_error=exc)
    except StorageError as exc:
        _log_storage(table, exc)
        return Refused("storage", back=back, storage=exc)
    table.presses.clear(seat)
    table.presses.acted(seat, move.version, move.button or move.kind, table.version(seat))
    return Done(notices=applied.notices, back=back)


async def _next_hand(house: House, table: Table, seat: int, request: NextHand) -> Outcome:
    """「下一局」: the next hand now, if the press is for this pause; someone away who presses it is back first
    (else a table paused for want of anyone present would start the hand with nobody to play it)."""
    assert table.match is not None
    try:
        back = await take_back(house, table, seat)
    except StorageError as exc:
        _log_storage(table, exc)
        return Refused("storage", storage=exc, move=False)
    try:
        if request.deal != str(table.match.deals):
            raise TableError("That button is out of date.")
        if table.muted:  # nothing of the table moves until the bot may write in its group again (bot.muting)
            raise TableError("The table is paused: I may not send messages here. It goes on once an admin lets me send messages again; /stop closes it.")
        if table.topic_closed:  # nor until its topic is open again (bot.topics)
            raise TableError("The table is paused: this topic is closed. It goes on once an admin reopens it; /stop closes it.")
        if table.settings.pace == "realtime" and table.between_hands is not None:
            # No 「下一局」 is offered at the real-time pace: its few seconds are for everyone to read the result,
            # and a forged press (a callback or a request to the app's API) may not cut them short.
            raise TableError("The next hand starts in a moment.")
        end_pause(house, table)
    except TableError as exc:
        if back:
            after_change(house, table, actor=seat)
        return Refused("table", back=back, table_error=exc)
    after_change(house, table)
    return Done(back=back)


def _button(request: Move | OneTap) -> str:
    return "go" if isinstance(request, OneTap) else request.button or request.kind


def _log_storage(table: Table, exc: StorageError) -> None:
    """A fault that can pass was logged once where it happened; anything else is a bug, logged here with
    its traceback (called while handling ``exc``)."""
    if not isinstance(exc, StorageFault):
        log.exception("table %s: storage error", table.id)


def hint(house: House, table: Table, seat: int) -> tuple[Card, ...]:
    """The cards the casual player would choose for this seat now (the strong one would hold the event loop
    for its search); empty when there is nothing to suggest."""
    assert table.match is not None
    hand = table.match.hand
    return choose_action(view_for(hand, seat), hand.ruleset, house.rng, "casual").cards


def trump_choices(table: Table, cards: tuple[Card, ...]) -> tuple[str, ...] | None:
    """The trumps a bid or steal of these cards must choose between (a joker or red-five pair names none),
    or None when the cards name their trump (or are no bid)."""
    assert table.match is not None
    hand = table.match.hand
    step = read_step(hand.ruleset, hand.level, list(cards))
    if step is None or not needs_choice(hand.ruleset, step):
        return None
    return TRUMP_CHOICES + (("NT",) if step == "R52" else ())


MOVES: Final[dict[str, MoveKind]] = {"bid": "bid", "pass": "pass", "bury": "bury", "steal": "steal",
                                     "nosteal": "pass_steal", "play": "play"}
"""The names both front ends give the moves (a button's op, the Mini App's ``op``), and the moves they make."""
