"""The heartbeat's look at every table: whatever should move a table is there, and no table is stuck.

A table that should move always has what moves it: a running AI loop while
an AI seat is to move, an armed deadline while a person is, a timer while the
table reads a hand's result.  Should one be missing (a bug, or a task that
ended where it should not have), :func:`watch` starts it again and says so
in the log; a table that has not moved for :data:`STUCK_AFTER` seconds when
it should have is reported stuck (``/health``).
"""

from __future__ import annotations

import logging
import time
from typing import Final

from bot.tables.house import House
from bot.tables.shown import human
from bot.tables.turns import arm_deadline, kick_ai, set_timer, wait_for_next_hand

log = logging.getLogger(__name__)

STUCK_AFTER: Final = 30.0
"""Seconds a table that should move may go without moving before ``/health`` calls it stuck."""


def watch(house: House) -> list[int]:
    """Every table that should move has what moves it: a running AI loop for an AI seat to move, an armed
    deadline for a person, a timer for the pause between hands.  Whatever is missing is started again (and
    logged: it should not happen).  Returns the tables stuck: that should have moved and have not for
    :data:`STUCK_AFTER` seconds."""
    stuck = []
    now = time.time()
    for table in list(house.by_id.values()):
        if house.closing or not table.playing or table.paused or table.silenced or table.lock.locked():
            continue  # a table being changed right now is not judged half-way
        assert table.match is not None
        if table.between_hands is not None:
            if house.tasks.get(f"next-hand {table.id}") is None:
                log.warning("table %s: the pause between hands had no timer; started one", table.id)
                wait_for_next_hand(house, table)
            if now - table.between_hands > STUCK_AFTER:
                stuck.append(table.id)
            continue
        hand = table.match.hand
        if hand.over:
            continue
        awaited = hand.awaiting()
        if any(human(table, seat) for seat in awaited):
            if table.deadline is None or house.tasks.get(f"timer {table.id}") is None:
                log.warning("table %s: a person is to move and no deadline was armed; armed one", table.id)
                if table.deadline is None:
                    table.turn_key = None
                    arm_deadline(house, table)
                else:
                    set_timer(house, table)
            if table.deadline is not None and now - table.deadline > STUCK_AFTER:
                stuck.append(table.id)
        if any(not human(table, seat) for seat in awaited):
            if house.tasks.get(f"ai {table.id}") is None:
                log.warning("table %s: an AI seat is to move and nothing moved it; started it", table.id)
                kick_ai(house, table)
            if now - table.progress > STUCK_AFTER:
                stuck.append(table.id)
    return stuck
