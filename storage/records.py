"""The rows the storage layer hands out: frozen dataclasses, one per concern.

JSON columns come back as plain dicts; storage never looks inside an event's
payload, a ruleset or a snapshot, which belong to the engine.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Literal

TableStatus = Literal["open", "playing", "finished", "stopped"]
"""A table is *active* while ``open`` (seating players) or ``playing``."""
MatchStatus = Literal["playing", "finished", "abandoned"]
HandStatus = Literal["active", "finished", "aborted"]
Outcome = Literal["won", "lost"]
"""What a hand was for the person in a seat; none (``None``) when it counts for nobody there."""

ACTIVE_TABLE_STATUSES: tuple[TableStatus, ...] = ("open", "playing")
"""The statuses of which a chat may hold only one table at a time."""



def to_json(value: dict[str, Any]) -> str:
    """Encode a JSON column; NaN and infinities are refused as SQLite's json_valid would."""
    if not isinstance(value, dict):
        raise TypeError(f"expected a dict for a JSON column, got {type(value).__name__}")
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def from_json(text: str) -> dict[str, Any]:
    """Decode a JSON column written by :func:`to_json`."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("a JSON column holds an object")
    return value


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A Telegram user the bot has met."""

    user_id: int
    display_name: str
    language: str | None
    can_message_privately: bool
    """They opened the bot's private chat, so it can send them their hand."""
    blocked: bool
    """A private message came back 403: they blocked the bot."""
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> UserRecord:
        """Build from a ``users`` row."""
        return cls(
            row["user_id"], row["display_name"], row["language"],
            bool(row["can_message_privately"]), bool(row["blocked"]),
            row["created_at"], row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A group chat: its language (``None``: the bot's default), default preset and settings."""

    chat_id: int
    title: str
    language: str | None
    default_preset: str
    settings: dict[str, Any]
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ChatRecord:
        """Build from a ``chats`` row."""
        return cls(
            row["chat_id"], row["title"], row["language"], row["default_preset"],
            from_json(row["settings"]), row["created_at"], row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table in a group chat and the messages that show it."""

    table_id: int
    chat_id: int
    status: TableStatus
    creator_id: int | None
    settings: dict[str, Any]
    turn_deadline: float | None
    """Unix time at which the player to act times out; ``None``: no timer."""
    message_id: int | None
    """The group message that shows the table."""
    thread_id: int | None
    """The forum topic the table lives in, if any."""
    created_at: float
    updated_at: float

    @property
    def active(self) -> bool:
        """Open or playing."""
        return self.status in ACTIVE_TABLE_STATUSES

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> TableRecord:
        """Build from a ``tables`` row."""
        return cls(
            row["table_id"], row["chat_id"], row["status"], row["creator_id"],
            from_json(row["settings"]), row["turn_deadline"], row["message_id"],
            row["thread_id"], row["created_at"], row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One of a table's four seats.

    ``user_id is None`` and ``is_ai``: an AI seat.  A ``user_id`` and
    ``is_ai``: the AI plays for that absent player.
    """

    table_id: int
    seat: int
    user_id: int | None
    is_ai: bool
    hand_message_id: int | None
    """The player's private message showing their hand."""
    nudge_message_id: int | None
    """The private "your turn" message, deleted once they act."""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SeatRecord:
        """Build from a ``seats`` row."""
        return cls(
            row["table_id"], row["seat"], row["user_id"], bool(row["is_ai"]),
            row["hand_message_id"], row["nudge_message_id"],
        )


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match at a table: the two sides climbing the levels 2…A, lap by lap."""

    match_id: int
    table_id: int
    preset: str
    ruleset: dict[str, Any]
    levels: tuple[int, int]
    """Level of side 0 and side 1 as rank ordinals: 2…10, J=11, Q=12, K=13, A=14."""
    laps: tuple[int, int]
    """The lap side 0 and side 1 are on, from 1 (the engine's ``SideLevel.lap``; 0 in a row that never had one)."""
    status: MatchStatus
    winner_side: int | None
    extra: dict[str, Any]
    """Whatever else the engine keeps per match (opaque to storage)."""
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> MatchRecord:
        """Build from a ``matches`` row."""
        return cls(
            row["match_id"], row["table_id"], row["preset"], from_json(row["ruleset"]),
            (row["level0"], row["level1"]), (row["laps0"], row["laps1"]), row["status"],
            row["winner_side"], from_json(row["extra"]), row["created_at"], row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One deal: what the engine needs to deal it again, before replaying its log."""

    hand_id: int
    match_id: int
    number: int
    """1 for a match's first hand."""
    seed: int = field(repr=False)
    """Deals every card: out of repr so that logging a record leaks no hand."""
    ruleset: dict[str, Any]
    status: HandStatus
    dealer_seat: int | None
    """``None`` until the first hand's bidding picks the dealer."""
    context: dict[str, Any]
    """The engine's other inputs to the deal (levels, lap, flag hand…), opaque to storage."""
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> HandRecord:
        """Build from a ``hands`` row."""
        return cls(
            row["hand_id"], row["match_id"], row["number"], row["seed"],
            from_json(row["ruleset"]), row["status"], row["dealer_seat"],
            from_json(row["context"]), row["created_at"], row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One entry of a hand's append-only log; ``seq`` runs 1, 2, 3… per hand."""

    hand_id: int
    seq: int
    kind: str
    # Out of repr: a payload may name cards, and a logged record must not.
    payload: dict[str, Any] = field(repr=False)
    created_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> StoredEvent:
        """Build from an ``events`` row."""
        return cls(row["hand_id"], row["seq"], row["kind"], from_json(row["payload"]), row["created_at"])


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A cached state of a hand after event ``seq``, in the engine's format ``version``."""

    hand_id: int
    seq: int
    version: int
    state: dict[str, Any] = field(repr=False)
    """The engine's serialised state, hidden cards included: never log it."""
    created_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Snapshot:
        """Build from a ``snapshots`` row."""
        return cls(row["hand_id"], row["seq"], row["version"], from_json(row["state"]), row["created_at"])


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's line of a hand result: who sat there and the 积分 they got."""

    seat: int
    user_id: int | None
    is_ai: bool
    score: int
    outcome: Outcome | None = None
    """Won or lost for the person who played the seat to the hand's end; None: it counts for nobody."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand was scored: p, the sides, level changes and each seat's 积分."""

    hand_id: int
    attacker_points: int
    """p, the attackers' signed score."""
    dealer_side: int
    winner_side: int
    level_changes: tuple[int, int]
    """Signed level change of side 0 and side 1."""
    seats: tuple[SeatResult, ...]
    special: dict[str, Any]
    """Special scoring (上天入地, escapes, red-five bonuses…), opaque to storage."""
    created_at: float


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """A player's league line in one chat.

    "As dealer" counts the hands their side was the dealer side (庄家), "as
    attacker" the others; ``hands == dealer_hands + attacker_hands``.
    """

    user_id: int
    display_name: str
    hands: int
    hands_won: int
    jifen: int
    """Total 积分."""
    dealer_hands: int
    dealer_won: int
    dealer_jifen: int
    attacker_hands: int
    attacker_won: int
    attacker_jifen: int


@dataclass(frozen=True, slots=True)
class PartnershipStanding:
    """A pair of partners' league line in one chat; ``user_ids`` is sorted.

    ``jifen`` is the sum of both partners' 积分 over the hands they played
    together (each partner usually gets the side's 积分, so it is twice that).
    """

    user_ids: tuple[int, int]
    display_names: tuple[str, str]
    hands: int
    hands_won: int
    jifen: int
    dealer_hands: int
    dealer_won: int
    dealer_jifen: int
    attacker_hands: int
    attacker_won: int
    attacker_jifen: int


@dataclass(frozen=True, slots=True)
class ActiveTable:
    """Everything start-up needs to bring one open or playing table back."""

    table: TableRecord
    seats: tuple[SeatRecord, ...] = ()
    match: MatchRecord | None = None
    """The playing match, if the table has started one."""
    hand: HandRecord | None = None
    """The match's active hand, if one is being played."""
    events: tuple[StoredEvent, ...] = field(default=())
    """The active hand's log, in order."""
    snapshot: Snapshot | None = None
    """The active hand's cached state, if one was saved (the log is the truth)."""
