"""Counting cards: the copies of each card among some, whether a hand holds some cards, a hand without them.

Cards are interned, so a card is found among others by identity: a loop
that asks ``is`` costs a third of ``card in cards``, ``cards.count(card)``
or ``cards.remove(card)``, which compare through ``Card.__eq__``, a Python
method, for every other card they pass.

Kept apart from :mod:`engine.cards` (whose ``Card`` stays Python) so that the optional compiled build
(``setup.py``) compiles them: the hand removes the cards of every play, the rules ask whether a lead's cards
are held, and the AI counts a hand at nearly every decision of its rollouts.
"""

from __future__ import annotations

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


def has(cards: Iterable[Card], card: Card) -> bool:
    """``card in cards``, found by identity."""
    for held in cards:
        if held is card:
            return True
    return False


def copies(cards: Iterable[Card], card: Card) -> int:
    """``cards.count(card)``, counted by identity."""
    n = 0
    for held in cards:
        if held is card:
            n += 1
    return n


def remove_cards(hand: Sequence[Card], cards: Iterable[Card]) -> list[Card]:
    """Return ``hand`` without ``cards`` (one copy each, the first found, as ``list.remove`` takes).

    Raises :class:`engine.errors.CardsNotHeldError` naming the missing cards.
    """
    rest = list(hand)
    missing: list[Card] = []
    for card in cards:
        for i, held in enumerate(rest):
            if held is card:
                del rest[i]
                break
        else:
            missing.append(card)
    if missing:
        raise CardsNotHeldError(format_cards(missing))
    return rest


def holds(hand: Iterable[Card], cards: Iterable[Card]) -> bool:
    """True if ``hand`` contains every one of ``cards`` (counting copies)."""
    asked = cards if isinstance(cards, (list, tuple)) else list(cards)
    if len(asked) == 1:
        return has(hand, asked[0])
    held = hand if isinstance(hand, (list, tuple)) else list(hand)
    return all(copies(held, card) >= n for card, n in tally(asked).items())
