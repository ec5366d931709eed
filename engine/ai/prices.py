"""What cards and plays are worth to the AI: the prices that leading and following weigh plays by."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from engine.ai.memory import BIG_TRUMP, Memory
from engine.cards import ALL_CARDS, RED_FIVE, Card
from engine.trump import TRUMP, TrumpContext


def power(ctx: TrumpContext, card: Card) -> float:
    """What a card is worth keeping for its strength: trumps above every plain card."""
    order = ctx.order(card)
    if ctx.group(card) == TRUMP:
        return 30.0 + order + (10.0 if order >= BIG_TRUMP else 0.0)
    return float(order)


@lru_cache(maxsize=256)
def powers(ctx: TrumpContext) -> dict[Card, float]:
    """:func:`power` of every card under a trump context (the prices below ask it for every card they weigh)."""
    return {c: power(ctx, c) for c in ALL_CARDS}


def discard_cost(ctx: TrumpContext, hand_counts: Mapping[Card, int]) -> Callable[[Card], float]:
    """Price for throwing cards away to an opponent: low, pointless, unpaired cards are cheapest."""
    alone, paired = _discard_prices(ctx)

    def cost(card: Card) -> float:
        return paired[card] if hand_counts[card] >= 2 else alone[card]
    return cost


@lru_cache(maxsize=256)
def _discard_prices(ctx: TrumpContext) -> tuple[dict[Card, float], dict[Card, float]]:
    """:func:`discard_cost` of every card, held once and held twice (the follows price a hand at every decision)."""
    table = powers(ctx)
    alone = {c: table[c] + 4.0 * c.points for c in ALL_CARDS}
    return alone, {c: value + 6.0 for c, value in alone.items()}


def feed_cost(ctx: TrumpContext, hand_counts: Mapping[Card, int]) -> Callable[[Card], float]:
    """Price for playing to a partner's sure win: point cards are wanted, big trumps are not."""
    alone, paired = _feed_prices(ctx)

    def cost(card: Card) -> float:
        return paired[card] if hand_counts[card] >= 2 else alone[card]
    return cost


@lru_cache(maxsize=256)
def _feed_prices(ctx: TrumpContext) -> tuple[dict[Card, float], dict[Card, float]]:
    """:func:`feed_cost` of every card, held once and held twice (a pair of pointless cards is kept)."""
    table = powers(ctx)
    alone = {c: table[c] - 4.5 * c.points for c in ALL_CARDS}
    return alone, {c: value + 6.0 if not c.points else value for c, value in alone.items()}


def play_cost(ctx: TrumpContext, cards: Sequence[Card]) -> float:
    """What a play spends: the strength of its cards."""
    table = powers(ctx)
    return sum(table[c] for c in cards)



def distinct(plays: list[list[Card]]) -> list[list[Card]]:
    """The plays with repeats (the same cards in any order) left out, first occurrences kept in order."""
    seen: set[tuple[Card, ...]] = set()
    out: list[list[Card]] = []
    for p in plays:
        key = tuple(sorted(p, key=lambda c: c.sort_key))
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


ENDGAME = 8
"""Cards in hand from which the last trick (and the kitty) is near: top trumps may be spent."""


def keeping_red_five(mem: Memory) -> bool:
    """Keep the red five for the last card (保红5), once the other red five can no longer take it?

    Where 保红5 and 逼红5 score, a red five kept to the end wins the last
    trick whatever is led (the kitty), and led alone after the side's seat
    won the trick before it earns its 50.  Kept while the other red five is
    still out, it would fall to that one led first (逼红5); then the older
    rules stand (cash it when few trumps guard it).  Kept means kept out of
    leads, throws, 5-10-Ks and winning follows alike.
    """
    ctx = mem.ctx
    if not ctx.ruleset.red5_bonus or mem.unseen.get(RED_FIVE, 0):
        return False
    fives = mem.hand.count(RED_FIVE) if ctx.ruleset.red5_trump else 0  # ctx.is_red_five
    return 0 < fives < len(mem.hand)
