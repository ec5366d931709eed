"""Cards, their notation, the two-deck set of 108 cards and a seeded deal.

Notation (RULES.md, binding decision 2): rank then suit, ranks ``2 3 4 5 6 7 8
9 10 J Q K A``, suits ``S H D C``; the jokers are ``BJ`` (大王) and ``SJ`` (小王).
The suit symbols ``♠♥♦♣`` are accepted on input.  Tokens are separated by
white space (commas are tolerated).  Printing and parsing round-trip::

    >>> format_cards(parse_cards("10H QS BJ ♠5"))
    '10H QS BJ 5S'
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache
from typing import ClassVar, Final

from engine.errors import NotationError

SUITS: Final = ("S", "H", "D", "C")
"""The four suits, in the order ♠ ♥ ♦ ♣."""

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
"""Suit letter to its symbol."""

RANK_NAMES: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""Rank names from 2 to A."""

ACE: Final = 14
SMALL_JOKER: Final = 15
BIG_JOKER: Final = 16

_RANK_OF_NAME: Final = {name: i for i, name in enumerate(RANK_NAMES, start=2)}
_SYMBOL_TO_SUIT: Final = {v: k for k, v in SUIT_SYMBOLS.items()} | {
    "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}


def rank_value(name: str) -> int:
    """The ordinal (2…14) of a rank name such as ``"10"`` or ``"A"``.

    Raises :class:`NotationError` for anything else.
    """
    try:
        return _RANK_OF_NAME[name.upper()]
    except KeyError:
        raise NotationError(f"{name!r} is not a rank; ranks are {' '.join(RANK_NAMES)}.") from None


def rank_name(value: int) -> str:
    """The name of a rank ordinal (2…14)."""
    return RANK_NAMES[value - 2]


class Card:
    """One card: a rank and a suit, or a joker.

    Cards are interned: ``Card(5, "H") is Card(5, "H")``, so identity,
    equality and hashing are cheap.  The two physical copies of a card in the
    two decks are the same value.
    """

    __slots__ = ("rank", "suit", "_text", "points", "_key")
    _interned: ClassVar[dict[tuple[int, str | None], Card]] = {}

    _text: str
    _key: int
    rank: int
    """2…14 for ordinary cards (14 is the ace), 15 for ``SJ``, 16 for ``BJ``."""
    suit: str | None
    """``"S" "H" "D" "C"``, or ``None`` for a joker."""
    points: int
    """Point value: 5 for a five, 10 for a ten or a king, else 0."""

    def __new__(cls, rank: int, suit: str | None = None) -> Card:
        key = (rank, suit)
        card = cls._interned.get(key)
        if card is not None:
            return card
        if rank in (SMALL_JOKER, BIG_JOKER):
            if suit is not None:
                raise NotationError("A joker has no suit.")
            text = "SJ" if rank == SMALL_JOKER else "BJ"
        elif 2 <= rank <= ACE and suit in SUITS:
            text = rank_name(rank) + suit
        else:
            raise NotationError(f"There is no card with rank {rank!r} and suit {suit!r}.")
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "_text", text)
        object.__setattr__(card, "points", 5 if rank == 5 else 10 if rank in (10, 13) else 0)
        object.__setattr__(card, "_key", _sort_key(rank, suit))
        cls._interned[key] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable.")

    def __reduce__(self) -> tuple[type[Card], tuple[int, str | None]]:
        return (Card, (self.rank, self.suit))

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse one token such as ``"10H"``, ``"♠A"``, ``"qs"``, ``"BJ"``."""
        text = token.strip()
        upper = text.upper()
        if upper in ("BJ", "SJ"):
            return cls(BIG_JOKER if upper == "BJ" else SMALL_JOKER)
        if len(text) >= 2:
            if text[0] in _SYMBOL_TO_SUIT:  # symbol first: ♠A
                suit, rank = _SYMBOL_TO_SUIT[text[0]], text[1:]
            elif text[-1] in _SYMBOL_TO_SUIT:  # symbol last: A♠
                suit, rank = _SYMBOL_TO_SUIT[text[-1]], text[:-1]
            else:
                suit, rank = upper[-1], upper[:-1]
            if suit in SUITS and rank.upper() in _RANK_OF_NAME:
                return cls(_RANK_OF_NAME[rank.upper()], suit)
        raise NotationError(
            f"{token!r} is not a card; write rank then suit like 10H, QS, 5♥, or BJ / SJ for the jokers."
        )

    @property
    def is_joker(self) -> bool:
        """True for ``BJ`` and ``SJ``."""
        return self.suit is None

    @property
    def sort_key(self) -> int:
        """A stable key that orders cards by suit, then rank (jokers last)."""
        return self._key

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __lt__(self, other: Card) -> bool:
        return self._key < other._key

    # Defining __lt__ gives the class Python's slow comparison slot for == too: the inherited __eq__ answers
    # NotImplemented for two different cards, and Python asks again the other way round, before it falls back
    # on identity.  Answered here at once (the same answer), `card in hand`, `hand.count(card)` and
    # `hand.remove(card)` cost half as much; anything but a card is still left to decide.  The hash stays
    # object's own, in C (a hash written in Python would cost every dict and set of cards).
    def __eq__(self, other: object) -> bool:
        return self is other if isinstance(other, Card) else NotImplemented

    __hash__ = object.__hash__


def _sort_key(rank: int, suit: str | None) -> int:
    return (4 if suit is None else SUITS.index(suit)) * 20 + rank


ALL_CARDS: Final[tuple[Card, ...]] = tuple(
    [Card(r, s) for s in SUITS for r in range(2, ACE + 1)] + [Card(SMALL_JOKER), Card(BIG_JOKER)]
)
"""The 54 distinct cards of one deck."""

DECK: Final[tuple[Card, ...]] = ALL_CARDS + ALL_CARDS
"""The 108 cards of two decks, every card exactly twice."""

TOTAL_POINTS: Final = sum(c.points for c in DECK)
"""Point total of the two decks (200)."""

RED_FIVE: Final = Card(5, "H")
"""♥5, the red five (R5) of the red-five family."""


def parse_cards(text: str) -> list[Card]:
    """Parse space- (or comma-) separated card tokens into a list of cards."""
    return [Card.parse(tok) for tok in text.replace(",", " ").split()]


def format_cards(cards: Iterable[Card]) -> str:
    """Format cards in the notation that :func:`parse_cards` reads back."""
    return " ".join(str(c) for c in cards)


def card_points(cards: Iterable[Card]) -> int:
    """Total point value of some cards."""
    return sum(c.points for c in cards)


def shuffled_deck(seed: int) -> list[Card]:
    """The 108 cards in an order that is a pure function of ``seed``."""
    return list(_shuffled(seed))


@lru_cache(maxsize=64)
def _shuffled(seed: int) -> tuple[Card, ...]:
    """:func:`shuffled_deck`, kept for the seeds dealt again and again (the AI's sampled worlds all start from seed 0)."""
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def deal(seed: int, kitty_size: int = 8) -> tuple[list[list[Card]], list[Card]]:
    """Deal four hands and a kitty from a seeded shuffle.

    With the default kitty of 8 each hand has 25 cards; with ``kitty_size=0``
    (the flag hand) each has 27.  The result is a pure function of the seed.
    """
    if kitty_size not in (0, 8):
        raise ValueError("The kitty holds 8 cards, or none in the flag hand.")
    deck = _shuffled(seed)
    per_hand = (len(deck) - kitty_size) // 4
    hands = [list(deck[i * per_hand:(i + 1) * per_hand]) for i in range(4)]
    return hands, list(deck[4 * per_hand:])
