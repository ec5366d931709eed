"""The lobby's buttons on the group's table message: seats, AI seats, the settings panel, Start."""

from __future__ import annotations

from telegram import CallbackQuery

from bot import callbacks
from bot.handlers.common import Context, is_admin, storage_trouble, tables_of
from bot.handlers.seating import seat_person
from bot.i18n import Translator
from bot.model import Table
from bot.render_group import setting_label
from bot.tables import StorageError, TableError
from bot.untrusted import parse_int
from engine.ruleset import RULESETS

CHOICES = ("preset", "hidden", "pace", "timeout", "strength", "returns")
"""The settings a table's creator may choose (each button names its choice)."""
SETTINGS = ("set", *CHOICES)
"""The buttons of the settings panel (the table's creator and the group's admins only)."""


async def on_lobby_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                          tr: Translator) -> None:
    """Seat, leave, AI seats, settings, start."""
    tables = tables_of(context)
    user = query.from_user
    if query.message is None or query.message.chat.id != table.chat_id:
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    op = data.op
    if op in SETTINGS and user.id != table.creator_id and not await is_admin(context, table.chat_id, user.id):
        await query.answer(tr("Only the table's creator or a group admin can change the settings."), show_alert=True)
        return
    if op in ("ai", "rmai") and table.seat_of(user.id) is None and user.id != table.creator_id \
            and not await is_admin(context, table.chat_id, user.id):
        await query.answer(tr("Only someone seated at the table, its creator or a group admin can add or remove AI seats."),
                           show_alert=True)
        return
    popup: str | None = None
    toast: str | None = None
    async with table.lock:
        try:
            done = already_done(table, user.id, op, tr)
            if done is not None:
                toast = done
            elif op == "sit":
                seat = parse_int(data.arg, 0, 3)
                popup = await seat_person(context, table, user, seat, query)
                if popup == "":
                    return  # answered with the deep link
            elif op == "leave":
                await tables.leave(table, user.id)
            elif op == "ai":
                await tables.add_ai(table)
            elif op == "rmai":
                await tables.remove_ai(table)
            elif op in ("set", "back", "cancel"):
                tables.settings_panel(table, op == "set")
            elif op in CHOICES:
                if op == "preset" and data.arg not in RULESETS:
                    raise TableError("That button is out of date.")
                await tables.change_setting(table, op, data.arg)
                toast = "✓ " + setting_label(tr, op, data.arg)  # at once: the panel's ✓ follows with its edit
            elif op == "start":
                if table.seat_of(user.id) is None and user.id != table.creator_id:
                    raise TableError("Only someone seated at the table can start it.")
                await tables.start(table)
                tables.after_change(table)
        except TableError as exc:
            popup = exc.text(tr)
        except StorageError as exc:
            popup = storage_trouble(tr, exc, move=False)
        tables.refresh(table)
    await query.answer(popup or toast, show_alert=bool(popup))


def already_done(table: Table, user_id: int, op: str, tr: Translator) -> str | None:
    """What a press says, quietly (a toast, no alert), when what it asks for already holds; None otherwise.

    A second tap of a button that has just worked (a double tap, or a tap on the keyboard the first tap is
    redrawing, where the seat buttons have moved) finds its effect done: it changes nothing and is no error.
    Read under the table's lock, after the first tap's change.  「+ AI」 and 「− AI」 are not here: each tap
    adds (or removes) one more.
    """
    if op == "sit" and table.seat_of(user_id) is not None:
        return tr("You already have a seat at this table.")
    if op == "leave" and table.seat_of(user_id) is None:
        return tr("You are not seated at this table.")
    if op == "start" and table.status != "open":
        return tr("The match has already started.")
    return None
