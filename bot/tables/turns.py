"""Whose move it is, and what happens while the table waits: AI seats, deadlines, reminders, timeouts.

After every change of a table, :func:`after_change` runs (the caller holds
the table's lock): it arms the deadline when the table starts waiting for
someone new, schedules the messages, nudges whoever's turn just began, makes
the AI seats move, and ends the pause between two hands on time.  Each of
those runs as a supervised task named after its table (``ai 12``,
``timer 12``, ``next-hand 12``; :mod:`bot.tasks`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

import storage
from bot import logs
from bot.clocks import time_left
from bot.labels import and_list, name_html
from bot.model import PACES, Table
from bot.tables.house import House, TableError
from bot.tables.nudges import away_notice, clear, nudge, stale
from bot.tables.play import act, escape
from bot.tables.seats import set_away, store_deadline, store_extra
from bot.tables.showing import bring_down, refresh
from bot.tables.shown import cards_not_sent, human, show_thinking, waiting_humans
from engine.ai import choose_action
from engine.errors import EngineError
from engine.hand import Action, Hand
from engine.views import HandView, view_for

log = logging.getLogger(__name__)

NEWS_FIRST: Final = 30.0
"""Seconds the next hand may wait for the last hand's announcements to go out (the group's flood limit)."""
STALL: Final = 5.0
"""Seconds past its time a timer may wake before the bot counts as having stalled (frozen, far behind, or
down): a deadline that passed meanwhile is not a timeout, the turn gets :func:`grace` more."""


def after_change(house: House, table: Table, *, actor: int | None = None) -> None:
    """After any change: the deadline, the AI seats, nudges, the messages, the end of a pause."""
    started = arm_deadline(house, table)
    refresh(house, table, urgent=waiting_humans(table), pressed=actor)
    for seat in started:
        info = table.seats[seat]
        # A hand message not sent yet goes out as a new message, which notifies by itself.
        if seat != actor and info is not None and info.hand_message_id is not None:
            house.spawn("nudge", partial(nudge, house, table, seat), table, restart=False)
    for seat in stale(table):  # a turn that is over, a person who is back: their message goes
        house.spawn("nudge", partial(clear, house, table, seat), table, restart=False)
    kick_ai(house, table)
    wait_for_next_hand(house, table)


def turn_key(table: Table) -> tuple[Any, ...] | None:
    """What the current deadline is for: the bidding window of a deal, or one seat's turn."""
    if not table.playing:
        return None
    assert table.match is not None
    hand = table.match.hand
    if hand.phase == "bidding":
        return (table.match.deals, "bidding")
    return (table.match.deals, hand.phase, len(hand.events), hand.turn)


# --- deadlines ----------------------------------------------------------------------------------
def arm_deadline(house: House, table: Table) -> list[int]:
    """Set a new deadline when the table starts waiting for something new.

    Returns the seats whose turn has just begun (to nudge them).
    """
    key = turn_key(table)
    if key != table.turn_key:
        table.new_turn(key, time.time())
    waiting = waiting_humans(table)
    if not waiting:
        if table.deadline is not None:
            table.deadline = None
            house.spawn("deadline", partial(store_deadline, house, table), table)
            set_timer(house, table)
        table.turn_key = key
        return []
    if key == table.turn_key and table.deadline is not None:
        if table.match is not None and len(table.match.hand.bids) != table.clock_bids:
            table.read_clock(time.time())  # a bid redraws every message anyway: the clock is read again, free
        return []
    assert table.match is not None
    pace = PACES[table.settings.pace]
    span = pace.bidding if table.match.hand.phase == "bidding" else pace.turn
    table.deadline = time.time() + span
    table.turn_key = key
    table.reminded = False
    house.spawn("deadline", partial(store_deadline, house, table), table)
    set_timer(house, table)
    return waiting


def grace(table: Table) -> float:
    """The time a turn gets after the bot stalled past its deadline: the reminder's time (20 s in real
    time, 10 minutes relaxed, 3 hours daily)."""
    return PACES[table.settings.pace].reminder


def set_timer(house: House, table: Table) -> None:
    """(Re)start the table's timer for its deadline (none when there is no deadline); its clock is read."""
    table.read_clock(time.time())
    name = f"timer {table.id}"
    house.tasks.cancel(name)
    if table.deadline is not None and not house.closing:
        deadline = table.deadline
        house.tasks.start(name, lambda: _timer(house, table, deadline), table=table.id)


