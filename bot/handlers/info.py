"""The informational commands: /rules, /stats, /leaderboard, /season, /history, /lang, /help."""

from __future__ import annotations

from typing import cast

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update, WebAppInfo

from bot.command_texts import help_text, rules_text
from bot.handlers.common import (
    Context,
    chat_translator,
    in_group,
    is_admin,
    menu_in_language,
    remember_user,
    reply,
    sent_as_group,
    tables_of,
    topic_of,
    who_asks,
)
from bot.handlers.league_buttons import history_markup, league_of, send_board
from bot.i18n import LANGUAGES, translator
from bot.league.admin import change_season
from bot.league.board import CURRENT, leaderboard
from bot.league.history import history_text
from bot.league.personal import group_stats, private_stats
from bot.league.seasons import SeasonWatcher, season_text
from engine.ruleset import RULESETS, get_ruleset


async def cmd_rules(update: Update, context: Context) -> None:
    """/rules [preset]: the rules of a preset (default: this chat's table, else 盐城), in one or more messages."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    name = " ".join(context.args) if context.args else None
    table = tables_of(context).in_chat(chat.id, topic_of(update))
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
    """/stats: my league in this group (this season, all time, as dealer and attackers, best partner, red
    fives); in private, in every group I play in."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    league = league_of(context)
    if not in_group(chat):
        page = None
        if league.public_url is not None:  # in private a button may open the web app: the league page
            page = InlineKeyboardMarkup([[InlineKeyboardButton(
                tr("📈 League page"), web_app=WebAppInfo(f"{league.public_url}/app/league.html"))]])
        await reply(update, context, await private_stats(league, tr, user.id), page)
        return
    if not await league.knows(chat.id):
        await reply(update, context, tr("You have not finished a hand in this group yet."))
        return
    text = await group_stats(league, tr, chat.id, user.id)
    await reply(update, context, text or tr("You have not finished a hand in this group yet."))


async def cmd_leaderboard(update: Update, context: Context) -> None:
    """/leaderboard: the group's league this season, as a picture and a table, with buttons to the season
    before and to all time."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Send /leaderboard in a group."))
        return
    league = league_of(context)
    if not await league.knows(chat.id):
        await reply(update, context, tr("No hands have been finished in this group yet."))
        return
    league.asked(chat.id)
    answer = await leaderboard(league, chat.id, tr.lang, CURRENT)
    if answer is not None:
        await send_board(update, context, answer, tr.lang)


async def cmd_history(update: Update, context: Context) -> None:
    """/history: the group's last matches, with a replay link per hand where the web app is on."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Send /history in a group."))
        return
    text, more = await history_text(league_of(context), tr, chat.id)
    await reply(update, context, text, history_markup(tr, more))


async def cmd_season(update: Update, context: Context) -> None:
    """/season: the season under way; admins: /season new NAME, /season monthly, /season min N, /season tz ZONE."""
    caller = await who_asks(update, context)
    if caller is None:
        return
    user, chat, tr = caller
    if not in_group(chat):
        await reply(update, context, tr("Send /season in a group."))
        return
    league = league_of(context)
    await tables_of(context).people.remember_chat(chat.id, chat.title or "")
    args = list(context.args or [])
    if not args:
        await reply(update, context, await season_text(league.db, tr, chat.id, league.clock()))
        return
    if not await is_admin(context, chat.id, user.id, update):
        await reply(update, context, tr("Only a group admin can change the seasons."))
        return
    # The season names who started it: a person stored first (an admin may never have played), or nobody for
    # an anonymous admin posting as the group.
    by = None if sent_as_group(update, chat.id) else user.id
    if by is not None:
        await remember_user(context, user)
    done = await change_season(league, tr, chat.id, by, args[0].lower(), " ".join(args[1:]))
    if done is None:
        await reply(update, context, tr("Use /season new NAME, /season monthly, /season min N or /season tz ZONE."))
        return
    league.cache.forget(chat.id)
    cast(SeasonWatcher, context.bot_data["seasons"]).poke()  # the season that ended is told
    if done:
        await reply(update, context, done)
    elif (outbox := tables_of(context).outbox) is not None:  # the season that ended, then the one that starts,
        outbox.wake(chat.id)  # were queued in the group's outbox in that order


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
        table = tables.in_chat(chat.id, topic_of(update))
        creator = table is not None and table.creator_id == user.id
        if not creator and not await is_admin(context, chat.id, user.id, update):
            tr = await chat_translator(context, user, chat)  # refused: the group keeps its language
            await reply(update, context, tr("Only the table's creator or a group admin can change the group's language."))
            return
        await tables.people.set_chat_language(chat.id, chat.title or "", choice)
        tables.group_speaks(chat.id, choice)
        await reply(update, context, tr("The group's language is now English."))
        return
    await remember_user(context, user)
    await tables.people.set_language(user.id, choice)
    await menu_in_language(context, user.id, tr)
    tables.person_speaks(user.id, choice)
    await reply(update, context, tr("Your language is now English."))


async def cmd_help(update: Update, context: Context) -> None:
    """/help."""
    user = update.effective_user
    if user is None:
        return
    await reply(update, context, help_text(await chat_translator(context, user, update.effective_chat)))
