"""What every room of the tables service shares: the live tables and the means to run them.

:class:`House` holds the database, the settings, the registry of live tables
(by id and by group chat), Telegram's publisher and outbox, the supervised
tasks, the strong AI's workers and the random source of new matches.  The
rooms (:mod:`~bot.tables.hand_messages`, :mod:`~bot.tables.showing`,
:mod:`~bot.tables.seats`, :mod:`~bot.tables.play`, :mod:`~bot.tables.turns`,
:mod:`~bot.tables.lobby`, :mod:`~bot.tables.replays`) are functions over a
house; :class:`bot.tables.Tables` is the house with the service calls the
front ends use.  This file imports no room.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter, deque
from collections.abc import Callable
from typing import Any, Final

import storage
from bot.announcements import Outbox
from bot.config import Settings
from bot.faults import Faults
from bot.i18n import Translator, translator
from bot.model import Table
from bot.muting import Muting
from bot.publisher import Publisher
from bot.tables.people import People
from bot.tables.replays import Ended
from bot.tasks import Supervisor, Work
from bot.thinking import Thinking
from bot.topics import Topics


class TableError(Exception):
    """A request the bot refuses; ``msgid`` is the English message id shown to that person."""

    def __init__(self, msgid: str, **values: object) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.values = values

    def text(self, tr: Translator) -> str:
        """The message in the reader's language."""
        return tr(self.msgid, **self.values)


class OpenApps:
    """The web app's streams open on a seat, counted for the person who opened them (a leaver's stream never
    counts for whoever sits there next): while one is open, that person's hand message waits.  The stream
    (:mod:`bot.webapp.events`) opens and closes them; a keyboard press forgets them (:meth:`keyboard_used`)."""

    def __init__(self) -> None:
        self._open: Counter[tuple[int, int, int]] = Counter()

    def opened(self, table_id: int, seat: int, user_id: int) -> None:
        """A stream for this seat and person began."""
        self._open[(table_id, seat, user_id)] += 1

    def closed(self, table_id: int, seat: int, user_id: int) -> bool:
        """A stream ended; True when it was the last one open for this seat and person."""
        key = (table_id, seat, user_id)
        if key not in self._open:  # forgotten meanwhile, by a press on the keyboard
            return False
        self._open[key] -= 1
        if self._open[key] > 0:
            return False
        del self._open[key]
        return True

    def keyboard_used(self, table_id: int, seat: int, user_id: int) -> None:
        """The person pressed a button of their hand message: keep that message current from now on, even
        while the app stays open too."""
        self._open.pop((table_id, seat, user_id), None)

    def is_open(self, table_id: int, seat: int, user_id: int) -> bool:
        """True while a stream is open for this seat and person."""
        return self._open[(table_id, seat, user_id)] > 0

    def __len__(self) -> int:
        return len(self._open)


FAR_BEHIND: Final = 10.0
"""Seconds of messages waiting for Telegram's overall limit beyond which no turn times out, no reminder
goes (an overloaded bot would time people out for its own lag, and each timeout costs more messages) and
no new match starts (the tables playing already would all slow down: a press could no longer be shown
at once)."""