async def _timer(house: House, table: Table, deadline: float) -> None:
    logs.bind(table=table.id, hand=table.hand_id)
    pace = PACES[table.settings.pace]
    remind_at = deadline - pace.reminder
    if not table.reminded:
        await show_thinking(house, table, deadline, remind_at)
        if table.deadline != deadline:
            return
    if not table.reminded and deadline > time.time():  # a reminder due while the bot was down goes now
        await asyncio.sleep(max(0.0, remind_at - time.time()))
        async with table.lock:
            if table.deadline != deadline or table.silenced:
                return
            table.reminded = True
            house.spawn("extra", partial(store_extra, house, table), table)  # a restart reminds nobody again
            table.read_clock(time.time())  # the last stretch: 「亮主还剩 20 秒」 (one edit a window, not one a second)
            if not house.far_behind():  # else the turn itself may not be shown yet
                await remind(house, table)
            refresh(house, table)
    await asyncio.sleep(max(0.0, deadline - time.time()))
    async with table.lock:
        if table.deadline != deadline or not table.playing or table.silenced:
            return  # a muted table's clock starts again when the bot may write there (bot.tables.groups, .topics)
        late = time.time() - deadline
        if late > STALL:
            # The bot was frozen, far behind or down when the turn ran out: the person could not play, or
            # not see that they should.  Not a timeout: a reminder now, and a little more time.
            log.warning("table %s: the deadline passed %.0f s ago while the bot stalled; %.0f s more",
                        table.id, late, grace(table))
            table.deadline = time.time() + grace(table)
            table.reminded = True
            house.spawn("extra", partial(store_extra, house, table), table)
            await remind(house, table)
            refresh(house, table)  # the messages drawn from the deadline that passed show the time given now
        elif cards_not_sent(house, table) or house.far_behind() or "telegram" in house.faults.open:
            # Someone has not been sent their cards yet, or the bot is far behind Telegram's limits
            # (their turn may not be shown yet, and a timeout's messages would add to the backlog), or
            # Telegram cannot be reached (nobody can play): the clock starts again, not the timeout.
            table.deadline = time.time() + table.window()
        else:
            await time_out(house, table)
            after_change(house, table)
            return
        house.spawn("deadline", partial(store_deadline, house, table), table)
        set_timer(house, table)


async def remind(house: House, table: Table) -> None:
    """One reminder in the group, mentioning only the people who must act now (in the bidding nobody must:
    the window closes by itself, so it pings nobody)."""
    assert table.match is not None
    if table.match.hand.phase == "bidding":
        return
    tr = house.tr(table)
    mentions = []
    for seat in waiting_humans(table):
        info = table.seats[seat]
        assert info is not None and info.user_id is not None
        mentions.append(f'<a href="tg://user?id={info.user_id}">{name_html(info.name)}</a>')
    if not mentions:
        return
    left = time_left(tr, (table.deadline or 0) - time.time())
    house.announce(table, tr("⏰ {who}: the table is waiting for your move {left}.",
                             who=and_list(tr, mentions), left=left))


async def time_out(house: House, table: Table) -> None:
    """The deadline passed: close the bidding, or let the AI move, or apply the escape rule."""
    assert table.match is not None
    hand = table.match.hand
    tr = house.tr(table)
    if hand.phase == "bidding":
        await act(house, table, Action("close"))
        return
    for seat in waiting_humans(table):
        info = table.seats[seat]
        assert info is not None
        if table.settings.on_timeout == "escape":
            house.announce(table, tr("{who} ran out of time: the escape rule applies.", who=name_html(info.name)))
            await escape(house, table, seat)
            return
        await set_away(house, table, seat, info, True)
        house.announce(table, tr("{who} ran out of time: the AI plays for them until they are back.",
                                 who=name_html(info.name)))
        house.spawn("nudge", partial(away_notice, house, table, seat), table, restart=False)


def restore_timers(house: House) -> None:
    """Re-arm every stored deadline after a restart (a past one fires at once), and start the AI seats."""
    for table in house.by_id.values():
        if table.playing and table.deadline is not None:
            set_timer(house, table)
        elif table.playing:  # the next hand's clock starts (none while the pause between hands goes on)
            arm_deadline(house, table)
        if table.playing:
            kick_ai(house, table)
            wait_for_next_hand(house, table)


# --- the pause between hands ---------------------------------------------------------------------
def wait_for_next_hand(house: House, table: Table) -> None:
    """While the table reads a hand's result, a task ends the pause on time (if none runs yet)."""
    name = f"next-hand {table.id}"
    if table.between_hands is not None and not house.closing and house.tasks.get(name) is None:
        house.tasks.start(name, lambda: _next_hand_later(house, table), table=table.id)


async def _next_hand_later(house: House, table: Table) -> None:
    while (until := table.between_hands) is not None:
        await asyncio.sleep(max(0.0, until - time.time()))
        # The hand's result and notices go out before the next deal is shown (a little longer, at most).
        waited = 0.0
        while house.outbox is not None and house.outbox.sending(table.chat_id) and waited < NEWS_FIRST:
            await asyncio.sleep(0.5)
            waited += 0.5
        async with table.lock:
            if house.closing or table.silenced:
                return  # a muted table's next hand waits until the bot may write there (bot.tables.groups, .topics)
            if table.between_hands is not None and table.between_hands <= time.time():
                next_hand(house, table)


def next_hand(house: House, table: Table) -> None:
    """End the pause between hands: the next hand is shown and its clock starts.

    The caller holds ``table.lock``.
    """
    end_pause(house, table)
    after_change(house, table)


