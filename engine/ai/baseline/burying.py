"""Choosing the 8 cards to bury (扣底).

Keep trumps, pairs, tractors and high cards; bury low plain cards, emptying
a short plain suit when that is cheap (a void lets the hand ruff); avoid
point cards, since a captured kitty counts its points two or more times
over; never bury a red five or a joker while anything else can go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from engine.cards import Card
from engine.combos import tractors_in
from engine.hand import KITTY_SIZE
from engine.trump import TRUMP, TrumpContext


def keep_value(ctx: TrumpContext, card: Card, counts: Counter[Card], in_tractor: set[Card]) -> float:
    """How much the hand loses by burying this card (higher: keep it)."""
    order = ctx.order(card)
    value = float(order)
    if ctx.group(card) == TRUMP:
        value += 40.0 + (100.0 if order >= 22 else 0.0)  # jokers and the red five above all
    elif card.rank == 14:
        value += 8.0
    if card.points:
        value += 6.0 + card.points
    if counts[card] >= 2:
        value += 10.0
        if card in in_tractor:
            value += 8.0
    return value


def choose_bury(ctx: TrumpContext, hand: Sequence[Card]) -> tuple[Card, ...]:
    """The 8 cards to bury from a 33-card hand, under the (known or guessed) trump."""
    counts = Counter(hand)
    pairs_by_group: dict[str, list[Card]] = {}
    for c, n in counts.items():
        if n >= 2:
            pairs_by_group.setdefault(ctx.group(c), []).append(c)
    # Tractor positions are numbered within a suit-group: look for tractors group by group.
    in_tractor = {c for pairs in pairs_by_group.values() for run, _top in tractors_in(ctx, pairs) for c in run}
    value = {c: keep_value(ctx, c, counts, in_tractor) for c in counts}
    by_suit: dict[str, list[Card]] = {}
    trumps: list[Card] = []
    for card in hand:
        group = ctx.group(card)
        if group == TRUMP:
            trumps.append(card)
        else:
            by_suit.setdefault(group, []).append(card)
    # A void is worth more with trumps to ruff with.
    void_bonus = 12.0 if len(trumps) >= 8 else 6.0 if len(trumps) >= 5 else 2.0
    best: tuple[float, list[Card]] | None = None
    suits = sorted(by_suit)
    for size in range(len(suits) + 1):
        for voided in combinations(suits, size):
            gone = [c for s in voided for c in by_suit[s]]
            if len(gone) > KITTY_SIZE:
                continue
            rest = sorted((c for s in suits if s not in voided for c in by_suit[s]),
                          key=lambda c: (value[c], c.sort_key))
            need = KITTY_SIZE - len(gone)
            fill = rest[:need]
            if len(fill) < need:
                spare = sorted(trumps, key=lambda c: (value[c], c.sort_key))
                fill += spare[: need - len(fill)]
            # Suits left with one low card after filling are nearly void too.
            cost = sum(value[c] for c in gone + fill) - void_bonus * len(voided)
            if best is None or cost < best[0]:
                best = (cost, gone + fill)
    assert best is not None
    return tuple(best[1])
