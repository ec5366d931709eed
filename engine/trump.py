"""Trump context: which cards are trump, each card's suit-group and strength.

A :class:`TrumpContext` is fixed for a hand once its level rank and trump are
known.  It answers, for every card (RULES.md §2.4 and §2.7):

* ``group(card)``: ``"T"`` for trumps, else the plain suit letter;
* ``order(card)``: strength within the group; equal numbers are equal cards
  (the first played of equals ranks higher);
* ``positions(card)``: the places a pair of this card may take in a tractor;
  pairs whose positions are consecutive form a tractor, and a tractor is
  compared by the position of its top pair (level cards at face value, the
  ace as 1 in AA22).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from engine.cards import ACE, ALL_CARDS, BIG_JOKER, RED_FIVE, SMALL_JOKER, SUITS, Card, rank_value
from engine.errors import EngineError
from engine.ruleset import Ruleset

TRUMP = "T"
"""The suit-group name of trumps."""

# Orders above any rank (2…14) for the special trumps.
_OFF_LEVEL = 20
_TRUMP_LEVEL = 21
_SMALL_JOKER = 22
_JOKER_HIGH = 23
_JOKER_TOP = 24


class TrumpContext:
    """Suit-groups, strengths and tractor positions for one hand's trump.

    Build one with :func:`trump_context`, which caches them.
    """

    __slots__ = ("ruleset", "level", "trump", "_group", "_order", "_positions", "group", "order", "positions")

    ruleset: Ruleset
    level: int | None
    """The level rank L (2…14), or None in the flag hand."""
    trump: str | None
    """The trump suit, or None for no-trump."""
    group: Callable[[Card], str]
    """``"T"`` if the card is a trump, else its suit."""
    order: Callable[[Card], int]
    """Strength of the card within its suit-group (higher is stronger)."""
    positions: Callable[[Card], tuple[int, ...]]
    """Tractor positions a pair of this card may take (empty: never in a tractor)."""

    def __init__(self, ruleset: Ruleset, level: int | None, trump: str | None) -> None:
        if level is not None and not 2 <= level <= ACE:
            raise EngineError(f"Level {level!r} is not a rank from 2 to A.")
        if trump is not None and trump not in SUITS:
            raise EngineError(f"Trump {trump!r} is not one of S H D C (or None for no-trump).")
        if level is None and trump is not None:
            raise EngineError("The flag hand (no level rank) is always played in no-trump.")
        self.ruleset = ruleset
        self.level = level
        self.trump = trump
        self._group: dict[Card, str] = {}
        self._order: dict[Card, int] = {}
        self._positions: dict[Card, tuple[int, ...]] = {}
        self._build()
        # The three queries are the tables' own lookups: called millions of times a search, a Python
        # method's frame around each would cost more than the lookup itself.
        self.group = self._group.__getitem__
        self.order = self._order.__getitem__
        self.positions = self._positions.__getitem__

    def __repr__(self) -> str:
        return f"TrumpContext({self.ruleset.name!r}, level={self.level!r}, trump={self.trump!r})"

    def __reduce__(self) -> tuple[Callable[[Ruleset, int | None, str | None], TrumpContext],
                                  tuple[Ruleset, int | None, str | None]]:
        # A copy, a deep copy or an unpickled context is the cached one (the caches keyed by a context's
        # identity stay shared, as they were when a Hand worked its context out at every call).
        return (trump_context, (self.ruleset, self.level, self.trump))

    # --- queries -----------------------------------------------------------
    def is_trump(self, card: Card) -> bool:
        """True if the card is a trump in this hand."""
        return self._group[card] == TRUMP

    def is_red_five(self, card: Card) -> bool:
        """True if the card is the red five (R5) of this ruleset."""
        return card is RED_FIVE and self.ruleset.red5_trump

    def sort_key(self, card: Card) -> tuple[int, int, int]:
        """Display order: trumps first (strongest first), then suits ♠♥♣♦, high to low."""
        group = self._group[card]
        group_index = 0 if group == TRUMP else 1 + ("S", "H", "C", "D").index(group)
        suit_index = 9 if card.suit is None else SUITS.index(card.suit)
        return (group_index, -self._order[card], suit_index)

    # --- construction -------------------------------------------------------
    def _build(self) -> None:
        r = self.ruleset
        level, trump = self.level, self.trump
        red5 = r.red5_trump
        for card in ALL_CARDS:
            if card.is_joker:
                self._group[card] = TRUMP
            elif red5 and card is RED_FIVE:
                self._group[card] = TRUMP
            elif level is not None and card.rank == level:
                self._group[card] = TRUMP
            elif card.suit == trump:
                self._group[card] = TRUMP
            else:
                assert card.suit is not None
                self._group[card] = card.suit
            self._order[card] = self._order_of(card)
            self._positions[card] = ()

        # Top of the trump order: R5 and the jokers.
        if r.red5_above_big_joker:
            self._order[Card(BIG_JOKER)] = _JOKER_HIGH
            self._order[RED_FIVE] = _JOKER_TOP if red5 else self._order[RED_FIVE]
        else:
            self._order[Card(BIG_JOKER)] = _JOKER_TOP
            if red5:
                self._order[RED_FIVE] = _JOKER_HIGH
        self._order[Card(SMALL_JOKER)] = _SMALL_JOKER

        for suit in SUITS:
            if suit != trump:
                self._run(suit, skip=r.tractor_skip_level, level_in_run=False)
        top = 0
        if trump is not None:
            top = self._run(trump, skip=r.tractor_skip_level_in_trump, level_in_run=r.level_pair_in_trump_tractor)
        sj, bj = Card(SMALL_JOKER), Card(BIG_JOKER)
        if r.top_chain and level is not None:
            # T-top → off-suit L → trump-suit L → SJ → BJ; in no-trump, L → SJ → BJ.
            trump_level_step = 0 if trump is None else 1
            for suit in SUITS:
                card = Card(level, suit)
                if card is RED_FIVE and red5:
                    continue
                place = top + 1 + (trump_level_step if suit == trump else 0)
                self._positions[card] = self._positions[card] + (place,)
            self._positions[sj] = (top + 2 + trump_level_step,)
            self._positions[bj] = (top + 3 + trump_level_step,)
        else:
            self._positions[sj] = (top + 10,)
            self._positions[bj] = (top + 11,) if r.joker_tractor else (top + 20,)

    def _order_of(self, card: Card) -> int:
        if card.is_joker:
            return 0  # set afterwards
        if self.ruleset.red5_trump and card is RED_FIVE:
            return 0  # set afterwards
        if self.level is not None and card.rank == self.level:
            if self.trump is not None and card.suit == self.trump:
                return _TRUMP_LEVEL
            return _OFF_LEVEL
        return card.rank

    def _run(self, suit: str, *, skip: bool, level_in_run: bool) -> int:
        """Assign tractor positions along one suit; return the top position used."""
        level = self.level
        red5_suit = self.ruleset.red5_trump and suit == RED_FIVE.suit
        ace_low = self.ruleset.ace_low_tractor and not (level == ACE and not level_in_run)
        pos = 0
        top = 0
        ranks = ([1] if ace_low else []) + list(range(2, ACE + 1))
        for rank in ranks:
            real = ACE if rank == 1 else rank
            missing = (real == level and not level_in_run) or (red5_suit and real == 5)
            if missing:
                if not skip:
                    pos += 1
                continue
            pos += 1
            card = Card(real, suit)
            self._positions[card] = self._positions[card] + (pos,)
            top = pos
        return top


@lru_cache(maxsize=512)
def trump_context(ruleset: Ruleset, level: int | None, trump: str | None) -> TrumpContext:
    """The (cached) trump context for a ruleset, level rank and trump suit."""
    return TrumpContext(ruleset, level, trump)


def parse_level(level: str | int | None) -> int | None:
    """Accept a level as a rank string (``"10"``, ``"A"``), an ordinal, or None."""
    if level is None or isinstance(level, int):
        return level
    return rank_value(level)


def parse_trump(trump: str | None) -> str | None:
    """Accept a trump suit letter or symbol; None (or ``"NT"``) means no-trump."""
    if trump is None:
        return None
    text = trump.strip().upper()
    if text in ("NT", "", "NONE"):
        return None
    symbols = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
    text = symbols.get(text, text)
    if text not in SUITS:
        raise EngineError(f"Trump {trump!r} is not one of S H D C or NT.")
    return text
