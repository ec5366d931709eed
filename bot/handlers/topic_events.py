"""A forum topic closed or reopened: the ``forum_topic_closed`` and ``forum_topic_reopened`` service messages.

Closing a topic takes the right to write there from everyone but the admins
allowed to manage topics.  So a table in that topic pauses at once
(:mod:`bot.topics`) unless the bot is such an admin: Telegram still takes
what it sends there, and the table can go on (the players play from their
private chats).  Its rights are asked (``getChatMember``) only when the topic
holds a table; if that call fails, the table pauses all the same (the usual
case: a bot is seldom an admin), and the first message the bot gets through
there lets it go on.  A refusal ("TOPIC_CLOSED") pauses it too, for a
service message the bot missed.  Reopening lets it go on.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot.handlers.common import Context, in_group, tables_of, topic_of

log = logging.getLogger(__name__)


async def on_topic_closed(update: Update, context: Context) -> None:
    """A topic was closed: its table pauses, unless the bot may still write there."""
    message = update.effective_message
    if message is None or message.forum_topic_closed is None or not in_group(message.chat):
        return
    chat_id, thread_id = message.chat.id, topic_of(update)
    tables = tables_of(context)
    if tables.in_chat(chat_id, thread_id) is None:
        return  # no table there: nothing to pause, no call to make
    if await may_write_in_closed_topics(context, chat_id):
        log.info("group %s, topic %s closed: the bot may still write there (it manages topics)", chat_id, thread_id)
        return
    tables.topics.close(chat_id, thread_id, "the topic was closed")


async def on_topic_reopened(update: Update, context: Context) -> None:
    """A topic was reopened: its table goes on if it was paused for it."""
    message = update.effective_message
    if message is None or message.forum_topic_reopened is None or not in_group(message.chat):
        return
    tables_of(context).topics.reopen(message.chat.id, topic_of(update), "the topic was reopened")


async def may_write_in_closed_topics(context: Context, chat_id: int) -> bool:
    """True when the bot is the group's owner, or an admin allowed to manage topics (who may write in a closed
    topic); False when it is not, or when Telegram cannot tell now."""
    try:
        member = await context.bot.get_chat_member(chat_id, context.bot.id)
    except TelegramError as exc:
        log.warning("the bot's rights in group %s are unknown (%s): its closed topic's table pauses", chat_id,
                    type(exc).__name__)
        return False
    if member.status == ChatMemberStatus.OWNER:
        return True
    return member.status == ChatMemberStatus.ADMINISTRATOR and bool(getattr(member, "can_manage_topics", False))
