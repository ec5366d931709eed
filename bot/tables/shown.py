"""When the player to move has been *shown* their turn: the thinking line and the clock wait for it.

Time a person's message spends in the bot's own queue for Telegram is not
their thinking time: the "whose turn" line (:func:`show_thinking`) counts
from when their hand message showed the turn (the publisher's
``shown_at``), and a deadline does not run out while someone's cards are
still to be sent (:func:`cards_not_sent`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Final

from bot.model import THINKING, Table
from bot.tables.hand_messages import slot_key
from bot.tables.house import House
from bot.tables.showing import refresh


def human(table: Table, seat: int) -> bool:
    """True if a person plays this seat now (not the AI, not the AI standing in for someone away)."""
    info = table.seats[seat]
    return info is not None and not info.is_ai and not info.timed_out


def waiting_humans(table: Table) -> list[int]:
    """Seats of people whose move the table waits for now (nobody's between hands)."""
    if not table.playing or table.between_hands is not None:
        return []
    assert table.match is not None
    return [s for s in table.match.hand.awaiting() if human(table, s)]


SHOWN_POLL: Final = 0.5
"""Seconds between two looks at whether the player to move has been shown their turn yet (while the bot's
queue holds it; bounded by the turn's reminder)."""


def shown_at(house: House, table: Table) -> float | None:
    """When the player to move was shown their turn: when their hand message last showed its latest content,
    or the turn's start when they have no message the bot still has to change (an AI seat, the web app, no
    single mover); None while their turn still waits in the bot's queue for Telegram."""
    turn = table.match.hand.turn if table.match is not None else None
    info = table.seats[turn] if turn is not None else None
    if house.publisher is None or turn is None or info is None or info.is_ai or info.user_id is None \
            or not info.reachable or house.app_open(table, turn):
        return table.turn_since
    shown = house.publisher.shown_at(slot_key(table.id, turn, info.user_id))
    return None if shown is None else max(table.turn_since, shown)


async def show_thinking(house: House, table: Table, deadline: float, remind_at: float) -> None:
    """Once the player to move has thought for :data:`~bot.model.THINKING` since their turn was *shown* to
    them, the whole table is shown whose turn it is (before the reminder, which says it anyway).  Time their
    message spent in the bot's own queue never counts (issue 57: at 80 tables that queue reached 6.6 s, more
    turns crossed the line, every one added edits, and the queue grew again)."""
    think = THINKING[table.settings.pace]
    shown = shown_at(house, table)
    while shown is None:  # their turn is not on their screen yet: their thinking has not begun
        if time.time() + think >= remind_at:
            return
        await asyncio.sleep(SHOWN_POLL)
        if table.deadline != deadline:
            return
        shown = shown_at(house, table)
    think_at = shown + think
    if think_at >= remind_at:
        return
    if think_at > time.time():
        await asyncio.sleep(think_at - time.time())
    async with table.lock:
        if table.deadline != deadline:
            return
        table.turn_shown = shown
        refresh(house, table)


def cards_not_sent(house: House, table: Table) -> bool:
    """True if someone the table waits for has a hand message still to be sent (the hand's first)."""
    if house.publisher is None:
        return False
    for seat in waiting_humans(table):
        info = table.seats[seat]
        if info is not None and info.user_id is not None and info.reachable \
                and not house.app_open(table, seat) \
                and house.publisher.unsent(slot_key(table.id, seat, info.user_id)):
            return True
    return False
