"""Telegram handlers: parse the update, call the service under the table's lock, answer.

Each handler is short (parse, call, save, render) and every callback query
is answered, with a popup for anything refused.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Final, cast

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

import storage
from bot import callbacks, links, seats, story
from bot.budget import CommandBudget, Pacer
from bot.commands import GROUP_COMMANDS, PRIVATE_COMMANDS, help_text, leaderboard_text, rules_text, stats_text
from bot.i18n import LANGUAGES, Translator, pick_language, translator
from bot.labels import name_html
from bot.messages import refusal
from bot.model import Table
from bot.moves import make_move
from bot.ratelimit import ANSWER, PRIORITY
from bot.render_private import one_tap_plays, peek_text
from bot.service import TableError, Tables
from bot.webapp.links import replay_offer
from engine.ai import choose_action
from engine.cards import Card
from engine.errors import EngineError
from engine.notices import ThrowFailed, notice_from_dict
from engine.ruleset import RULESETS, get_ruleset
from engine.views import view_for

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE

COMMANDS = frozenset(GROUP_COMMANDS + PRIVATE_COMMANDS)
"""The commands the bot answers (and so budgets)."""

def tables_of(context: Context) -> Tables:
    """The service kept in ``bot_data``."""
    return cast(Tables, context.bot_data["tables"])


async def user_translator(context: Context, user: User) -> Translator:
    """A person's language: their /lang choice, else Telegram's language code."""
    record = await storage.get_user(tables_of(context).db, user.id)
    if record is not None and record.language:
        return translator(record.language)
    return translator(pick_language(user.language_code))


async def remember_user(context: Context, user: User) -> storage.UserRecord:
    """Store the person's name (and language code, if they have none chosen)."""
    db = tables_of(context).db
    record = await storage.get_user(db, user.id)
    language = record.language if record is not None and record.language else pick_language(user.language_code)
    return await storage.upsert_user(db, user.id, display_name(user), language=language)


def display_name(user: User) -> str:
    """The name shown at the table."""
    return user.first_name or user.full_name or str(user.id)


