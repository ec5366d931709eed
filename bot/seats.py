"""Private hand messages belong to one person; seats that change hands mid-match.

A private hand message is kept current by a publisher slot keyed by its
owner: the table, the seat and the person.  Its renderer checks, each time
it runs (just before the message goes to Telegram, which may be seconds
after it was scheduled), that the owner still holds that seat and is
present.  If not, it draws the *frozen* form: a line saying why, no cards,
no buttons.  So an edit scheduled before a seat changed hands can never draw
the new occupant's cards into the old owner's chat.

A person is *away* while the AI plays for them (a timeout, or the bot cannot
reach them); storage keeps that as the seat's ``is_ai`` flag with their user
id, so it survives a restart and a hand finished by the AI counts for nobody.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

import storage
from bot import callbacks
from bot.i18n import Translator, translator
from bot.labels import name_html, preset_label
from bot.model import Seat, Table
from bot.publisher import Render
from bot.render_private import render_hand
from engine.special import escape_loss

if TYPE_CHECKING:
    from bot.service import Tables

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


def owner_renderer(tables: Tables, table: Table, seat: int, user_id: int, lang: str) -> Render:
    """The owner's hand message as it should look at the moment it is sent (``lang``: theirs)."""
    def render() -> tuple[str, InlineKeyboardMarkup | None]:
        info = table.seats[seat]
        title = tables.group_titles.get(table.chat_id, table.title)
        if info is None or not holds(table, seat, user_id):
            return frozen_text(translator(lang), table, title, "left"), None
        tr = translator(info.lang)
        if info.timed_out or not table.playing:
            return frozen_text(tr, table, title, "away"), None
        return render_hand(tr, table, seat, title, app_url=tables.app_url(table))
    return render


def message_saver(tables: Tables, table: Table, seat: int, user_id: int) -> Callable[[int], Awaitable[None]]:
    """Remember the id of a hand message just sent, if its owner still holds the seat."""
    async def save(message_id: int) -> None:
        info = table.seats[seat]
        if info is None or not holds(table, seat, user_id):
            return  # the seat changed hands meanwhile: the id is not the new occupant's
        info.hand_message_id = message_id
        await storage.set_seat_messages(tables.db, table.id, seat, hand_message_id=message_id)
    return save


def schedule_hand(tables: Tables, table: Table, seat: int, info: Seat, *, now: bool, pressed: bool = False) -> None:
    """Bring one person's hand message up to date (the render decides what it may show); ``pressed``:
    they just pressed a button, and see the answer before anything else goes out."""
    publisher = tables.publisher
    if publisher is None or info.user_id is None:
        return
    user_id = info.user_id
    slot = publisher.slot(slot_key(table.id, seat, user_id), user_id, 2.0, info.hand_message_id)
    slot.on_sent = message_saver(tables, table, seat, user_id)
    publisher.schedule(slot, owner_renderer(tables, table, seat, user_id, info.lang), now=now, pressed=pressed)


def freeze(tables: Tables, table: Table, seat: int, info: Seat) -> None:
    """Freeze the hand message of a person who no longer plays the seat (left, or away) at once.

    Only an existing message is edited: someone whose message was never sent
    gets no new one to say they left.
    """
    publisher = tables.publisher
    if publisher is None or info.user_id is None or info.hand_message_id is None:
        return
    user_id = info.user_id
    slot = publisher.slot(slot_key(table.id, seat, user_id), user_id, 2.0, info.hand_message_id)
    slot.on_sent = None
    publisher.schedule(slot, owner_renderer(tables, table, seat, user_id, info.lang), now=True)


