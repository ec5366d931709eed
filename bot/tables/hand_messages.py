"""Private hand messages: each belongs to one person at one seat, and never shows a seat they left.

A private hand message is kept current by a publisher slot keyed by its
owner: the table, the seat and the person.  Its renderer checks, each time
it runs (just before the message goes to Telegram, which may be seconds
after it was scheduled), that the owner still holds that seat and is
present.  If not, it draws the *frozen* form: a line saying why, no cards,
no buttons.  So an edit scheduled before a seat changed hands can never draw
the new occupant's cards into the old owner's chat.

Imports only the house; the rooms above use it to show and freeze hands.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Literal

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import TelegramError

import storage
from bot import callbacks
from bot.i18n import Translator, translator
from bot.labels import name_html
from bot.model import Seat, Table
from bot.render_private import render_hand
from bot.slots import Render
from bot.tables.house import House

log = logging.getLogger(__name__)

Why = Literal["left", "away"]


def slot_key(table_id: int, seat: int, user_id: int) -> tuple[int, str]:
    """The publisher key of one person's hand message at one seat."""
    return (table_id, f"seat{seat}:{user_id}")


def holds(table: Table, seat: int, user_id: int) -> bool:
    """True while this person holds this seat (present or away)."""
    info = table.seats[seat]
    return info is not None and not info.is_ai and info.user_id == user_id


def frozen_text(tr: Translator, table: Table, title: str, why: Why) -> str:
    """The hand message of someone who no longer plays the seat: why, and nothing else."""
    head = "<b>" + tr("Chao Di Pi") + " · " + name_html(title) + "</b>"
    if why == "left":
        return head + "\n" + tr("You left this seat. The AI plays it now.")
    return head + "\n" + tr("The AI plays for you until you are back.")


def app_url(house: House, table: Table) -> str | None:
    """The web app's address for this table, when ``CHAODIPI_PUBLIC_URL`` is set."""
    if not house.config.public_url:
        return None
    return f"{house.config.public_url}/app/?t={table.id}"


def owner_renderer(house: House, table: Table, seat: int, user_id: int, lang: str) -> Render:
    """The owner's hand message as it should look at the moment it is sent (``lang``: theirs)."""
    def render() -> tuple[str, InlineKeyboardMarkup | None]:
        info = table.seats[seat]
        title = house.group_titles.get(table.chat_id, table.title)
        if info is None or not holds(table, seat, user_id):
            return frozen_text(translator(lang), table, title, "left"), None
        tr = translator(info.lang)
        if info.timed_out or not table.playing:
            return frozen_text(tr, table, title, "away"), None
        return render_hand(tr, table, seat, title, app_url=app_url(house, table))
    return render


def message_saver(house: House, table: Table, seat: int, user_id: int) -> Callable[[int], Awaitable[None]]:
    """Remember the id of a hand message just sent, if its owner still holds the seat."""
    async def save(message_id: int) -> None:
        info = table.seats[seat]
        if info is None or not holds(table, seat, user_id):
            return  # the seat changed hands meanwhile: the id is not the new occupant's
        info.hand_message_id = message_id
        await storage.set_seat_messages(house.db, table.id, seat, hand_message_id=message_id)
    return save


def schedule_hand(house: House, table: Table, seat: int, info: Seat, *, now: bool, pressed: bool = False) -> None:
    """Bring one person's hand message up to date (the render decides what it may show); ``pressed``:
    they just pressed a button, and see the answer before anything else goes out."""
    publisher = house.publisher
    if publisher is None or info.user_id is None:
        return
    user_id = info.user_id
    slot = publisher.slot(slot_key(table.id, seat, user_id), user_id, 2.0, info.hand_message_id)
    slot.on_sent = message_saver(house, table, seat, user_id)
    publisher.schedule(slot, owner_renderer(house, table, seat, user_id, info.lang), now=now, pressed=pressed)


def freeze(house: House, table: Table, seat: int, info: Seat) -> None:
    """Freeze the hand message of a person who no longer plays the seat (left, or away) at once.

    Only an existing message is edited: someone whose message was never sent
    gets no new one to say they left.
    """
    publisher = house.publisher
    if publisher is None or info.user_id is None or info.hand_message_id is None:
        return
    user_id = info.user_id
    slot = publisher.slot(slot_key(table.id, seat, user_id), user_id, 2.0, info.hand_message_id)
    slot.on_sent = None
    publisher.schedule(slot, owner_renderer(house, table, seat, user_id, info.lang), now=True)


def retire(house: House, table: Table, seat: int, info: Seat, number: int | None, last: bool = False) -> bool:
    """Hand ``number`` is over: its message says so, without its buttons (the next hand comes as a new
    message, and an old keyboard left alive would only answer "out of date"; ``last``: the match is over,
    and no hand comes; ``number`` None: the table was closed).  False if there was no message to retire
    (none sent yet, or no publisher): then its slot is simply forgotten."""
    publisher = house.publisher
    if publisher is None or info.user_id is None or info.hand_message_id is None:
        return False
    key = slot_key(table.id, seat, info.user_id)
    slot = publisher.slot(key, info.user_id, 2.0, info.hand_message_id)
    if slot.message_id is None:  # still being sent: an edit could not find it, a send would be a new message
        return False
    tr = translator(info.lang)
    title = house.group_titles.get(table.chat_id, table.title)
    if number is None:
        line = tr("This table is closed.")
    elif last:
        line = tr("Hand {n} is over, and so is the match.", n=number)
    else:
        line = tr("Hand {n} is over; the next hand comes as a new message.", n=number)
    text = "<b>" + tr("Chao Di Pi") + " · " + name_html(title) + "</b>\n" + line
    slot.on_sent = None
    publisher.retire(slot, key, lambda: (text, None))
    return True


async def remove(house: House, chat_id: int, message_id: int | None, text: str) -> None:
    """Delete a message that has done its job; one Telegram keeps (a bot may delete its message for 48 hours
    only: a relaxed or daily table's) says ``text`` instead, without its buttons."""
    if house.publisher is None or message_id is None or await house.publisher.delete(chat_id, message_id):
        return
    try:
        await house.publisher.bot.edit_message_text(text, chat_id, message_id, parse_mode=ParseMode.HTML)
    except TelegramError as exc:
        log.info("message %s in chat %s neither deleted nor shrunk: %s", message_id, chat_id, exc)


def back_button(tr: Translator, table: Table) -> InlineKeyboardMarkup:
    """「我回来了」: the away person takes their seat back at the next move."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(tr("I'm back"),
                                                       callback_data=callbacks.lobby(table.id, "return"))]])