async def is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    """True for the group's creator and administrators."""
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def reply(update: Update, context: Context, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    """Reply to the message that carried a command, one reply a second per chat (see
    :class:`bot.budget.Pacer`); a reply Telegram refuses is logged, never raised."""
    message = update.effective_message
    if message is None:
        return
    pacer: Pacer = context.bot_data.setdefault("reply_pacer", Pacer())
    delay = pacer.delay(message.chat_id)
    if delay > 0:
        await asyncio.sleep(delay)
    try:
        await message.reply_html(text, disable_web_page_preview=True, reply_markup=markup)
    except TelegramError as exc:
        log.warning("reply failed in chat %s: %s", message.chat_id, type(exc).__name__)


async def within_budget(update: Update, context: Context) -> bool:
    """False for a command past its chat's or sender's budget (see :mod:`bot.budget`); the first such
    command of a run gets one short notice."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or not (message.text or "").startswith("/"):
        return True
    name, _, target = message.text.split(maxsplit=1)[0][1:].partition("@")  # type: ignore[union-attr]
    if name.lower() not in COMMANDS or (target and target.lower() != (context.bot.username or "").lower()):
        return True  # no handler answers it: it costs nothing
    budget: CommandBudget = context.bot_data.setdefault("command_budget", CommandBudget())
    verdict = budget.verdict(message.chat_id, user.id)
    if verdict == "notice":
        tr = await user_translator(context, user)
        await reply(update, context, tr("{who}, that is a lot of commands: I will answer again in a minute.",
                               who=name_html(display_name(user))))
    return verdict == "answer"


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
        table = tables.in_chat(chat.id)
        if table is not None:
            return translator(table.lang)
        record = await storage.get_chat(tables.db, chat.id)
        if record is not None and record.language:
            return translator(record.language)
    return await user_translator(context, user)


async def who_asks(update: Update, context: Context) -> tuple[User, Chat, Translator] | None:
    """The person and chat behind a command, and the translator of the reply (None for channel posts)."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return None
    return user, chat, await chat_translator(context, user, chat)


# --- seating -------------------------------------------------------------------------------

async def seat_person(context: Context, table: Table, user: User, seat: int | None,
                      query: CallbackQuery | None = None) -> str | None:
    """Seat someone the bot can reach privately; otherwise send them to the private chat.

    Returns a popup text for the person, or None if they were seated.
    """
    tables = tables_of(context)
    tr = await user_translator(context, user)
    try:
        tables.check_sit(table, user.id, seat)  # before writing to them: "joining" must be true
    except TableError as exc:
        return exc.text(tr)
    record = await remember_user(context, user)
    if not record.can_message_privately or record.blocked:
        # Try once: people who opened the bot elsewhere can be reached without a link.  The press's
        # answer waits for this message (under the table's lock), so it goes before every other.
        first = PRIORITY.set(ANSWER)
        try:
            await context.bot.send_message(user.id, tr("You are joining the table in {title}.",
                                                        title=name_html(table.title or "?")))
            await storage.set_user_reachability(tables.db, user.id, can_message_privately=True, blocked=False)
        except Forbidden:
            table.pending[user.id] = (seat, display_name(user))
            tables.refresh(table)
            link = links.link(tables.bot_username, tables.config.token, table.id, seat)
            if query is not None:
                await query.answer(url=link)
                return ""
            return tr("First open a private chat with me and press Start: {link}", link=link)
        except TelegramError:
            return tr("I could not reach you privately; please try again.")
        finally:
            PRIORITY.reset(first)
    try:
        await tables.sit(table, user.id, display_name(user), tr.lang, seat)
    except TableError as exc:
        return exc.text(tr)
    table.pending.pop(user.id, None)
    tables.refresh(table)
    return None


# --- commands --------------------------------------------------------------------------------

async def cmd_start(update: Update, context: Context) -> None:
    """/start in the private chat, possibly from a deep link to a seat."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None or chat.type != ChatType.PRIVATE:
        return
    tables = tables_of(context)
    await remember_user(context, user)
    await storage.set_user_reachability(tables.db, user.id, can_message_privately=True, blocked=False)
    tr = await user_translator(context, user)
    for seated, index in tables.tables_of(user.id):
        async with seated.lock:
            info = seated.seats[index]
            if info is None or info.user_id != user.id:
                continue
            info.reachable = True
            if seated.playing and not await seats.come_back(tables, seated, index):
                if seated.paused:  # they were unreachable, and so nobody was left: the table goes on
                    seats.resume(tables, seated)
                    tables.after_change(seated)
                tables.refresh(seated, urgent=[index])
        if seated.playing:
            await reply(update, context, tr("You sit at the table in {title}; your cards are below.",
                                   title=name_html(tables.group_titles.get(seated.chat_id, seated.title))))
    offer = await replay_offer(tables, context.args[0] if context.args else "", tr)
    if offer is not None:  # the result message's replay link
        await reply(update, context, offer[0], offer[1])
        return
    wanted = _seat_request(tables, context.args[0] if context.args else "", user.id)
    if wanted is not None:
        table, seat = wanted
        if table is None:
            await reply(update, context, tr("That link is not valid, or its table is closed."))
            return
        if not await links.is_member(context.bot, table.chat_id, user.id):
            log.info("table %s: a seat link refused to someone outside the group", table.id)
            await reply(update, context, tr("This link seats members of its group only. Ask to join the group, then take a seat there."))
            return
        async with table.lock:
            problem = await seat_person(context, table, user, seat)
        await reply(update, context, problem or tr("You are seated at the table in {title}. Your cards will appear here.",
                                          title=name_html(table.title)))
        return
    await reply(update, context, help_text(tr))


def _seat_request(tables: Tables, payload: str, user_id: int) -> tuple[Table | None, int | None] | None:
    """A deep link's seat request: a seat button's link names the seat, the lobby's link none (the
    seat the person asked for before, if any); None for a plain /start.  A payload whose token is
    not the table's (guessed, forged) or whose table is gone gives no table."""
    if not payload:
        return None
    request = links.parse(tables.config.token, payload)
    if request is None:
        return None, None
    table = tables.get(request.table_id)
    seat = request.seat
    if table is not None and seat is None and user_id in table.pending:
        seat = table.pending[user_id][0]
    return table, seat


