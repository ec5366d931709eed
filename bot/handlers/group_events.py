"""What happens to a group itself: it becomes a supergroup (a new chat id)."""

from __future__ import annotations

from telegram import Update

import storage
from bot.handlers.common import Context, tables_of


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: its table and standings move to the new chat id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    old, new = message.chat.id, message.migrate_to_chat_id
    tables = tables_of(context)
    await storage.migrate_chat(tables.db, old, new)
    table = tables.in_chat(old)
    if table is not None:
        async with table.lock:
            tables.move_chat(table, new)
            tables.refresh(table)
