"""What happens to a group itself: the bot is added to it; it becomes a supergroup (a new chat id)."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

import storage
from bot.handlers.common import Context, in_group, tables_of
from bot.i18n import pick_language, translator

log = logging.getLogger(__name__)

IN: frozenset[str] = frozenset({ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR})
"""The bot's statuses in a group where it can play."""


async def on_bot_added(update: Update, context: Context) -> None:
    """The bot was added to a group: a short hello in the group's language (or its adder's), once."""
    change = update.my_chat_member
    if change is None or not in_group(change.chat):
        return
    if change.old_chat_member.status in IN or change.new_chat_member.status not in IN:
        return  # not an arrival: a promotion, a departure, or a block in private
    record = await storage.get_chat(tables_of(context).db, change.chat.id)
    tr = translator(record.language if record is not None and record.language
                    else pick_language(change.from_user.language_code))
    try:
        await context.bot.send_message(change.chat.id, tr(
            "Hello! I host 炒地皮 (Chao Di Pi) tables in this group. /newgame opens one and /join takes a seat; "
            "each player presses Start once in a private chat with me, where their cards come. /help tells more."))
    except TelegramError as exc:
        log.warning("hello refused in chat %s: %s", change.chat.id, type(exc).__name__)


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