async def cmd_newgame(update: Update, context: Context) -> None:
    """/newgame [preset] in a group: open a table and seat its creator."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Open a table in a group chat: add me to a group and send /newgame there."))
        return
    preset = None
    if context.args:
        try:
            preset = get_ruleset(" ".join(context.args)).name
        except ValueError:
            names = ", ".join(f"{r.name} ({r.zh_name})" for r in RULESETS.values())
            await reply(update, context, tr("Unknown preset. The presets are: {names}", names=names))
            return
    tables = tables_of(context)
    await remember_user(context, user)
    try:
        table = await tables.new_table(chat.id, chat.title or "", user.id, tr.lang, preset)
    except TableError as exc:
        await reply(update, context, exc.text(tr))
        return
    async with table.lock:
        problem = await seat_person(context, table, user, 0)
        tables.refresh(table)
    if problem:
        await reply(update, context, problem)


async def cmd_join(update: Update, context: Context) -> None:
    """/join in a group: take a free seat."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    table = tables_of(context).in_chat(chat.id)
    if table is None:
        await reply(update, context, tr("There is no table here. Start one with /newgame."))
        return
    async with table.lock:
        problem = await seat_person(context, table, user, None)
    if problem:
        await reply(update, context, problem)


async def cmd_leave(update: Update, context: Context) -> None:
    """/leave: give up a seat in the lobby, or escape mid-match (the AI takes the seat)."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    tables = tables_of(context)
    table = tables.in_chat(chat.id)
    if table is None or table.seat_of(user.id) is None:
        await reply(update, context, tr("You are not seated at a table in this chat."))
        return
    question: tuple[str, InlineKeyboardMarkup] | None = None
    refused: str | None = None
    async with table.lock:
        seat = table.seat_of(user.id)
        if seat is None:  # they left while waiting for the lock
            return
        try:
            if table.status == "open":
                await tables.leave(table, user.id)
                tables.refresh(table)
            elif not table.playing:
                raise TableError("No hand is being played at this table.")
            elif (cost := seats.escape_cost(table, seat)) == 0:  # free: no card played yet (§2.16)
                await tables.escape(table, seat)
                tables.after_change(table)
            else:
                question = seats.escape_question(tr, table, seat, cost)
        except (TableError, EngineError) as exc:
            refused = exc.text(tr) if isinstance(exc, TableError) else refusal(tr, exc)
    if refused is not None:  # replies wait for the chat's pace: never while holding the table
        await reply(update, context, refused)
    if question is not None:
        await reply(update, context, *question)


async def cmd_stop(update: Update, context: Context) -> None:
    """/stop: the creator or an admin closes the table."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    tables = tables_of(context)
    table = tables.in_chat(chat.id)
    if table is None:
        await reply(update, context, tr("There is no table here."))
        return
    if user.id != table.creator_id and not await is_admin(context, chat.id, user.id):
        await reply(update, context, tr("Only the table's creator or a group admin can stop it."))
        return
    async with table.lock:
        await tables.stop(table)  # its message says it is closed and loses its buttons
    await reply(update, context, tr("The table is closed."))


async def cmd_hand(update: Update, context: Context) -> None:
    """/hand: send my hand message again (as a new message, the old one goes)."""
    user = update.effective_user
    if user is None:
        return
    tr = await chat_translator(context, user, update.effective_chat)
    tables = tables_of(context)
    mine = [(t, s) for t, s in tables.tables_of(user.id) if t.playing]
    if not mine:
        await reply(update, context, tr("You are not playing at any table."))
        return
    for table, seat in mine:
        async with table.lock:
            info = table.seats[seat]
            if info is None or info.user_id != user.id:  # the seat changed hands meanwhile
                continue
            old = info.hand_message_id
            info.hand_message_id = None
            if tables.publisher is not None:
                tables.publisher.forget(seats.slot_key(table.id, seat, user.id))
                await tables.publisher.delete(user.id, old)
            if not await seats.come_back(tables, table, seat):
                tables.refresh(table, urgent=[seat])
    if in_group(update.effective_chat):
        await reply(update, context, tr("I sent your hand to our private chat."))


async def cmd_rules(update: Update, context: Context) -> None:
    """/rules [preset]: the rules of a preset (default: this chat's table, else 盐城), in one or more messages."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    name = " ".join(context.args) if context.args else None
    table = tables_of(context).in_chat(chat.id)
    try:  # without a name: this chat's table, with its choice of open or hidden bids
        ruleset = get_ruleset(name) if name is not None else (
            table.settings.ruleset() if table is not None else get_ruleset("yancheng"))
    except ValueError:
        names = ", ".join(f"{r.name} ({r.zh_name})" for r in RULESETS.values())
        await reply(update, context, tr("Unknown preset. The presets are: {names}", names=names))
        return
    for page in rules_text(tr, ruleset):
        await reply(update, context, page)


async def cmd_stats(update: Update, context: Context) -> None:
    """/stats: my line in this group's league."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Send /stats in the group whose league you want to see."))
        return
    rows = await storage.player_standings(tables_of(context).db, chat.id)
    await reply(update, context, stats_text(tr, rows, user.id))


