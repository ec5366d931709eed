"""The bot's picture of a table: settings, seats, the engine match, selections.

A :class:`Table` lives in memory while the bot runs and is rebuilt from
storage at start-up (the event log is the truth).  Nothing here talks to
Telegram.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from bot.presses import Presses
from engine.cards import Card
from engine.match import Match
from engine.ruleset import RULESETS, Ruleset, get_ruleset
from engine.views import HandView, view_for

PaceName = Literal["realtime", "relaxed", "daily"]
TimeoutPolicy = Literal["ai", "escape"]
AiStrength = Literal["casual", "strong"]
Returns = Literal["next", "now"]
RETURNS: Final[tuple[Returns, ...]] = ("next", "now")
"""When someone who left mid-match takes their seat back from the AI: at the next hand (the others' hand
goes on as it is), or at once."""
AI_STRENGTHS: Final[tuple[AiStrength, ...]] = ("casual", "strong")
"""The AI's strengths a table may choose: 「轻松」 (today's heuristic player) and 「高手」 (search)."""


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds for a turn, for the bidding window, and before the deadline a reminder goes out."""

    turn: float
    bidding: float
    reminder: float


PACES: Final[dict[str, Pace]] = {
    "realtime": Pace(turn=60, bidding=45, reminder=20),
    "relaxed": Pace(turn=3600, bidding=3600, reminder=600),
    "daily": Pace(turn=86400, bidding=86400, reminder=3 * 3600),
}

THINKING: Final[dict[str, float]] = {"realtime": 15.0, "relaxed": 120.0, "daily": 1800.0}
"""Seconds of one player's turn after which the whole table is shown whose turn it is: the group's message
and every waiting player's message then name the player to move and the trick so far.  Before that, a
move changes only the mover's and the next mover's messages (and the group's once a trick): the table's
budget of Telegram calls."""

_PHASE_CODES: Final = {"bidding": "d", "burying": "u", "stealing": "s", "playing": "p",
                       "finished": "f", "redeal": "r", "abandoned": "a"}

HIDDEN_FIXED: Final = {"yancheng": True, "nantong": False, "anhui": True}
"""Presets whose seeds fix open or hidden bidding (暗炒 盐城 and 安徽, 明炒 南通)."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the table's creator may choose."""

    preset: str = "yancheng"
    hidden: bool | None = None
    """Hidden bidding where the preset lets the table choose; None keeps the preset's."""
    pace: PaceName = "realtime"
    on_timeout: TimeoutPolicy = "ai"
    ai_strength: AiStrength = "strong"
    """How well the AI seats (and the AI standing in after a timeout) play: 「高手」 strong for a new table.

    A table stored before the setting existed played the casual AI, and keeps it
    (see :meth:`from_dict`); 「轻松」 is one press away in the settings.
    """
    returns: Returns = "next"
    """When a person who left mid-match takes their seat back (:data:`RETURNS`)."""

    def ruleset(self) -> Ruleset:
        """The preset with the table's choices applied."""
        base = get_ruleset(self.preset)
        if self.hidden is None or self.preset in HIDDEN_FIXED or self.hidden == base.hidden_bidding:
            return base
        return base.replace(hidden_bidding=self.hidden)

    @property
    def hidden_bidding(self) -> bool:
        """Whether bids are hidden at this table."""
        return self.ruleset().hidden_bidding

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"preset": self.preset, "hidden": self.hidden, "pace": self.pace, "on_timeout": self.on_timeout,
                "ai_strength": self.ai_strength, "returns": self.returns}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSettings:
        """The inverse of :meth:`to_dict`, tolerant of missing keys."""
        preset = data.get("preset", "yancheng")
        if preset not in RULESETS:
            preset = "yancheng"
        pace = data.get("pace", "realtime")
        on_timeout = data.get("on_timeout", "ai")
        strength = data.get("ai_strength", "casual")  # missing: stored when every table played the casual AI
        returns = data.get("returns", "next")
        return cls(preset, data.get("hidden"), pace if pace in PACES else "realtime",
                   on_timeout if on_timeout in ("ai", "escape") else "ai",
                   strength if strength in AI_STRENGTHS else "casual", returns if returns in RETURNS else "next")


def hidden_choosable(preset: str) -> bool:
    """True if the table may choose open or hidden bidding for this preset."""
    return preset not in HIDDEN_FIXED


