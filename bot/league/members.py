"""Who may read a group's league: a person who played in the group (storage) and is in it now (Telegram).

A league page or link shows a group's standings, names and history, so it
follows the group's membership: someone who leaves the group (or is removed)
no longer reads its league once :data:`REMEMBER_IN` seconds have passed.
Telegram is asked with ``getChatMember``; its answer is kept a while (a
page's requests and a person's list of groups ask about the same few
groups again and again).  When Telegram cannot be asked just then (a
network fault), the last answer stands, or no when there is none; when it
answers that the chat or the person is unknown, or that the bot is no
longer in the group, the answer is no.  The list of a person's groups and
the pages use this one check, so they always agree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

import storage

REMEMBER_IN: Final = 600.0
"""Seconds a "yes, a member" answer is kept."""
REMEMBER_OUT: Final = 60.0
"""Seconds a "no" answer is kept (someone who just joined is not kept waiting long)."""
MOST_KEPT: Final = 20_000
"""Answers kept at most (the oldest are forgotten first)."""
_IN: Final = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER)


class Members:
    """The league's one check of who may read a group's league (see the module's docstring)."""

    def __init__(self, bot: Bot, db: storage.Database, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.db = db
        self.clock = clock
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}
        self.asked = 0
        """Questions sent to Telegram (the rest were answered from what was kept)."""

    async def in_group(self, chat_id: int, user_id: int) -> bool:
        """True if Telegram says the person is in the group now (or said so a little while ago)."""
        key = (chat_id, user_id)
        kept = self._known.get(key)
        now = self.clock()
        if kept is not None and kept[1] > now:
            return kept[0]
        self.asked += 1
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except (BadRequest, Forbidden, ChatMigrated):  # no such chat or person here, or the bot is not in it
            inside = False
        except TelegramError:  # cannot be asked just now: what was known, and no when nothing was
            return kept[0] if kept is not None else False
        else:
            inside = member.status in _IN or (member.status == ChatMemberStatus.RESTRICTED
                                              and bool(getattr(member, "is_member", False)))
        if len(self._known) >= MOST_KEPT:
            for old in sorted(self._known, key=lambda k: self._known[k][1])[: MOST_KEPT // 10]:
                del self._known[old]
        self._known[key] = (inside, now + (REMEMBER_IN if inside else REMEMBER_OUT))
        return inside

    async def may_see(self, chat_id: int, user_id: int) -> bool:
        """True if the person played in the group and is in it now."""
        return await storage.played_in(self.db, chat_id, user_id) and await self.in_group(chat_id, user_id)

    async def groups(self, user_id: int) -> list[tuple[int, str]]:
        """The groups whose league the person may read, with their titles, the most recent first."""
        return [(chat_id, title) for chat_id, title in await storage.league_chats(self.db, user_id)
                if await self.in_group(chat_id, user_id)]
