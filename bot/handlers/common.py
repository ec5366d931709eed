"""What every handler needs: the service, who asks and in which language, and a paced reply.

A reply in a group is in the group's language (everyone there reads it);
in a private chat, in the person's (:func:`chat_translator`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import cast

from telegram import Chat, InlineKeyboardMarkup, MenuButtonWebApp, Update, User, WebAppInfo
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.budget import Pacer
from bot.i18n import Translator, translator
from bot.messages import storage_refusal
from bot.tables import StorageError, StorageFault, Tables
from bot.untrusted import shown

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE


def tables_of(context: Context) -> Tables:
    """The service kept in ``bot_data``."""
    return cast(Tables, context.bot_data["tables"])


async def user_translator(context: Context, user: User) -> Translator:
    """A person's language: their /lang choice, else Telegram's language code."""
    return await tables_of(context).people.translator(user.id, user.language_code)


async def remember_user(context: Context, user: User) -> None:
    """Store the person's name (and language code, if they have none chosen)."""
    await tables_of(context).people.remember(user.id, display_name(user), user.language_code)


async def menu_in_language(context: Context, user_id: int, tr: Translator) -> None:
    """The menu button of a person's private chat in their language, where the web app is on (the bot's
    default button is in Chinese, the language most players read)."""
    public_url = tables_of(context).config.public_url
    if public_url is None:
        return
    button = MenuButtonWebApp(tr("🃏 Open the table"), WebAppInfo(f"{public_url}/app/"))
    try:
        await context.bot.set_chat_menu_button(chat_id=user_id, menu_button=button)
    except TelegramError as exc:
        log.warning("menu button refused in a private chat: %s", type(exc).__name__)


def display_name(user: User) -> str:
    """The name shown at the table (bidi and control characters dropped: :func:`bot.untrusted.shown`)."""
    return shown(user.first_name or user.full_name or "").strip() or str(user.id)


async def is_admin(context: Context, chat_id: int, user_id: int, update: Update | None = None) -> bool:
    """True for the group's creator and administrators, and for a command an anonymous admin sent on
    behalf of the group (``update``'s message comes from the group itself, ``sender_chat``)."""
    if update is not None and sent_as_group(update, chat_id):
        return True
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def topic_of(update: Update) -> int | None:
    """The forum topic a message was sent in (its ``message_thread_id``); None outside a forum's topics (a
    group without topics, the General topic, or a reply thread of an ordinary group)."""
    message = update.effective_message
    return message.message_thread_id if message is not None and message.is_topic_message else None


def sent_as_group(update: Update, chat_id: int) -> bool:
    """True for a message sent on behalf of the group ``chat_id`` itself: only its anonymous admins can
    (Telegram shows the sender as the group, and the library's user as GroupAnonymousBot)."""
    message = update.effective_message
    return message is not None and message.sender_chat is not None and message.sender_chat.id == chat_id


async def reply_turn(context: Context, chat_id: int) -> None:
    """Wait for the chat's next reply slot: replies to commands go out one a second per chat (see
    :class:`bot.budget.Pacer`)."""
    pacer: Pacer = context.bot_data.setdefault("reply_pacer", Pacer())
    delay = pacer.delay(chat_id)
    if delay > 0:
        await asyncio.sleep(delay)


async def reply(update: Update, context: Context, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    """Reply to the message that carried a command, one reply a second per chat (see
    :class:`bot.budget.Pacer`); a reply Telegram refuses is logged, never raised.  A command deleted meanwhile
    (groups run bots that delete every command at once) is answered all the same, as a plain message."""
    message = update.effective_message
    if message is None:
        return
    await reply_turn(context, message.chat_id)
    try:
        await message.reply_html(text, disable_web_page_preview=True, reply_markup=markup,
                                 allow_sending_without_reply=True)
    except TelegramError as exc:
        log.warning("reply failed in chat %s: %s", message.chat_id, type(exc).__name__)
        tables_of(context).topics.refused(message.chat_id, topic_of(update), exc)  # a topic closed or gone
        return
    # A message went through: a group that muted the bot lets it write again (its permissions were given back
    # to everyone, or a timed mute ran out: Telegram sends the bot no update for either); so does a topic.
    tables_of(context).muting.wrote(message.chat_id)
    tables_of(context).topics.wrote(message.chat_id, topic_of(update))


def in_group(chat: Chat | None) -> bool:
    """True for groups and supergroups."""
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def chat_translator(context: Context, user: User, chat: Chat | None) -> Translator:
    """The language of a reply in ``chat``: a group's (its table's, else its /lang), else the person's.

    Everyone in a group reads the reply, so it follows the group's choice, not the caller's.
    """
    if in_group(chat):
        assert chat is not None
        tables = tables_of(context)
        table = next(iter(tables.all_in_chat(chat.id)), None)  # every table of a group speaks its language
        if table is not None:
            return translator(table.lang)
        language = await tables.people.chat_language(chat.id)
        if language is not None:
            return translator(language)
    return await user_translator(context, user)


async def who_asks(update: Update, context: Context) -> tuple[User, Chat, Translator] | None:
    """The person and chat behind a command, and the translator of the reply (None for channel posts)."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return None
    return user, chat, await chat_translator(context, user, chat)


def storage_trouble(tr: Translator, exc: StorageError, *, move: bool = True) -> str:
    """The answer to a press whose write failed (call it while handling ``exc``): a fault that can pass is
    said as what it is (logged once where it happened); anything else is a bug, logged with its traceback."""
    if isinstance(exc, StorageFault):
        return storage_refusal(tr, exc)
    log.exception("storage error")
    if move:
        return tr("I could not save your move; nothing changed. Please try again.")
    return tr("I could not save that; nothing changed. Please try again.")
