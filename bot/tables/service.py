"""The tables service: the one set of calls both front ends make, the keyboard and the Mini App.

:class:`Tables` is the :class:`~bot.tables.house.House` with the calls
below; each is a line or two over the rooms.  Who may see or do what is
decided here (and in the rooms), never in a front end: the seat a person
holds (:meth:`Tables.seat_of`), every request of a seated person, a move, a
selection, the hint, coming back, and its refusal (:meth:`Tables.perform`,
which takes the lock itself), who may replay a hand (:meth:`Tables.replay`).
The caller holds the table's lock for every other call that takes a table,
unless the call says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from telegram import InlineKeyboardMarkup

from bot.i18n import translator
from bot.labels import name_html
from bot.model import Table
from bot.render_group import pause_line
from bot.tables import admission, groups, lobby, perform, play, replays, seats, showing, shown, startup, turns, watch
from bot.tables.hand_messages import holds, remove, slot_key
from bot.tables.house import House
from bot.tables.requests import Outcome, Person, Request
from bot.tables.topics import close_topic, lose_topic, reopen_topic
from engine.hand import Action
from engine.match import Applied


class Tables(House):
    """All tables of all chats, and the calls that change or show them."""

    # --- the lobby ---------------------------------------------------------------------------------------
    async def new_table(self, chat_id: int, title: str, creator_id: int, creator_lang: str,
                        preset: str | None, thread_id: int | None = None) -> Table:
        """Open a table in a group (one active table per group, or per forum topic ``thread_id``); no lock
        needed."""
        return await lobby.new_table(self, chat_id, title, creator_id, creator_lang, preset, thread_id)

    def check_new_table(self, chat_id: int, thread_id: int | None = None) -> None:
        """Raise TableError if the group (or its topic) already has a table (checked before the preset is read)."""
        lobby.check_new_table(self, chat_id, thread_id)

    def check_sit(self, table: Table, user_id: int, seat: int | None) -> int:
        """The seat this person would get; raises TableError if they cannot sit."""
        return lobby.check_sit(table, user_id, seat)

    async def sit(self, table: Table, user_id: int, name: str, lang: str, seat: int | None) -> int:
        """Seat a person who can be reached privately; returns the seat."""
        return await lobby.sit(self, table, user_id, name, lang, seat)

    def settings_panel(self, table: Table, shown: bool) -> None:
        """The lobby message shows the settings panel (``shown``) or the seats again."""
        if shown:
            self.lobby_panels.add(table.id)
        else:
            self.lobby_panels.discard(table.id)

    def invite(self, table: Table, user_id: int, seat: int | None, name: str) -> None:
        """Someone who must first press Start in the private chat wants ``seat``: the lobby names them as
        joining (:func:`lobby.invite`); the messages follow."""
        lobby.invite(table, user_id, seat, name)
        showing.refresh(self, table)

    @staticmethod
    def invited_seat(table: Table, user_id: int) -> int | None:
        """The seat an invited person asked for (their seat link's /start gives it), if any."""
        return lobby.invited_seat(table, user_id)

    async def leave(self, table: Table, user_id: int) -> None:
        """Give up a seat in the lobby."""
        await lobby.leave(self, table, user_id)

    async def add_ai(self, table: Table) -> None:
        """Fill the first empty seat with the AI."""
        await lobby.add_ai(self, table)

    async def remove_ai(self, table: Table) -> None:
        """Empty the last AI seat."""
        await lobby.remove_ai(self, table)

    async def change_setting(self, table: Table, key: str, value: str) -> None:
        """Change one table setting in the lobby."""
        await lobby.change_setting(self, table, key, value)

    async def start(self, table: Table) -> None:
        """Start the match (then :meth:`after_change` shows it), or queue it while Telegram's limit has no
        room (:mod:`bot.tables.admission`: it then starts by itself; TableError says so)."""
        await admission.start(self, table)

    async def admit(self) -> None:
        """Start the tables that wait for room, for ever (a supervised task of the bot)."""
        await admission.run(self)

    async def stop(self, table: Table) -> None:
        """Stop a table (its creator or a chat admin asked)."""
        await lobby.stop(self, table)

    # --- seats ---------------------------------------------------------------------------------------------
    def seat_of(self, table_id: int, user_id: int) -> tuple[Table, int] | None:
        """The live table ``table_id`` and the seat this person holds there now (present or away); None if
        they hold none.  Read it again under the table's lock: a seat may change hands while a request waits."""
        table = self.get(table_id)
        seat = table.seat_of(user_id) if table is not None else None
        return (table, seat) if table is not None and seat is not None else None

    @staticmethod
    def holds(table: Table, seat: int, user_id: int) -> bool:
        """True while this person holds this seat (present or away)."""
        return holds(table, seat, user_id)

    async def come_back(self, table: Table, seat: int) -> bool:
        """An away person plays their seat again (a press of theirs, /hand, 「我回来了」); False if they
        were not away."""
        if not await seats.take_back(self, table, seat):
            return False
        turns.after_change(self, table, actor=seat)
        return True

    @staticmethod
    def left_seat(table: Table, user_id: int) -> int | None:
        """The seat this person escaped from in this match (the AI plays it), which they may take back."""
        return seats.left_seat(table, user_id)

    async def take_seat_back(self, table: Table, seat: int) -> bool:
        """The person who left ``seat`` wants it back: True if it is theirs at once, False if from the next
        hand (see :func:`seats.ask_back`); the table is told."""
        if not await seats.ask_back(self, table, seat):
            return False
        seats.resume(self, table)
        turns.after_change(self, table)
        return True

    async def stay_away(self, table: Table, seat: int) -> None:
        """The person who asked for ``seat`` back from the next hand stays away after all (/leave)."""
        await seats.stay_away(self, table, seat)

    async def show_hand_again(self, table: Table, seat: int) -> None:
        """/hand: the person's hand message again, as a new message (the old one goes); someone away is
        back."""
        info = table.seats[seat]
        if info is None or info.user_id is None:
            return
        if table.between_hands is not None:
            # The table reads a result: nothing of the next hand is shown before it starts (its hand messages
            # come then), so the person is told when that is; the last hand's message stays.
            await self.come_back(table, seat)
            if self.publisher is not None:
                publisher, user_id = self.publisher, info.user_id
                text = play.group_prefix(self, table) + pause_line(translator(info.lang), table)
                self.spawn("pause-note", lambda: publisher.send(user_id, text), table, restart=False)
            return
        # They asked for the hand message: it is kept current from now on, even with the web app open too
        # (else the old one would go and none come until the app closed).
        self.apps.keyboard_used(table.id, seat, info.user_id)
        old = info.hand_message_id
        info.hand_message_id = None
        if self.publisher is not None:
            self.publisher.forget(slot_key(table.id, seat, info.user_id))
            tr = translator(info.lang)  # one too old to delete keeps no keyboard
            gone = tr("You sit at the table in {title}; your cards are below.",
                      title=name_html(self.group_titles.get(table.chat_id, table.title)))
            # Out of the table's lock, which the caller holds: the next move need not wait for Telegram's answers.
            self.spawn("hand-gone", partial(remove, self, info.user_id, old, gone), table, restart=False)
        if not await self.come_back(table, seat):
            self.refresh(table, urgent=[seat])

    async def reached(self, table: Table, seat: int, user_id: int) -> None:
        """/start in the private chat of someone who holds ``seat``: the bot can write to them again; mid-match
        they are back (a table paused for want of anyone present goes on) and their hand comes as a new
        message.  Nothing if the seat is no longer theirs."""
        info = table.seats[seat]
        if info is None or info.user_id != user_id:
            return
        info.reachable = True
        if table.playing:
            if not await self.come_back(table, seat):
                self.resume(table)  # they were unreachable, and so nobody was left: the table goes on
            await self.show_hand_again(table, seat)

    def resume(self, table: Table) -> None:
        """A paused table goes on once someone is present again."""
        if table.paused:
            seats.resume(self, table)
            if not table.paused:
                turns.after_change(self, table)

    # --- play ------------------------------------------------------------------------------------------------
    async def act(self, table: Table, action: Action) -> Applied:
        """Check, store, then apply one action; returns what the engine made of it (see :func:`play.act`)."""
        return await play.act(self, table, action)

    async def perform(self, person: Person, table: Table, request: Request) -> Outcome:
        """One request of a seated person, from the keyboard or the Mini App: the lock, the seat, staleness,
        the come-back rule, the move and what follows it, once (:mod:`bot.tables.perform`).  Takes the lock
        itself; returns the typed outcome, never raises for a refusal."""
        return await perform.perform(self, person, table, request)

    async def escape(self, table: Table, seat: int) -> None:
        """A player leaves mid-match (the escape rule; the AI takes the seat)."""
        await play.escape(self, table, seat)

    def next_hand(self, table: Table) -> None:
        """End the pause between hands (a 「下一局」 press); raises TableError if there is none."""
        turns.next_hand(self, table)

    # --- messages and turns ----------------------------------------------------------------------------
    def refresh(self, table: Table, *, urgent: Sequence[int] = (), pressed: int | None = None) -> None:
        """Schedule the table's messages for an update (see :func:`showing.refresh`)."""
        showing.refresh(self, table, urgent=urgent, pressed=pressed)

    def after_change(self, table: Table, *, actor: int | None = None) -> None:
        """After any change: the deadline, the AI seats, nudges and the messages."""
        turns.after_change(self, table, actor=actor)

    def follow(self, watcher: Callable[[Table], None]) -> None:
        """Call ``watcher`` with the table at every refresh of a table (the web app's live streams)."""
        self.watchers.append(watcher)

    def unfollow(self, watcher: Callable[[Table], None]) -> None:
        """Stop calling ``watcher`` (nothing if it was not watching)."""
        if watcher in self.watchers:
            self.watchers.remove(watcher)

    def render_group_message(self, table: Table) -> tuple[str, InlineKeyboardMarkup | None]:
        """The group's table message as it should look now."""
        return showing.render_group_message(self, table)

    @staticmethod
    def waiting_humans(table: Table) -> list[int]:
        """Seats of people whose move the table waits for now."""
        return shown.waiting_humans(table)

    def watch(self) -> list[int]:
        """The heartbeat's look at every table: what should move can (repaired if not); the stuck ones."""
        return watch.watch(self)

    def kick_ai(self, table: Table) -> None:
        """Make sure AI seats move when it is their turn."""
        turns.kick_ai(self, table)

    async def cannot_reach(self, user_id: int) -> None:
        """A person blocked the bot (or never started it): the AI plays for them where the table lets it,
        else the table waits; each group is told."""
        for table, seat in self.tables_of(user_id):
            await seats.unreachable(self, table, seat)
            turns.kick_ai(self, table)

    # --- languages ------------------------------------------------------------------------------------------
    def group_speaks(self, chat_id: int, lang: str) -> None:
        """A group chose its language (stored by :class:`People`): every table of it speaks it now."""
        for table in self.all_in_chat(chat_id):
            table.lang = lang
            self.refresh(table)

    def person_speaks(self, user_id: int, lang: str) -> None:
        """A person chose their language (stored by :class:`People`): their seats' messages speak it now, and
        so does a seat they left, once they take it back."""
        for table, seat in self.tables_of(user_id):
            info = table.seats[seat]
            if info is not None:
                info.lang = lang
                self.refresh(table, urgent=[seat])
        for table in self.by_id.values():
            for leaver in table.left.values():
                if leaver.user_id == user_id:
                    leaver.lang = lang

    # --- the group itself -------------------------------------------------------------------------------------
    async def group_lost(self, chat_id: int) -> None:
        """The bot is no longer in this group (removed, left, or a call there refused with 403): its table
        closes as at /stop, its people are told privately, nothing more is sent there.  No lock needed."""
        await groups.lose_group(self, chat_id)

    def group_back(self, chat_id: int) -> None:
        """The bot is in this group again: it may write there."""
        groups.regain_group(self, chat_id)

    async def group_muted(self, chat_id: int) -> None:
        """The bot may not write in this group (:attr:`muting` says so): its tables pause, their people are
        told privately.  Takes each table's lock."""
        await groups.mute_group(self, chat_id, lambda: chat_id in self.muting.muted)

    async def group_unmuted(self, chat_id: int) -> None:
        """The bot may write in this group again: its paused tables go on.  Takes each table's lock."""
        await groups.unmute_group(self, chat_id, lambda: chat_id in self.muting.muted)

    async def topic_closed(self, chat_id: int, thread_id: int | None) -> None:
        """The bot may not write in this forum topic (:attr:`topics` says so): its table pauses, its people are
        told privately.  Takes the table's lock."""
        await close_topic(self, chat_id, thread_id, lambda: (chat_id, thread_id) in self.topics.closed)

    async def topic_reopened(self, chat_id: int, thread_id: int | None) -> None:
        """The bot may write in this forum topic again: its paused table goes on.  Takes the table's lock."""
        await reopen_topic(self, chat_id, thread_id, lambda: (chat_id, thread_id) in self.topics.closed)

    async def topic_deleted(self, chat_id: int, thread_id: int | None) -> None:
        """This forum topic is gone: its table closes as at /stop, its people are told privately.  No lock
        needed."""
        await lose_topic(self, chat_id, thread_id)

    async def group_moved(self, old: int, new: int) -> None:
        """The group became a supergroup: its records and table move to the new id.  No lock needed."""
        await groups.move_group(self, old, new)

    def group_upgraded(self, new: int) -> None:
        """The supergroup ``new`` is what a basic group the bot is in became (the new chat's own notice)."""
        groups.note_upgrade(self, new)

    def upgraded(self, chat_id: int) -> bool:
        """True if this supergroup is what a basic group the bot was in became lately: no hello there."""
        return groups.upgraded(self, chat_id)

    # --- start-up and shut-down ------------------------------------------------------------------------------
    async def load_tables(self) -> None:
        """Bring back every live table from storage."""
        await startup.load_tables(self)

    def restore_timers(self) -> None:
        """Re-arm every stored deadline after a restart, and start the AI seats and pauses."""
        turns.restore_timers(self)

    async def reload(self, table: Table) -> None:
        """Rebuild a table's match from storage (after a conflict)."""
        await play.reload(self, table)

    async def close(self) -> None:
        """Shut-down: let each move in progress be stored, then stop every AI loop and timer."""
        await turns.close(self)

    # --- replays ------------------------------------------------------------------------------------------------
    async def replay(self, hand_id: int, user_id: int) -> replays.Replay | None:
        """A finished hand for someone who played it; None for anyone else, or a hand still in play."""
        return await replays.replay_for(self.db, hand_id, user_id, self.ended)

    async def replay_number(self, hand_id: int, user_id: int) -> int | None:
        """The number of a finished hand this person played (to offer its replay); None otherwise."""
        return await replays.number_for(self.db, hand_id, user_id)
