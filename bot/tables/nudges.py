"""Nudges: a short new private message when a turn begins, since an edited message does not notify.

At the relaxed and daily paces (and at the real-time pace for someone who has
not pressed anything for a while) the person whose turn begins gets "your
turn" as a new message, and the previous nudge goes: the chat holds one.
"""

from __future__ import annotations

import time
from typing import Final

import storage
from bot.i18n import translator
from bot.labels import name_html
from bot.model import Table
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
    sent = await house.publisher.send(info.user_id, tr("Your turn · {what} · {title}", what=what, title=title))
    # The new id is stored before the old message goes: a crash in between leaves an
    # old nudge on screen, never a stored id of a message already deleted.
    old = info.nudge_message_id
    info.nudge_message_id = sent.message_id if sent is not None else None
    await storage.set_seat_messages(house.db, table.id, seat, nudge_message_id=info.nudge_message_id)
    await house.publisher.delete(info.user_id, old)
