"""Choosing the 8 cards to bury (扣底).

Keep trumps, pairs, tractors and high cards; bury low plain cards; above
all empty short plain suits (a void lets the hand ruff, and a short suit's
point cards are lost whenever the suit is led).  A suit kept short with
point cards and no ace to guard them is a liability, so the 5s and 10s of
such a suit go before the low cards of a long one, for an attacker who
took the kitty: it buries them gladly, since the kitty's points count only
for the attackers, two or more times over when they win the last trick.
For that reason the dealer side buries no points where anything else can
go, not even to empty a suit, and seldom an ace (which a steal would give
away): with few low plain cards, a low trump goes first.  Never a red
five or a joker while anything else can go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from engine.cards import Card
from engine.combos import tractors_in
from engine.hand import KITTY_SIZE
from engine.trump import TRUMP, TrumpContext

_VOID_BONUS = (60.0, 38.0, 11.0)
"""What a void is worth in keep-value units with eight trumps or more, five to seven, and fewer.

A void lets the hand ruff, and the heuristics alone against the baseline
(2,800 hands on each of two seed pairs) gained about 0.9 points of hands
won with (45, 28, 8) rather than (24, 14, 4); these gained another +0.27 ±
0.16 points on 14,000 paired hands (``bench/bench_heuristics.py --hands 2000
--seed 31``), (80, 50, 15) +0.19 ± 0.20."""

_EXPOSURE = (0.4, 1.2)
"""Share of a short suit's points counted as lost when an ace guards them, and when none does."""


_BURIED_POINTS = (1.0, -0.5)
"""How a point card's keep value counts it (6 plus its points, times this), for the dealer side and for an attacker.

The kitty's points go to the attackers, two or more times over, if they
win the last trick, and to nobody otherwise.  The dealer side keeps its
point cards out of the kitty; an attacker who stole it puts them in: its
side holds the new trump to win the last trick with, and points kept in
hand may be won by the dealer side.  Played out in the true deal at every
bury of the strong heuristics against the baseline (``bench/bench_bury_values.py
--hands 2000 --seed 72|73``), an attacker's bury with -1 rather than 1
gained +0.9 to +1.5 积分 a bury in every preset; the dealer side's lost 1.1
to 1.7.  Whole hands (``bench/bench_heuristics.py --hands 4000 --seed
31|32``, paired with 1): an attacker's weight of -1 gained +0.205 ± 0.022
and +0.196 ± 0.021 积分 per hand but -0.10 ± 0.17 and -0.20 ± 0.17 points
of hands won (more is buried, and lost when the last trick is); -0.5
+0.166 ± 0.017 and +0.165 ± 0.018 积分 and +0.24 ± 0.15 and +0.12 ± 0.14
points; 0 +0.055 积分 and +0.11 points (seed 31)."""


_POINTS_GUARD = 200.0
"""What burying a point card costs the dealer side besides its keep value: more than any void is worth.

A kitty with points is what the attackers' last trick multiplies (issue
47: the strong player's dealer side buried 6.6 points a hand where the
casual one buried 0.4, and its kitty was captured with points in one hand
of five).  So the dealer side buries no points where anything else can
go, not even to empty a suit: allowed to with twelve trumps or more, it
buried 3.8 points a hand and its kitty was captured with points in one
hand of thirteen (the strong heuristics in self-play, 1,400 hands), five
times the casual player's rate.  Against the baseline this costs the
heuristics alone 1.5 to 1.9 points of hands won (``bench/bench_heuristics.py
--hands 1000 --seed 31``, paired): the price of a kitty an expert would bury."""

_ACE_GUARD = 50.0
"""What burying an ace costs the dealer side besides its keep value (a steal would hand it to an attacker):
only a void worth much more, with many trumps, takes an ace with it."""


def _ace(ctx: TrumpContext, card: Card) -> bool:
    return card.rank == 14 and ctx.group(card) != TRUMP


