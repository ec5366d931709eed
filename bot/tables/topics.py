"""What happens to a table's forum topic: it is closed to the bot, open again, or gone (:mod:`bot.topics`).

A topic closed to the bot pauses its table as a group that mutes the bot
does (:func:`bot.tables.groups.mute_group`): nothing moves by itself
(:attr:`bot.model.Table.silenced`), the table message says why where an edit
still passes, and the people seated are told privately, once.  Open again
(:func:`reopen_topic`), the topic is told, the table message comes anew at
its bottom, and the clock of the window the table waits in starts again,
whole; a table whose group still mutes the bot stays paused (its group's
unmute lets it go on).

A topic gone (deleted) closes its table as a group that removed the bot does
(:func:`bot.tables.groups.close_lost`): the match is abandoned (the hands
played are kept), the hand messages say the table is closed, the nudges go,
and the people seated are told privately why.

Only the table of that topic is touched: the other topics of the group, and
its General topic, play on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial

from bot.tables.groups import clock_again, close_lost, tell_seated
from bot.tables.house import House
from bot.tables.seats import store_extra
from bot.tables.showing import bring_down, refresh
from bot.tables.turns import after_change

log = logging.getLogger(__name__)


async def close_topic(house: House, chat_id: int, thread_id: int | None, closed: Callable[[], bool]) -> None:
    """The bot may not write in this topic: its table pauses and its people are told privately, once.
    ``closed`` says whether it still holds once the table's lock is taken (a reopening may come between)."""
    table = house.in_chat(chat_id, thread_id)
    if table is None:
        return
    async with table.lock:
        if house.get(table.id) is not table or table.topic_closed or not closed():
            return
        table.topic_closed = True
        house.spawn("extra", partial(store_extra, house, table), table)  # a restart keeps the table paused
        log.warning("table %s paused: its topic %s of group %s is closed", table.id, thread_id, chat_id)
        refresh(house, table)  # where an edit still passes, the table message says why nothing moves
        tell_seated(house, table, lambda tr, title: tr(
            "The topic of our table in {title} was closed, so the table is paused. It goes on once an admin reopens the topic; or /stop there closes it.",
            title=title))


async def reopen_topic(house: House, chat_id: int, thread_id: int | None, closed: Callable[[], bool]) -> None:
    """The bot may write in this topic again: its paused table goes on (unless its group mutes the bot), the
    topic is told and shown the table anew, its people are told privately."""
    table = house.in_chat(chat_id, thread_id)
    if table is None:
        return
    async with table.lock:
        if house.get(table.id) is not table or not table.topic_closed or closed():
            return
        table.topic_closed = False
        house.spawn("extra", partial(store_extra, house, table), table)  # a restart keeps it going
        if table.muted:  # the group mutes the bot still: its unmute lets the table go on (bot.tables.groups)
            log.warning("table %s: its topic is open again, but group %s still mutes the bot", table.id, chat_id)
            return
        log.warning("table %s goes on: its topic %s of group %s is open again", table.id, thread_id, chat_id)
        tr = house.tr(table)
        house.announce(table, tr("This topic is open again: the table goes on."))
        tell_seated(house, table, lambda tr, title: tr(
            "The topic of our table in {title} is open again: the table goes on.", title=title))
        table.progress = time.time()
        bring_down(house, table)  # where the bot may not pin, the table comes anew to the bottom of the topic
        clock_again(house, table)
        after_change(house, table)  # the AI seats, the next hand, the messages


async def lose_topic(house: House, chat_id: int, thread_id: int | None) -> bool:
    """The topic is gone: its table closes, its people are told privately.  False if it had none (or it closed
    meanwhile).  Takes the table's lock."""
    table = house.in_chat(chat_id, thread_id)
    if table is None:
        return False
    return await close_lost(house, table, f"its topic {thread_id} of group {chat_id} is gone", lambda tr, title: tr(
        "The topic of our table in {title} was deleted (or I can no longer post in it), so the table there is closed. The hands already played are kept.",
        title=title))
