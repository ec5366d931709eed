"""A player's private hand keyboard (select cards, bid, bury, steal, play, hint), and the group's 🃏 and 「下一局」.

Who holds which seat is read under the table's lock (a seat may change
hands while a press waits for it); a press that cannot get the table in
:data:`PRESS_WAIT` seconds is answered "please try again".
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Final

from telegram import CallbackQuery

from bot import callbacks, story
from bot.handlers.common import Context, storage_trouble, tables_of
from bot.i18n import Translator
from bot.messages import closed_text, refusal
from bot.model import Table
from bot.render_private import ONE_TAP, one_tap_plays, peek_text
from bot.tables import MoveKind, StorageError, TableError, Tables
from bot.untrusted import parse_int
from engine.cards import Card
from engine.errors import EngineError
from engine.notices import ThrowFailed

PRESS_WAIT: Final = 8.0
"""Seconds a button press waits for its table; Telegram stops waiting for an answer after about 15."""

SELECTING: Final = frozenset({"sel", "clear", "hint"})
"""Operations that only change the selection: they need the hand, not the question, unchanged."""

MOVES: Final[dict[str, MoveKind]] = {"bid": "bid", "pass": "pass", "bury": "bury", "steal": "steal",
                                     "nosteal": "pass_steal", "play": "play"}
"""The keyboard's action buttons and the moves they make."""


async def on_hand_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                         tr: Translator) -> None:
    """Card selection and the actions of a player's private keyboard, and the group's 🃏."""
    try:
        async with asyncio.timeout(PRESS_WAIT):  # not wait_for, which in 3.11 can drop a cancellation
            await table.lock.acquire()
    except TimeoutError:
        await query.answer(tr("The table is busy; please try again in a moment."), show_alert=True)
        return
    try:
        popup = await _hand_press(tables_of(context), query, table, data, tr)
    finally:
        table.lock.release()
    await query.answer(popup or None, show_alert=bool(popup))


async def _hand_press(tables: Tables, query: CallbackQuery, table: Table, data: callbacks.Callback,
                      tr: Translator) -> str | None:
    """One hand-keyboard press under the table's lock; the popup to answer with, if any."""
    user = query.from_user
    seat = table.seat_of(user.id)
    if seat is None:
        return tr("You are not playing at this table.")
    if not table.playing:
        return tr("No hand is being played at this table.")
    if data.op == "peek":
        return peek_text(tr, table, seat)
    if data.op == "next":  # 「下一局」 on the group's table message
        assert table.match is not None
        if data.version != str(table.match.deals):
            return tr("That button is out of date.")
        try:
            tables.next_hand(table)
        except TableError as exc:
            return exc.text(tr)
        return None
    if query.message is None or query.message.chat.id != user.id:
        return tr("That button is not valid.")
    # A press on the keyboard: keep this message current even while the web app is open too.
    tables.app_seats.pop((table.id, seat, user.id), None)
    info = table.seats[seat]
    assert info is not None
    info.last_active = time.time()
    # Someone the AI played for (a timeout, an outage) is back with any press of theirs, an old button's too.
    try:
        back = info.timed_out and await tables.come_back(table, seat)
    except StorageError as exc:
        return storage_trouble(tr, exc, move=False)
    done = table.acted.get(seat)
    if done is not None and done[:2] == (data.version, data.op) and done[2] == table.version(seat):
        return tr("You have already done that.")
    if table.stale(seat, data.version, selecting=data.op in SELECTING):
        tables.refresh(table, pressed=seat)
        if back:
            return tr("You are back: you play your seat again. Your hand is shown again.")
        return late_text(tr, table, seat, data)
    assert table.match is not None
    if data.op == "pass" and seat in table.match.hand.passed:
        return tr("You have already done that.")  # one pass a round; the keyboard keeps Pass for the look
    if info.hand_message_id is None:
        info.hand_message_id = query.message.message_id
    popup: str | None = None
    try:
        popup = await hand_op(tables, table, seat, data, tr)
    except EngineError as exc:
        popup = refusal(tr, exc, table.settings.ruleset())
    except TableError as exc:
        popup = exc.text(tr)
    except StorageError as exc:
        popup = storage_trouble(tr, exc)
    tables.refresh(table, pressed=seat)
    return popup


