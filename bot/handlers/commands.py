"""The table's commands: /start (and its deep links), /newgame, /join, /leave, /stop, /hand.

Each handler parses, calls the service under the table's lock, and replies
(replies wait for the chat's pace: never while holding the table).
"""

from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update, WebAppInfo
from telegram.constants import ChatType

from bot import links
from bot.command_texts import help_text
from bot.handlers.common import (
    Context,
    chat_translator,
    in_group,
    is_admin,
    menu_in_language,
    remember_user,
    reply,
    storage_trouble,
    tables_of,
    topic_of,
    user_translator,
    who_asks,
)
from bot.handlers.league_buttons import page_offer
from bot.handlers.seating import seat_person
from bot.i18n import Translator
from bot.labels import name_html
from bot.messages import refusal
from bot.model import Table
from bot.tables import StorageError, TableError, Tables, escape_cost, escape_question
from bot.untrusted import parse_id
from engine.errors import EngineError
from engine.ruleset import RULESETS, get_ruleset

log = logging.getLogger(__name__)


async def cmd_start(update: Update, context: Context) -> None:
    """/start in the private chat, possibly from a deep link to a seat or to a hand's replay."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None or chat.type != ChatType.PRIVATE:
        return
    tables = tables_of(context)
    await remember_user(context, user)
    await tables.people.reachable(user.id)
    tr = await user_translator(context, user)
    if tr.lang != "zh":  # the bot's default menu button reads Chinese
        await menu_in_language(context, user.id, tr)
    for seated, index in tables.tables_of(user.id):
        # Said first: the hand message follows it (between hands a note of when the next hand comes does).
        if seated.playing and seated.between_hands is None and tables.holds(seated, index, user.id):
            await reply(update, context, tr("You sit at the table in {title}; your cards are below.",
                                            title=name_html(tables.group_titles.get(seated.chat_id, seated.title))))
        async with seated.lock:
            await tables.reached(seated, index, user.id)  # a new hand message, below the line saying so
    payload = context.args[0] if context.args else ""
    offer = await replay_offer(tables, payload, user.id, tr) or await page_offer(context, payload, user.id, tr)
    if offer is not None:  # the result message's replay link, or a leaderboard's link to the league page
        await reply(update, context, offer[0], offer[1])
        return
    wanted = _seat_request(tables, payload, user.id)
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


async def replay_offer(tables: Tables, payload: str, user_id: int,
                       tr: Translator) -> tuple[str, InlineKeyboardMarkup | None] | None:
    """For a ``r<hand_id>`` start payload (a result's replay link): a button opening that hand's replay in
    the web app, for someone who played it (a group cannot hold a ``web_app`` button, so the link goes
    through the private chat); None for any other payload."""
    public_url = tables.config.public_url
    hand_id = parse_id(payload[1:]) if payload.startswith("r") else None
    if public_url is None or hand_id is None:
        return None
    number = await tables.replay_number(hand_id, user_id)
    if number is None:
        return tr("Only the people who played a hand can replay it."), None
    button = InlineKeyboardButton(tr("🎞 Replay hand {n}", n=number),
                                  web_app=WebAppInfo(f"{public_url}/app/?replay={hand_id}"))
    return tr("Open the replay of hand {n} here:", n=number), InlineKeyboardMarkup([[button]])


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
    if table is not None and seat is None:
        seat = tables.invited_seat(table, user_id)
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
    tables = tables_of(context)
    preset = None
    try:
        tables.check_new_table(chat.id, topic_of(update))  # first: with a table open, the preset does not matter
        if context.args:
            try:
                preset = get_ruleset(" ".join(context.args)).name
            except ValueError:
                names = ", ".join(f"{r.name} ({r.zh_name})" for r in RULESETS.values())
                await reply(update, context, tr("Unknown preset. The presets are: {names}", names=names))
                return
        await remember_user(context, user)
        table = await tables.new_table(chat.id, chat.title or "", user.id, tr.lang, preset, topic_of(update))
    except TableError as exc:
        await reply(update, context, exc.text(tr))
        return
    async with table.lock:
        problem = await seat_person(context, table, user, 0, answer=tr)
        tables.refresh(table)
    if problem:
        await reply(update, context, problem)


async def cmd_join(update: Update, context: Context) -> None:
    """/join in a group: take a free seat."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    table = tables_of(context).in_chat(chat.id, topic_of(update))
    if table is None:
        await reply(update, context, tr("There is no table here. Start one with /newgame."))
        return
    async with table.lock:
        problem = await seat_person(context, table, user, None, answer=tr)
    if problem:
        await reply(update, context, problem)


async def cmd_leave(update: Update, context: Context) -> None:
    """/leave: give up a seat in the lobby, or escape mid-match (the AI takes the seat)."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    tables = tables_of(context)
    table = tables.in_chat(chat.id, topic_of(update))
    if table is None or (table.seat_of(user.id) is None and not _coming_back(tables, table, user.id)):
        await reply(update, context, tr("You are not seated at a table in this chat."))
        return
    question: tuple[str, InlineKeyboardMarkup] | None = None
    refused: str | None = None
    async with table.lock:
        seat = table.seat_of(user.id)
        if seat is None and not _coming_back(tables, table, user.id):  # they left while waiting for the lock
            return
        try:
            if seat is None:  # they asked for their seat back from the next hand: they stay away after all
                back = tables.left_seat(table, user.id)
                assert back is not None
                await tables.stay_away(table, back)
            elif table.status == "open":
                await tables.leave(table, user.id)
                tables.refresh(table)
            elif not table.playing:
                raise TableError("No hand is being played at this table.")
            elif (cost := escape_cost(table, seat)) == 0:  # free: no card played yet (§2.16)
                await tables.escape(table, seat)
                tables.after_change(table)
            else:
                question = escape_question(tr, table, seat, cost)
        except (TableError, EngineError) as exc:
            refused = exc.text(tr) if isinstance(exc, TableError) else refusal(tr, exc)
        except StorageError as exc:
            refused = storage_trouble(tr, exc, move=False)
    if refused is not None:  # replies wait for the chat's pace: never while holding the table
        await reply(update, context, refused)
    if question is not None:
        await reply(update, context, *question)


def _coming_back(tables: Tables, table: Table, user_id: int) -> bool:
    """True if this person left their seat and takes it back from the AI when the next hand starts."""
    return table.playing and tables.left_seat(table, user_id) in table.coming_back


async def cmd_stop(update: Update, context: Context) -> None:
    """/stop: the creator or an admin closes the table."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    tables = tables_of(context)
    table = tables.in_chat(chat.id, topic_of(update))
    if table is None:
        await reply(update, context, tr("There is no table here."))
        return
    if user.id != table.creator_id and not await is_admin(context, chat.id, user.id, update):
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
    sent = False  # a hand message, not only when the next hand comes (between hands nothing of it is shown)
    for table, seat in mine:
        async with table.lock:
            if tables.holds(table, seat, user.id):  # the seat may have changed hands meanwhile
                sent = sent or table.between_hands is None
                await tables.show_hand_again(table, seat)
    if in_group(update.effective_chat):
        await reply(update, context, tr("I sent your hand to our private chat.") if sent
                    else tr("The next hand has not started yet; I told you in our private chat when it starts."))
