"""Admission: a new match only while Telegram's overall limit has room, and the tables that asked start in turn.

Telegram, not the CPU, sets a bot's limit: about 30 messages and edits a
second for the whole bot.  Every match started while the bot's messages
already wait for that limit slows every table, the next player's turn
first.  So a Start pressed while the next movers' messages lately waited
more than :data:`ADMIT_WAIT` for that limit (nine in ten of them, over the
last 20 s), or while more than :data:`ADMIT_BACKLOG` seconds of messages
wait, or while the messages the tables will ask for once the ones started
lately play like the others, with one more table, are forecast past
:data:`ADMIT_RATE` a second (:func:`forecast`: a table's deal and bidding
cost little, so the waits show its play only a minute after its start, by
when the tables started meanwhile would overshoot), or while other tables
wait their turn, does not start the match: the table joins a queue, and the
person is told it starts by itself.  One supervised task (``admission``, :func:`run`) starts the
waiting tables, oldest first, one a look, as soon as the backlog is under
the mark again: no table is left to press Start again and again, and none
jumps the queue.  ``/health`` shows the backlog and the tables waiting
(:meth:`bot.tables.house.House.load`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

import storage
from bot.model import Table
from bot.tables import lobby
from bot.tables.house import House, TableError
from bot.tables.turns import after_change
from bot.tasks import came_through

log = logging.getLogger(__name__)

ADMIT_BACKLOG: Final = 2.0
"""Seconds of messages waiting for Telegram's overall limit beyond which no new match starts (well below
:data:`~bot.tables.house.FAR_BEHIND`, where turns stop timing out: the goal is the next player's turn shown
within a second)."""
ADMIT_WAIT: Final = 0.4
"""Seconds the next movers' messages may have waited lately for Telegram's overall limit (nine in ten no
longer) for a new match to start: the goal is the next player's turn shown within a second, and the wait
for the limit is most of it, so admission stops before that wait reaches the goal, not after."""
ADMIT_RATE: Final = 22.0
"""Messages a second the tables may be forecast to ask for, a new one included, for a new match to start: four
fifths of the 27 a second the bot sends at most (:class:`~bot.ratelimit.ChatRateLimiter`).  Plays come in
bursts, and a burst that fills the limit makes the next players wait: with a mark of 24, some 70 tables of four
sent 25 a second and one turn in a hundred took 1.1-1.3 s to show."""
YOUNG: Final = 90.0
"""Seconds after its start when a table's messages show fully in the rate measured: its deal, its 45 s of
bidding, burying and the steal round cost a few messages, its tricks about :data:`TABLE_RATE` a second."""
TABLE_RATE: Final = 0.3
"""Messages a second a table of four people asks for at real time (2.25 a play, a play every 7.5 s): the
least a table started lately is forecast to cost (more when the tables measured cost more)."""
LOOK_EVERY: Final = 2.0
"""Seconds between two starts from the queue (a start's messages count in the backlog before the next)."""


def crowded(house: House) -> bool:
    """True while a new match would slow the tables playing: the next movers waited more than
    :data:`ADMIT_WAIT` lately, more than :data:`ADMIT_BACKLOG` s of messages wait, or the :func:`forecast`
    is past :data:`ADMIT_RATE`."""
    publisher = house.publisher
    limiter = publisher.limiter if publisher is not None else None
    if publisher is None or limiter is None:
        return False
    return publisher.backlog > ADMIT_BACKLOG or limiter.movers_wait() > ADMIT_WAIT or forecast(house) > ADMIT_RATE


def forecast(house: House, now: float | None = None) -> float:
    """Messages a second the bot will send once the tables started in the last :data:`YOUNG` s play as the
    others do, with one more table: the rate measured lately, and each young table and the new one at what a
    table costs (the rate over the tables playing), at least :data:`TABLE_RATE`."""
    now = time.time() if now is None else now
    limiter = house.publisher.limiter if house.publisher is not None else None
    if limiter is None:
        return 0.0
    while house.started and house.started[0] < now - YOUNG:
        house.started.popleft()
    young = len(house.started)
    rate = limiter.sent_rate()
    playing = sum(1 for table in house.by_id.values() if table.playing)
    # Over every table playing, the young ones too: their deals and bidding are in the rate, and a rate over
    # the few older tables alone would cost each young table several times what it will (a ramp would stall).
    per_table = max(TABLE_RATE, rate / playing) if playing else TABLE_RATE
    return rate + (young + 1) * per_table


async def start(house: House, table: Table) -> None:
    """Start the match now if there is room and nobody waits before it; else queue the table (it starts by
    itself, :func:`run`) and raise TableError saying so."""
    if house.waiting_starts and next(iter(house.waiting_starts)) != table.id or crowded(house):
        if table.status != "open":
            raise TableError("The match has already started.")
        if not table.full:
            raise TableError("Four seats must be filled first (add the AI to empty seats).")
        house.waiting_starts.setdefault(table.id, time.time())
        house.admission_wake.set()
        ahead = list(house.waiting_starts)[: list(house.waiting_starts).index(table.id)]
        before = sum(1 for other in ahead if (t := house.by_id.get(other)) is not None and t.status == "open")
        raise TableError(
            "Telegram lets me send only so much at once, and the tables playing need it now: this table starts by itself as soon as there is room ({n} waiting before it).",  # noqa: E501
            n=before)
    house.waiting_starts.pop(table.id, None)
    await lobby.start(house, table)
    house.started.append(time.time())


async def run(house: House) -> None:
    """For ever: start the tables that wait, oldest first, whenever the backlog has room (supervised)."""
    while True:
        if not house.waiting_starts:
            house.admission_wake.clear()
            await house.admission_wake.wait()
            continue
        if crowded(house):
            await asyncio.sleep(LOOK_EVERY)
            continue
        table_id = next(iter(house.waiting_starts))
        table = house.by_id.get(table_id)
        if table is None:
            del house.waiting_starts[table_id]
            continue
        async with table.lock:
            if table.status != "open" or not table.full:  # stopped, or someone left meanwhile
                del house.waiting_starts[table_id]
                continue
            try:
                await start(house, table)
            except TableError as exc:
                house.waiting_starts.pop(table_id, None)
                log.info("table %s: a waiting start was given up: %s", table_id, exc.msgid)
                continue
            except storage.StorageError:
                raise  # the table keeps its place; the supervisor runs this again shortly
            after_change(house, table)
        log.info("table %s: started from the queue (%d still waiting)", table_id, len(house.waiting_starts))
        came_through()
        await asyncio.sleep(LOOK_EVERY)
