"""Leading for the AI: the candidate leads, best first.

Leading prefers safe throws and sure winners, then a partner's ruff,
drawing trumps with a long trump holding, and finally a low card from a
long plain suit.
"""

from __future__ import annotations

from collections import OrderedDict
from operator import itemgetter

from engine.ai.memory import BIG_TRUMP, Memory, partner_of, points_of
from engine.ai.prices import ENDGAME, distinct, keeping_red_five, power
from engine.cards import RED_FIVE, Card
from engine.combos import Component, classify, decompose, five_ten_king
from engine.counting import tally
from engine.trump import TRUMP, TrumpContext


def lead_candidates(mem: Memory, *, dealer_side: bool, heaven_and_earth: bool, limit: int) -> list[list[Card]]:
    """Up to ``limit`` distinct leads, best first by the heuristic's scores."""
    options = _lead_options(mem, dealer_side=dealer_side, heaven_and_earth=heaven_and_earth)
    if limit == 1:  # the rollouts' every lead: the first of the best-scored, as the stable sort below puts first
        return [max(options, key=itemgetter(0))[1]]
    options.sort(key=lambda o: -o[0])  # stable: equal scores keep the order they were found in
    return distinct([o[1] for o in options])[:limit]


def _lead_options(mem: Memory, *, dealer_side: bool, heaven_and_earth: bool) -> list[tuple[float, list[Card]]]:
    """Scored leads (higher is better); a forced end-of-hand lead is the only option."""
    ctx = mem.ctx
    hand = list(mem.hand)
    by_group: dict[str, list[Card]] = {}
    for c in hand:
        by_group.setdefault(ctx.group(c), []).append(c)
    if heaven_and_earth and len(hand) == 3 and five_ten_king(ctx, hand) is not None:
        return [(1.0, hand)]  # 上天入地: the last trick won with a 5-10-K
    if len(by_group) == 1 and len(hand) <= 3:
        return [(1.0, _end_lead(mem, hand, heaven_and_earth))]
    keep_red_five = keeping_red_five(mem)
    options: list[tuple[float, list[Card]]] = []
    opponents = ((mem.seat + 1) % 4, (mem.seat + 3) % 4)
    partner = partner_of(mem.seat)
    trumps = by_group.get(TRUMP, [])
    # The groups an opponent who may hold trumps has shown void in: a lead there risks a ruff.
    ruffable = frozenset().union(*[mem.voids[o] for o in opponents if mem.may_hold(o, TRUMP)])
    for group, cards in by_group.items():
        plain = group != TRUMP
        ruff_risk = plain and group in ruffable
        comps = decompose(ctx, cards)
        high, high_pair = mem.tops_of(group)
        safe = [c for c in comps  # those no unseen cards could beat (_component_beatable, the tops asked once)
                if not (high > c.top if c.kind == "single" else high_pair > c.top if c.kind == "pair"
                        else mem.unseen_tractor_beats(group, c.pairs, c.top))]
        kept = [c for c in safe if not ctx.is_red_five(c.cards[0])] if keep_red_five else safe
        if len(kept) >= 2 and not ruff_risk:
            throw = [card for comp in kept for card in comp.cards]
            shape = classify(ctx, throw)
            if shape is not None and shape.kind == "throw" and not any(
                    _component_beatable(mem, group, c) for c in shape.components):
                options.append((100.0 + len(throw) + (0 if plain else -20), throw))
        for comp in safe:
            if ruff_risk:
                continue
            base = _SAFE_LEAD[comp.kind]
            if not plain:
                base -= 25.0  # sure trump winners are better kept to draw trumps later
                if comp.kind == "single" and comp.top >= BIG_TRUMP and not _red_five_at_risk(ctx, comp, trumps):
                    base -= 30.0  # a lone top trump guards the end; lead it only for want of better
            if keep_red_five and ctx.is_red_five(comp.cards[0]):
                base -= 100.0  # 保红5: the red five is kept for the last card
            options.append((base + comp.size + points_of(comp.cards) / 5, list(comp.cards)))
        ftk = _five_ten_king_in(ctx, cards, hand)
        if ftk is not None and not (keep_red_five and any(ctx.is_red_five(c) for c in ftk)):
            ftk_shape = classify(ctx, ftk)
            if ftk_shape is not None and ftk_shape.kind == "ftk":
                trump_ftk = ftk_shape.group == TRUMP
                if trump_ftk or not ruff_risk:
                    options.append((95.0 if trump_ftk else 70.0, ftk))
        if plain and not ruff_risk and group in mem.voids[partner] and mem.may_hold(partner, TRUMP):
            low = min(cards, key=lambda c: (c.points, ctx.order(c)))
            options.append((60.0 - low.points, [low]))
        if plain:
            options.extend(_low_leads(ctx, cards))
    if trumps:
        options.extend(_trump_leads(mem, trumps, len(hand), dealer_side))
        options.extend(_endgame_trump_pull(mem, trumps, len(hand), dealer_side))
    if not options:
        low = min(hand, key=lambda c: (power(ctx, c) + 2.5 * c.points))
        return [(0.0, [low])]
    return options


