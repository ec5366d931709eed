"""The command budget: a chat or a person sending commands faster than anyone plays is answered once, then
not until the budget refills (see :mod:`bot.budget`); a game command is always handled."""

from __future__ import annotations

from telegram import Update

from bot.budget import CommandBudget
from bot.command_texts import GROUP_COMMANDS, PRIVATE_COMMANDS
from bot.handlers.common import Context, chat_translator, display_name, reply
from bot.labels import name_html

COMMANDS = frozenset(GROUP_COMMANDS + PRIVATE_COMMANDS)
"""The commands the bot answers (and so budgets)."""
GAME_COMMANDS = frozenset({"start", "newgame", "join", "leave", "stop"})
"""Commands that change who plays: never dropped, whatever the budget (they still count against it)."""


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
    if name.lower() in GAME_COMMANDS:
        budget.charge(message.chat_id, user.id)
        return True
    verdict = budget.verdict(message.chat_id, user.id)
    if verdict == "notice":  # in the chat's language: in a group, everyone reads it
        tr = await chat_translator(context, user, update.effective_chat)
        await reply(update, context, tr("{who}, that is a lot of commands: I will answer again in a minute.",
                                        who=name_html(display_name(user))))
    return verdict == "answer"
