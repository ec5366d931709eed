"""The tables the bot hosts: lobby operations, game actions, AI seats, deadlines.

Every change follows DESIGN.md's data flow: the caller holds the table's
lock; the engine checks the action; storage appends it to the hand's log
(before anything is shown); the engine applies it; then the group message
and the private hand messages are scheduled for an update.  Telegram I/O
goes through :class:`bot.publisher.Publisher`; nothing here parses updates.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from telegram import InlineKeyboardMarkup

import storage
from bot import links, logs, seats, story
from bot.config import Settings
from bot.i18n import Translator, translator
from bot.announcements import Outbox
from bot.labels import and_list, name_html
from bot.model import AI_STRENGTHS, PACES, Seat, Table, TableSettings
from bot.publisher import Publisher
from bot.ratelimit import PRESSER, PRIORITY
from bot.render_group import (
    render_lobby, render_match_over, render_result, render_settings, render_table, time_left,
)
from bot.thinking import Thinking
from engine.ai import choose_action
from engine.errors import EngineError
from engine.hand import Action, Trick
from engine.match import HandRecord, Match
from engine.views import view_for

log = logging.getLogger(__name__)


class TableError(Exception):
    """A request the bot refuses; ``msgid`` is the English message id shown to that person."""

    def __init__(self, msgid: str, **values: object) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.values = values

    def text(self, tr: Translator) -> str:
        """The message in the reader's language."""
        return tr(self.msgid, **self.values)


FAR_BEHIND = 10.0
"""Seconds of messages waiting for Telegram's overall limit beyond which no turn times out, no reminder
goes (an overloaded bot would time people out for its own lag, and each timeout costs more messages) and
no new match starts (the tables playing already would all slow down: a press could no longer be shown
at once)."""
AT_THE_TABLE = 150.0
"""Seconds after a press in which a player counts as at the table (real-time pace): a round of four
moves takes less, so their edited hand message is enough and no "your turn" message is sent (it
would cost a send and a delete a move; the group's reminder before the deadline still mentions them)."""