class House:
    """All tables of all chats, in memory, backed by storage; and what runs them."""

    def __init__(self, db: storage.Database, config: Settings, tasks: Supervisor | None = None,
                 faults: Faults | None = None) -> None:
        self.db = db
        self.config = config
        self.tasks = tasks if tasks is not None else Supervisor()
        """Every background task of the tables (AI seats, timers, writes), supervised."""
        self.muting = Muting(self.tasks)
        """Groups that do not let the bot write (muted): their tables pause (:mod:`bot.muting`)."""
        self.topics = Topics(self.tasks)
        """Forum topics closed to the bot (their tables pause) or gone (their tables close): :mod:`bot.topics`."""
        self.people = People(db)
        """People and chats, as the front ends ask about them."""
        self.faults = faults if faults is not None else Faults()
        """Faults that can pass (storage, Telegram): what ``/health`` reports."""
        self.by_id: dict[int, Table] = {}
        self.by_chat: dict[tuple[int, int | None], int] = {}
        """Live tables by (group, forum topic): one a topic (a group without topics has one, topic None)."""
        self.group_titles: dict[int, str] = {}
        self.upgrades: dict[int, float] = {}
        """Supergroups that a basic group became lately (new chat id → loop time told): the bot was in them
        all along (:func:`bot.tables.groups.note_upgrade`)."""
        self.publisher: Publisher | None = None
        self.outbox: Outbox | None = None
        """Sends the stored announcements (hands' results); None when nothing is sent (tools, tests)."""
        self.bot_username = "chaodipi_bot"
        self.rng = random.Random()
        self.lobby_panels: set[int] = set()
        """Tables whose lobby message shows the settings panel."""
        self.waiting_starts: dict[int, float] = {}
        """Tables whose Start waits for room under Telegram's limit, oldest first (:mod:`bot.tables.admission`)."""
        self.admission_wake = asyncio.Event()
        self.started: deque[float] = deque()
        """When the matches started lately began (:func:`bot.tables.admission.forecast` counts them apart)."""
        self.closing = False
        """Set at shut-down: no AI move or timer starts any more."""
        self.watchers: list[Callable[[Table], None]] = []
        """Called at every refresh of a table (the web app's live streams)."""
        self.hand_watchers: list[Callable[[Table], None]] = []
        """Called when a hand's result is stored (the league: its pictures are out of date, its season due)."""
        self.apps = OpenApps()
        """The web app streams open for a seat (see :meth:`app_open`)."""
        self.thinking = Thinking(config.ai_workers)
        """The strong AI's searches: worker processes (started at the first search), budgets by the queue."""
        self.ended = Ended()
        """The views of the finished hands replayed lately (:mod:`bot.tables.replays`)."""

    # --- the registry -----------------------------------------------------------------------
    def in_chat(self, chat_id: int, thread_id: int | None = None) -> Table | None:
        """The active table of a group chat (of its forum topic ``thread_id``; None: a group without topics,
        or a forum's General topic)."""
        table_id = self.by_chat.get((chat_id, thread_id))
        return self.by_id.get(table_id) if table_id is not None else None

    def all_in_chat(self, chat_id: int) -> list[Table]:
        """Every active table of a group chat, whatever its topic."""
        return [table for table in self.by_id.values() if table.chat_id == chat_id]

    def get(self, table_id: int) -> Table | None:
        """A table by id."""
        return self.by_id.get(table_id)

    def tables_of(self, user_id: int) -> list[tuple[Table, int]]:
        """Every active table where this person sits, with their seat."""
        out = []
        for table in self.by_id.values():
            seat = table.seat_of(user_id)
            if seat is not None:
                out.append((table, seat))
        return out

    def register(self, table: Table) -> None:
        """A table is live: found by its id and its group."""
        self.by_id[table.id] = table
        self.by_chat[(table.chat_id, table.thread_id)] = table.id

    def unregister(self, table: Table) -> None:
        """A table is over: forget it, stop its tasks (but the one calling) and its messages."""
        self.by_id.pop(table.id, None)
        if self.by_chat.get((table.chat_id, table.thread_id)) == table.id:
            del self.by_chat[(table.chat_id, table.thread_id)]
        for kind in ("ai", "timer", "next-hand"):
            # The AI move or the timer that ended the match still has its writes to finish.
            self.tasks.cancel(f"{kind} {table.id}")
        if self.publisher is not None:
            self.publisher.forget_table(table.id)

    def move_chat(self, table: Table, new_chat_id: int) -> None:
        """A group became a supergroup: its table is found under the new chat id, and its message is sent
        again there (the caller refreshes)."""
        old = table.chat_id
        table.chat_id = new_chat_id
        if self.by_chat.get((old, table.thread_id)) == table.id:
            del self.by_chat[(old, table.thread_id)]
        self.by_chat[(new_chat_id, table.thread_id)] = table.id
        self.group_titles[new_chat_id] = self.group_titles.pop(old, table.title)
        if self.publisher is not None:
            self.publisher.forget((table.id, "group"))
        table.message_id = None

    def app_open(self, table: Table, seat: int) -> bool:
        """True while the person holding this seat now has the web app open on it: their hand message waits
        until it closes."""
        info = table.seats[seat]
        return info is not None and info.user_id is not None and self.apps.is_open(table.id, seat, info.user_id)

    # --- shared helpers -----------------------------------------------------------------------
    def tr(self, table: Table) -> Translator:
        """The table's (the group's) language."""
        return translator(table.lang)

    def spawn(self, name: str, work: Work, table: Table, *, restart: bool = True) -> None:
        """Run ``work`` in the background, supervised (a write, a nudge); shut-down waits for it.

        ``restart=False`` for work that must not be done twice (a message sent)."""
        self.tasks.start(f"{name} {table.id}", work, table=table.id, restart=restart)

    def announce(self, table: Table, text: str) -> None:
        """A notice in the group, sent after the table's lock is released (see :meth:`Publisher.post`)."""
        if self.publisher is not None:
            self.publisher.post(table.chat_id, text, thread_id=table.thread_id)

    def far_behind(self) -> bool:
        """True while the messages waiting for Telegram's overall limit need more than :data:`FAR_BEHIND`
        seconds to go out."""
        return self.publisher is not None and self.publisher.backlog > FAR_BEHIND

    def load(self) -> dict[str, Any]:
        """What the bot keeps going, for ``/health`` and the heartbeat (a leak shows as a number that grows):
        tables in memory, turn timers and AI loops running, the strong AI's searches running or queued,
        messages kept current, the seconds of messages waiting for Telegram's overall limit and how long
        the next movers' messages waited lately (nine in ten), the messages a second sent lately, the tables waiting to start, and every
        supervised task by kind."""
        summary = self.tasks.summary()
        running = summary["running"]
        limiter = self.publisher.limiter if self.publisher is not None else None
        return {"tables": len(self.by_id), "timers": running.get("timer", 0), "ai_loops": running.get("ai", 0),
                "searches": self.thinking.waiting,
                "messages": self.publisher.kept if self.publisher is not None else 0,
                "backlog": round(self.publisher.backlog, 1) if self.publisher is not None else 0.0,
                "movers_wait": round(limiter.movers_wait(), 2) if limiter is not None else 0.0,
                "sent_rate": round(limiter.sent_rate(), 1) if limiter is not None else 0.0,
                "waiting_tables": len(self.waiting_starts),
                "background": sum(running.values()), "tasks": running, "task_failures": summary["failed"]}
