"""Bringing the tables back at start-up: every open or playing table, its seats and its current hand.

The event log is the truth: each table's match resumes from its checkpoint
and its current hand's log is replayed (a hand that ended before the last
run could settle it is settled now).  A table whose group muted the bot, or
whose forum topic was closed to it, comes back paused (:mod:`bot.muting`,
:mod:`bot.topics`), until the bot may write there again.
Deadlines come back from storage; :func:`bot.tables.turns.restore_timers`
re-arms them afterwards.
"""

from __future__ import annotations

import time

import storage
from bot.model import Seat, Table, TableSettings
from bot.tables.house import House
from bot.tables.play import pause_seconds, rebuild_match
from bot.tables.seats import nobody_left
from bot.tables.turns import turn_key


async def load_tables(house: House) -> None:
    """Bring back every open or playing table, replaying each current hand's log."""
    for active in await storage.load_active_tables(house.db):
        record = active.table
        if not house.config.hosts(record.chat_id):  # chaodipi play's table in chaodipi run, or the other way
            continue
        chat = await storage.get_chat(house.db, record.chat_id)
        # As new_table chose it: the group's /lang, else its creator's language.
        creator = await storage.get_user(house.db, record.creator_id) if record.creator_id else None
        lang = (chat.language if chat is not None and chat.language else
                creator.language if creator is not None and creator.language else "zh")
        table = Table(
            id=record.table_id, chat_id=record.chat_id, creator_id=record.creator_id or 0,
            lang=lang,
            title=chat.title if chat is not None else "", status=record.status,
            settings=TableSettings.from_dict(record.settings), message_id=record.message_id,
            thread_id=record.thread_id, deadline=record.turn_deadline,
        )
        for seat_record in active.seats:
            table.seats[seat_record.seat] = await _seat(house, seat_record)
        house.register(table)
        house.group_titles[table.chat_id] = table.title
        if active.match is not None and active.hand is not None:
            # Who may take a seat back, and who asked to: before the replay, since a hand it settles (the crash
            # came before) seats them and stores who is left.
            for seat, user_id in active.match.extra.get("left", {}).items():
                table.left[int(seat)] = await _seat(house, _Left(user_id))
            table.coming_back = {int(seat) for seat in active.match.extra.get("coming_back", ())}
            if active.match.extra.get("muted"):  # paused as before, its people not told again (they were once)
                table.muted = True
                house.muting.remember(table.chat_id)
            if active.match.extra.get("topic_closed"):  # its forum topic closed to the bot: paused the same way
                table.topic_closed = True
                house.topics.remember(table.chat_id, table.thread_id)
            await rebuild_match(house, table, active)
            if table.hand_id != active.hand.hand_id:  # it settled the hand: the stored deadline was that hand's
                table.deadline = None
            table.turn_key = turn_key(table)
            if table.hand_id == active.hand.hand_id:  # the turn began with the hand's last move (or its deal)
                table.turn_since = active.events[-1].created_at if active.events else active.hand.created_at
            # Nobody left between two hands: stay paused (mid-hand, the AI finishes the hand first).
            assert table.match is not None
            table.paused = table.playing and nobody_left(table) and not table.match.hand.events
            table.presses.restarted()
            table.reminded = table.deadline is not None and active.match.extra.get("reminded") == table.deadline
            until = active.match.extra.get("between_hands")
            if table.between_hands is None and until is not None and not table.match.hand.events \
                    and pause_seconds(house, table) > 0:  # (CHAODIPI_HAND_PAUSE=0: there was none)
                table.between_hands = float(until)  # the pause between hands goes on (a past one ends at once)
                table.deadline = None
            table.progress = time.time()  # the AI seats move again from now: not stuck yet


class _Left:
    """A person who left a seat, as :func:`_seat` reads them (their seat's record holds the AI now)."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        self.is_ai = False
        self.hand_message_id: int | None = None
        self.nudge_message_id: int | None = None


async def _seat(house: House, record: storage.SeatRecord | _Left) -> Seat:
    if record.user_id is None:
        return Seat(None, "AI", is_ai=True)
    user = await storage.get_user(house.db, record.user_id)
    name = user.display_name if user is not None else str(record.user_id)
    lang = user.language if user is not None and user.language else "zh"
    reachable = user is None or (user.can_message_privately and not user.blocked)
    return Seat(record.user_id, name, lang=lang, reachable=reachable, timed_out=record.is_ai,
                hand_message_id=record.hand_message_id, nudge_message_id=record.nudge_message_id)