def keep_value(ctx: TrumpContext, card: Card, counts: Counter[Card], in_tractor: set[Card],
               attacker: bool = False) -> float:
    """How much the hand loses by burying this card (higher: keep it), for the dealer side or an attacker."""
    order = ctx.order(card)
    value = float(order)
    if ctx.group(card) == TRUMP:
        # Jokers and the red five above every plain card, point cards too; level cards above a plain ace.
        value += 40.0 + (300.0 if order >= 22 else 20.0 if order >= 20 else 0.0)
    elif card.rank == 14:
        value += 8.0
    if card.points:
        value += (6.0 + card.points) * _BURIED_POINTS[attacker]
    if counts[card] >= 2:
        value += 10.0
        if card in in_tractor:
            value += 8.0
    return value


def choose_bury(ctx: TrumpContext, hand: Sequence[Card], attacker: bool = False) -> tuple[Card, ...]:
    """The 8 cards to bury from a 33-card hand, under the (known or guessed) trump, for the dealer side or an attacker."""
    counts = Counter(hand)
    pairs_by_group: dict[str, list[Card]] = {}
    for c, n in counts.items():
        if n >= 2:
            pairs_by_group.setdefault(ctx.group(c), []).append(c)
    # Tractor positions are numbered within a suit-group: look for tractors group by group.
    in_tractor = {c for pairs in pairs_by_group.values() for run, _top in tractors_in(ctx, pairs) for c in run}
    value = {c: keep_value(ctx, c, counts, in_tractor, attacker) for c in counts}
    # The dealer side keeps points out of the kitty, and aces unless emptying a suit is worth much more.
    filling = {c: v + (0.0 if attacker else _POINTS_GUARD if c.points else _ACE_GUARD if _ace(ctx, c) else 0.0)
               for c, v in value.items()}
    by_suit: dict[str, list[Card]] = {}
    trumps: list[Card] = []
    for card in hand:
        group = ctx.group(card)
        if group == TRUMP:
            trumps.append(card)
        else:
            by_suit.setdefault(group, []).append(card)
    # A void is worth more with trumps to ruff with.
    void_bonus = _VOID_BONUS[0] if len(trumps) >= 8 else _VOID_BONUS[1] if len(trumps) >= 5 else _VOID_BONUS[2]
    best: tuple[float, list[Card]] | None = None
    suits = sorted(by_suit)
    for size in range(len(suits) + 1):
        for voided in combinations(suits, size):
            gone = [c for s in voided for c in by_suit[s]]
            if len(gone) > KITTY_SIZE:
                continue
            rest = [c for s in suits if s not in voided for c in by_suit[s]]
            # Low trumps go before the dealer side's aces and points (with few low plain cards left).
            fill = sorted(rest + trumps, key=lambda c: (filling[c], c.sort_key))[:KITTY_SIZE - len(gone)]
            cost = sum(filling[c] for c in gone + fill) - void_bonus * len(voided)
            cost += _exposure(ctx, by_suit, voided, fill)
            if best is None or cost < best[0]:
                best = (cost, gone + fill)
    assert best is not None
    return tuple(best[1])


def _exposure(ctx: TrumpContext, by_suit: dict[str, list[Card]], voided: tuple[str, ...],
              fill: list[Card]) -> float:
    """What the point cards of short plain suits left in hand are likely to lose (habit 3).

    A suit kept with five cards or fewer is soon exhausted (three or fewer
    sooner still): its 5s and 10s fall to whoever wins that suit's tricks
    unless an ace guards them.
    """
    buried = Counter(fill)
    cost = 0.0
    for suit, cards in by_suit.items():
        if suit in voided:
            continue
        left = list((Counter(cards) - buried).elements())
        if not left or len(left) > 5:
            continue
        points = sum(c.points for c in left)
        guarded = any(c.rank == 14 for c in left)
        cost += points * (_EXPOSURE[0] if guarded else _EXPOSURE[1]) * (1.0 if len(left) <= 3 else 0.5)
    return cost
