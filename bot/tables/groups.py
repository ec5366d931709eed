"""What happens to a group itself: the bot loses it (removed, or it is gone), or it moves to a supergroup.

Losing a group is an event, not an error: its table closes at once as at
``/stop`` (the match is abandoned, nothing stored is lost), the people seated
there are told in their private chats (their hand messages lose their buttons,
and a nudge or away notice goes), the notices and announcements still
waiting for the group are dropped, and nothing more is sent there.  A person
blocking the bot never closes a table (:func:`bot.tables.seats.unreachable`
handles that).  A table whose forum topic is gone closes the same way
(:func:`close_lost`, called by :mod:`bot.tables.topics`).

A group that mutes the bot (:mod:`bot.muting`) keeps its tables, paused
(:func:`mute_group`): nothing moves by itself, and the people seated are told
privately why and what to do, once; a match stores it in its extra, so that
after a restart its table comes back paused, its people not told again
(:mod:`bot.tables.startup`).  When the bot may write there again
(:func:`unmute_group`) the group is told, the table message comes anew at the
bottom of the group, and the clock of the window the table waits in starts
again, whole.

A group that became a supergroup keeps its table: its records move to the
new id (:func:`storage.migrate_chat`) and its table message is shown anew
there.  Both calls are safe to make twice (a service message and a refused
call may both tell it).  The new chat is remembered a while as an upgrade
(:func:`note_upgrade`): Telegram may also tell the bot that it "joined" it
(tdlib/telegram-bot-api#266), and a group the bot has been in all along gets
no second hello (:mod:`bot.handlers.group_events`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Final

import storage
from bot.i18n import Translator, translator
from bot.labels import name_html
from bot.model import Table
from bot.tables.hand_messages import retire
from bot.tables.house import House
from bot.tables.nudges import clear
from bot.tables.seats import store_deadline, store_extra
from bot.tables.showing import bring_down, refresh
from bot.tables.turns import after_change, set_timer

log = logging.getLogger(__name__)

UPGRADE_KEPT: Final = 600.0
"""Seconds an upgrade to a supergroup is remembered (:func:`upgraded`): its notices come seconds apart."""


async def lose_group(house: House, chat_id: int) -> list[Table]:
    """The bot is no longer in this group: close its tables (one a topic in a forum), tell their people
    privately, drop what waits for the group.  Returns the tables closed.  Takes each table's lock."""
    if house.publisher is not None:
        house.publisher.lose(chat_id, "the bot left or was removed", tell=False)  # we are what it would tell
    house.muting.forget(chat_id)
    house.topics.forget(chat_id)
    if house.outbox is not None:
        await house.outbox.drop(chat_id)
    return [table for table in house.all_in_chat(chat_id) if await close_lost(
        house, table, f"the bot is no longer in group {chat_id}", lambda tr, title: tr(
            "I was removed from {title}, so the table there is closed. The hands already played are kept.",
            title=title))]


async def close_lost(house: House, table: Table, why: str, line: Callable[[Translator, str], str]) -> bool:
    """Close a table where the bot can no longer write (its group lost, or its forum topic gone), as at /stop
    but without a word to the group; its people are told privately with ``line`` (said with a translator and
    the group's title).  False if it closed meanwhile.  Takes the table's lock."""
    chat_id = table.chat_id
    async with table.lock:
        if house.get(table.id) is not table:  # closed meanwhile (a /stop, the match's end)
            return False
        await storage.update_table(house.db, table.id, status="stopped", turn_deadline=None)
        if table.match_id is not None:
            await storage.update_match(house.db, table.match_id, status="abandoned")
        table.status = "stopped"
        log.warning("table %s closed: %s", table.id, why)
        title = name_html(house.group_titles.get(chat_id, table.title))
        for seat, info in enumerate(table.seats):
            if info is None or info.user_id is None:
                continue
            # As at /stop: no live keyboard, and no 「轮到你了」 or away notice, left in a private chat.
            retire(house, table, seat, info, None)
            if info.nudge_message_id is not None:
                house.spawn("nudge", partial(clear, house, table, seat), table, restart=False)
            if house.publisher is not None:
                house.publisher.post(info.user_id, line(translator(info.lang), title))
        house.unregister(table)
    return True