def end_pause(house: House, table: Table) -> None:
    """The pause between hands is over (the caller then runs :func:`after_change`); TableError if there is
    none."""
    if table.between_hands is None:
        raise TableError("That button is out of date.")
    table.between_hands = None
    table.progress = time.time()
    house.spawn("extra", partial(store_extra, house, table), table)  # a restart does not bring it back
    bring_down(house, table)  # where the bot may not pin, the table message comes to the group's bottom


# --- AI seats ----------------------------------------------------------------------------------------
def ai_action(house: House, table: Table) -> Action | None:
    """The next move an AI seat (or the AI standing in for a timed-out person) makes, if any."""
    if not table.playing or table.paused or table.silenced or table.between_hands is not None:
        return None
    assert table.match is not None
    hand = table.match.hand
    if hand.over:
        return None
    for seat in hand.awaiting():
        if human(table, seat):
            continue
        action = choose_action(view_for(hand, seat), hand.ruleset, house.rng, table.settings.ai_strength)
        if hand.can(action):
            return action
        return Action("pass", seat) if hand.phase == "bidding" else None
    return None


@dataclass(frozen=True)
class Search:
    """A strong AI seat's search, prepared under the table's lock and run outside it (:func:`_ai_loop`).

    ``moves`` is how many actions the hand had when the seat's view was
    taken: the search's answer stands only while the hand is the same and
    has not moved since, and the seat is still the AI's (a /stop, a
    person's press or comeback may have come between).
    """
    hand: Hand
    moves: int
    seat: int
    view: HandView

    def current(self, table: Table) -> bool:
        """True while the table still waits for this search's answer."""
        return (table.playing and not table.paused and not table.silenced and table.between_hands is None
                and table.match is not None
                and table.match.hand is self.hand and len(self.hand.events) == self.moves
                and not human(table, self.seat))  # a person back from away plays for themselves


def search_due(house: House, table: Table) -> Search | None:
    """The strong AI's search the table waits for now, if any (else :func:`ai_action` moves at once).

    A search takes up to half a second of CPU (more on a busy host): in
    the event loop it would hold every other table and message back (and
    in a thread it would fight the loop for the GIL), and under the table's
    lock it would hold back this table's people (a /stop, a press, the Mini
    App's stream).  So only the seat's view goes to a worker
    (:mod:`bot.thinking`), with the lock released meanwhile.
    """
    if not table.playing or table.paused or table.silenced or table.between_hands is not None:
        return None
    assert table.match is not None
    hand = table.match.hand
    if table.settings.ai_strength != "strong" or hand.over or hand.phase != "playing":
        return None
    seat = hand.turn
    if seat is None or human(table, seat):
        return None
    return Search(hand, len(hand.events), seat, view_for(hand, seat))


def kick_ai(house: House, table: Table) -> None:
    """Make sure AI seats move when it is their turn."""
    name = f"ai {table.id}"
    if not house.closing and house.tasks.get(name) is None:
        house.tasks.start(name, lambda: _ai_loop(house, table), table=table.id)


async def _ai_loop(house: House, table: Table) -> None:
    while True:
        await asyncio.sleep(house.config.ai_delay)
        if house.closing:
            return
        async with table.lock:
            logs.bind(table=table.id, hand=table.hand_id)
            search = search_due(house, table)
            if search is None:
                action = ai_action(house, table)
                if action is None or not await _carry_out(house, table, action):
                    return
                continue
        found = await house.thinking.play(search.view, search.hand.ruleset)
        async with table.lock:
            if house.closing:
                return
            if not search.current(table):
                continue  # the hand moved meanwhile: look again at what it waits for
            move: Action | None = found
            if not search.hand.can(found):
                log.error("table %s: the strong AI chose an illegal play; the casual player moves instead", table.id)
                move = ai_action(house, table)
            if move is None or not await _carry_out(house, table, move):
                return


async def _carry_out(house: House, table: Table, action: Action) -> bool:
    """An AI seat's move, applied and shown (the caller holds the lock); False if it was refused."""
    try:
        await act(house, table, action)
    except storage.StorageFault:
        raise  # nothing was applied: the supervisor runs the loop again in a moment
    except (EngineError, TableError, storage.StorageError) as exc:
        log.error("table %s: AI move refused (%s)", table.id, type(exc).__name__)
        return False
    if action.seat is not None:  # the AI moved for someone away: what they had selected is no move of theirs now
        table.presses.clear(action.seat)
    after_change(house, table)
    return True


# --- shut-down ----------------------------------------------------------------------------------------------
async def close(house: House) -> None:
    """Shut-down: let each move in progress be stored, then stop every AI loop and timer.

    Each table's lock is taken in turn, so a move being checked and stored
    completes; after that no AI move or timer starts (stored deadlines are
    re-armed at the next start).  Waits for the tables' background writes too.
    """
    house.closing = True
    for table in list(house.by_id.values()):
        async with table.lock:
            tasks = [task for kind in ("ai", "timer", "next-hand")
                     if (task := house.tasks.cancel(f"{kind} {table.id}")) is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*house.tasks.running(of_tables=True), return_exceptions=True)
    await house.thinking.close()
