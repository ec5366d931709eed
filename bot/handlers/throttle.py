"""The command budget: a chat or a person sending commands faster than anyone plays is told once to wait, and
the commands past the budget are answered later, in the order they came, as the budget refills (see
:mod:`bot.budget`); a game command is always handled at once."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Final

from telegram import Update

from bot.budget import CommandBudget
from bot.command_texts import GROUP_COMMANDS, PRIVATE_COMMANDS
from bot.handlers.common import Context, chat_translator, display_name, reply
from bot.labels import name_html
from bot.tasks import Supervisor

COMMANDS = frozenset(GROUP_COMMANDS + PRIVATE_COMMANDS)
"""The commands the bot answers (and so budgets)."""
GAME_COMMANDS = frozenset({"start", "newgame", "join", "leave", "stop"})
"""Commands that change who plays: never held back, whatever the budget (they still count against it)."""
MOST_WAITING: Final = 10
"""Commands of one chat kept to be answered later; past that a flood is a flood, and the rest are dropped."""
TASK: Final = "commands later"
"""The supervised task that answers the commands that waited."""


@dataclass
class Later:
    """Commands past the budget, waiting for room in the order they came (one of each: the same command sent
    again by the same person while it waits is answered once)."""

    waiting: deque[tuple[Update, int, int, str]] = field(default_factory=deque)
    """Each waiting update, with its chat, its sender and its text."""
    released: set[int] = field(default_factory=set)
    """Update ids whose turn has come: their room is taken, the budget lets them through."""

    def behind(self, chat_id: int, user_id: int) -> bool:
        """True while an earlier command of this chat or this person waits: a new one waits behind it."""
        return any(chat == chat_id or user == user_id for _update, chat, user, _text in self.waiting)

    def keep(self, update: Update, chat_id: int, user_id: int, text: str) -> None:
        """Keep a command to answer later (unless it already waits, or its chat has too many waiting)."""
        mine = [entry for entry in self.waiting if entry[1] == chat_id]
        if len(mine) >= MOST_WAITING or any(entry[2] == user_id and entry[3] == text for entry in mine):
            return
        self.waiting.append((update, chat_id, user_id, text))


async def within_budget(update: Update, context: Context) -> bool:
    """False for a command past its chat's or sender's budget (see :mod:`bot.budget`): it waits to be
    answered later; the first such command of a run gets one short notice."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or not (message.text or "").startswith("/"):
        return True
    text = message.text or ""
    name, _, target = text.split(maxsplit=1)[0][1:].partition("@")
    if name.lower() not in COMMANDS or (target and target.lower() != (context.bot.username or "").lower()):
        return True  # no handler answers it: it costs nothing
    budget: CommandBudget = context.bot_data.setdefault("command_budget", CommandBudget())
    later: Later = context.bot_data.setdefault("commands_later", Later())
    if update.update_id in later.released:  # its turn has come (its room is taken)
        later.released.discard(update.update_id)
        return True
    if name.lower() in GAME_COMMANDS:
        budget.charge(message.chat_id, user.id)
        return True
    if later.behind(message.chat_id, user.id):
        verdict = "drop"  # already told: it waits behind the others
    else:
        verdict = budget.verdict(message.chat_id, user.id)
        if verdict == "answer":
            return True
    later.keep(update, message.chat_id, user.id, text.strip())  # before any wait: updates run concurrently
    tasks: Supervisor | None = context.bot_data.get("tasks")
    if tasks is not None and tasks.get(TASK) is None:
        tasks.start(TASK, lambda: _answer_later(context, budget, later))
    if verdict == "notice":  # in the chat's language: in a group, everyone reads it
        tr = await chat_translator(context, user, update.effective_chat)
        await reply(update, context, tr("{who}, that is a lot of commands: I will answer again in a minute.",
                                        who=name_html(display_name(user))))
    return False


async def _answer_later(context: Context, budget: CommandBudget, later: Later) -> None:
    """Answer the waiting commands in order, each when its chat and its sender have room again."""
    while later.waiting:
        update, chat_id, user_id, _text = later.waiting[0]
        pause = budget.wait(chat_id, user_id)
        if pause > 0:
            await asyncio.sleep(pause)
            continue
        later.waiting.popleft()
        budget.take(chat_id, user_id)
        later.released.add(update.update_id)
        await context.application.process_update(update)
