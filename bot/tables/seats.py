"""Seats that change hands mid-match: away and back, escapes, a table with nobody left.

A person is *away* while the AI plays for them (a timeout, or the bot cannot
reach them); storage keeps that as the seat's ``is_ai`` flag with their user
id, so it survives a restart and a hand finished by the AI counts for nobody.
An escape (逃跑) gives the seat to the AI; the person who left may take it
back (:func:`ask_back`): at once if the hand has not started, else when the
next hand starts (or at once, where the table's settings say so).  Until
then the AI plays it, and those hands count for nobody.  A table with nobody
present left pauses between hands, and resumes when someone is back.

Imports the house and the hand messages; the deadline and the AI seats that
follow a change here are the caller's (:mod:`bot.tables.turns`).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import partial

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

import storage
from bot import callbacks
from bot.i18n import Translator
from bot.labels import name_html, preset_label
from bot.model import Seat, Table
from bot.render_group import paused_line
from bot.tables.hand_messages import freeze, holds
from bot.tables.house import House, TableError
from bot.tables.nudges import clear, clear_left
from bot.untrusted import MAX_ID, parse_int
from engine.special import escape_loss


def present(info: Seat | None) -> bool:
    """True for a person who plays their seat themselves: reachable and not away."""
    return info is not None and not info.is_ai and info.user_id is not None and info.reachable \
        and not info.timed_out


def nobody_left(table: Table) -> bool:
    """True when no seat is held by a person who is present (the AI would play alone)."""
    return not any(present(info) for info in table.seats)


async def set_away(house: House, table: Table, seat: int, info: Seat, away: bool) -> None:
    """The AI plays for this person (``away``) or they play again; stored (first: a write that fails changes
    nothing), so a restart keeps it."""
    await storage.set_seat(house.db, table.id, seat, user_id=info.user_id, is_ai=away)
    info.timed_out = away
    if away:
        freeze(house, table, seat, info)


async def take_back(house: House, table: Table, seat: int) -> bool:
    """An away person takes their seat back at the next move (the caller holds the lock, and then
    arms the deadline: :func:`bot.tables.turns.after_change`).

    Tells the group and resumes a paused table; False if they were not away.
    """
    info = table.seats[seat]
    if info is None or info.is_ai or not info.timed_out:
        return False
    info.reachable = True
    await set_away(house, table, seat, info, False)
    house.spawn("nudge", partial(clear, house, table, seat), table, restart=False)  # the 「我回来了」 notice goes
    tr = house.tr(table)
    house.announce(table, tr("{who} is back at the table.", who=name_html(info.name)))
    resume(house, table)
    return True


async def unreachable(house: House, table: Table, seat: int) -> None:
    """The bot cannot message this seat's person (blocked, never started): where the table lets the AI
    play for the absent, it does; else the table waits for them.  The group is told either way."""
    info = table.seats[seat]
    if info is None or not info.reachable:
        return
    tr = house.tr(table)
    if table.settings.on_timeout == "ai" and table.playing:
        await storage.set_seat(house.db, table.id, seat, user_id=info.user_id, is_ai=True)
        info.timed_out = True
        info.reachable = False
        house.announce(table, tr("{who} cannot receive my messages (blocked?): the AI plays for them.",
                                 who=name_html(info.name)))
    else:
        info.reachable = False
        house.announce(table, tr("{who} cannot receive my messages (blocked?): the table waits for them.",
                                 who=name_html(info.name)))


def pause_if_empty(house: House, table: Table) -> None:
    """Between hands: a table with nobody present stops (no AI-only hands go into the league)."""
    if table.paused or not table.playing or not nobody_left(table):
        return
    table.paused = True
    house.announce(table, paused_line(house.tr(table)))


def resume(house: House, table: Table) -> None:
    """A paused table goes on once someone is present again."""
    if not table.paused or nobody_left(table):
        return
    table.paused = False
    tr = house.tr(table)
    house.announce(table, tr("The table resumes."))


def match_extra(table: Table, back: Collection[int] = ()) -> dict[str, object]:
    """What the match stores beside its checkpoint: who left which seat, who asked for it back (the
    seats in ``back`` are theirs again), when the pause between hands ends, the deadline whose reminder
    went out, whether the group mutes the bot and whether the table's forum topic is closed to it (a restart
    keeps them)."""
    assert table.match is not None
    return {"checkpoint": table.match.checkpoint,
            "left": {str(seat): info.user_id for seat, info in sorted(table.left.items()) if seat not in back},
            "coming_back": sorted(table.coming_back - set(back)),
            "between_hands": table.between_hands,
            "reminded": table.deadline if table.reminded else None,
            "muted": table.muted,
            "topic_closed": table.topic_closed}


async def store_extra(house: House, table: Table) -> None:
    """Store the match's extra as it is when it is written (the pause between hands over, a reminder sent), so
    that a restart brings no ended pause back and sends no reminder twice.  Background work (``house.spawn``),
    never awaited under the table's lock: it takes the lock, so that the extra it computes is the table's
    state when it is written, never one that a change stored meanwhile (a person back in their seat) has made
    older.  A storage fault goes to the supervisor, which runs this again."""
    async with table.lock:
        if table.match is not None and table.match_id is not None and table.playing:
            await storage.update_match(house.db, table.match_id, extra=match_extra(table))


async def store_deadline(house: House, table: Table) -> None:
    """Store the table's deadline as it is when this runs (a retry never writes an older one), so that a
    restart re-arms it.  A storage fault goes to the supervisor, which runs this again in a moment."""
    await storage.update_table(house.db, table.id, turn_deadline=table.deadline)


def left_seat(table: Table, user_id: int) -> int | None:
    """The seat this person left (escaped) in this match and the AI plays now, if any."""
    return next((seat for seat, info in table.left.items() if info.user_id == user_id), None)


async def ask_back(house: House, table: Table, seat: int) -> bool:
    """The person who left ``seat`` wants it back: theirs at once (True) when the hand has not started (or the
    table's settings say so), else when the next hand starts (the table is told either way)."""
    assert table.match is not None
    info = table.left[seat]
    if table.settings.returns == "now" or table.between_hands is not None or not table.match.hand.events:
        await seat_again(house, table, seat)
        return True
    table.coming_back.add(seat)
    assert table.match_id is not None
    await storage.update_match(house.db, table.match_id, extra=match_extra(table))
    tr = house.tr(table)
    house.announce(table, tr("{who} takes their seat back from the AI when the next hand starts.",
                             who=name_html(info.name)))
    return False


async def stay_away(house: House, table: Table, seat: int) -> None:
    """The person who asked for ``seat`` back from the next hand changes their mind (/leave): the AI keeps it,
    and they may ask again (/join).  Stored first; the table is told."""
    info = table.left[seat]
    assert table.match_id is not None
    extra = match_extra(table)
    extra.update(coming_back=sorted(table.coming_back - {seat}))
    await storage.update_match(house.db, table.match_id, extra=extra)
    table.coming_back.discard(seat)
    tr = house.tr(table)
    house.announce(table, tr("{who} stays away after all: the AI keeps the seat.", who=name_html(info.name)))


async def seat_again(house: House, table: Table, seat: int) -> None:
    """The person who left ``seat`` has it back now (stored first); the table is told."""
    info = table.left[seat]
    assert table.match_id is not None and info.user_id is not None
    async with house.db.transaction():
        await storage.set_seat(house.db, table.id, seat, user_id=info.user_id)
        await storage.update_match(house.db, table.match_id, extra=match_extra(table, back=(seat,)))
    sat_again(table, seat)
    tr = house.tr(table)
    house.announce(table, tr("{who} is back in their seat.", who=name_html(info.name)))


async def leave_between_hands(house: House, table: Table, seat: int) -> None:
    """A person leaves while the table reads a hand's result: no hand is under way for them (the next is
    dealt, not shown), so nothing is escaped and no hand is scored; the AI holds the seat from the next hand,
    and they may take it back (/join).  Stored first; the group is told."""
    info = table.seats[seat]
    if info is None or info.is_ai:
        raise TableError("You are not seated at a table in this chat.")
    assert table.match is not None and table.match_id is not None
    extra = match_extra(table)  # with this seat among those left (as it will be once stored)
    extra.update(left={str(s): held.user_id for s, held in sorted({**table.left, seat: info}.items())},
                 coming_back=sorted(table.coming_back - {seat}))
    async with house.db.transaction():
        await storage.set_seat(house.db, table.id, seat, user_id=None, is_ai=True)
        await storage.update_match(house.db, table.match_id, extra=extra)
    leaver = hand_to_ai(table, seat)
    assert leaver is not None
    table.left[seat] = leaver
    table.coming_back.discard(seat)
    house.spawn("nudge", partial(clear_left, house, table, leaver), table, restart=False)  # an away notice goes
    tr = house.tr(table)
    house.announce(table, tr("{who} left the table; the AI takes the seat from the next hand.",
                             who=name_html(leaver.name)) + "\n"
                   + tr("{who} can take the seat back from the AI with /join.", who=name_html(leaver.name)))
    pause_if_empty(house, table)


def sat_again(table: Table, seat: int) -> None:
    """In memory, once stored: the person who left ``seat`` holds it again."""
    info = table.left.pop(seat)
    table.coming_back.discard(seat)
    table.seats[seat] = Seat(info.user_id, info.name, lang=info.lang)


def hand_to_ai(table: Table, seat: int) -> Seat | None:
    """The AI takes a seat in memory; the person who held it, if anyone did."""
    info = table.seats[seat]
    table.seats[seat] = Seat(None, "AI", is_ai=True)
    table.presses.clear(seat)
    return info if info is not None and not info.is_ai else None


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
    parts = [parse_int(part, 0, MAX_ID) for part in arg.split("-")]
    if len(parts) != 3 or None in parts:
        raise TableError("That button is not valid.")
    deals, seat, cost = (int(p or 0) for p in parts)
    if seat > 3 or not holds(table, seat, user_id):
        raise TableError("This question is not yours.")
    if not table.playing or table.match is None or table.match.deals != deals or escape_cost(table, seat) != cost:
        raise TableError("The hand has moved on since you asked; send /leave again to see what leaving costs now.")
    return seat
