"""Showing a table: the group's table message and every private hand message, scheduled for an update.

Nothing here changes a table; :func:`refresh` runs after every change and
asks the publisher to bring each message up to date (coalesced: the group
message at most every ``group_interval`` seconds, a hand message at once for
the person who pressed or must move).  Imports the house and the hand
messages only.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial

from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, TelegramError

import storage
from bot import links
from bot.model import Table
from bot.render_group import render_lobby, render_settings, render_table
from bot.tables.hand_messages import remove, schedule_hand
from bot.tables.house import House

log = logging.getLogger(__name__)


def group_slot_key(table: Table) -> tuple[int, str]:
    """The publisher key of a table's group message."""
    return (table.id, "group")


def refresh(house: House, table: Table, *, urgent: Sequence[int] = (), pressed: int | None = None) -> None:
    """Schedule the group message and every private hand message for an update: at once for the
    ``urgent`` seats, first of all for the seat that ``pressed`` a button."""
    for watcher in house.watchers:
        watcher(table)
    publisher = house.publisher
    if publisher is None:
        return
    group = publisher.slot(group_slot_key(table), table.chat_id, house.config.group_interval, table.message_id,
                           table.thread_id)
    if group.on_sent is None:  # a table message sent anew (:func:`bring_down`) has its own
        group.on_sent = lambda message_id: remember_table_message(house, table, message_id)
    publisher.schedule(group, lambda: render_group_message(house, table), now=table.message_id is None)
    if table.playing and table.message_id is not None and table.pinned != table.message_id \
            and not table.pin_refused and not house.closing:
        table.pinned = table.message_id
        house.spawn("pin", partial(pin, house, table, table.message_id), table, restart=False)
    if not table.playing or table.between_hands is not None:  # the next hand is shown when it starts
        return
    for seat, info in enumerate(table.seats):
        # Someone away has a frozen message already (seats.freeze): nothing to redraw for them.
        if info is None or info.is_ai or info.user_id is None or not info.reachable or info.timed_out:
            continue
        if house.app_open(table, seat):
            continue  # the web app shows this seat live; no Bot API call until it closes
        schedule_hand(house, table, seat, info, now=seat in urgent or seat == pressed, pressed=seat == pressed)


def render_group_message(house: House, table: Table) -> tuple[str, InlineKeyboardMarkup | None]:
    """The group's table message as it should look now."""
    tr = house.tr(table)
    if table.status == "open":
        if table.id in house.lobby_panels:
            return render_settings(tr, table)
        return render_lobby(tr, table, links.link(house.bot_username, house.config.token, table.id))
    if table.match is None:
        return tr("This table is closed."), None
    text, markup = render_table(tr, table)
    if table.status != "playing":  # no buttons on a table that is over, and a line that says so
        end = tr("The match is over.") if table.status == "finished" else tr("This table is closed.")
        return text + "\n\n<b>" + end + "</b>", None
    return text, markup


def show_closed(house: House, table: Table) -> None:
    """The table message says the table is closed and loses its buttons (after a /stop)."""
    unpin(house, table)
    if house.publisher is None:
        return
    slot = house.publisher.slot(group_slot_key(table), table.chat_id, house.config.group_interval,
                                table.message_id, table.thread_id)
    # Not "now": that would cut short an edit waiting out flood control; this one follows it.
    house.publisher.schedule(slot, lambda: render_group_message(house, table))


def show_last_time(house: House, table: Table) -> None:
    """Show the table message one last time (without buttons) once its match ended.

    Nobody waits for that last edit and nothing cancels it (see
    :meth:`Publisher.retire`): the press that ended the match is answered
    at once, and a ``/newgame`` right after cannot cut the edit short.
    """
    unpin(house, table)
    if house.publisher is None:
        return
    key = group_slot_key(table)
    slot = house.publisher.slot(key, table.chat_id, house.config.group_interval, table.message_id, table.thread_id)
    house.publisher.retire(slot, key, lambda: render_group_message(house, table))


async def remember_table_message(house: House, table: Table, message_id: int) -> None:
    """Store the id of the table message just sent."""
    table.message_id = message_id
    await storage.update_table(house.db, table.id, message_id=message_id)


async def pin(house: House, table: Table, message_id: int) -> None:
    """Pin the table message, silently, so the group sees it at the top of the chat however many messages
    come under it (issue 55): one call a match, not one a hand.  A group that does not let the bot pin is
    not asked again; a call that failed for a reason that can pass is tried at the next change."""
    if house.publisher is None:
        return
    try:
        await house.publisher.bot.pin_chat_message(table.chat_id, message_id, disable_notification=True)
    except (BadRequest, Forbidden) as exc:
        log.info("table %s: the table message is not pinned (%s)", table.id, exc.message)
        table.pin_refused = True
    except TelegramError:
        if table.pinned == message_id:
            table.pinned = None


def unpin(house: House, table: Table) -> None:
    """The match is over or the table closed: its message is unpinned (the group's pins are its own)."""
    pinned, table.pinned = table.pinned, None
    if house.publisher is None or pinned is None or table.pin_refused:
        return
    publisher = house.publisher

    async def work() -> None:
        try:
            await publisher.bot.unpin_chat_message(table.chat_id, pinned)
        except TelegramError as exc:
            log.info("table %s: the table message is not unpinned (%s)", table.id, exc)
    house.spawn("pin", work, table, restart=False)


def bring_down(house: House, table: Table) -> None:
    """A new hand starts where the bot may not pin: the table message is sent anew at the bottom of the group
    (the previous hand's result, its reveals and reminders came under it) and the old one deleted once the new
    one is there, so the group always has one.  A send and a delete a hand instead of an edit: the new
    message shows the new deal.  The caller then refreshes the table (which sends it)."""
    old = table.message_id
    if not table.pin_refused or old is None or house.publisher is None or not table.playing or house.closing:
        return
    publisher = house.publisher
    key = group_slot_key(table)
    publisher.forget(key)  # an edit of the old message still waiting goes with it
    table.message_id = None
    slot = publisher.slot(key, table.chat_id, house.config.group_interval, None, table.thread_id)

    async def sent(message_id: int) -> None:
        slot.on_sent = lambda again: remember_table_message(house, table, again)
        await remember_table_message(house, table, message_id)
        tr = house.tr(table)  # one too old to delete keeps no 「Next hand」 button, and tells no hand that is over
        await remove(house, table.chat_id, old, tr("⬇️ The table has moved below."))
    slot.on_sent = sent
