"""Counting cards: the copies of each card among some, whether a hand holds some cards, a hand without them.

Kept apart from :mod:`engine.cards` (whose ``Card`` stays Python) so that the optional compiled build
(``setup.py``) compiles them: the hand removes the cards of every play, the rules ask whether a lead's cards
are held, and the AI counts a hand at nearly every decision of its rollouts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from engine.cards import Card, format_cards
from engine.errors import CardsNotHeldError


def tally(cards: Iterable[Card]) -> dict[Card, int]:
    """The copies of each card among ``cards``, in the order first seen: a Counter's counts as a plain dict,
    cheaper to build (the AI counts a hand at nearly every decision of its rollouts); ask it only of cards it holds."""
    out: dict[Card, int] = {}
    get = out.get
    for card in cards:
        out[card] = get(card, 0) + 1
    return out


def remove_cards(hand: Sequence[Card], cards: Iterable[Card]) -> list[Card]:
    """Return ``hand`` without ``cards`` (one copy each).

    Raises :class:`engine.errors.CardsNotHeldError` naming the missing cards.
    """
    rest = list(hand)
    if isinstance(cards, tuple) and len(cards) == 1:  # a single played (most plays)
        try:
            rest.remove(cards[0])
        except ValueError:
            raise CardsNotHeldError(format_cards(cards)) from None
        return rest
    missing: list[Card] = []
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            missing.append(card)
    if missing:
        raise CardsNotHeldError(format_cards(missing))
    return rest


def holds(hand: Iterable[Card], cards: Iterable[Card]) -> bool:
    """True if ``hand`` contains every one of ``cards`` (counting copies)."""
    # list.count runs in C and cards compare by identity: cheaper than
    # counting the whole hand for the few cards asked about.
    held = hand if isinstance(hand, (list, tuple)) else list(hand)
    asked = cards if isinstance(cards, (list, tuple)) else list(cards)
    if len(asked) == 1:
        return asked[0] in held
    if len(asked) <= 4:  # a pair or a short tractor: counting each card asked beats building a Counter
        return all(held.count(c) >= asked.count(c) for c in asked)
    return all(held.count(c) >= n for c, n in Counter(asked).items())