def back_button(tr: Translator, table: Table) -> InlineKeyboardMarkup:
    """「我回来了」: the away person takes their seat back at the next move."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(tr("I'm back"),
                                                       callback_data=callbacks.lobby(table.id, "return"))]])


def present(info: Seat | None) -> bool:
    """True for a person who plays their seat themselves: reachable and not away."""
    return info is not None and not info.is_ai and info.user_id is not None and info.reachable \
        and not info.timed_out


async def set_away(tables: Tables, table: Table, seat: int, info: Seat, away: bool) -> None:
    """The AI plays for this person (``away``) or they play again; stored, so a restart keeps it."""
    info.timed_out = away
    await storage.set_seat(tables.db, table.id, seat, user_id=info.user_id, is_ai=away)
    if away:
        freeze(tables, table, seat, info)


def send_away_notice(tables: Tables, table: Table, info: Seat) -> None:
    """Tell an away person in private that the AI plays for them, with 「我回来了」."""
    if tables.publisher is None or info.user_id is None or not info.reachable:
        return
    tr = translator(info.lang)
    title = name_html(tables.group_titles.get(table.chat_id, table.title))
    tables.publisher.post(info.user_id, tr("You ran out of time at the table in {title}: the AI plays for you until you are back.", title=title),
                          back_button(tr, table))


async def come_back(tables: Tables, table: Table, seat: int) -> bool:
    """An away person takes their seat back at the next move (the caller holds the lock).

    Tells the group, resumes a paused table and shows the hand again; False
    if they were not away.
    """
    info = table.seats[seat]
    if info is None or info.is_ai or not info.timed_out:
        return False
    info.reachable = True
    await set_away(tables, table, seat, info, False)
    if tables.publisher is not None:
        tr = translator(table.lang)
        tables.publisher.post(table.chat_id, tr("{who} is back at the table.", who=name_html(info.name)))
    resume(tables, table)
    tables.after_change(table, actor=seat)
    return True


def nobody_left(table: Table) -> bool:
    """True when no seat is held by a person who is present (the AI would play alone)."""
    return not any(present(info) for info in table.seats)


def pause_if_empty(tables: Tables, table: Table) -> None:
    """Between hands: a table with nobody present stops (no AI-only hands go into the league)."""
    if table.paused or not table.playing or not nobody_left(table):
        return
    table.paused = True
    if tables.publisher is not None:
        tr = translator(table.lang)
        tables.publisher.post(table.chat_id, tr(
            "The table is paused: nobody is left playing. It resumes when someone comes back (/hand, or 「I'm back」) or takes a seat (/join); /stop closes it."))


def resume(tables: Tables, table: Table) -> None:
    """A paused table goes on once someone is present again."""
    if not table.paused or nobody_left(table):
        return
    table.paused = False
    if tables.publisher is not None:
        tr = translator(table.lang)
        tables.publisher.post(table.chat_id, tr("The table resumes."))


def escape_cost(table: Table, seat: int) -> int:
    """积分 this seat would lose by leaving now, by the preset's escape rule (0: leaving is free)."""
    assert table.match is not None
    hand = table.match.hand
    return escape_loss(hand.ruleset, seat=seat, dealer_side=hand.dealer_side, threshold=hand.threshold,
                       attacker_points=hand.attacker_points, cards_played=hand.cards_played,
                       levels=hand.setup.levels)


def escape_question(tr: Translator, table: Table, seat: int, cost: int) -> tuple[str, InlineKeyboardMarkup]:
    """Ask the leaver to confirm an escape, naming what it costs in this preset now."""
    assert table.match is not None
    preset = preset_label(tr, table.match.ruleset)
    text = tr("Leaving now is an escape (逃跑): under {preset}'s rule it costs you {n} 积分 (as the hand stands now), the hand ends and the AI takes your seat. Leave?", preset=preset, n=cost)
    arg = f"{table.match.deals}-{seat}-{cost}"
    markup = InlineKeyboardMarkup([[
        InlineKeyboardButton(tr("Leave (−{n} 积分)", n=cost), callback_data=callbacks.lobby(table.id, "esc", arg)),
        InlineKeyboardButton(tr("Stay"), callback_data=callbacks.lobby(table.id, "stay", str(seat))),
    ]])
    return text, markup


def confirmed_escape(table: Table, user_id: int, arg: str) -> int:
    """The seat a confirmation button lets this person leave now; raises TableError when it no longer fits."""
    from bot.service import TableError

    parts = arg.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise TableError("That button is not valid.")
    deals, seat, cost = (int(p) for p in parts)
    if seat > 3 or not holds(table, seat, user_id):
        raise TableError("This question is not yours.")
    if not table.playing or table.match is None or table.match.deals != deals or escape_cost(table, seat) != cost:
        raise TableError("The hand has moved on since you asked; send /leave again to see what leaving costs now.")
    return seat
