"""Every inline button press: decoded, then handed to the lobby's, the seat's or the hand's buttons."""

from __future__ import annotations

from telegram import Update

from bot import callbacks
from bot.handlers.common import Context, tables_of, user_translator
from bot.handlers.hand_buttons import on_hand_button
from bot.handlers.league_buttons import on_league_button
from bot.handlers.lobby_buttons import on_lobby_button
from bot.handlers.seat_buttons import on_seat_button


async def on_callback(update: Update, context: Context) -> None:
    """Every inline button press (a forged or unknown one is answered, and changes nothing)."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    tr = await user_translator(context, user)
    data = callbacks.decode(query.data)
    if data is not None and data.kind == "B":  # the league's buttons name no table
        await on_league_button(context, query, data, tr)
        return
    tables = tables_of(context)
    table = tables.get(data.table) if data is not None else None
    if data is None:
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    if table is None:
        await query.answer(tr("That table is closed."), show_alert=True)
        return
    if data.kind == "L" and data.op in ("return", "esc", "stay"):
        await on_seat_button(context, query, table, data, tr)
    elif data.kind == "L":
        await on_lobby_button(context, query, table, data, tr)
    elif data.kind == "H":
        await on_hand_button(context, query, table, data, tr)
    else:
        tables.refresh(table)
        await query.answer()
