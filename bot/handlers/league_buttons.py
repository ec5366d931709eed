"""The league in a group: sending a leaderboard (a picture with its caption and buttons), and its buttons.

A leaderboard's buttons show another stretch (the season before, the
current one, all time) in the same message: its picture is replaced
(``editMessageMedia``), or its text when nobody played in either.  A
/history page's button shows the matches before it.  Anyone in the group
may press them: they only read.  The picture is sent by ``file_id`` once
Telegram has it (:meth:`bot.league.board.League.sent`); a group that lets
nobody send photos gets the table in words.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import cast

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
    Update,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from bot import callbacks
from bot.budget import league_budget
from bot.handlers.common import Context, reply, reply_turn
from bot.i18n import Translator, translator
from bot.labels import name_html
from bot.league.board import Answer, League, leaderboard
from bot.league.history import history_text
from bot.league.members import Members
from bot.untrusted import MAX_ID, parse_chat_id, parse_int

log = logging.getLogger(__name__)


def league_of(context: Context) -> League:
    """The league kept in ``bot_data``."""
    return cast(League, context.bot_data["league"])


def board_markup(answer: Answer) -> InlineKeyboardMarkup | None:
    """The stretches worth a look, and the league page's link."""
    rows = []
    if answer.buttons:
        rows.append([InlineKeyboardButton(label, callback_data=callbacks.league("lb", key))
                     for label, key in answer.buttons])
    if answer.link is not None:
        rows.append([InlineKeyboardButton(answer.link[0], url=answer.link[1])])
    return InlineKeyboardMarkup(rows) if rows else None


def history_markup(tr: Translator, more: int | None) -> InlineKeyboardMarkup | None:
    """The button to the matches before the page, if there are any."""
    if more is None:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(tr("◀ Earlier"), callback_data=callbacks.league(
        "hist", str(more)))]])


async def send_board(update: Update, context: Context, answer: Answer, lang: str) -> None:
    """Reply with a leaderboard: its picture and caption, or its text when nobody played in the stretch."""
    message = update.effective_message
    if message is None:
        return
    markup = board_markup(answer)
    picture = answer.file_id or answer.photo
    if picture is None:
        await reply(update, context, answer.text, markup)
        return
    await reply_turn(context, message.chat_id)
    try:
        sent = await message.reply_photo(picture, caption=answer.text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                         allow_sending_without_reply=True)  # the command may be deleted already
    except BadRequest as exc:  # a group that lets nobody send photos: the table in words
        log.warning("leaderboard picture refused in chat %s: %s", message.chat_id, exc)
        await reply(update, context, answer.text, markup)
        return
    except TelegramError as exc:
        log.warning("leaderboard picture refused in chat %s: %s", message.chat_id, exc)
        return
    _remember(context, message.chat_id, answer, lang, sent)


def _remember(context: Context, chat_id: int, answer: Answer, lang: str, sent: Message | bool) -> None:
    if answer.file_id is None and answer.photo is not None and isinstance(sent, Message) and sent.photo:
        league_of(context).sent(chat_id, answer.stretch, lang, sent.photo[-1].file_id, answer.photo)


async def on_league_button(context: Context, query: CallbackQuery, data: callbacks.Callback,
                           tr: Translator) -> None:
    """A leaderboard's or a history page's button (answered; a forged one changes nothing; one past the
    presser's budget is answered with a short notice and does nothing else)."""
    if not league_budget(context.bot_data).allows(query.from_user.id):
        await query.answer(tr("Too many presses: try again in a few seconds."))
        return
    message = query.message
    if not isinstance(message, Message) or message.chat.type not in ("group", "supergroup"):
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    league = league_of(context)
    chat_id = message.chat_id
    lang = await league.language(chat_id)
    if data.op == "hist":
        before = parse_int(data.arg, 0, MAX_ID)
        if before is None:
            await query.answer(tr("That button is not valid."), show_alert=True)
            return
        await query.answer()
        text, more = await history_text(league, translator(lang), chat_id, before=before)
        await _edit(message.edit_text(text, parse_mode=ParseMode.HTML, disable_web_page_preview=True,
                                      reply_markup=history_markup(translator(lang), more)))
        return
    league.asked(chat_id)
    answer = await leaderboard(league, chat_id, lang, data.arg)
    if answer is None:
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    await query.answer()
    markup = board_markup(answer)
    picture = answer.file_id or answer.photo
    if message.photo and picture is not None:
        media = InputMediaPhoto(picture, caption=answer.text, parse_mode=ParseMode.HTML)
        _remember(context, chat_id, answer, lang, await _edit(message.edit_media(media, reply_markup=markup)))
    elif not message.photo and picture is None:
        await _edit(message.edit_text(answer.text, parse_mode=ParseMode.HTML, reply_markup=markup))
    elif picture is not None:  # a text answer's button leads to a picture: a new message
        try:
            sent = await context.bot.send_photo(chat_id, picture, caption=answer.text, parse_mode=ParseMode.HTML,
                                                reply_markup=markup, reply_to_message_id=message.message_id)
        except BadRequest as exc:  # a group that lets nobody send photos: the table in words, in this message
            log.warning("leaderboard picture refused in chat %s: %s", chat_id, exc)
            await _edit(message.edit_text(answer.text, parse_mode=ParseMode.HTML, reply_markup=markup))
            return
        except TelegramError as exc:
            log.warning("leaderboard picture refused in chat %s: %s", chat_id, exc)
            return
        _remember(context, chat_id, answer, lang, sent)
    else:  # a picture's button leads to a stretch nobody played in: said under the picture
        await _edit(message.edit_caption(answer.text, parse_mode=ParseMode.HTML, reply_markup=markup))


async def _edit(edit: Awaitable[Message | bool]) -> Message | bool:
    """Await an edit; "not modified" (the same button twice) is success, any other refusal is logged."""
    try:
        return await edit
    except BadRequest as exc:
        if "not modified" not in exc.message:
            log.warning("league message edit refused: %s", exc.message)
    except TelegramError as exc:
        log.warning("league message edit failed: %s", exc)
    return False


async def page_offer(context: Context, payload: str, user_id: int,
                     tr: Translator) -> tuple[str, InlineKeyboardMarkup | None] | None:
    """For an ``l<chat_id>`` start payload (a leaderboard's link): a button opening that group's league page in
    the web app, for someone who played there; None for any other payload (or without the web app)."""
    league = league_of(context)
    chat_id = parse_chat_id(payload[1:]) if payload.startswith("l") else None
    if league.public_url is None or chat_id is None:
        return None
    if not await cast(Members, context.bot_data["members"]).may_see(chat_id, user_id):
        return tr("Only members of a group who played in it can open its league page."), None
    known = await league.group_title(chat_id)
    title = name_html(known) if known is not None else str(chat_id)
    button = InlineKeyboardButton(tr("📈 League page"),
                                  web_app=WebAppInfo(f"{league.public_url}/app/league.html?chat={chat_id}"))
    return tr("The league of {title}:", title=title), InlineKeyboardMarkup([[button]])
