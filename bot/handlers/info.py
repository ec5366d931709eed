"""The informational commands: /rules, /stats, /leaderboard, /lang, /help."""

from __future__ import annotations

from telegram import Update

import storage
from bot.command_texts import help_text, leaderboard_text, rules_text, stats_text
from bot.handlers.common import Context, chat_translator, in_group, is_admin, remember_user, reply, tables_of
from bot.handlers.common import who_asks
from bot.i18n import LANGUAGES, translator
from engine.ruleset import RULESETS, get_ruleset


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
