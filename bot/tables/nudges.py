"""Nudges: a short new private message when a turn begins, since an edited message does not notify.

At the relaxed and daily paces (and at the real-time pace for someone who has
not pressed anything for a while) the person whose turn begins gets "your
turn" as a new message, and the previous nudge goes: the chat holds one.  The
notice that the AI plays for someone away, with its 「我回来了」 button, takes
the same place.  A nudge goes once the turn it announced is over, and the away
notice once its person is back (or the match is over, or the table closed): a
chat's last message never says "your turn" when it is not, nor offers a way
back to someone already back, or to a table that is no more (:func:`clear`).
"""

from __future__ import annotations

import time
from typing import Final

from telegram import InlineKeyboardMarkup

import storage
from bot.i18n import translator
from bot.labels import name_html
from bot.model import Seat, Table
from bot.tables.hand_messages import back_button, remove
from bot.tables.house import House

AT_THE_TABLE: Final = 150.0
"""Seconds after a press in which a player counts as at the table (real-time pace): a round of four
moves takes less, so their edited hand message is enough and no "your turn" message is sent (it
would cost a send and a delete a move; the group's reminder before the deadline still mentions them)."""


async def nudge(house: House, table: Table, seat: int) -> None:
    """A short new private message (edits do not notify): it is your move; the previous nudge goes."""
    info = table.seats[seat]
    if house.publisher is None or info is None or info.user_id is None or not info.reachable:
        return
    if table.settings.pace == "realtime" and (time.time() - info.last_active < AT_THE_TABLE
                                              or house.publisher.behind):
        # They are at the table: the edited hand message is enough.  Or the bot is behind
        # Telegram's overall limit: a new message would only delay the edits that show the turn
        # (the group's reminder before the deadline still names them).
        return
    assert table.match is not None
    tr = translator(info.lang)
    hand = table.match.hand
    what = {"bidding": tr("bidding is open"), "burying": tr("bury the kitty"),
            "stealing": tr("steal the kitty or pass"),
            "playing": tr("trick {n}", n=len(hand.tricks) + 1)}.get(hand.phase, "")
    title = name_html(house.group_titles.get(table.chat_id, table.title))
    await _replace(house, table, seat, tr("Your turn · {what} · {title}", what=what, title=title))
    if not waits(table, seat):  # the turn ended while the message went out (a quick move, a timeout)
        await clear(house, table, seat)


async def away_notice(house: House, table: Table, seat: int) -> None:
    """Tell an away person in private that the AI plays for them, with 「我回来了」; it takes the nudge's place."""
    info = table.seats[seat]
    if house.publisher is None or info is None or info.user_id is None or not info.reachable:
        return
    tr = translator(info.lang)
    title = name_html(house.group_titles.get(table.chat_id, table.title))
    await _replace(house, table, seat,
                   tr("You ran out of time at the table in {title}: the AI plays for you until you are back.",
                      title=title), back_button(tr, table), persist=True)  # it must arrive, even after an outage
    if not info.timed_out or not table.playing:  # back already (a press while the notice went out), or the
        await clear(house, table, seat)          # match over or the table closed: its button has no use


async def _replace(house: House, table: Table, seat: int, text: str,
                   markup: InlineKeyboardMarkup | None = None, *, persist: bool = False) -> None:
    """Send the seat's new nudge (or away notice: ``persist``, tried until it goes); the previous one goes."""
    info = table.seats[seat]
    assert house.publisher is not None and info is not None and info.user_id is not None
    sent = await house.publisher.send(info.user_id, text, markup, persist=persist)
    # The new id is stored before the old message goes: a crash in between leaves an
    # old nudge on screen, never a stored id of a message already deleted.
    old = info.nudge_message_id
    info.nudge_message_id = sent.message_id if sent is not None else None
    await storage.set_seat_messages(house.db, table.id, seat, nudge_message_id=info.nudge_message_id)
    await remove(house, info.user_id, old, out_of_date(house, table, info.lang))


def waits(table: Table, seat: int) -> bool:
    """True while the table waits for this seat's own move (the one a nudge announces)."""
    info = table.seats[seat]
    return (table.playing and table.between_hands is None and table.match is not None and info is not None
            and not info.timed_out and seat in table.match.hand.awaiting())


def stale(table: Table) -> list[int]:
    """Seats whose nudge announces a turn that is over, or whose away notice a person already back."""
    return [seat for seat, info in enumerate(table.seats)
            if info is not None and info.nudge_message_id is not None and not info.timed_out
            and not waits(table, seat)]


async def clear(house: House, table: Table, seat: int) -> None:
    """The seat's nudge (or away notice) goes: what it said is over."""
    info = table.seats[seat]
    if house.publisher is None or info is None or info.user_id is None or info.nudge_message_id is None:
        return
    old = info.nudge_message_id
    info.nudge_message_id = None
    await storage.set_seat_messages(house.db, table.id, seat, nudge_message_id=None)
    await remove(house, info.user_id, old, out_of_date(house, table, info.lang))


async def clear_left(house: House, table: Table, info: Seat) -> None:
    """The nudge (or away notice) of someone who just left their seat goes with it: the seat is the AI's (its
    record's message ids were cleared with the change of hands), and nothing there is theirs to do."""
    if house.publisher is None or info.user_id is None or info.nudge_message_id is None:
        return
    old = info.nudge_message_id
    info.nudge_message_id = None
    await remove(house, info.user_id, old, out_of_date(house, table, info.lang))


def out_of_date(house: House, table: Table, lang: str) -> str:
    """What a nudge or away notice too old to delete says instead (without its 「我回来了」 button)."""
    tr = translator(lang)
    return "<b>" + name_html(house.group_titles.get(table.chat_id, table.title)) + "</b> · " + tr(
        "This message is out of date.")
