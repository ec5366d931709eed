"""The tables the bot hosts, one room per concern; :class:`Tables` is the face the front ends use.

==================  =============================================================================
``people``          people and chats as the front ends ask about them: names, languages, reachability
``house``           what every room shares: the registry of live tables, the database, settings,
                    publisher, outbox, supervised tasks, AI workers; :class:`TableError`
``hand_messages``   private hand messages: whose they are, their frozen form, scheduling them
``showing``         the group's table message, and bringing every message up to date
``seats``           away and back, escapes, a table with nobody left (pause, resume)
``play``            check, store, apply an action; a hand that ends is settled, the next dealt
``nudges``          "your turn" as a new private message (an edit does not notify)
``shown``           who is to move, and when they were shown it: the thinking line, cards not yet sent
``turns``           after every change: deadlines, reminders, timeouts, AI seats, nudges, pauses
``watch``           the heartbeat's look: what should move a table is there; stuck tables
``lobby``           opening a table, seats, AI seats, settings, start and stop
``admission``       a new match only while Telegram's limit has room; the waiting tables start in turn
``groups``          the group itself: the bot removed from it (its table closes), a supergroup upgrade
``startup``         bringing the live tables back from storage at start-up
``replays``         finished hands rebuilt from the log, for the people who played them
``perform``         one request of a seated person (:mod:`~bot.tables.requests`), from either front end
``service``         :class:`Tables`: the calls the keyboard and the Mini App make
==================  =============================================================================

Each room imports only the rooms above it in this list (the house first),
so no two files import each other.  The rooms reach storage through
``storage`` and the engine through its public modules.
"""

from bot.tables.hand_messages import slot_key
from bot.tables.house import FAR_BEHIND, TableError
from bot.tables.nudges import AT_THE_TABLE
from bot.tables.people import People
from bot.tables.perform import MOVES
from bot.tables.replays import Replay
from bot.tables.requests import (
    Choose,
    Clear,
    ComeBack,
    Done,
    Front,
    Hint,
    Move,
    MoveKind,
    NextHand,
    OneTap,
    Outcome,
    Peek,
    Person,
    Refused,
    Request,
    Select,
)
from bot.tables.seats import confirmed_escape, escape_cost, escape_question, nobody_left, present
from bot.tables.service import Tables
from storage import StorageError, StorageFault

__all__ = ["AT_THE_TABLE", "FAR_BEHIND", "MOVES", "Choose", "Clear", "ComeBack", "Done", "Front", "Hint",
           "Move", "MoveKind", "NextHand", "OneTap", "Outcome", "Peek", "People", "Person", "Refused",
           "Replay", "Request", "Select", "StorageError", "StorageFault", "TableError", "Tables",
           "confirmed_escape", "escape_cost", "escape_question", "nobody_left", "present", "slot_key"]
# StorageError and StorageFault: what the front ends catch of storage, given them here so that neither imports it.