_SAFE_LEAD = {"tractor": 90.0, "pair": 75.0, "single": 55.0}
"""A sure winner's base score as a lead, by its kind."""


def _red_five_at_risk(ctx: TrumpContext, comp: Component, trumps: list[Card]) -> bool:
    """A red five with two or fewer other trumps may be forced out by a trump pair lead (逼红5): cash it."""
    if not ctx.ruleset.red5_bonus or not ctx.is_red_five(comp.cards[0]):
        return False
    return sum(1 for c in trumps if not ctx.is_red_five(c)) <= 2


def _end_lead(mem: Memory, hand: list[Card], heaven_and_earth: bool) -> list[Card]:
    """Two or three cards of one group left: lead them all if they stand, keeping 5-10-K whole."""
    ctx = mem.ctx
    if heaven_and_earth and five_ten_king(ctx, hand) is not None:
        return hand
    group = ctx.group(hand[0])
    if keeping_red_five(mem):
        hand = [c for c in hand if not ctx.is_red_five(c)]  # win this trick with the rest, then lead the red five
    comps = decompose(ctx, hand)
    if len(comps) == 1 or not any(_component_beatable(mem, group, c) for c in comps):
        return hand
    # Lead the strongest component; the rest follows.
    return list(max(comps, key=lambda c: (c.size, c.top)).cards)


def _five_ten_king_in(ctx: TrumpContext, cards: list[Card], hand: list[Card]) -> list[Card] | None:
    """A 5-10-K among ``cards`` (one group), completed by the red five from ``hand`` where the ruleset allows."""
    if not ctx.ruleset.five_ten_king:
        return None
    by_suit: dict[str, dict[int, Card]] = {}
    for c in cards:
        if c.rank in (5, 10, 13) and c.suit is not None:
            by_suit.setdefault(c.suit, {})[c.rank] = c
    if ctx.ruleset.red5_in_plain_ftk and "H" in by_suit and ctx.ruleset.red5_trump and RED_FIVE in hand:
        by_suit["H"].setdefault(5, RED_FIVE)  # a trump, yet it may complete plain hearts (A42)
    for ranks in by_suit.values():
        if len(ranks) == 3:
            ftk = [ranks[5], ranks[10], ranks[13]]
            if five_ten_king(ctx, ftk) is not None:
                return ftk
    return None


def _component_beatable(mem: Memory, group: str, comp: Component) -> bool:
    """Could any unseen cards beat this component, were it thrown?"""
    if comp.kind == "single":
        return mem.max_unseen_order(group) > comp.top
    if comp.kind == "pair":
        return mem.max_unseen_pair_order(group) > comp.top
    return mem.unseen_tractor_beats(group, comp.pairs, comp.top)