@dataclass(slots=True)
class Seat:
    """Who sits in a seat: a person (with their language) or the AI."""

    user_id: int | None
    name: str
    is_ai: bool = False
    lang: str = "zh"
    reachable: bool = True
    """False while the bot cannot message this person privately."""
    hand_message_id: int | None = None
    nudge_message_id: int | None = None
    timed_out: bool = False
    """The AI is playing for this person after a timeout (until they act again)."""
    last_active: float = 0.0
    """When this person last pressed a button at this table (unix time)."""


@dataclass(slots=True)
class Table:
    """A table in a group chat."""

    id: int
    chat_id: int
    creator_id: int
    lang: str
    title: str = ""
    status: str = "open"
    settings: TableSettings = field(default_factory=TableSettings)
    seats: list[Seat | None] = field(default_factory=lambda: [None, None, None, None])
    match: Match | None = None
    match_id: int | None = None
    hand_id: int | None = None
    message_id: int | None = None
    thread_id: int | None = None
    """The forum topic the table lives in (every group message of it goes there); None in a group
    without topics, or in a forum's General topic."""
    deadline: float | None = None
    turn_key: tuple[Any, ...] | None = None
    reminded: bool = False
    presses: Presses = field(default_factory=Presses)
    """Each seat's keyboard between presses: selection, ticked copies, the last press that acted
    (:class:`bot.presses.Presses`; only the tables service changes it)."""
    pending: dict[int, tuple[int | None, str]] = field(default_factory=dict)
    """People sent to the private chat to press Start before they can sit: seat wanted, name."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_result: Any = None
    between_hands: float | None = None
    """While the last hand's result is read: when the next hand starts (unix time), unless a
    seated player presses 「下一局」 first.  None while a hand is being played."""
    paused: bool = False
    """Nobody present is left at the table: no move is made until someone comes back."""
    muted: bool = False
    """The group does not let the bot write there (:mod:`bot.muting`): nothing moves by itself (no AI move, no
    clock runs out, no next hand is dealt) until it may write again."""
    topic_closed: bool = False
    """The table's forum topic is closed to the bot (:mod:`bot.topics`): paused as a muted table is."""
    progress: float = 0.0
    """When the table last moved on (unix time): an action stored, a match started, a hand shown.  The
    heartbeat calls a table stuck that should move and has not for a while."""
    left: dict[int, Seat] = field(default_factory=dict)
    """Seats whose person escaped this match (the AI plays them now), with that person: they may take the
    seat back (:attr:`coming_back`).  Kept in the match's stored extra, so a restart keeps it."""
    coming_back: set[int] = field(default_factory=set)
    """Seats of :attr:`left` whose person asked for them back: theirs again when the next hand starts."""
    turn_since: float = 0.0
    """When the turn (or the bidding window) the table waits for now began (unix time)."""
    clock: float = 0.0
    """Seconds the timed window (the bidding, a steal turn, a turn) had left when its clock was last read: at
    its start, at each bid, and at its reminder (the last stretch).  Every message shows this reading, never
    a live countdown, so a redraw between two readings reads the same and costs no edit."""
    steal_first: int | None = None
    """The seat a steal round asked first (set when the round begins): at the real-time pace the round's line
    names it and reads the same all round, so a pass costs no edit of every message."""
    pinned: int | None = None
    """The table message the bot pinned in the group (in memory: after a restart it is pinned again, once)."""
    pin_refused: bool = False
    """The group does not let the bot pin (not an admin with the right to pin): not asked again this run."""
    clock_bids: int = 0
    """How many bids the bidding had at the clock's last reading (a new bid reads it again)."""
    turn_shown: float = 0.0
    """When the player to move was shown their turn (unix time; 0 until the turn's timer saw it shown):
    their thinking is counted from then, never from a moment their message still waited in the bot's queue
    (:func:`bot.tables.turns.shown_at`)."""

    def window(self) -> float:
        """The whole time of the window the table waits in now: the bidding's, or a turn's."""
        assert self.match is not None
        pace = PACES[self.settings.pace]
        return pace.bidding if self.match.hand.phase == "bidding" else pace.turn

    def thinking(self, now: float) -> bool:
        """True once the player to move has been at it for a while (:data:`THINKING`), or was reminded:
        every message of the table then says whose turn it is."""
        return self.reminded or (self.turn_shown > 0 and now - self.turn_shown >= THINKING[self.settings.pace])

    def new_turn(self, key: tuple[Any, ...] | None, now: float) -> None:
        """A new turn (or window) begins: nobody has been thinking yet; a steal round that begins notes
        the seat it asks first (``key`` is :func:`bot.tables.turns.turn_key`'s)."""
        self.turn_since = now
        self.turn_shown = 0.0
        if key is not None and key[1] == "stealing" and (self.turn_key is None or self.turn_key[1] != "stealing"):
            self.steal_first = key[3]

    def read_clock(self, now: float) -> None:
        """Read the window's clock (whole seconds, rounded up): the figure every message shows until the
        next reading (:attr:`clock`)."""
        self.clock = float(max(0, math.ceil(self.deadline - now))) if self.deadline is not None else 0.0
        self.clock_bids = len(self.match.hand.bids) if self.match is not None else 0

    def seat_of(self, user_id: int) -> int | None:
        """The seat a person holds at this table, if any."""
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return index
        return None

    @property
    def full(self) -> bool:
        """True when all four seats are taken."""
        return all(seat is not None for seat in self.seats)

    @property
    def playing(self) -> bool:
        """True while a match is under way."""
        return self.status == "playing" and self.match is not None

    @property
    def silenced(self) -> bool:
        """True while the bot may not write where the table is (its group mutes it, or its topic is closed):
        nothing of it moves by itself (no AI move, no clock runs out, no next hand is dealt)."""
        return self.muted or self.topic_closed

    def view(self, seat: int | None) -> HandView:
        """The engine's view of the current hand for a seat (None: the group)."""
        assert self.match is not None
        return view_for(self.match.hand, seat)

    def version(self, seat: int) -> str:
        """A seat's keyboard version; changes whenever the question its buttons answer changes.

        Deal, hand size and phase, then the round of the question: in the
        bidding, the number of bids so far and whether this seat has passed
        since the last one (a pass counts only in the round it was made for);
        while the kitty may be stolen, the number of actions so far (each
        steal opens a new round).  ``deal.size.phase`` alone is the
        :meth:`hand_version`, enough for selecting cards.
        """
        if self.match is None:
            return "0"
        hand = self.match.hand
        base = self.hand_version(seat)
        if hand.phase == "bidding":
            return f"{base}.{len(hand.bids)}{'p' if seat in hand.passed else ''}"
        if hand.phase == "stealing":
            return f"{base}.{len(hand.events)}"
        return base

    def hand_version(self, seat: int) -> str:
        """Deal, hand size and phase: what a card button needs to still mean the same card."""
        if self.match is None:
            return "0"
        hand = self.match.hand
        return f"{self.match.deals}.{len(hand.hands[seat])}.{_PHASE_CODES[hand.phase]}"

    def stale(self, seat: int, version: str, *, selecting: bool) -> bool:
        """Whether a button carrying ``version`` is out of date (selecting cards needs only the hand's version)."""
        if selecting:
            return version.split(".")[:3] != self.hand_version(seat).split(".")
        return version != self.version(seat)

    def window_closed(self, seat: int, version: str, kind: str) -> str | None:
        """The timed window a stale bid or steal was pressed for, if it has closed since: ``"bidding"`` (the
        deal's bidding is over) or ``"stealing"`` (the steal round is over, or it no longer asks this seat).
        A late press is told "closed", not "out of date" (issue 55)."""
        if self.match is None:
            return None
        parts = version.split(".")
        if len(parts) < 3:
            return None
        hand = self.match.hand
        same_deal = parts[0] == str(self.match.deals)
        if kind in ("bid", "pass") and parts[2] == _PHASE_CODES["bidding"]:
            return "bidding" if not same_deal or hand.phase != "bidding" else None
        if kind in ("steal", "pass_steal") and parts[2] == _PHASE_CODES["stealing"]:
            return "stealing" if not same_deal or hand.phase != "stealing" or hand.turn != seat else None
        return None

    def selected(self, seat: int) -> Counter[Card]:
        """The cards a seat has selected on its keyboard (a copy: :attr:`presses` changes it)."""
        return self.presses.selected(seat)
