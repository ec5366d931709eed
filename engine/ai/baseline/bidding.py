"""Bids and kitty steals for the AI: what is worth bidding, from the bids the engine would accept.

The engine says which bids are legal (:func:`engine.legal_bids.bid_options`,
through the same rule the hand applies); this module only chooses among them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.ai.baseline.memory import context
from engine.bidding import overrides
from engine.cards import BIG_JOKER, RED_FIVE, SMALL_JOKER, SUITS, Card
from engine.combos import tractors_in
from engine.legal_bids import BidOption, bid_options, own_bids
from engine.ruleset import Ruleset
from engine.trump import TRUMP, TrumpContext
from engine.views import HandView

# --- strength ---------------------------------------------------------------------------

def hand_strength(ctx: TrumpContext, hand: Sequence[Card]) -> float:
    """How well a hand plays with this trump: trump length and quality, plus plain winners.

    A rough count in "cards": each trump counts one, top trumps and trump
    pairs and tractors add to it, and plain aces (and guarded kings) add a
    little, since a no-trump hand wins with them.
    """
    counts = Counter(hand)
    score = 0.0
    trump_pairs: list[Card] = []
    plain_len: Counter[str] = Counter()
    for card, n in counts.items():
        group = ctx.group(card)
        if group == TRUMP:
            order = ctx.order(card)
            score += n * (1.0 + (1.0 if order >= 22 else 0.5 if order >= 20 else 0.3 if order == 14 else 0.0))
            if n >= 2:
                score += 1.0
                trump_pairs.append(card)
        else:
            plain_len[group] += n
            if card.rank == 14:
                score += 0.6 * n
            if n >= 2:
                score += 0.3 + (0.3 if card.rank >= 12 else 0.0)
    for run, _top in tractors_in(ctx, trump_pairs):
        score += len(run)
    # Short plain suits let trumps ruff; count voids and singletons a little.
    for suit in SUITS:
        if ctx.group(Card(14, suit)) == TRUMP and ctx.trump == suit:
            continue
        length = plain_len.get(suit, 0)
        if length == 0:
            score += 0.8
        elif length == 1:
            score += 0.4
    return score


def strength_for(ruleset: Ruleset, level: int | None, trump: str | None, hand: Sequence[Card]) -> float:
    """:func:`hand_strength` under the trump a bid would name."""
    return hand_strength(context(ruleset, level, trump), hand)


# Thresholds, in hand_strength units: over dealt 25-card hands the best of
# the five trumps scores about 12.5 / 16 / 20 at the 10th / 50th / 90th
# percentile.  Self-play duels favoured bidding fairly freely (a bid puts
# trump in the bidder's long suit, where no bid leaves it to a kitty flip);
# attackers need a little more, since their bid hands the kitty to the
# dealer seat after them.
_OPEN = 13.0
_DEALER_SIDE = 10.0
_ATTACKER = 14.0
_OVER_PARTNER = 20.0
_STEAL = 17.0
_STEAL_MARGIN = 4.0


def choose_bid(view: HandView, ruleset: Ruleset) -> BidOption | None:
    """The bid the AI makes now in the bidding window, or None to pass."""
    seat = view.viewer
    assert seat is not None
    options = bid_options(view, ruleset, steal=False)
    if not options:
        return None
    if view.bids:
        # A single outranks no bid; under hidden bidding it would be accepted and count for nothing.
        options = [o for o in options if o.step != "single"]
        if not options:
            return None
    scored = [(strength_for(ruleset, view.level, o.trump, view.hand), _step_rank(ruleset, o.step), o) for o in options]
    own = own_bids(view, seat)
    if own and ruleset.hidden_bidding:
        # Having bid already and blind to the others, only the look-back (top of the ladder) is sure to help.
        scored = [s for s in scored if s[2].kind == "look_back"]
        if not scored:
            return None
    elif not ruleset.hidden_bidding and view.bids and view.bids[-1].seat == seat:
        return None
    strength, _rank, best = max(scored, key=lambda s: (s[0], s[1]))
    if best.kind == "look_back":
        return best if strength >= _DEALER_SIDE else None
    if view.dealer_side is None:
        need = _OPEN
    elif view.dealer_side == seat % 2:
        need = _DEALER_SIDE
    else:
        need = _ATTACKER
    others = [b.seat for b in view.bids if b.seat != seat]
    if not ruleset.hidden_bidding:
        partner_holds = bool(view.bids) and view.bids[-1].seat % 2 == seat % 2
    else:  # the bids are hidden, the bidders are not
        partner_holds = bool(others) and all(s % 2 == seat % 2 for s in others)
    if partner_holds:
        need = max(need, _OVER_PARTNER)  # do not take the bid from a partner without reason
    if strength < need:
        return None
    return _hold_back_for_look_back(view, ruleset, best, scored)


def _hold_back_for_look_back(view: HandView, ruleset: Ruleset, best: BidOption,
                             scored: list[tuple[float, int, BidOption]]) -> BidOption:
    """With the look-back rule, open with one card of a level pair: if overridden, re-bid the pair on top.

    Only as the first bid: after another bid (hidden or not) a single can
    never stand, and the look-back would wait for a bid that may not come.
    """
    if not ruleset.look_back or len(best.cards) != 2 or best.step in ("SJ2", "BJ2", "R52") or view.bids:
        return best
    single = next((o for _s, _r, o in scored if o.step == "single" and o.cards[0] is best.cards[0]), None)
    return single or best


def _step_rank(ruleset: Ruleset, step: str) -> int:
    ladder = ruleset.bid_ladder
    if step == "LB":
        return 100
    if ladder is None:
        return 1 if step != "single" else 0
    return ladder.index(step) if step in ladder else 0


def choose_steal(view: HandView, ruleset: Ruleset) -> BidOption | None:
    """The steal (抄底) the AI makes now, or None to pass.

    Steal only with a clearly stronger hand under the new trump; under
    hidden bidding, where a steal below an earlier bid costs the side
    ``failed_steal_points``, only with a step that no earlier bid can match.
    """
    seat = view.viewer
    assert seat is not None
    options = bid_options(view, ruleset, steal=True)
    if not options:
        return None
    if ruleset.hidden_bidding and ruleset.failed_steal_points:
        options = [o for o in options if _surely_highest(view, ruleset, o.step)]
        if not options:
            return None
    scored = [(strength_for(ruleset, view.level, o.trump, view.hand), o) for o in options]
    strength, best = max(scored, key=lambda s: s[0])
    if strength < _STEAL:
        return None
    if view.trump_known:
        current = strength_for(ruleset, view.level, view.trump, view.hand)
        margin = _STEAL_MARGIN * (2 if view.kitty_holder is not None and view.kitty_holder % 2 == seat % 2 else 1)
        if strength - current < margin:
            return None
    elif view.kitty_holder is not None and view.kitty_holder % 2 == seat % 2 and strength < _OVER_PARTNER:
        return None  # the partner's trump is unknown; take it from them only with a very strong hand
    return best


def _surely_highest(view: HandView, ruleset: Ruleset, step: str) -> bool:
    """True if no bid made so far can rank at or above ``step`` (so a hidden steal cannot fail)."""
    seat = view.viewer
    ladder = ruleset.bid_ladder
    if ladder is None:
        return True  # the latest bid wins: a steal never fails
    counts = Counter(view.hand)
    for index, bid in enumerate(view.bids):
        if bid.seat == seat and bid.step is not None:
            if not overrides(ruleset, step, bid.step):
                return False
            continue
        # Another seat's hidden bid: could it have been at or above this step?
        for other in (*ladder, "LB"):
            if overrides(ruleset, step, other):
                continue
            if _others_could_bid(view, ruleset, counts, index, other):
                return False
    return True


def _others_could_bid(view: HandView, ruleset: Ruleset, counts: Counter[Card], index: int, step: str) -> bool:
    """Could the hidden bid ``view.bids[index]`` by another seat have been of ``step``?

    Only the bidders and declare/override/steal are public.  A look-back is
    possible where the same seat bid before and someone else bid in between;
    a pair only if the viewer holds neither copy of its card.
    """
    bid = view.bids[index]
    if step == "LB":
        if not ruleset.look_back:
            return False
        earlier = [i for i, b in enumerate(view.bids[:index]) if b.seat == bid.seat]
        return any(b.seat != bid.seat for b in view.bids[earlier[0] + 1:index]) if earlier else False
    level = view.level
    if step == "single":
        return True
    if step == "SJ2":
        return counts[Card(SMALL_JOKER)] == 0
    if step == "BJ2":
        return counts[Card(BIG_JOKER)] == 0
    if step == "R52":
        return counts[RED_FIVE] == 0
    if level is None:
        return False
    return counts[Card(level, step[0])] == 0