async def cmd_leaderboard(update: Update, context: Context) -> None:
    """/leaderboard: the group's league table and best partnerships."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Send /leaderboard in a group."))
        return
    db = tables_of(context).db
    players = await storage.player_standings(db, chat.id)
    pairs = await storage.partnership_standings(db, chat.id)
    await reply(update, context, leaderboard_text(tr, players, pairs))


async def cmd_lang(update: Update, context: Context) -> None:
    """/lang [zh|en]: my language in private; the group's language in a group (admins)."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    tables = tables_of(context)
    choice = (context.args[0].lower() if context.args else "")
    if choice not in LANGUAGES:
        tr = await chat_translator(context, user, chat)
        await reply(update, context, tr("Use /lang zh for 中文 or /lang en for English."))
        return
    tr = translator(choice)
    if in_group(chat):
        table = tables.in_chat(chat.id)
        creator = table is not None and table.creator_id == user.id
        if not creator and not await is_admin(context, chat.id, user.id):
            await reply(update, context, tr("Only the table's creator or a group admin can change the group's language."))
            return
        await storage.upsert_chat(tables.db, chat.id, chat.title or "")
        await storage.update_chat(tables.db, chat.id, language=choice)
        if table is not None:
            table.lang = choice
            tables.refresh(table)
        await reply(update, context, tr("The group's language is now English."))
        return
    await remember_user(context, user)
    await storage.set_user_language(tables.db, user.id, choice)
    for table, seat in tables.tables_of(user.id):
        info = table.seats[seat]
        if info is not None:
            info.lang = choice
            tables.refresh(table, urgent=[seat])
    await reply(update, context, tr("Your language is now English."))


async def cmd_help(update: Update, context: Context) -> None:
    """/help."""
    user = update.effective_user
    if user is None:
        return
    await reply(update, context, help_text(await chat_translator(context, user, update.effective_chat)))


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
            table.chat_id = new
            tables.by_chat.pop(old, None)
            tables.by_chat[new] = table.id
            tables.group_titles[new] = tables.group_titles.pop(old, table.title)
            if tables.publisher is not None:
                tables.publisher.forget((table.id, "group"))
            table.message_id = None
            tables.refresh(table)


# --- buttons -----------------------------------------------------------------------------------