async def mute_group(house: House, chat_id: int, muted: Callable[[], bool]) -> None:
    """The bot may not write in this group: its tables pause and their people are told privately, once.
    ``muted`` says whether it still holds when each table's lock is taken (an unmute may come between)."""
    for table in house.all_in_chat(chat_id):
        async with table.lock:
            if house.get(table.id) is not table or table.muted or not muted():
                continue
            table.muted = True
            house.spawn("extra", partial(store_extra, house, table), table)  # a restart keeps the table paused
            log.warning("table %s paused: the bot may not write in group %s", table.id, chat_id)
            refresh(house, table)  # where an edit still passes, the table message says why nothing moves
            tell_seated(house, table, lambda tr, title: tr(
                "I may not send messages in {title} any more (I was muted there), so the table there is paused. It "
                "goes on once an admin lets me send messages there again; or /stop there closes it.", title=title))


async def unmute_group(house: House, chat_id: int, muted: Callable[[], bool]) -> None:
    """The bot may write in this group again: its paused tables go on, the group is told and shown the table
    anew, their people are told privately."""
    for table in house.all_in_chat(chat_id):
        async with table.lock:
            if house.get(table.id) is not table or not table.muted or muted():
                continue
            table.muted = False
            house.spawn("extra", partial(store_extra, house, table), table)  # a restart keeps it going
            if table.topic_closed:
                continue  # its topic is still closed to the bot: it goes on when it opens (bot.tables.topics)
            log.warning("table %s goes on: the bot may write in group %s again", table.id, chat_id)
            tr = house.tr(table)
            house.announce(table, tr("I may send messages here again: the table goes on."))
            tell_seated(house, table, lambda tr, title: tr(
                "I may send messages in {title} again: the table there goes on.", title=title))
            table.progress = time.time()
            bring_down(house, table)  # where the bot may not pin, the table comes anew to the bottom
            clock_again(house, table)
            after_change(house, table)  # the AI seats, the next hand, the messages


def clock_again(house: House, table: Table) -> None:
    """The clock of the window the table waits in starts again, whole (a table that was muted goes on: nobody
    could see it meanwhile)."""
    if table.deadline is None or not table.playing:
        return
    table.deadline = time.time() + table.window()
    table.reminded = False
    house.spawn("deadline", partial(store_deadline, house, table), table)
    set_timer(house, table)


def tell_seated(house: House, table: Table, line: Callable[[Translator, str], str]) -> None:
    """A line to every person seated at the table, in their private chat and language (``line`` says it with a
    translator and the group's title, as HTML)."""
    if house.publisher is None:
        return
    title = name_html(house.group_titles.get(table.chat_id, table.title))
    for info in table.seats:
        if info is not None and info.user_id is not None and info.reachable:
            house.publisher.post(info.user_id, line(translator(info.lang), title))


def regain_group(house: House, chat_id: int) -> None:
    """The bot is in this group again (added back, or a command came from it): it may write there."""
    if house.publisher is not None:
        house.publisher.regain(chat_id)


def note_upgrade(house: House, new: int) -> None:
    """A basic group became the supergroup ``new`` (either of the upgrade's service messages, or a call to the
    old chat refused with the new id said so): the bot has been there all along."""
    now = time.monotonic()
    for chat_id, told in list(house.upgrades.items()):
        if now - told > UPGRADE_KEPT:
            del house.upgrades[chat_id]
    house.upgrades[new] = now


def upgraded(house: House, chat_id: int) -> bool:
    """True if this supergroup is what a basic group became lately (:func:`note_upgrade`)."""
    told = house.upgrades.get(chat_id)
    return told is not None and time.monotonic() - told <= UPGRADE_KEPT


async def move_group(house: House, old: int, new: int) -> None:
    """The group ``old`` became the supergroup ``new``: its records and its table move there, the table
    message is shown anew in the new chat, and its waiting announcements go there."""
    note_upgrade(house, new)
    house.muting.moved(old, new)
    try:
        await storage.migrate_chat(house.db, old, new)
    except storage.NotFound:
        log.info("group %s moved to %s: nothing stored under the old id", old, new)
    for table in house.all_in_chat(old):  # a basic group has no topics: one table at most
        async with table.lock:
            if table.chat_id == old:
                house.move_chat(table, new)
                refresh(house, table)
                log.warning("table %s moved with its group from %s to %s", table.id, old, new)
    if house.outbox is not None:
        house.outbox.wake(new)