async def hand_op(tables: Tables, table: Table, seat: int, data: callbacks.Callback, tr: Translator) -> str | None:
    """Apply one hand-keyboard operation; returns a popup text or None."""
    assert table.match is not None
    hand = table.match.hand
    selected = table.selected(seat)
    op = data.op
    if op in SELECTING:
        table.restarted.discard(seat)
    if op == "sel":
        card = Card.parse(data.arg[:-1])
        copy = int(data.arg[-1]) if data.arg[-1].isdigit() else 0
        held = Counter(hand.hands[seat])[card]
        if held == 0:
            raise TableError("That button is out of date; your hand is shown again.")
        # Which copy was tapped: two ♣4 buttons, and the one pressed is the one ticked.
        ticks = table.ticked.setdefault(seat, {}).setdefault(card, set())
        if len(ticks) != selected[card]:  # selected some other way (a hint): the first copies
            ticks.clear()
            ticks.update(range(selected[card]))
        if copy in ticks:
            ticks.discard(copy)
            selected[card] -= 1
        elif selected[card] < held:
            ticks.add(copy)
            selected[card] += 1
        return None
    if op == "clear":
        selected.clear()
        table.ticked.pop(seat, None)
        return None
    if op == "hint":
        suggestion = tables.hint(table, seat)
        selected.clear()
        table.ticked.pop(seat, None)
        selected.update(suggestion)
        return None if suggestion else tr("Nothing to suggest now.")
    if op == "go":  # a one-tap play: the cards its button showed (worked out again the same way)
        if hand.phase != "playing" or hand.turn != seat:
            raise TableError("That button is not valid.")
        plays = one_tap_plays(table, seat)
        index = parse_int(data.arg or "0", 0, ONE_TAP)  # a button from before the choices: the hint's
        if index is None or index >= len(plays):
            raise TableError("That button is out of date; your hand is shown again.")
        await tables.move(table, seat, "play", plays[index], None)
        table.acted[seat] = (data.version, data.op, table.version(seat))
        return None
    cards = tuple(selected.elements())
    trump: str | None = None
    if op == "trump":
        verb, _, choice = data.arg.partition("-")
        if verb not in ("bid", "steal") or choice not in ("S", "H", "D", "C", "NT"):
            raise TableError("That button is not valid.")
        op, trump = verb, None if choice == "NT" else choice
    kind = MOVES.get(op)
    if kind is None:
        raise TableError("That button is not valid.")
    if kind in ("pass", "pass_steal"):
        cards = ()
    elif not cards and seat in table.restarted:
        table.restarted.discard(seat)
        return tr("I restarted and your selection was lost; your hand is shown again: select the cards again.")
    elif not cards:
        return tr("Select the cards first.")
    applied = await tables.move(table, seat, kind, cards, trump)
    table.acted[seat] = (data.version, data.op, table.version(seat))
    for notice in applied.notices:  # 甩牌失败: the thrower is told what happened, too
        if isinstance(notice, ThrowFailed) and notice.seat == seat:
            return story.throw_failed(tr, notice)
    return None


def late_text(tr: Translator, table: Table, seat: int, data: callbacks.Callback) -> str:
    """A stale press: "bidding closed" (or "steal round closed") when its timed window closed since it was
    drawn, else "out of date"."""
    op = data.op
    if op == "trump":  # 「亮主 ♠5♠5 → ♥」: a bid or a steal with its trump named
        op = data.arg.partition("-")[0]
    window = table.window_closed(seat, data.version, MOVES.get(op, ""))
    return closed_text(tr, window) or tr("That button is out of date; your hand is shown again.")