async def on_callback(update: Update, context: Context) -> None:
    """Every inline button press."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    tr = await user_translator(context, user)
    data = callbacks.decode(query.data)
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


async def on_lobby_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                          tr: Translator) -> None:
    """Seat, leave, AI seats, settings, start."""
    tables = tables_of(context)
    user = query.from_user
    if query.message is None or query.message.chat.id != table.chat_id:
        await query.answer(tr("That button is not valid."), show_alert=True)
        return
    op = data.op
    if op in ("set", "preset", "hidden", "pace", "timeout", "strength") and user.id != table.creator_id \
            and not await is_admin(context, table.chat_id, user.id):
        await query.answer(tr("Only the table's creator or a group admin can change the settings."), show_alert=True)
        return
    popup: str | None = None
    async with table.lock:
        try:
            if op == "sit":
                seat = int(data.arg) if data.arg.isdigit() and int(data.arg) < 4 else None
                popup = await seat_person(context, table, user, seat, query)
                if popup == "":
                    return  # answered with the deep link
            elif op == "leave":
                await tables.leave(table, user.id)
            elif op == "ai":
                await tables.add_ai(table)
            elif op == "rmai":
                await tables.remove_ai(table)
            elif op == "set":
                tables.lobby_panels.add(table.id)
            elif op in ("back", "cancel"):
                tables.lobby_panels.discard(table.id)
            elif op in ("preset", "hidden", "pace", "timeout", "strength"):
                if op == "preset" and data.arg not in RULESETS:
                    raise TableError("That button is out of date.")
                await tables.change_setting(table, op, data.arg)
            elif op == "start":
                if table.seat_of(user.id) is None and user.id != table.creator_id:
                    raise TableError("Only someone seated at the table can start it.")
                await tables.start(table)
                table.pending.clear()
                tables.after_change(table)
        except TableError as exc:
            popup = exc.text(tr)
        except storage.StorageError:
            log.exception("table %s: storage error", table.id)
            popup = tr("I could not save that; nothing changed. Please try again.")
        tables.refresh(table)
    await query.answer(popup or None, show_alert=bool(popup))


PRESS_WAIT: Final = 8.0
"""Seconds a button press waits for its table; Telegram stops waiting for an answer after about 15."""

SELECTING: Final = frozenset({"sel", "clear", "hint"})
"""Operations that only change the selection: they need the hand, not the question, unchanged."""


async def on_seat_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                         tr: Translator) -> None:
    """「我回来了」 (in private), and the answer to an escape's confirmation (in the group)."""
    tables = tables_of(context)
    user = query.from_user
    seat = table.seat_of(user.id)
    popup: str | None = None
    async with table.lock:
        try:
            if seat is None or not table.playing:
                raise TableError("You are not playing at this table.")
            if data.op == "return":
                if not await seats.come_back(tables, table, seat):
                    popup = tr("You are playing this seat already.")
            elif data.op == "stay":
                if data.arg != str(seat):
                    raise TableError("This question is not yours.")
            else:
                await tables.escape(table, seats.confirmed_escape(table, user.id, data.arg))
                tables.after_change(table)
        except TableError as exc:
            popup = exc.text(tr)
        except storage.StorageError:
            log.exception("table %s: storage error", table.id)
            popup = tr("I could not save that; nothing changed. Please try again.")
    # The press is answered first: the edit below is a group message, which may wait for the group's budget.
    await query.answer(popup or None, show_alert=bool(popup))
    if popup is None and data.op in ("esc", "stay") and query.message is not None:
        try:  # the question is answered: its buttons go
            await query.edit_message_reply_markup(reply_markup=None)
        except TelegramError:
            pass


async def on_hand_button(context: Context, query: CallbackQuery, table: Table, data: callbacks.Callback,
                         tr: Translator) -> None:
    """Card selection and the actions of a player's private keyboard, and the group's 🃏.

    Who holds which seat is read under the table's lock (a seat may change
    hands while a press waits for it); a press that cannot get the table in
    :data:`PRESS_WAIT` seconds is answered "please try again".
    """
    try:
        async with asyncio.timeout(PRESS_WAIT):  # not wait_for, which in 3.11 can drop a cancellation
            await table.lock.acquire()
    except TimeoutError:
        await query.answer(tr("The table is busy; please try again in a moment."), show_alert=True)
        return
    try:
        popup = await _hand_press(tables_of(context), query, table, data, tr)
    finally:
        table.lock.release()
    await query.answer(popup or None, show_alert=bool(popup))


async def _hand_press(tables: Tables, query: CallbackQuery, table: Table, data: callbacks.Callback,
                      tr: Translator) -> str | None:
    """One hand-keyboard press under the table's lock; the popup to answer with, if any."""
    user = query.from_user
    seat = table.seat_of(user.id)
    if seat is None:
        return tr("You are not playing at this table.")
    if not table.playing:
        return tr("No hand is being played at this table.")
    if data.op == "peek":
        return peek_text(tr, table, seat)
    if data.op == "next":  # 「下一局」 on the group's table message
        assert table.match is not None
        if data.version != str(table.match.deals):
            return tr("That button is out of date.")
        try:
            tables.next_hand(table)
        except TableError as exc:
            return exc.text(tr)
        return None
    if query.message is None or query.message.chat.id != user.id:
        return tr("That button is not valid.")
    # A press on the keyboard: keep this message current even while the web app is open too.
    tables.app_seats.pop((table.id, seat), None)
    done = table.acted.get(seat)
    if done is not None and done[:2] == (data.version, data.op) and done[2] == table.version(seat):
        return tr("You have already done that.")
    if table.stale(seat, data.version, selecting=data.op in SELECTING):
        tables.refresh(table, pressed=seat)
        return tr("That button is out of date; your hand is shown again.")
    assert table.match is not None
    if data.op == "pass" and seat in table.match.hand.passed:
        return tr("You have already done that.")  # one pass a round; the keyboard keeps Pass for the look
    info = table.seats[seat]
    assert info is not None
    info.last_active = time.time()
    await seats.come_back(tables, table, seat)  # a press from someone away brings them back
    if info.hand_message_id is None:
        info.hand_message_id = query.message.message_id
    popup: str | None = None
    try:
        popup = await hand_op(tables, table, seat, data, tr)
    except EngineError as exc:
        popup = refusal(tr, exc, table.settings.ruleset())
    except TableError as exc:
        popup = exc.text(tr)
    except storage.StorageError:
        log.exception("table %s: storage error", table.id)
        popup = tr("I could not save your move; nothing changed. Please try again.")
    tables.refresh(table, pressed=seat)
    return popup