def _low_leads(ctx: TrumpContext, cards: list[Card]) -> list[tuple[float, list[Card]]]:
    """Low, pointless leads from a plain suit's cards: longer suits first; a low pair drags out pairs.

    A pure function of the context and the cards, which stay the same over many of a seat's leads in a
    rollout: worked out once (:func:`_low_leads_of`), each lead a new list.
    """
    key = (ctx, tuple(cards))
    found = _LOW_LEADS.get(key)
    if found is None:
        found = _LOW_LEADS[key] = _low_leads_of(ctx, cards)
        if len(_LOW_LEADS) > _LOW_LEADS_LIMIT:
            _LOW_LEADS.popitem(last=False)  # the oldest (an OrderedDict's at once, as combos._SPLITS)
    return [(score, list(play)) for score, play in found]


_LOW_LEADS: OrderedDict[tuple[TrumpContext, tuple[Card, ...]], tuple[tuple[float, tuple[Card, ...]], ...]] = OrderedDict()
_LOW_LEADS_LIMIT = 4096
"""Suits' low leads remembered (a few MiB at most); past it the oldest is forgotten."""


def _low_leads_of(ctx: TrumpContext, cards: list[Card]) -> tuple[tuple[float, tuple[Card, ...]], ...]:
    """:func:`_low_leads`, worked out."""
    counts = tally(cards)
    out: list[tuple[float, tuple[Card, ...]]] = []
    length = len(cards)
    singles = [c for c in counts if not c.points]
    if singles:
        low = min(singles, key=lambda c: (counts[c] >= 2, ctx.order(c)))
        out.append((20.0 + length - ctx.order(low) / 4, (low,)))
    pairs = [c for c, m in counts.items() if m >= 2 and not c.points and ctx.order(c) <= 9]
    if pairs:
        low = min(pairs, key=ctx.order)
        out.append((22.0 + length - ctx.order(low) / 4, (low, low)))
    if not singles and not pairs:
        low = min(counts, key=lambda c: (c.points, ctx.order(c)))
        out.append((5.0, (low,)))
    return tuple(out)


def _endgame_trump_pull(mem: Memory, trumps: list[Card], hand_size: int,
                        dealer_side: bool) -> list[tuple[float, list[Card]]]:
    """Near the end, the dealer side keeps the lead with a small trump while its top trump guards the last trick.

    Habit 4: a plain card that can be beaten hands the lead to the attackers
    just when they may cash a 5-10-K or a long suit for the last trick and the
    kitty.  Leading the smallest trump draws their trumps (or their discards)
    and keeps the top trump for the last trick.
    """
    if not dealer_side or hand_size > ENDGAME // 2 + 1 or len(trumps) < 2 or len(trumps) == hand_size:
        return []
    ctx = mem.ctx
    top = max(trumps, key=ctx.order)
    if mem.max_unseen_order(TRUMP) > ctx.order(top):
        return []  # no sure guard for the last trick
    low = min(trumps, key=lambda c: (power(ctx, c) + 2.5 * c.points))
    if low is top:
        return []
    return [(50.0, [low])]


def _trump_leads(mem: Memory, trumps: list[Card], hand_size: int, dealer_side: bool) -> list[tuple[float, list[Card]]]:
    """Drawing trumps: worth it with a long holding while opponents still hold some."""
    ctx = mem.ctx
    out: list[tuple[float, list[Card]]] = []
    outstanding = mem.unseen_count(TRUMP)
    long_holding = len(trumps) >= 6 and len(trumps) * 2 >= hand_size
    if outstanding and long_holding:
        counts = tally(trumps)
        small = [c for c in counts if ctx.order(c) < BIG_TRUMP and not c.points]
        pairs = [c for c in small if counts[c] >= 2]
        if pairs:
            low = min(pairs, key=ctx.order)
            out.append((45.0 + (5.0 if dealer_side else 0.0), [low, low]))
        elif small:
            low = min(small, key=ctx.order)
            out.append((35.0 + (5.0 if dealer_side else 0.0), [low]))
    if len(trumps) == hand_size:
        low = min(trumps, key=lambda c: (power(ctx, c) + 2.5 * c.points))
        out.append((10.0, [low]))
    return out

