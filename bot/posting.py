"""Notices posted to chats: each chat's in order, sent in a task of their own.

A caller that holds a table's lock posts a notice and goes on: nobody's press
waits for a group's flood limit.  Each chat's notices go out one after the
other, in the order they were posted, by one supervised task per chat
(``notices <chat>``); a chat the bot lost has its waiting notices dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardMarkup

from bot.tasks import Supervisor

Notice = tuple[str, InlineKeyboardMarkup | None, int | None]
"""A notice's text, keyboard and forum topic."""
Send = Callable[[int, Notice], Awaitable[object]]
"""Sends one notice to a chat (and returns once it went, or was given up)."""


class Poster:
    """The notices waiting to be sent, chat by chat (see the module's docstring)."""

    def __init__(self, send: Send, tasks: Supervisor) -> None:
        self._send = send
        self._tasks = tasks
        self._waiting: dict[int, list[Notice]] = {}
        self._posters: dict[int, asyncio.Task[None]] = {}

    def post(self, chat_id: int, notice: Notice) -> None:
        """Queue a notice for the chat; it goes after the ones posted before it."""
        self._waiting.setdefault(chat_id, []).append(notice)
        poster = self._posters.get(chat_id)
        if poster is None or poster.done():
            self._posters[chat_id] = self._tasks.start(f"notices {chat_id}", lambda: self._send_all(chat_id))

    def drop(self, chat_id: int) -> None:
        """Forget the chat's waiting notices (its poster, if any, finds nothing more to send)."""
        self._waiting.pop(chat_id, None)

    def running(self) -> list[asyncio.Task[None]]:
        """The posters still sending (shut-down waits for them)."""
        return list(self._posters.values())

    async def _send_all(self, chat_id: int) -> None:
        while waiting := self._waiting.get(chat_id):
            await self._send(chat_id, waiting[0])  # the next waits for it
            waiting.pop(0)
        self._waiting.pop(chat_id, None)
        self._posters.pop(chat_id, None)
