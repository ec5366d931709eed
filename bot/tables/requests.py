"""What a person asks of their seat, and what the service answers: the types of :func:`Tables.perform`.

A front end parses what it received (a button's callback data, a Mini App
request's JSON) into one of the requests below and renders the outcome in
its own words; everything between (the lock, the seat, staleness, the
come-back rule, the move, what follows a change) is the service's, once
(:mod:`bot.tables.perform`).

==============  ============================================================================
``Move``        a bid, pass, bury, steal, "don't steal" or play of the named cards
``OneTap``      one of the plays the keyboard offers as a single button (worked out again)
``Select``      tap one copy of a card on the keyboard (ticked, or unticked)
``Clear``       nothing selected
``Hint``        the cards the casual player would choose (selected, or only told)
``ComeBack``    「我回来了」: someone away plays their seat again
``Peek``        🃏 in the group: one's own cards (no change)
``NextHand``    「下一局」: end the pause between hands
==============  ============================================================================

The outcome is :class:`Done` (with the engine's notices, the hint's cards),
:class:`Choose` (the trump a bid must name), or :class:`Refused` with a
code, and with what the front end needs to say why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from bot.i18n import Translator
from bot.messages import closed_text, refusal, storage_refusal
from bot.tables.house import TableError
from engine.cards import Card
from engine.errors import EngineError
from engine.notices import Notice
from engine.ruleset import Ruleset
from storage import StorageError, StorageFault

MoveKind = Literal["bid", "pass", "bury", "steal", "pass_steal", "play"]
"""A player's move, as the keyboard and the web app name it."""

Front = Literal["keyboard", "app"]
"""Where a request came from: the private keyboard, or the Mini App."""


@dataclass(frozen=True, slots=True)
class Person:
    """Who asks, and through which front end (a keyboard press carries the message it was pressed on)."""

    user_id: int
    front: Front
    message_id: int | None = None
    """The private message whose button was pressed (the keyboard only): the seat's hand message if it has
    none yet."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move with the named cards; ``version`` is the seat's version its button or page was drawn at."""

    kind: MoveKind
    cards: tuple[Card, ...] | None
    """The cards; None: the ones selected on the keyboard (:class:`bot.presses.Presses`)."""
    version: str
    trump: str | None = None
    """The trump a bid or steal names: a suit (``S H D C``), ``NT``, or None when the cards name it (else
    the outcome is :class:`Choose`)."""
    button: str = ""
    """The button pressed, to tell a repeated press of it (``"already"``) from a new one."""


@dataclass(frozen=True, slots=True)
class OneTap:
    """Play the ``index``-th of the plays the keyboard offers as one button (:func:`one_tap_plays`)."""

    index: int
    version: str


@dataclass(frozen=True, slots=True)
class Select:
    """Tap copy ``copy`` (0 or 1) of ``card`` on the keyboard drawn at hand version ``version``."""

    card: Card
    copy: int
    version: str


@dataclass(frozen=True, slots=True)
class Clear:
    """Nothing selected."""

    version: str


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested cards: selected on the keyboard (``select``), or only told (the Mini App selects on the
    page).  ``version`` None: for the hand as it is now."""

    version: str | None
    select: bool


@dataclass(frozen=True, slots=True)
class ComeBack:
    """「我回来了」: an away person plays their seat again (any other request of theirs does it too)."""


@dataclass(frozen=True, slots=True)
class Peek:
    """🃏 in the group: the person's own cards, read as the seat stands once the table is free (a seat may
    change hands meanwhile); the front end reads them right after :class:`Done`, with no wait between."""


@dataclass(frozen=True, slots=True)
class NextHand:
    """「下一局」 in the group: the next hand now; ``deal`` is the deal number its button was drawn at."""

    deal: str


Request = Move | OneTap | Select | Clear | Hint | ComeBack | Peek | NextHand

SELECTING = (Select, Clear, Hint)
"""Requests that only change the selection: they need the hand, not the question, unchanged."""


# --- outcomes ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Done:
    """The request was carried out; ``back``: the person was away and plays their seat again."""

    notices: tuple[Notice, ...] = ()
    """What the move told everyone (a failed throw among them)."""
    cards: tuple[Card, ...] = ()
    """The hint's cards."""
    back: bool = False


@dataclass(frozen=True, slots=True)
class Choose:
    """A bid or steal whose cards let the bidder choose the trump: one of ``trumps`` (``NT`` among them for
    a red-five pair)."""

    trumps: tuple[str, ...]
    back: bool = False


RefusalCode = Literal[
    "busy",           # the table stayed locked longer than a press may wait
    "not_seated",     # the person holds no seat at this table (or no longer)
    "no_hand",        # no hand is being played
    "stale",          # drawn before the question changed (``window``: a bidding or steal turn closed since)
    "already",        # the press that made the last move, again
    "invalid",        # a button this keyboard never draws
    "select_first",   # a move with no card selected
    "lost",           # a move with no card selected, whose selection a restart lost
    "no_hint",        # nothing to suggest now
    "present",        # 「我回来了」 from someone who was not away
    "engine",         # the engine refused the move (``error``)
    "table",          # the service refused (``table_error``)
    "storage",        # the write failed (``storage``)
]


@dataclass(frozen=True, slots=True)
class Refused:
    """Nothing changed (apart from bringing an away person back: ``back``); ``code`` says why."""

    code: RefusalCode
    back: bool = False
    window: str | None = None
    """``stale``: ``"bidding"`` or ``"stealing"`` when the window the press was for has closed."""
    error: EngineError | None = None
    """``engine``: the engine's refusal, with its code and parameters."""
    table_error: TableError | None = None
    """``table``: the service's refusal (a :class:`~bot.tables.house.TableError`)."""
    storage: StorageError | None = None
    """``storage``: the write that failed (its kind says what to tell)."""
    move: bool = True
    """``storage``: whether a move failed to be saved (else a come-back)."""

    def text(self, tr: Translator, ruleset: Ruleset | None = None) -> str:
        """Why, in the reader's language (``ruleset``: a refused bid names the bids the table's preset has)."""
        if self.code == "stale":
            closed = closed_text(tr, self.window)  # a late bid is told the bidding closed, back or not
            if self.back and closed:
                return f"{closed} {tr('You are back: you play your seat again.')}"
            if self.back:
                return tr("You are back: you play your seat again. Your hand is shown again.")
            return closed or tr("That button is out of date; your hand is shown again.")
        if self.code == "engine" and self.error is not None:
            return refusal(tr, self.error, ruleset)
        if self.code == "table" and self.table_error is not None:
            return self.table_error.text(tr)
        if self.code == "storage" and isinstance(self.storage, StorageFault):
            return storage_refusal(tr, self.storage)
        if self.code == "storage":
            return tr("I could not save your move; nothing changed. Please try again.") if self.move \
                else tr("I could not save that; nothing changed. Please try again.")
        return tr(REFUSALS.get(self.code, "That button is not valid."))


REFUSALS: Final[dict[str, str]] = {
    "busy": "The table is busy; please try again in a moment.",
    "not_seated": "You are not playing at this table.",
    "no_hand": "No hand is being played at this table.",
    "already": "You have already done that.",
    "invalid": "That button is not valid.",
    "select_first": "Select the cards first.",
    "lost": "I restarted and your selection was lost; your hand is shown again: select the cards again.",
    "no_hint": "Nothing to suggest now.",
    "present": "You are playing this seat already.",
}
"""The message ids of the refusals that need no more than their code."""


Outcome = Done | Choose | Refused
