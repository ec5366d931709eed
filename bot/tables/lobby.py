"""The lobby: opening a table, seats and AI seats, settings, starting and stopping the match.

Each call checks what the table allows now and raises :class:`TableError`
with the reason otherwise; a change is stored before it is made in memory.
The caller holds the table's lock and refreshes its messages.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from functools import partial

import storage
from bot import logs
from bot.i18n import translator
from bot.model import AI_STRENGTHS, PACES, RETURNS, Seat, Table, TableSettings
from bot.tables.hand_messages import retire
from bot.tables.house import House, TableError
from bot.tables.nudges import clear
from bot.tables.play import group_prefix
from bot.tables.seats import match_extra, resume
from bot.tables.showing import show_closed
from bot.tables.turns import after_change
from engine.match import Match

log = logging.getLogger(__name__)


def check_new_table(house: House, chat_id: int, thread_id: int | None = None) -> None:
    """Raise TableError if the group (or its topic ``thread_id``) already has a table that has not ended."""
    existing = house.in_chat(chat_id, thread_id)
    if existing is not None and existing.status != "finished":
        if thread_id is not None:
            raise TableError("This topic already has a table. Use /stop to close it first.")
        raise TableError("This group already has a table. Use /stop to close it first.")


async def new_table(house: House, chat_id: int, title: str, creator_id: int, creator_lang: str,
                    preset: str | None, thread_id: int | None = None) -> Table:
    """Open a table in a group (one active table per group, or per topic of a forum group: ``thread_id``)."""
    check_new_table(house, chat_id, thread_id)
    existing = house.in_chat(chat_id, thread_id)
    if existing is not None:
        house.unregister(existing)  # a match that has ended holds nothing (as after a restart)
    chat = await storage.upsert_chat(house.db, chat_id, title)
    if house.publisher is not None:
        house.publisher.regain(chat_id)  # a command came from the group: the bot is there again
    lang = chat.language or creator_lang
    # A group that never chose keeps no settings: its tables get today's defaults (the strong AI
    # among them); settings stored before a choice existed keep what those tables played.
    settings = TableSettings.from_dict(chat.settings) if chat.settings else TableSettings()
    if preset:
        settings = replace(settings, preset=preset, hidden=None)
    elif chat.default_preset:
        settings = replace(settings, preset=chat.default_preset)
    try:
        record = await storage.create_table(house.db, chat_id, creator_id=creator_id, settings=settings.to_dict(),
                                            thread_id=thread_id)
    except storage.TableAlreadyActive:  # another /newgame here passed the check above at the same time, and won
        raise TableError("This topic already has a table. Use /stop to close it first." if thread_id is not None
                         else "This group already has a table. Use /stop to close it first.") from None
    table = Table(id=record.table_id, chat_id=chat_id, creator_id=creator_id, lang=lang, title=title,
                  settings=settings, thread_id=thread_id)
    house.group_titles[chat_id] = title
    house.register(table)
    return table


def check_sit(table: Table, user_id: int, seat: int | None) -> int:
    """The seat this person would get; raises TableError if they cannot sit.

    Once the match has started seats are fixed, except at a paused table
    (nobody left, between two hands): someone may take a seat the AI holds.
    """
    if table.seat_of(user_id) is not None:  # first: to someone seated, that the seats are fixed is no answer
        raise TableError("You already have a seat at this table.")
    if table.status != "open" and not table.paused:
        raise TableError("The match has started; seats are fixed now.")
    free = [s for s, info in enumerate(table.seats)
            if info is None or (table.paused and info.is_ai and info.user_id is None)]
    if not free:
        raise TableError("All four seats are taken.")
    if seat is None:
        return free[0]
    if seat not in free:
        raise TableError("That seat is taken.")
    return seat


async def sit(house: House, table: Table, user_id: int, name: str, lang: str, seat: int | None) -> int:
    """Seat a person who can be reached privately; returns the seat."""
    seat = check_sit(table, user_id, seat)
    await storage.set_seat(house.db, table.id, seat, user_id=user_id)
    table.seats[seat] = Seat(user_id, name, lang=lang)
    table.pending.pop(user_id, None)
    if seat in table.left:  # someone else took the seat the AI held for its leaver: it is no longer theirs
        del table.left[seat]
        table.coming_back.discard(seat)
        assert table.match_id is not None
        await storage.update_match(house.db, table.match_id, extra=match_extra(table))
    if table.paused:  # someone sat at a table nobody was left at: it goes on
        resume(house, table)
        after_change(house, table)
    return seat


def invite(table: Table, user_id: int, seat: int | None, name: str) -> None:
    """Someone the bot cannot reach yet was sent to its private chat to press Start before they sit: the
    lobby names them as joining, and their link's /start seats them at ``seat`` (None: any)."""
    table.pending[user_id] = (seat, name)


