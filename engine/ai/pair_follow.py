"""Following a led pair in a rollout: :func:`engine.ai.following.follow_candidates`' choice, worked out on pairs.

After a single, a pair is the commonest lead.  The general follow builds
the trick's plays, classifies the lead, judges the trick and checks every
winning follow it builds; for a pair these come down to a few comparisons
of orders: the trick's winner is the highest pair of the led group or the
highest trump pair (rule RF2), a winning follow is a higher pair of the
group (or, void in it, a trump pair above any ruff), and each such pair is
a legal follow.  :func:`pair_choice` makes the same choice with the same
tests in the same order (a test compares them on random positions); the
cheapest follows it gives otherwise are :func:`engine.hints.cheapest_follow`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.following import LATER_OPPONENTS, _spare_red_five, _worth
from engine.ai.memory import Memory, same_side
from engine.ai.prices import discard_cost, feed_cost, keeping_red_five, powers
from engine.cards import Card
from engine.counting import tally
from engine.hints import cheapest_follow
from engine.trump import TRUMP


def pair_choice(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]]) -> list[Card]:
    """The follow the heuristics choose (``limit`` 1) when a pair was led (``current[0]`` is two copies of a card)."""
    ctx = mem.ctx
    group_of, order_of = ctx.group, ctx.order
    hand = list(mem.hand)
    seat = mem.seat
    lead = list(current[0][1])
    led = lead[0]
    group = group_of(led)
    # The winner so far (tricks._pair_winner) and the points on the table.
    best, best_order, ruffed, table_points = 0, order_of(led), False, 2 * led.points
    for index in range(1, len(current)):
        a, b = current[index][1]
        table_points += a.points + b.points
        if a is not b:
            continue
        card_group = group_of(a)
        if card_group == group:
            if not ruffed and order_of(a) > best_order:
                best, best_order = index, order_of(a)
        elif card_group == TRUMP and (not ruffed or order_of(a) > best_order):
            best, best_order, ruffed = index, order_of(a), True
    later = LATER_OPPONENTS[current[0][0], len(current), seat]
    partner_wins = same_side(current[best][0], seat)
    last_trick = len(hand) == 2
    counts = tally(hand)
    if partner_wins and not _pair_beatable(mem, group, ruffed, best_order, later):
        return cheapest_follow(ctx, lead, hand, feed_cost(ctx, counts))
    if not (partner_wins and not (table_points >= 10 or last_trick)):
        secure = [w for w in _winning_pairs(mem, group, hand, ruffed, best_order)
                  if not _pair_beatable(mem, group, group_of(w[0]) != group, order_of(w[0]), later)]
        if keeping_red_five(mem):
            secure = [w for w in secure if not any(ctx.is_red_five(c) for c in w)]
        if secure:
            prices = powers(ctx)
            win = min(secure, key=lambda w: prices[w[0]] + prices[w[1]])  # play_cost
            if _worth(ctx, win, table_points + 2 * win[0].points, last_trick, len(hand)):
                return _spare_red_five(mem, win, secure)
    return cheapest_follow(ctx, lead, hand, discard_cost(ctx, counts))


def _winning_pairs(mem: Memory, group: str, hand: list[Card], ruffed: bool, win_order: int) -> list[list[Card]]:
    """:func:`engine.ai.following.winning_follows` for a led pair: the three lowest pairs that take the trick."""
    ctx = mem.ctx
    group_of, order_of = ctx.group, ctx.order
    mine = [c for c in hand if group_of(c) == group]
    if len(mine) >= 2:
        if ruffed:
            return []  # a follow never beats a ruff
        pool = mine
    elif mine or group == TRUMP:
        return []  # a part-follow is a discard; no trumps to follow trumps
    else:
        pool = [c for c in hand if group_of(c) == TRUMP]  # void in the group: a trump pair ruffs
        if len(pool) < 2:
            return []
        if not ruffed:
            win_order = -1
    counts = tally(pool)
    pairs = sorted((c for c, m in counts.items() if m >= 2), key=order_of)
    return [[c, c] for c in pairs if order_of(c) > win_order][:3]


def _pair_beatable(mem: Memory, group: str, ruffed: bool, win_order: int, later: Sequence[int]) -> bool:
    """:func:`engine.ai.following.beatable` for a led pair (of ``group``), won by a pair of order ``win_order``
    (a trump pair if ``ruffed``)."""
    for seat in later:
        if not ruffed and mem.may_hold(seat, group) and group not in mem.voids[seat] \
                and mem.max_unseen_pair_order(group) > win_order:
            return True
        if group != TRUMP and mem.may_be_void(seat, group, 2) and mem.may_hold(seat, TRUMP) \
                and mem.max_unseen_pair_order(TRUMP) > (win_order if ruffed else -1):
            return True
    return False
