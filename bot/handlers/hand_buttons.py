"""A player's private hand keyboard (select cards, bid, bury, steal, play, hint), and the group's 🃏 and 「下一局」.

Each press is parsed into a request (:mod:`bot.tables.requests`), carried
out by the service's one call for it (:meth:`bot.tables.Tables.perform`,
which the Mini App's requests go through too), and its outcome answered as
a popup: parse → perform → render.
"""

from __future__ import annotations

from telegram import CallbackQuery

from bot import callbacks, story
from bot.handlers.common import Context, tables_of
from bot.i18n import Translator
from bot.model import Table
from bot.render_private import ONE_TAP, peek_text
from bot.tables import MOVES, Choose, Clear, Hint, Move, NextHand, OneTap, Peek, Person, Refused, Request, Select
from bot.untrusted import parse_int
from engine.cards import Card
from engine.errors import NotationError
from engine.notices import ThrowFailed

GROUP_BUTTONS = ("next", "peek")
"""The buttons of the group's table message; every other one belongs to a private hand message."""


async def on_hand_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                         tr: Translator) -> None:
    """Card selection and the actions of a player's private keyboard, and the group's 🃏 and 「下一局」."""
    user = query.from_user
    private = query.message is not None and query.message.chat.id == user.id
    request = request_of(data)
    if request is None or (data.op not in GROUP_BUTTONS and not private):
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    message_id = query.message.message_id if private and query.message is not None else None
    outcome = await tables_of(context).perform(Person(user.id, "keyboard", message_id), table, request)
    seat = table.seat_of(user.id)  # read with no wait since the service let go of the table
    popup: str | None = None
    if isinstance(outcome, Refused):
        popup = outcome.text(tr, table.settings.ruleset())
    elif isinstance(outcome, Choose):  # the keyboard shows the trumps as buttons, redrawn now
        popup = tr("Choose the trump suit for this bid.")
    elif isinstance(request, Peek) and seat is not None:
        popup = peek_text(tr, table, seat)
    else:  # 甩牌失败: the thrower is told what happened, too
        popup = next((story.throw_failed(tr, notice) for notice in outcome.notices
                      if isinstance(notice, ThrowFailed) and notice.seat == seat), None)
        if outcome.back:  # the press went through, and brought them back: said in a toast
            back = tr("You are back: you play your seat again.")
            await query.answer(f"{popup}\n{back}" if popup else back, show_alert=bool(popup))
            return
    await query.answer(popup or None, show_alert=bool(popup))


def request_of(data: callbacks.Callback) -> Request | None:
    """The request a hand-keyboard button makes (None for a button this keyboard never draws)."""
    op, arg, version = data.op, data.arg, data.version
    if op == "next":
        return NextHand(version)
    if op == "peek":
        return Peek()
    if op == "sel":
        try:
            card = Card.parse(arg[:-1])
        except NotationError:
            return None
        copy = parse_int(arg[-1:], 0, 9)  # which of two copies: the one pressed is the one ticked
        return Select(card, copy if copy is not None else 0, version)
    if op == "clear":
        return Clear(version)
    if op == "hint":
        return Hint(version, select=True)
    if op == "go":  # a one-tap play: the cards its button showed (worked out again the same way)
        index = parse_int(arg or "0", 0, ONE_TAP)  # a button from before the choices: the hint's
        return OneTap(index if index is not None else ONE_TAP, version)
    if op == "tap":  # 「▶ 亮主 ♦2」: a bid or steal of the cards the button names
        tap = callbacks.parse_tap(arg)
        return None if tap is None else Move(MOVES[tap[0]], tap[1], version, None, "tap")
    trump: str | None = None
    button = op
    if op == "trump":  # 「亮主 ♠5♠5 → ♥」: a bid or a steal with its trump named
        op, _, trump = arg.partition("-")
        if op not in ("bid", "steal") or trump not in ("S", "H", "D", "C", "NT"):
            return None
    kind = MOVES.get(op)
    if kind is None:
        return None
    return Move(kind, None, version, trump, button)  # the cards selected on the keyboard