def invited_seat(table: Table, user_id: int) -> int | None:
    """The seat this person asked for before they were sent to the private chat (None: none, or any)."""
    found = table.pending.get(user_id)
    return found[0] if found is not None else None


async def leave(house: House, table: Table, user_id: int) -> None:
    """Give up a seat in the lobby."""
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("You are not seated at this table.")
    if table.status != "open":
        raise TableError("The match is under way: /leave counts as escaping.")
    await storage.clear_seat(house.db, table.id, seat)
    table.seats[seat] = None


async def add_ai(house: House, table: Table) -> None:
    """Fill the first empty seat with the AI."""
    if table.status != "open":
        raise TableError("The match has started; seats are fixed now.")
    free = [s for s in range(4) if table.seats[s] is None]
    if not free:
        raise TableError("All four seats are taken.")
    await storage.set_seat(house.db, table.id, free[0], user_id=None, is_ai=True)
    table.seats[free[0]] = Seat(None, "AI", is_ai=True)


async def remove_ai(house: House, table: Table) -> None:
    """Empty the last AI seat."""
    if table.status != "open":
        raise TableError("The match has started; seats are fixed now.")
    ai = [s for s, info in enumerate(table.seats) if info is not None and info.is_ai]
    if not ai:
        raise TableError("There is no AI seat to remove.")
    await storage.clear_seat(house.db, table.id, ai[-1])
    table.seats[ai[-1]] = None


async def change_setting(house: House, table: Table, key: str, value: str) -> None:
    """Change one table setting in the lobby."""
    if table.status != "open":
        raise TableError("Settings cannot change once the match has started.")
    s = table.settings
    if key == "preset":
        s = replace(s, preset=value, hidden=None)
    elif key == "hidden":
        s = replace(s, hidden=value == "1")
    elif key == "pace" and value in PACES:
        s = replace(s, pace=value)  # type: ignore[arg-type]
    elif key == "timeout" and value in ("ai", "escape"):
        s = replace(s, on_timeout=value)  # type: ignore[arg-type]
    elif key == "strength" and value in AI_STRENGTHS:
        s = replace(s, ai_strength=value)
    elif key == "returns" and value in RETURNS:
        s = replace(s, returns=value)
    else:
        raise TableError("That button is out of date.")
    s.ruleset()  # refuse an inconsistent choice before storing it
    await storage.update_table(house.db, table.id, settings=s.to_dict())
    await storage.update_chat(house.db, table.chat_id, default_preset=s.preset, settings=s.to_dict())
    table.settings = s


async def start(house: House, table: Table) -> None:
    """Start the match once four seats are filled by people the bot can reach, or the AI."""
    if table.status != "open":
        raise TableError("The match has already started.")
    if not table.full:
        raise TableError("Four seats must be filled first (add the AI to empty seats).")
    ruleset = table.settings.ruleset()
    seed = house.rng.getrandbits(62)
    match = Match(ruleset, seed, history=False)  # each hand is stored as it ends
    async with house.db.transaction():
        record = await storage.create_match(
            house.db, table.id, preset=ruleset.name, ruleset=ruleset.to_dict(), levels=(2, 2), laps=(1, 1),
            extra={"checkpoint": match.checkpoint},
        )
        hand = await storage.create_hand(house.db, record.match_id, seed=match.hand.setup.seed,
                                         ruleset=ruleset.to_dict(), context={"deal": match.deals})
        await storage.update_table(house.db, table.id, status="playing")
    table.match, table.match_id, table.hand_id = match, record.match_id, hand.hand_id
    table.status = "playing"
    table.progress = time.time()
    table.pending.clear()  # nobody waits to sit any more
    house.lobby_panels.discard(table.id)
    logs.bind(table=table.id, hand=table.hand_id)
    log.info("match started (%s)", ruleset.name)


async def stop(house: House, table: Table) -> None:
    """Stop a table (its creator or a chat admin asked): its message says so, and loses its buttons; so does
    each player's hand message, and a 「轮到你了」 or away notice goes."""
    await storage.update_table(house.db, table.id, status="stopped", turn_deadline=None)
    if table.match_id is not None:
        await storage.update_match(house.db, table.match_id, status="abandoned")
    table.status = "stopped"
    for seat, info in enumerate(table.seats):  # no live keyboard, and no 「轮到你了」, left in a private chat
        if info is not None and info.user_id is not None:
            if not retire(house, table, seat, info, None) and table.between_hands is not None \
                    and house.publisher is not None:  # the last hand's message said the next one comes
                house.publisher.post(info.user_id, group_prefix(house, table)
                                     + translator(info.lang)("This table is closed."))
            if info.nudge_message_id is not None:
                house.spawn("nudge", partial(clear, house, table, seat), table, restart=False)
    house.unregister(table)
    show_closed(house, table)
