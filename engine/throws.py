"""Throws (甩牌): validity against the other hands, and failure (RULES.md §2.11).

A throw is valid when no other player holds, in the thrown group, a single
higher than one of its singles, a pair higher than one of its pairs, or a
tractor at least as long and higher than one of its tractors (a longer one
can be cut to length).  A failed throw plays only its forced component: the
beatable one with the fewest cards, then the lowest, then the earliest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.combos import Component, Shape, tractor_above
from engine.trump import TrumpContext


@dataclass(frozen=True, slots=True)
class ThrowResult:
    """The outcome of a throw: what is played and, for a failure, what beat it and the penalty basis."""

    played: tuple[Card, ...]
    """The cards actually played: the whole throw, or the forced component."""
    failed: bool
    """True if some component could be beaten."""
    penalty_cards: int
    """Cards in the forced component (0 for a valid throw)."""
    beaten_by: int | None = None
    """For a failure: the index, in the hands judged against, of the first hand that beats the forced component."""
    beaten_with: tuple[Card, ...] = ()
    """For a failure: the cards of that hand that beat it (the highest such single, pair or tractor)."""


def beating_cards(ctx: TrumpContext, comp: Component, group: str, hand: Sequence[Card]) -> tuple[Card, ...] | None:
    """The highest cards of ``hand``, in ``group``, that beat the thrown component, or None."""
    cards = [c for c in hand if ctx.group(c) == group]
    if comp.kind == "single":
        higher = [c for c in cards if ctx.order(c) > comp.top]
        return (max(higher, key=lambda c: (ctx.order(c), c.sort_key)),) if higher else None
    counts = Counter(cards)
    pairs = [c for c, n in counts.items() if n >= 2]
    if comp.kind == "pair":
        higher = [c for c in pairs if ctx.order(c) > comp.top]
        if not higher:
            return None
        best = max(higher, key=lambda c: (ctx.order(c), c.sort_key))
        return (best, best)
    run = tractor_above(ctx, pairs, comp.pairs, comp.top)
    return None if run is None else tuple(c for c in run for _ in (0, 1))


def beats_component(ctx: TrumpContext, comp: Component, group: str, hand: Sequence[Card]) -> bool:
    """True if ``hand`` holds, in ``group``, something that beats the thrown component (:func:`beating_cards`
    is not None; a higher single or pair is looked for without choosing the highest)."""
    group_of, order_of = ctx.group, ctx.order
    top = comp.top
    if comp.kind == "single":
        for c in hand:
            if order_of(c) > top and group_of(c) == group:
                return True
        return False
    if comp.kind == "pair":
        higher: set[Card] = set()
        for c in hand:
            if order_of(c) > top and group_of(c) == group:
                if c in higher:
                    return True  # its second copy: a higher pair
                higher.add(c)
        return False
    return beating_cards(ctx, comp, group, hand) is not None


def judge_throw(ctx: TrumpContext, shape: Shape, other_hands: Sequence[Sequence[Card]]) -> ThrowResult:
    """Judge a lead against the other three hands (give them in turn order from the thrower:
    the first that beats the forced component is named as its beater).

    A lead of one component (or a 5-10-K) is not a throw and always stands.
    """
    if shape.kind != "throw":
        return ThrowResult(shape.cards, False, 0)
    beatable = [
        (comp.size, comp.top, index, comp)
        for index, comp in enumerate(shape.components)
        if any(beats_component(ctx, comp, shape.group, hand) for hand in other_hands)
    ]
    if not beatable:
        return ThrowResult(shape.cards, False, 0)
    forced = min(beatable, key=lambda item: item[:3])[3]
    by, cards = next((i, beat) for i, hand in enumerate(other_hands)
                     if (beat := beating_cards(ctx, forced, shape.group, hand)) is not None)
    return ThrowResult(forced.cards, True, forced.size, by, cards)


def throw_penalty(per_card: int, cards: int, thrower_is_attacker: bool) -> int:
    """The change to the attackers' score p for a failed throw (A21, A39).

    An attacker's failure lowers p; a dealer-side failure raises it.
    """
    amount = per_card * cards
    return -amount if thrower_is_attacker else amount
