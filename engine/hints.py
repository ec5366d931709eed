"""Building legal plays: the cheapest legal follow under a cost, and simple leads.

Used by the 提示 (hint) button and by the built-in AI.  Whether a red five
was forced out (逼红5) is not decided here but by the follow rules
themselves (:func:`engine.follow.red_fives_forced`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations

from engine.cards import Card
from engine.combos import classify, tractors_in
from engine.errors import IllegalPlayError
from engine.follow import check_follow
from engine.trump import TRUMP, TrumpContext

Cost = Callable[[Card], float]
"""The price of playing a card; a follow is built to be as cheap as possible."""

_SEARCH_LIMIT = 20000


def cheapest_follow(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], cost: Cost) -> list[Card]:
    """A legal follow to ``lead`` from ``hand`` that keeps the total cost low.

    Builds the play the way the rules ask for it (suit, then tractors, then
    pairs, then singles), choosing the cheapest cards at each step, and checks
    it; falls back to a bounded search if the construction is refused.
    """
    if len(lead) == 1 and hand:  # a single (most follows): the cheapest card of the suit-group, else of the hand
        group = ctx.group(lead[0])
        return [min([c for c in hand if ctx.group(c) == group] or hand, key=cost)]
    play = _construct(ctx, lead, hand, cost)
    try:
        check_follow(ctx, lead, hand, play, held=True)  # built from the hand's cards
        return play
    except IllegalPlayError:
        found = _search(ctx, lead, hand, cost)
        if found is None:  # pragma: no cover - would mean the rules leave no legal play
            raise
        return found


def _construct(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], cost: Cost) -> list[Card]:
    shape = classify(ctx, lead)
    assert shape is not None
    n = len(lead)
    group = shape.group
    in_group = [c for c in hand if ctx.group(c) == group]
    if len(in_group) <= n:
        others = sorted((c for c in hand if ctx.group(c) != group), key=cost)
        return in_group + others[: n - len(in_group)]
    r = ctx.ruleset
    if group == TRUMP and shape.kind in ("ftk", "ftk2") and r.ftk_forces_highest:
        return _forced_highest(ctx, shape.kind, n, in_group, cost)
    chosen: list[Card] = []
    pool = Counter(in_group)
    if r.pairs_must_follow and shape.kind != "ftk":
        want = shape.structure
        for k in want.tractors:
            pairs = [c for c, m in pool.items() if m >= 2]
            windows = [
                run[i:i + k]
                for run, _top in tractors_in(ctx, pairs)
                for i in range(len(run) - k + 1)
            ]
            if windows:
                best = min(windows, key=lambda w: sum(cost(c) for c in w))
                take = list(best)
            else:
                runs = [run for run, _ in tractors_in(ctx, pairs)]
                in_runs = {c for run in runs for c in run}
                take = sorted(pairs, key=lambda c: (c in in_runs, 2 * cost(c)))[:k]
            for c in take:
                pool[c] -= 2
                chosen += [c, c]
        for _ in range(want.loose_pairs):
            pairs = [c for c, m in pool.items() if m >= 2]
            if not pairs:
                break
            c = min(pairs, key=cost)
            pool[c] -= 2
            chosen += [c, c]
    rest = sorted(pool.elements(), key=cost)
    return chosen + rest[: n - len(chosen)]


def _forced_highest(ctx: TrumpContext, kind: str, n: int, trumps: Sequence[Card], cost: Cost) -> list[Card]:
    counts = Counter(trumps)
    if kind == "ftk":
        ftk = [c for c in counts if c.suit == ctx.trump and c.rank in (5, 10, 13)]
        if len(ftk) == 3:
            return ftk
        return sorted(trumps, key=lambda c: (-ctx.order(c), cost(c)))[:n]
    pairs = sorted((c for c, m in counts.items() if m >= 2), key=lambda c: (-ctx.order(c), cost(c)))[:3]
    for c in pairs:
        counts[c] -= 2
    fill = sorted(counts.elements(), key=lambda c: (-ctx.order(c), cost(c)))[: n - 2 * len(pairs)]
    return [c for c in pairs for _ in (0, 1)] + fill


def _search(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], cost: Cost) -> list[Card] | None:
    """Cheapest legal follow by bounded enumeration (a safety net for odd hands)."""
    best: list[Card] | None = None
    best_cost = float("inf")
    for tried, combo in enumerate(combinations(sorted(hand, key=cost), len(lead))):
        if tried > _SEARCH_LIMIT:
            break
        price = sum(cost(c) for c in combo)
        if price >= best_cost:
            continue
        try:
            check_follow(ctx, lead, hand, combo)
        except IllegalPlayError:
            continue
        best, best_cost = list(combo), price
    return best

