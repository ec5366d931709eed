"""What happens to a group itself: the bot is added to it or removed from it, muted or let write again; it
becomes a supergroup (a new chat id).  Losing a group is an event, not an error: its table closes and its
people are told privately (:meth:`bot.tables.Tables.group_lost`).  A group that mutes the bot keeps its
table, paused until the bot may write there again (:mod:`bot.muting`)."""

from __future__ import annotations

import asyncio
import logging

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.handlers.common import Context, in_group, tables_of
from bot.i18n import pick_language, translator

log = logging.getLogger(__name__)

IN: frozenset[str] = frozenset({ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR})
"""The bot's statuses in a group where it can play."""
OUT: frozenset[str] = frozenset({ChatMemberStatus.LEFT, ChatMemberStatus.BANNED})
"""The bot's statuses in a group it is no longer in (left, or removed: "kicked")."""
HELLO_WAIT = 5.0
"""Seconds the hello in a supergroup waits for the notice that it is an upgraded group (they come together)."""


async def on_bot_status(update: Update, context: Context) -> None:
    """The bot's own membership changed (``my_chat_member``): added to a group (a hello), removed from it or
    leaving it (its table closes; a restricted bot that is no member has left too), muted or let write again
    (its table pauses, or goes on).  In a private chat it is a person blocking or restarting the bot, which
    the publisher and /start handle."""
    change = update.my_chat_member
    if change is None or not in_group(change.chat):
        return
    if change.new_chat_member.status in OUT:
        log.warning("the bot is no longer in group %s (%s)", change.chat.id, change.new_chat_member.status)
        await tables_of(context).group_lost(change.chat.id)
        return
    new = change.new_chat_member
    if new.status in IN:
        tables_of(context).group_back(change.chat.id)
    if new.status == ChatMemberStatus.RESTRICTED and not getattr(new, "is_member", True):
        log.warning("the bot is no longer in group %s (restricted, not a member)", change.chat.id)
        await tables_of(context).group_lost(change.chat.id)
        return
    if new.status == ChatMemberStatus.RESTRICTED and not getattr(new, "can_send_messages", True):
        tables_of(context).muting.mute(change.chat.id, "restricted by an admin")  # its tables pause
    elif new.status in IN or new.status == ChatMemberStatus.RESTRICTED:
        tables_of(context).muting.unmute(change.chat.id, f"now {new.status}")  # its tables go on
    await on_bot_added(update, context)


async def on_bot_added(update: Update, context: Context) -> None:
    """The bot was added to a group: a short hello in the group's language (or its adder's), once.

    A group that became a supergroup is no arrival, though Telegram may tell the bot it "joined" the new chat
    (tdlib/telegram-bot-api#266), before the upgrade's own notices or after them.  After: the new chat is
    a known upgrade (:meth:`bot.tables.Tables.upgraded`), no hello.  Before: in a supergroup the hello waits
    :data:`HELLO_WAIT` seconds, in a supervised task, and is said only if no upgrade to that chat was told
    meanwhile.  A basic group is never an upgrade's result: its hello goes at once.
    """
    change = update.my_chat_member
    if change is None or not in_group(change.chat):
        return
    old = change.old_chat_member
    if old.status in IN or getattr(old, "is_member", False) or change.new_chat_member.status not in IN:
        return  # not an arrival: a promotion, a restriction lifted (a member all along), a departure
    tables = tables_of(context)
    chat_id = change.chat.id
    if tables.upgraded(chat_id):
        log.info("no hello in %s: an upgraded group the bot was in all along", chat_id)
        return
    record = await tables.people.chat(chat_id)
    tr = translator(record.language if record is not None and record.language
                    else pick_language(change.from_user.language_code))
    text = tr("Hello! I host 炒地皮 (Chao Di Pi) tables in this group. /newgame opens one and /join takes a seat; "
              "each player presses Start once in a private chat with me, where their cards come. /help tells more.")
    if change.chat.type != ChatType.SUPERGROUP:
        await _hello(context, chat_id, text)
        return

    async def later() -> None:
        await asyncio.sleep(HELLO_WAIT)
        if tables.upgraded(chat_id):
            log.info("no hello in %s: an upgraded group the bot was in all along", chat_id)
            return
        await _hello(context, chat_id, text)

    tables.tasks.start(f"hello {chat_id}", later, restart=False)  # a message: never sent twice


async def _hello(context: Context, chat_id: int, text: str) -> None:
    try:
        await context.bot.send_message(chat_id, text)
    except TelegramError as exc:
        log.warning("hello refused in chat %s: %s", chat_id, type(exc).__name__)


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: its table and standings move to the new chat id (the old chat's notice);
    the new chat is known as an upgrade (either notice), where the bot says no hello."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_from_chat_id is not None:  # the new chat's notice
        tables_of(context).group_upgraded(message.chat.id)
    if message.migrate_to_chat_id is not None:
        await tables_of(context).group_moved(message.chat.id, message.migrate_to_chat_id)
