"""Drawing a sampled deal (:func:`engine.ai.search.sample_world`): the order its cards are placed in, and the place
each card goes to, as the sampler first wrote them with ``sorted`` and ``random.choices``, without a call a card."""

from __future__ import annotations

import random
from bisect import bisect
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate

from engine.cards import Card


def dealing_order(cards: Sequence[Card], musts: Sequence[tuple[Counter[Card], list[int]]],
                  void_seats: dict[Card, int]) -> list[Card]:
    """The cards in the order a sampled deal places them, most constrained first: those bound to seats
    (``musts``), then by how many other seats are void in the card's group, most first, ties in the order given.

    ``sorted(cards, key=lambda c: (any(m[c] > 0 for m, _s in musts), void_seats[c]), reverse=True)``
    (a stable sort keeps ties in order, reversed or not), without a call of a key a card.
    """
    voids_of = void_seats.__getitem__
    if not musts:
        return sorted(cards, key=voids_of, reverse=True)
    held = {c for m, _s in musts for c, n in m.items() if n > 0}
    return sorted([c for c in cards if c in held], key=voids_of, reverse=True) + \
        sorted([c for c in cards if c not in held], key=voids_of, reverse=True)


def weighted_pick(rng: random.Random, population: Sequence[int], weights: Sequence[float]) -> int:
    """``rng.choices(population, weights)[0]`` for positive weights: the same pick from the same one draw,
    without the checks and the list around it (a sampled deal picks a place for each card)."""
    cum = list(accumulate(weights))
    return population[bisect(cum, rng.random() * (cum[-1] + 0.0), 0, len(cum) - 1)]
