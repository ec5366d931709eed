"""Judging a trick: ruffs, over-ruffs and the winner (RULES.md §2.9–2.10).

Plays are assumed legal: a follower who plays only trumps to a plain lead
was void in the led suit, since rule F1 would have forced the suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.combos import Shape, classify, decompose, five_ten_king, is_tractor, structure_of
from engine.trump import TRUMP, TrumpContext


def is_ruff(ctx: TrumpContext, lead: Shape, play: Sequence[Card]) -> bool:
    """True if ``play`` ruffs (毙) a plain ``lead`` (RF1, RF2, RF5).

    The ruff is all trumps; a 5-10-K lead is ruffed only by the trump
    5-10-K of the same form; otherwise the ruff needs at least the lead's
    tractors (each matched by one at least as long) and at least its pairs.
    """
    if lead.group == TRUMP or len(play) != len(lead.cards):
        return False
    if any(ctx.group(c) != TRUMP for c in play):
        return False
    if lead.kind in ("ftk", "ftk2"):
        ftk = five_ten_king(ctx, play)
        return ftk is not None and ftk[1] == TRUMP and ftk[2] == (1 if lead.kind == "ftk" else 2)
    if lead.kind == "single":
        return True  # one trump ruffs a single
    want = lead.structure
    have = structure_of(decompose(ctx, play))
    if len(have.tractors) < len(want.tractors):
        return False
    if any(h < w for h, w in zip(have.tractors, want.tractors)):
        return False
    return have.pairs >= want.pairs


def ruff_key(ctx: TrumpContext, lead: Shape, play: Sequence[Card]) -> tuple[int, ...]:
    """Strength of a ruff (RF3): its longest tractor, else its highest pair, else its highest card.

    What counts follows the lead: tractors if the lead has one, pairs if it
    has pairs, otherwise single cards.
    """
    if lead.kind in ("ftk", "ftk2"):
        return (0,)
    if lead.kind == "single":
        return (ctx.order(play[0]),)
    want = lead.structure
    if not want.pairs:
        return (max(ctx.order(c) for c in play),)
    comps = decompose(ctx, play)
    if want.tractors:
        tractors = [c for c in comps if c.kind == "tractor"]
        best = max(tractors, key=lambda c: (c.pairs, c.top))
        return (best.pairs, best.top)
    return (max(ctx.order(c) for comp in comps if comp.kind != "single" for c in comp.cards),)


def _follow_key(ctx: TrumpContext, lead: Shape, play: Sequence[Card]) -> int | None:
    """Strength of a same-group follow that has the lead's shape, else None."""
    if lead.kind == "single":
        return ctx.order(play[0])
    if lead.kind == "pair":
        return ctx.order(play[0]) if play[0] is play[1] else None
    if lead.kind == "tractor":
        if not is_tractor(ctx, play):
            return None
        return decompose(ctx, play)[0].top
    return None  # a throw or a 5-10-K cannot be beaten by following


def trick_winner_in(ctx: TrumpContext, plays: Sequence[Sequence[Card]]) -> int:
    """Index of the winning play (the lead is index 0); ties go to the earlier play."""
    lead = plays[0]
    if len(lead) == 1:
        return _single_winner(ctx, plays)
    if len(lead) == 2 and lead[0] is lead[1]:
        return _pair_winner(ctx, plays)
    return _winner_by_shape(ctx, plays)


def _single_winner(ctx: TrumpContext, plays: Sequence[Sequence[Card]]) -> int:
    """:func:`trick_winner_in` for a single led (most tricks): the highest of its group, or the highest trump."""
    card = plays[0][0]
    best, best_group, best_order = 0, ctx.group(card), ctx.order(card)
    for index in range(1, len(plays)):
        card = plays[index][0]
        group = ctx.group(card)
        if group == best_group:
            order = ctx.order(card)
            if order > best_order:
                best, best_order = index, order
        elif group == TRUMP:  # the first ruff of a plain single
            best, best_group, best_order = index, TRUMP, ctx.order(card)
    return best


def _pair_winner(ctx: TrumpContext, plays: Sequence[Sequence[Card]]) -> int:
    """:func:`trick_winner_in` for a pair led (the commonest lead after a single): the highest pair of its group,
    or, for a plain pair, the highest trump pair (a ruff needs a pair, RF2)."""
    group_of, order_of = ctx.group, ctx.order
    card = plays[0][0]
    group = group_of(card)
    best, best_order, ruffed = 0, order_of(card), False
    for index in range(1, len(plays)):
        a, b = plays[index]
        if a is not b:
            continue  # no pair: neither a follow of the lead's shape nor a ruff
        card_group = group_of(a)
        if card_group == group:
            if not ruffed and order_of(a) > best_order:
                best, best_order = index, order_of(a)
        elif card_group == TRUMP and (not ruffed or order_of(a) > best_order):
            best, best_order, ruffed = index, order_of(a), True
    return best


def _winner_by_shape(ctx: TrumpContext, plays: Sequence[Sequence[Card]]) -> int:
    """:func:`trick_winner_in` for any lead, by its shape."""
    lead = classify(ctx, plays[0])
    if lead is None:
        raise ValueError("The lead of a trick must be all of one suit-group.")
    if lead.group == TRUMP and lead.kind in ("ftk", "ftk2"):
        return 0  # the trump 5-10-K is the highest play
    best = 0
    best_class = 0  # 0: the lead or a follow; 1: a ruff
    best_key: tuple[int, ...] = (_follow_key(ctx, lead, plays[0]) or 0,) if lead.kind in ("single", "pair", "tractor") else (0,)
    for index in range(1, len(plays)):
        play = plays[index]
        if all(ctx.group(c) == lead.group for c in play):
            if best_class:
                continue
            key = _follow_key(ctx, lead, play)
            if key is not None and (key,) > best_key:
                best, best_key = index, (key,)
        elif is_ruff(ctx, lead, play):
            rkey = ruff_key(ctx, lead, play)
            if not best_class or rkey > best_key:
                best, best_class, best_key = index, 1, rkey
    return best
