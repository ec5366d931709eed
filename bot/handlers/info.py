"""The informational commands: /rules, /stats, /leaderboard, /season, /history, /lang, /help."""

from __future__ import annotations

import html
from typing import cast

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update, WebAppInfo

import storage
from bot.command_texts import help_text, rules_text
from bot.handlers.common import (
    Context,
    chat_translator,
    in_group,
    is_admin,
    menu_in_language,
    remember_user,
    reply,
    tables_of,
    topic_of,
    who_asks,
)
from bot.handlers.league_buttons import history_markup, league_of, send_board
from bot.i18n import LANGUAGES, Translator, translator
from bot.labels import hands_phrase
from bot.league.board import CURRENT, League, leaderboard
from bot.league.history import history_text
from bot.league.personal import group_stats, private_stats
from bot.league.seasons import SeasonWatcher, season_text, season_title
from bot.untrusted import parse_int, zone_name
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
    if await storage.get_chat(league.db, chat.id) is None:
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
    if await storage.get_chat(league.db, chat.id) is None:
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
    await storage.upsert_chat(league.db, chat.id, chat.title or "")
    args = list(context.args or [])
    if not args:
        await reply(update, context, await season_text(league.db, tr, chat.id, league.clock()))
        return
    if not await is_admin(context, chat.id, user.id, update):
        await reply(update, context, tr("Only a group admin can change the seasons."))
        return
    done = await _change_season(league, tr, chat.id, user.id, args[0].lower(), " ".join(args[1:]))
    if done is None:
        await reply(update, context, tr("Use /season new NAME, /season monthly, /season min N or /season tz ZONE."))
        return
    league.cache.forget(chat.id)
    cast(SeasonWatcher, context.bot_data["seasons"]).poke()  # the season that ended is told
    if done:
        await reply(update, context, done)
    elif (outbox := tables_of(context).outbox) is not None:  # the season that ended, then the one that starts,
        outbox.wake(chat.id)  # were queued in the group's outbox in that order


async def _after_the_end(league: League, ended: storage.Season, started: storage.Season, text: str) -> str:
    """The admins ended a season: its final table is told first, then the new season's start (``text``), both
    through the group's outbox in that order; "" once so queued, or ``text`` to reply with when the season that
    ended is told to nobody (nobody played in it, or it was only renamed)."""
    if ended.season_id == started.season_id or await league.tell_season_end(ended) is None:
        return text
    return "" if await league.announce(ended.chat_id, "season_start", text) else text


async def _change_season(league: League, tr: Translator, chat_id: int, user_id: int, verb: str,
                         rest: str) -> str | None:
    """Make an admin's change; the reply, or None for a verb /season does not know."""
    now = league.clock()
    if verb == "new":
        try:
            ended, season = await storage.start_named_season(league.db, chat_id, rest, by=user_id, now=now)
        except ValueError:
            return tr("A season's name has 1 to {n} characters: /season new 春季赛", n=storage.MAX_NAME)
        return await _after_the_end(league, ended, season, tr(
            "The season 「{name}」 starts now and runs until an admin starts the next one.",
            name=html.escape(season.name, quote=False)))
    if verb == "monthly":
        changed = await storage.start_monthly_seasons(league.db, chat_id, by=user_id, now=now)
        if changed is None:
            return tr("Seasons are monthly already.")
        return await _after_the_end(league, *changed, tr(
            "Back to monthly seasons: {season} starts now.", season=html.escape(season_title(tr, changed[1]),
                                                                               quote=False)))
    if verb == "min":
        minimum = parse_int(rest.strip(), 0, 1000)
        if minimum is None:
            return tr("Give the minimum as a number of hands from 0 to 1000: /season min 10")
        await storage.set_min_hands(league.db, chat_id, minimum, now)
        return tr("From now on this season ranks people with at least {hands}.", hands=hands_phrase(tr, minimum))
    if verb == "tz":
        name = zone_name(rest.strip())
        try:
            if name is None:
                raise ValueError(rest)
            await storage.set_time_zone(league.db, chat_id, name, now)
        except ValueError:
            return tr("Unknown time zone. Use a name such as Asia/Shanghai or Europe/London.")
        return tr("The group's time zone is now {zone}: monthly seasons end at its midnight.",
                  zone=html.escape(name, quote=False))
    return None


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
            await reply(update, context, tr("Only the table's creator or a group admin can change the group's language."))
            return
        await storage.upsert_chat(tables.db, chat.id, chat.title or "")
        await storage.update_chat(tables.db, chat.id, language=choice)
        for each in tables.all_in_chat(chat.id):  # one group, one language: every topic's table
            each.lang = choice
            tables.refresh(each)
        await reply(update, context, tr("The group's language is now English."))
        return
    await remember_user(context, user)
    await storage.set_user_language(tables.db, user.id, choice)
    await menu_in_language(context, user.id, tr)
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
