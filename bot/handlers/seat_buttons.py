"""Buttons about one's own seat: 「我回来了」 (in private) and the answer to an escape's question (in the group)."""

from __future__ import annotations

from telegram import CallbackQuery
from telegram.error import TelegramError

from bot import callbacks
from bot.handlers.common import Context, storage_trouble, tables_of
from bot.i18n import Translator
from bot.model import Table
from bot.tables import ComeBack, Person, Refused, StorageError, TableError, confirmed_escape


async def on_seat_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                         tr: Translator) -> None:
    """「我回来了」 (in private), and the answer to an escape's confirmation (in the group)."""
    tables = tables_of(context)
    user = query.from_user
    if data.op == "return":  # a request of the seat's, as any press of the hand keyboard
        outcome = await tables.perform(Person(user.id, "keyboard"), table, ComeBack())
        refused = outcome.text(tr) if isinstance(outcome, Refused) else None
        await query.answer(refused, show_alert=bool(refused))
        return
    popup: str | None = None
    toast: str | None = None
    async with table.lock:
        seat = table.seat_of(user.id)  # under the lock: a tap that waited behind another reads what it did
        try:
            if seat is None and data.op == "esc" and tables.left_seat(table, user.id) is not None:
                toast = tr("You left this seat. The AI plays it now.")  # a second tap of 「离座」: done already
            elif seat is None or not table.playing:
                raise TableError("You are not playing at this table.")
            elif data.op == "stay":
                if data.arg != str(seat):
                    raise TableError("This question is not yours.")
            else:
                await tables.escape(table, confirmed_escape(table, user.id, data.arg))
                tables.after_change(table)
        except TableError as exc:
            popup = exc.text(tr)
        except StorageError as exc:
            popup = storage_trouble(tr, exc, move=False)
    # The press is answered first: the edit below is a group message, which may wait for the group's budget.
    await query.answer(popup or toast, show_alert=bool(popup))
    if popup is None and query.message is not None:
        try:  # the question is answered: its buttons go
            await query.edit_message_reply_markup(reply_markup=None)
        except TelegramError:
            pass