async def hand_op(tables: Tables, table: Table, seat: int, data: callbacks.Callback, tr: Translator) -> str | None:
    """Apply one hand-keyboard operation; returns a popup text or None."""
    assert table.match is not None
    hand = table.match.hand
    selected = table.selected(seat)
    op = data.op
    if op in ("sel", "clear", "hint"):
        table.restarted.discard(seat)
    if op == "sel":
        card = Card.parse(data.arg[:-1])
        copy = int(data.arg[-1]) if data.arg[-1].isdigit() else 0
        held = Counter(hand.hands[seat])[card]
        if held == 0:
            raise TableError("That button is out of date; your hand is shown again.")
        if copy < selected[card]:
            selected[card] -= 1
        elif selected[card] < held:
            selected[card] += 1
        return None
    if op == "clear":
        selected.clear()
        return None
    if op == "hint":
        # The casual player answers at once; the strong one would hold the event loop for its search.
        suggestion = choose_action(view_for(hand, seat), hand.ruleset, tables.rng, "casual")
        selected.clear()
        selected.update(suggestion.cards)
        return None if suggestion.cards else tr("Nothing to suggest now.")
    if op == "go":  # a one-tap play: the cards its button showed (worked out again the same way)
        if hand.phase != "playing" or hand.turn != seat:
            raise TableError("That button is not valid.")
        plays = one_tap_plays(table, seat)
        index = int(data.arg) if data.arg.isdigit() else 0  # a button from before the choices: the hint's
        if index >= len(plays):
            raise TableError("That button is out of date; your hand is shown again.")
        await make_move(tables, table, seat, "play", plays[index], None)
        table.acted[seat] = (data.version, data.op, table.version(seat))
        return None
    cards = tuple(selected.elements())
    kinds = {"bid": "bid", "pass": "pass", "bury": "bury", "steal": "steal", "nosteal": "pass_steal",
             "play": "play"}
    trump: str | None = None
    if op == "trump":
        verb, _, choice = data.arg.partition("-")
        if verb not in ("bid", "steal") or choice not in ("S", "H", "D", "C", "NT"):
            raise TableError("That button is not valid.")
        op, trump = verb, None if choice == "NT" else choice
    kind = kinds.get(op)
    if kind is None:
        raise TableError("That button is not valid.")
    if kind in ("pass", "pass_steal"):
        cards = ()
    elif not cards and seat in table.restarted:
        table.restarted.discard(seat)
        return tr("I restarted and your selection was lost; your hand is shown again: select the cards again.")
    elif not cards:
        return tr("Select the cards first.")
    outputs = await make_move(tables, table, seat, kind, cards, trump)  # type: ignore[arg-type]
    table.acted[seat] = (data.version, data.op, table.version(seat))
    for raw in outputs[0].info.get("notices", ()):  # 甩牌失败: the thrower is told what happened, too
        notice = notice_from_dict(raw)
        if isinstance(notice, ThrowFailed) and notice.seat == seat:
            return story.throw_failed(tr, notice)
    return None


def answered_too_late(error: object) -> bool:
    """True if Telegram refused a button's answer because it came after its window (about 15 s)."""
    text = error.message.lower() if isinstance(error, BadRequest) else ""
    return "query is too old" in text or "query id is invalid" in text


async def on_error(update: object, context: Context) -> None:
    """Log the failure (never a hidden card) and tell the person something went wrong."""
    if answered_too_late(context.error):
        # The press was handled (a move it made stands) and only its answer came too late, or the update
        # reached the bot after its window: another answer would be refused too.
        log.warning("a button's answer came too late for Telegram: %s", context.error)
        return
    log.error("update failed: %s", type(context.error).__name__, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            tr = translator(pick_language(update.callback_query.from_user.language_code))
            await update.callback_query.answer(tr("Something went wrong; nothing changed."), show_alert=True)
        except TelegramError:
            pass