class Tables:
    """All tables of all chats, in memory, backed by storage."""

    def __init__(self, db: storage.Database, config: Settings) -> None:
        self.db = db
        self.config = config
        self.by_id: dict[int, Table] = {}
        self.by_chat: dict[int, int] = {}
        self.publisher: Publisher | None = None
        self.outbox: Outbox | None = None
        """Sends the stored announcements (hands' results); None when nothing is sent (tools, tests)."""
        self.bot_username = "chaodipi_bot"
        self.rng = random.Random()
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self._timer_tasks: dict[int, asyncio.Task[None]] = {}
        self.group_titles: dict[int, str] = {}
        self.lobby_panels: set[int] = set()
        """Tables whose lobby message shows the settings panel."""
        self.closing = False
        """Set by :meth:`close`: no AI move or timer starts any more."""
        self._background: set[asyncio.Task[None]] = set()
        self.watchers: list[Callable[[Table], None]] = []
        """Called at every :meth:`refresh` (the web app's live streams)."""
        self.app_seats: Counter[tuple[int, int]] = Counter()
        """(table, seat) pairs whose player has the web app open: their hand message waits until it closes."""
        self.thinking = Thinking(config.ai_workers)
        """The strong AI's searches: worker processes (started at the first search), budgets by the queue."""

    # --- registry -------------------------------------------------------------------
    def in_chat(self, chat_id: int) -> Table | None:
        """The active table of a group chat."""
        table_id = self.by_chat.get(chat_id)
        return self.by_id.get(table_id) if table_id is not None else None

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

    def _register(self, table: Table) -> None:
        self.by_id[table.id] = table
        self.by_chat[table.chat_id] = table.id

    def _unregister(self, table: Table) -> None:
        self.by_id.pop(table.id, None)
        if self.by_chat.get(table.chat_id) == table.id:
            del self.by_chat[table.chat_id]
        for task_map in (self._ai_tasks, self._timer_tasks):
            task = task_map.pop(table.id, None)
            # The AI move or the timer that ended the match still has its writes to finish.
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if self.publisher is not None:
            self.publisher.forget_table(table.id)

    # --- lobby ----------------------------------------------------------------------
    async def new_table(self, chat_id: int, title: str, creator_id: int, creator_lang: str, preset: str | None) -> Table:
        """Open a table in a group (one active table per group)."""
        existing = self.in_chat(chat_id)
        if existing is not None:
            if existing.status != "finished":
                raise TableError("This group already has a table. Use /stop to close it first.")
            self._unregister(existing)  # a match that has ended holds nothing (as after a restart)
        chat = await storage.upsert_chat(self.db, chat_id, title)
        lang = chat.language or creator_lang
        # A group that never chose keeps no settings: its tables get today's defaults (the strong AI
        # among them); settings stored before a choice existed keep what those tables played.
        settings = TableSettings.from_dict(chat.settings) if chat.settings else TableSettings()
        if preset:
            settings = replace(settings, preset=preset, hidden=None)
        elif chat.default_preset:
            settings = replace(settings, preset=chat.default_preset)
        record = await storage.create_table(self.db, chat_id, creator_id=creator_id, settings=settings.to_dict())
        table = Table(id=record.table_id, chat_id=chat_id, creator_id=creator_id, lang=lang, title=title,
                      settings=settings)
        self.group_titles[chat_id] = title
        self._register(table)
        return table

    def check_sit(self, table: Table, user_id: int, seat: int | None) -> int:
        """The seat this person would get; raises TableError if they cannot sit.

        Once the match has started seats are fixed, except at a paused table
        (nobody left, between two hands): someone may take a seat the AI holds.
        """
        if table.status != "open" and not table.paused:
            raise TableError("The match has started; seats are fixed now.")
        if table.seat_of(user_id) is not None:
            raise TableError("You already have a seat at this table.")
        free = [s for s, info in enumerate(table.seats)
                if info is None or (table.paused and info.is_ai and info.user_id is None)]
        if not free:
            raise TableError("All four seats are taken.")
        if seat is None:
            return free[0]
        if seat not in free:
            raise TableError("That seat is taken.")
        return seat

    async def sit(self, table: Table, user_id: int, name: str, lang: str, seat: int | None) -> int:
        """Seat a person who can be reached privately; returns the seat."""
        seat = self.check_sit(table, user_id, seat)
        await storage.set_seat(self.db, table.id, seat, user_id=user_id)
        table.seats[seat] = Seat(user_id, name, lang=lang)
        if table.paused:  # someone sat at a table nobody was left at: it goes on
            seats.resume(self, table)
            self.after_change(table)
        return seat

    async def leave(self, table: Table, user_id: int) -> None:
        """Give up a seat in the lobby."""
        seat = table.seat_of(user_id)
        if seat is None:
            raise TableError("You are not seated at this table.")
        if table.status != "open":
            raise TableError("The match is under way: /leave counts as escaping.")
        await storage.clear_seat(self.db, table.id, seat)
        table.seats[seat] = None

    async def add_ai(self, table: Table) -> None:
        """Fill the first empty seat with the AI."""
        if table.status != "open":
            raise TableError("The match has started; seats are fixed now.")
        free = [s for s in range(4) if table.seats[s] is None]
        if not free:
            raise TableError("All four seats are taken.")
        await storage.set_seat(self.db, table.id, free[0], user_id=None, is_ai=True)
        table.seats[free[0]] = Seat(None, "AI", is_ai=True)

    async def remove_ai(self, table: Table) -> None:
        """Empty the last AI seat."""
        if table.status != "open":
            raise TableError("The match has started; seats are fixed now.")
        ai = [s for s in range(4) if table.seats[s] is not None and table.seats[s].is_ai]  # type: ignore[union-attr]
        if not ai:
            raise TableError("There is no AI seat to remove.")
        await storage.clear_seat(self.db, table.id, ai[-1])
        table.seats[ai[-1]] = None

    async def change_setting(self, table: Table, key: str, value: str) -> None:
        """Change one table setting in the lobby."""
        if table.status != "open":
            raise TableError("Settings cannot change once the match has started.")
        s = table.settings
        if key == "preset":
            s = replace(s, preset=value, hidden=None)
        elif key == "hidden":
            s = replace(s, hidden=value == "1")
        elif key == "pace" and value in PACES:
            s = replace(s, pace=value)  # type: ignore[arg-type]
        elif key == "timeout" and value in ("ai", "escape"):
            s = replace(s, on_timeout=value)  # type: ignore[arg-type]
        elif key == "strength" and value in AI_STRENGTHS:
            s = replace(s, ai_strength=value)  # type: ignore[arg-type]
        else:
            raise TableError("That button is out of date.")
        s.ruleset()  # refuse an inconsistent choice before storing it
        await storage.update_table(self.db, table.id, settings=s.to_dict())
        await storage.update_chat(self.db, table.chat_id, default_preset=s.preset, settings=s.to_dict())
        table.settings = s

    async def start(self, table: Table) -> None:
        """Start the match once four seats are filled by people the bot can reach, or the AI."""
        if table.status != "open":
            raise TableError("The match has already started.")
        if not table.full:
            raise TableError("Four seats must be filled first (add the AI to empty seats).")
        if self._far_behind():
            # The tables playing already get what Telegram lets through: one more would slow them all.
            raise TableError("I am hosting as many tables as Telegram lets me right now; please press Start again in a minute.")  # noqa: E501
        ruleset = table.settings.ruleset()
        seed = self.rng.getrandbits(62)
        match = Match(ruleset, seed, history=False)  # each hand is stored as it ends
        async with self.db.transaction():
            record = await storage.create_match(
                self.db, table.id, preset=ruleset.name, ruleset=ruleset.to_dict(), levels=(2, 2), laps=(1, 1),
                extra={"checkpoint": match.checkpoint},
            )
            hand = await storage.create_hand(self.db, record.match_id, seed=match.hand.setup.seed,
                                             ruleset=ruleset.to_dict(), context={"deal": match.deals})
            await storage.update_table(self.db, table.id, status="playing")
        table.match, table.match_id, table.hand_id = match, record.match_id, hand.hand_id
        table.status = "playing"
        self.lobby_panels.discard(table.id)
        logs.bind(table=table.id, hand=table.hand_id)
        log.info("match started (%s)", ruleset.name)

    async def stop(self, table: Table) -> None:
        """Stop a table (its creator or a chat admin asked)."""
        await storage.update_table(self.db, table.id, status="stopped", turn_deadline=None)
        if table.match_id is not None:
            await storage.update_match(self.db, table.match_id, status="abandoned")
        table.status = "stopped"
        self._unregister(table)
        if self.publisher is not None:  # the table message says so, and loses its buttons
            slot = self.publisher.slot((table.id, "group"), table.chat_id, self.config.group_interval,
                                       table.message_id)
            # Not "now": that would cut short an edit waiting out flood control; this one follows it.
            self.publisher.schedule(slot, lambda: self.render_group_message(table))

    # --- game actions ---------------------------------------------------------------
    async def act(self, table: Table, action: Action) -> list[Any]:
        """Check, store, then apply one action; returns the engine's outputs.

        The caller holds ``table.lock``.  Raises the engine's typed errors
        (nothing is stored or changed then).
        """
        logs.bind(table=table.id, hand=table.hand_id)
        match = table.match
        if match is None or table.status != "playing":
            raise TableError("No hand is being played at this table.")
        if table.between_hands is not None and action.kind != "escape":  # leaving is never refused
            raise TableError("The next hand has not started yet.")
        match.hand.check(action)
        assert table.hand_id is not None
        seq = len(match.hand.events) + 1
        try:
            await storage.append_event(self.db, table.hand_id, seq, action.kind, action.to_dict())
        except storage.SequenceConflict:
            await self.reload(table)
            raise TableError("The table moved on; here is where it stands now.") from None
        hand = match.hand
        before = view_for(hand, None)
        outputs = match.apply(action)
        log.debug("event %d: %s by seat %s", seq, action.kind, action.seat)  # never the cards
        after = view_for(hand, None)  # the acted-on hand, even when it ended and the next was dealt
        # A contested reveal, a failed throw, a red five: told as they happen (decision 17), through the
        # outbox, so that they come before the hand's result and each once.
        moments = story.moments(self._tr(table), before, after)
        if moments:
            async with self.db.transaction():
                for kind, text in moments:
                    await storage.add_announcement(self.db, table.id, kind, text, hand_id=table.hand_id)
            if self.outbox is not None:
                self.outbox.wake(table.chat_id)
        for output in outputs[1:]:
            if isinstance(output, HandRecord):
                await self._hand_over(table, output, after.last_trick, action.seat)
                logs.bind(table=table.id, hand=table.hand_id)  # what follows is about the next hand
        return outputs

    async def _hand_over(self, table: Table, record: HandRecord, last: Trick | None = None,
                         ender: int | None = None) -> None:
        """Store a finished hand with its announcement (its last trick first), and deal the next (or end
        the match).  ``ender`` is the seat whose move ended the hand (its person hears first).

        The announcement goes into the outbox in the same transaction as the
        result, and is sent after the caller lets go (nobody waits for it).
        The next hand waits while the table reads the result (:meth:`_pause`).
        """
        match = table.match
        assert match is not None and table.hand_id is not None and table.match_id is not None
        result = record.result
        log.info("hand over: %s", "aborted" if result is None else f"attackers took {result.attacker_points}")
        hand_id = table.hand_id
        escaped = result.escaped if result is not None else None
        # Before anything awaits: from now on no render may show this seat's cards to the leaver.
        leaver = self._hand_to_ai(table, escaped) if escaped is not None else None
        # Rendered now, stored with the result: the outbox announces exactly what was stored.
        tr = self._tr(table)
        announcement = render_result(tr, table, record, last, leaver.name if leaver is not None else None)
        if result is not None and self.config.public_url:  # the web app replays it, opened from a deep link
            announcement += (f'\n<a href="https://t.me/{self.bot_username}?start=r{hand_id}">'
                             + tr("🎞 Replay hand {n}", n=record.number) + "</a>")
        news = [("result", announcement)]
        if match.over:
            news.append(("match_over", render_match_over(tr, table)))
        async with self.db.transaction():
            for kind, text in news:
                await storage.add_announcement(self.db, table.id, kind, text, hand_id=hand_id)
            if result is None:
                await storage.update_hand(self.db, table.hand_id, status="aborted")
            else:
                dealer_side = result.dealer_side if result.dealer_side is not None else 0
                scores = [result.scores[s] + record.bonus[s] for s in range(4)]
                changes = (record.moves[0].moved, record.moves[1].moved)
                await storage.record_hand_result(
                    self.db, table.hand_id, attacker_points=result.attacker_points, dealer_side=dealer_side,
                    winner_side=_winner_side(result.escaped, scores), level_changes=changes,
                    scores=scores, special=result.to_dict(), outcomes=_outcomes(result.escaped, scores),
                )
                if escaped is not None:  # in the same transaction: a crash cannot leave the leaver seated
                    await storage.set_seat(self.db, table.id, escaped, user_id=None, is_ai=True)
            await storage.update_match(
                self.db, table.match_id, levels=(match.sides[0].rank, match.sides[1].rank),
                laps=(match.sides[0].lap, match.sides[1].lap),
                status="finished" if match.over else "playing", winner_side=match.winner_side,
                extra={"checkpoint": match.checkpoint},
            )
            if not match.over:
                hand = await storage.create_hand(self.db, table.match_id, seed=match.hand.setup.seed,
                                                 ruleset=match.ruleset.to_dict(), context={"deal": match.deals})
                table.hand_id = hand.hand_id
            else:
                await storage.update_table(self.db, table.id, status="finished", turn_deadline=None)
        table.selection.clear()
        if leaver is not None and escaped is not None:
            seats.freeze(self, table, escaped, leaver)
        table.last_result = record
        if self.outbox is not None:
            self.outbox.wake(table.chat_id)
        self._spawn(self._tell_players(table, record, ender))
        await self._new_hand_messages(table)
        if match.over:
            table.status = "finished"
            table.deadline = None
            self._close(table)
        else:
            self._pause(table)
            seats.pause_if_empty(self, table)

    async def _tell_players(self, table: Table, record: HandRecord, ender: int | None = None) -> None:
        """Each person at the table gets the result in one line in their private chat.

        The person whose move ended the hand hears first, before other messages under the overall limit:
        their hand message is not edited again (the next hand comes as a new message after a pause), so
        this line is what shows their press took effect.
        """
        if self.publisher is None:
            return
        laps = table.settings.ruleset().laps
        order = sorted(range(4), key=lambda seat: seat != ender)
        for seat in order:
            info = table.seats[seat]
            if info is None or info.is_ai or info.user_id is None or not info.reachable:
                continue
            first = PRIORITY.set(PRESSER if seat == ender else None)
            try:
                await self.publisher.send(info.user_id,
                                          story.private_result(translator(info.lang), record, seat, laps))
            finally:
                PRIORITY.reset(first)

    async def _new_hand_messages(self, table: Table) -> None:
        """The next hand's private message is a new message (an edit would not notify anyone)."""
        for seat, info in enumerate(table.seats):
            if self.publisher is not None and info is not None and info.user_id is not None:
                self.publisher.forget(seats.slot_key(table.id, seat, info.user_id))
            if info is not None and info.hand_message_id is not None:
                info.hand_message_id = None
                await storage.set_seat_messages(self.db, table.id, seat, hand_message_id=None)

    def _pause(self, table: Table) -> None:
        """Let the table read the last trick and the result before the next hand.

        At the real-time pace a few seconds; at the relaxed and daily paces the
        next hand waits for a 「下一局」 press, or for a turn's time.
        """
        pace = table.settings.pace
        seconds = self.config.hand_pause if pace == "realtime" else PACES[pace].turn
        if seconds <= 0:
            return
        until = time.time() + seconds
        table.between_hands = until
        self._spawn(self._next_hand_later(table, until))

    async def _next_hand_later(self, table: Table, until: float) -> None:
        await asyncio.sleep(max(0.0, until - time.time()))
        async with table.lock:
            if table.between_hands == until and not self.closing:
                self.next_hand(table)

    def next_hand(self, table: Table) -> None:
        """End the pause between hands: the next hand is shown and its clock starts.

        The caller holds ``table.lock``.
        """
        if table.between_hands is None:
            raise TableError("That button is out of date.")
        table.between_hands = None
        self.after_change(table)

    def _close(self, table: Table) -> None:
        """Show the table message one last time (without buttons) and forget the table.

        Nobody waits for that last edit and nothing cancels it (see
        :meth:`Publisher.retire`): the press that ended the match is answered
        at once, and a ``/newgame`` right after cannot cut the edit short.
        """
        if self.publisher is not None:
            key = (table.id, "group")
            slot = self.publisher.slot(key, table.chat_id, self.config.group_interval, table.message_id)
            self.publisher.retire(slot, key, lambda: self.render_group_message(table))
        self._unregister(table)

    async def escape(self, table: Table, seat: int) -> None:
        """A player leaves mid-match: the hand is scored by the escape rule (free before any card is
        played), the AI takes the seat (see :meth:`_hand_over`) and the next hand is dealt."""
        await self.act(table, Action("escape", seat))

    def _hand_to_ai(self, table: Table, seat: int) -> Seat | None:
        """The AI takes a seat in memory; the person who held it, if anyone did."""
        info = table.seats[seat]
        table.seats[seat] = Seat(None, "AI", is_ai=True)
        table.selection.pop(seat, None)
        return info if info is not None and not info.is_ai else None

    async def reload(self, table: Table) -> None:
        """Rebuild a table's match from storage (after a conflict, or at start-up)."""
        active = await storage.load_active_table(self.db, table.id)
        if active is None or active.match is None or active.hand is None:
            return
        await self._rebuild_match(table, active)

    async def _rebuild_match(self, table: Table, active: storage.ActiveTable) -> None:
        """Resume the engine match from its checkpoint and replay the current hand's log."""
        assert active.match is not None and active.hand is not None
        from engine.ruleset import Ruleset

        ruleset = Ruleset.from_dict(active.match.ruleset)
        match = Match.resume(ruleset, active.match.extra["checkpoint"], history=False)
        table.match, table.match_id, table.hand_id = match, active.match.match_id, active.hand.hand_id
        for event in active.events:
            outputs = match.apply(Action.from_dict(event.payload))
            for output in outputs[1:]:
                if isinstance(output, HandRecord):  # the crash came before the hand was settled
                    await self._hand_over(table, output)

    # --- turn bookkeeping -----------------------------------------------------------------
    def waiting_humans(self, table: Table) -> list[int]:
        """Seats of people whose move the table waits for now (nobody's between hands)."""
        if not table.playing or table.between_hands is not None:
            return []
        assert table.match is not None
        return [s for s in table.match.hand.awaiting() if self._human(table, s)]

    def _human(self, table: Table, seat: int) -> bool:
        info = table.seats[seat]
        return info is not None and not info.is_ai and not info.timed_out

    def ai_action(self, table: Table) -> Action | None:
        """The next move an AI seat (or the AI standing in for a timed-out person) makes, if any."""
        if not table.playing or table.paused or table.between_hands is not None:
            return None
        assert table.match is not None
        hand = table.match.hand
        if hand.over:
            return None
        for seat in hand.awaiting():
            if self._human(table, seat):
                continue
            action = choose_action(view_for(hand, seat), hand.ruleset, self.rng, table.settings.ai_strength)
            if hand.can(action):
                return action
            return Action("pass", seat) if hand.phase == "bidding" else None
        return None

    async def _ai_move(self, table: Table) -> Action | None:
        """:meth:`ai_action`, with the strong AI's search run in a worker process (:mod:`bot.thinking`).

        A search takes up to half a second of CPU: in the event loop it would
        hold every other table and message back (and in a thread it would
        fight the loop for the GIL).  Only the seat's view goes to the worker,
        and its time budget shrinks while other tables' searches wait.  The
        caller holds the table's lock, so the hand cannot move meanwhile.
        """
        if not table.playing or table.paused or table.between_hands is not None:
            return None  # the same guards as ai_action's, before any search
        assert table.match is not None
        hand = table.match.hand
        if table.settings.ai_strength != "strong" or hand.over or hand.phase != "playing":
            return self.ai_action(table)
        seat = hand.turn
        if seat is None or self._human(table, seat):
            return None
        action = await self.thinking.play(view_for(hand, seat), hand.ruleset)
        return action if hand.can(action) else None

    def kick_ai(self, table: Table) -> None:
        """Make sure AI seats move when it is their turn."""
        if self.closing:
            return
        task = self._ai_tasks.get(table.id)
        if task is None or task.done():
            self._ai_tasks[table.id] = asyncio.create_task(self._ai_loop(table))

    async def _ai_loop(self, table: Table) -> None:
        while True:
            await asyncio.sleep(self.config.ai_delay)
            if self.closing:
                return
            async with table.lock:
                logs.bind(table=table.id, hand=table.hand_id)
                action = await self._ai_move(table)
                if action is None:
                    return
                try:
                    await self.act(table, action)
                except (EngineError, TableError, storage.StorageError) as exc:
                    log.error("table %s: AI move refused (%s)", table.id, type(exc).__name__)
                    return
                self.after_change(table)

    # --- background work and shut-down --------------------------------------------------
    def load(self) -> dict[str, int]:
        """What the bot keeps going, for ``/health`` and the heartbeat (a leak shows as a number that grows):
        tables in memory, turn timers and AI loops running, the strong AI's searches running or queued,
        messages kept current, background tasks."""
        running = sum(not t.done() for t in self._timer_tasks.values())
        thinking = sum(not t.done() for t in self._ai_tasks.values())
        return {"tables": len(self.by_id), "timers": running, "ai_loops": thinking,
                "searches": self.thinking.waiting,
                "messages": len(self.publisher._slots) if self.publisher is not None else 0,
                "background": len(self._background)}

    def _spawn(self, work: Any) -> None:
        """Run ``work`` (a coroutine) in the background; :meth:`close` waits for it."""
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        """Shut-down: let each move in progress be stored, then stop every AI loop and timer.

        Each table's lock is taken in turn, so a move being checked and stored
        completes; after that no AI move or timer starts (stored deadlines are
        re-armed at the next start).  Waits for background writes too.
        """
        self.closing = True
        for table in list(self.by_id.values()):
            async with table.lock:
                tasks = [task for task in (self._ai_tasks.pop(table.id, None), self._timer_tasks.pop(table.id, None))
                         if task is not None]
                for task in tasks:
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*list(self._background), return_exceptions=True)
        self.thinking.close()

    # --- deadlines ----------------------------------------------------------------------
    def turn_key(self, table: Table) -> tuple[Any, ...] | None:
        """What the current deadline is for: the bidding window of a deal, or one seat's turn."""
        if not table.playing:
            return None
        assert table.match is not None
        hand = table.match.hand
        if hand.phase == "bidding":
            return (table.match.deals, "bidding")
        return (table.match.deals, hand.phase, len(hand.events), hand.turn)

    def arm_deadline(self, table: Table) -> list[int]:
        """Set a new deadline when the table starts waiting for something new.

        Returns the seats whose turn has just begun (to nudge them).
        """
        key = self.turn_key(table)
        waiting = self.waiting_humans(table)
        if not waiting:
            if table.deadline is not None:
                table.deadline = None
                self._spawn(self._store_deadline(table, None))
                self._set_timer(table)
            table.turn_key = key
            return []
        if key == table.turn_key and table.deadline is not None:
            return []
        assert table.match is not None
        pace = PACES[table.settings.pace]
        span = pace.bidding if table.match.hand.phase == "bidding" else pace.turn
        table.deadline = time.time() + span
        table.turn_key = key
        table.reminded = False
        self._spawn(self._store_deadline(table, table.deadline))
        self._set_timer(table)
        return waiting

    async def _store_deadline(self, table: Table, deadline: float | None) -> None:
        try:
            await storage.update_table(self.db, table.id, turn_deadline=deadline)
        except storage.StorageError as exc:
            log.error("table %s: could not store the deadline (%s)", table.id, exc)

    def _set_timer(self, table: Table) -> None:
        task = self._timer_tasks.pop(table.id, None)
        if task is not None:
            task.cancel()
        if table.deadline is not None and not self.closing:
            self._timer_tasks[table.id] = asyncio.create_task(self._timer(table, table.deadline))

    async def _timer(self, table: Table, deadline: float) -> None:
        logs.bind(table=table.id, hand=table.hand_id)
        pace = PACES[table.settings.pace]
        remind_at = deadline - pace.reminder
        if not table.reminded and remind_at > time.time():
            await asyncio.sleep(remind_at - time.time())
            async with table.lock:
                if table.deadline != deadline:
                    return
                table.reminded = True
                if not self._far_behind():  # else the turn itself may not be shown yet
                    await self._remind(table)
        await asyncio.sleep(max(0.0, deadline - time.time()))
        async with table.lock:
            if table.deadline != deadline or not table.playing:
                return
            if self._cards_not_sent(table) or self._far_behind():
                # Someone has not been sent their cards yet, or the bot is far behind Telegram's limits
                # (their turn may not be shown yet, and a timeout's messages would add to the backlog):
                # the clock starts again, not the timeout.
                pace = PACES[table.settings.pace]
                assert table.match is not None
                table.deadline = time.time() + (pace.bidding if table.match.hand.phase == "bidding" else pace.turn)
                self._spawn(self._store_deadline(table, table.deadline))
                self._set_timer(table)
                return
            await self._time_out(table)
            self.after_change(table)

    def _far_behind(self) -> bool:
        """True while the messages waiting for Telegram's overall limit need more than :data:`FAR_BEHIND`
        seconds to go out."""
        return self.publisher is not None and self.publisher.backlog > FAR_BEHIND

    def _cards_not_sent(self, table: Table) -> bool:
        """True if someone the table waits for has a hand message still to be sent (the hand's first)."""
        if self.publisher is None:
            return False
        for seat in self.waiting_humans(table):
            info = table.seats[seat]
            if info is not None and info.user_id is not None and info.reachable \
                    and not self.app_seats[(table.id, seat)] \
                    and self.publisher.unsent(seats.slot_key(table.id, seat, info.user_id)):
                return True
        return False

    async def _remind(self, table: Table) -> None:
        """One reminder in the group, mentioning only the people the table still waits for."""
        tr = self._tr(table)
        mentions = []
        for seat in self.waiting_humans(table):
            info = table.seats[seat]
            assert info is not None and info.user_id is not None
            mentions.append(f'<a href="tg://user?id={info.user_id}">{name_html(info.name)}</a>')
        if not mentions:
            return
        left = time_left(tr, (table.deadline or 0) - time.time())
        self._announce(table, tr("⏰ {who}: the table is waiting for your move {left}.",
                                       who=and_list(tr, mentions), left=left))

    async def _time_out(self, table: Table) -> None:
        """The deadline passed: close the bidding, or let the AI move, or apply the escape rule."""
        assert table.match is not None
        hand = table.match.hand
        tr = self._tr(table)
        if hand.phase == "bidding":
            await self.act(table, Action("close"))
            return
        for seat in self.waiting_humans(table):
            info = table.seats[seat]
            assert info is not None
            if table.settings.on_timeout == "escape":
                self._announce(table, tr("{who} ran out of time: the escape rule applies.",
                                               who=name_html(info.name)))
                await self.escape(table, seat)
                return
            await seats.set_away(self, table, seat, info, True)
            self._announce(table, tr("{who} ran out of time: the AI plays for them until they are back.",
                                           who=name_html(info.name)))
            seats.send_away_notice(self, table, info)

    async def restore_timers(self) -> None:
        """Re-arm every stored deadline after a restart (a past one fires at once)."""
        for table in self.by_id.values():
            if table.playing and table.deadline is not None:
                self._set_timer(table)
            elif table.playing:  # stopped between hands (the pause is not stored): the next hand's clock starts
                self.arm_deadline(table)
            if table.playing:
                self.kick_ai(table)

    # --- rendering ----------------------------------------------------------------------
    def _tr(self, table: Table) -> Translator:
        return translator(table.lang)

    def refresh(self, table: Table, *, urgent: Sequence[int] = (), pressed: int | None = None) -> None:
        """Schedule the group message and every private hand message for an update: at once for the
        ``urgent`` seats, first of all for the seat that ``pressed`` a button."""
        for watcher in self.watchers:
            watcher(table)
        publisher = self.publisher
        if publisher is None:
            return
        group = publisher.slot((table.id, "group"), table.chat_id, self.config.group_interval, table.message_id)
        group.on_sent = lambda message_id: self._remember_table_message(table, message_id)
        publisher.schedule(group, lambda: self.render_group_message(table), now=table.message_id is None)
        if not table.playing or table.between_hands is not None:  # the next hand is shown when it starts
            return
        for seat, info in enumerate(table.seats):
            # Someone away has a frozen message already (seats.freeze): nothing to redraw for them.
            if info is None or info.is_ai or info.user_id is None or not info.reachable or info.timed_out:
                continue
            if self.app_seats[(table.id, seat)]:
                continue  # the web app shows this seat live; no Bot API call until it closes
            seats.schedule_hand(self, table, seat, info, now=seat in urgent or seat == pressed,
                                pressed=seat == pressed)

    def app_url(self, table: Table) -> str | None:
        """The web app's address for this table, when ``CHAODIPI_PUBLIC_URL`` is set."""
        if not self.config.public_url:
            return None
        return f"{self.config.public_url}/app/?t={table.id}"

    def render_group_message(self, table: Table) -> tuple[str, InlineKeyboardMarkup | None]:
        """The group's table message as it should look now."""
        tr = self._tr(table)
        if table.status == "open":
            if table.id in self.lobby_panels:
                return render_settings(tr, table)
            return render_lobby(tr, table, links.link(self.bot_username, self.config.token, table.id))
        if table.match is None:
            return tr("This table is closed."), None
        text, markup = render_table(tr, table)
        if table.status != "playing":  # no buttons on a table that is over, and a line that says so
            end = tr("The match is over.") if table.status == "finished" else tr("This table is closed.")
            return text + "\n\n<b>" + end + "</b>", None
        return text, markup

    async def _remember_table_message(self, table: Table, message_id: int) -> None:
        table.message_id = message_id
        await storage.update_table(self.db, table.id, message_id=message_id)

    def _announce(self, table: Table, text: str) -> None:
        """A notice in the group, sent after the table's lock is released (see :meth:`Publisher.post`)."""
        if self.publisher is not None:
            self.publisher.post(table.chat_id, text)

    def after_change(self, table: Table, *, actor: int | None = None) -> None:
        """After any change: the deadline, the AI seats, nudges and the messages."""
        started = self.arm_deadline(table)
        self.refresh(table, urgent=self.waiting_humans(table), pressed=actor)
        for seat in started:
            info = table.seats[seat]
            # A hand message not sent yet goes out as a new message, which notifies by itself.
            if seat != actor and info is not None and info.hand_message_id is not None:
                self._spawn(self.nudge(table, seat))
        self.kick_ai(table)

    async def nudge(self, table: Table, seat: int) -> None:
        """A short new private message (edits do not notify): it is your move; the previous nudge goes."""
        info = table.seats[seat]
        if self.publisher is None or info is None or info.user_id is None or not info.reachable:
            return
        if table.settings.pace == "realtime" and (time.time() - info.last_active < AT_THE_TABLE
                                                  or self.publisher.behind):
            # They are at the table: the edited hand message is enough.  Or the bot is behind
            # Telegram's overall limit: a new message would only delay the edits that show the turn
            # (the group's reminder before the deadline still names them).
            return
        assert table.match is not None
        tr = translator(info.lang)
        hand = table.match.hand
        what = {"bidding": tr("bidding is open"), "burying": tr("bury the kitty"),
                "stealing": tr("steal the kitty or pass"),
                "playing": tr("trick {n}", n=len(hand.tricks) + 1)}.get(hand.phase, "")
        title = name_html(self.group_titles.get(table.chat_id, table.title))
        sent = await self.publisher.send(info.user_id, tr("Your turn · {what} · {title}", what=what, title=title))
        # The new id is stored before the old message goes: a crash in between leaves an
        # old nudge on screen, never a stored id of a message already deleted.
        old = info.nudge_message_id
        info.nudge_message_id = sent.message_id if sent is not None else None
        await storage.set_seat_messages(self.db, table.id, seat, nudge_message_id=info.nudge_message_id)
        await self.publisher.delete(info.user_id, old)


def _winner_side(escaped: int | None, scores: Sequence[int]) -> int:
    """The side that won a hand: the higher 积分 (an escape: the side the escaper left behind wins nothing,
    see :func:`_outcomes`, but the column needs a side)."""
    if escaped is not None:
        return 1 - escaped % 2
    return max((0, 1), key=lambda side: scores[side])


def _outcomes(escaped: int | None, scores: Sequence[int]) -> list[storage.Outcome | None] | None:
    """Who the hand counts for: an escape is a loss for the escaper if it cost anything, and nothing
    for anyone else; otherwise every seat's side won or lost (None: storage reads the winner side)."""
    if escaped is None:
        return None
    return ["lost" if seat == escaped and scores[seat] < 0 else None for seat in range(4)]
