"""The strong AI's bids in the bidding window: where it passes though its hand would bid.

Both rules were measured rather than reasoned: played out in the true deal
against the baseline, each such bid did worse than passing
(docs/ai-history-2026-12-06.md, the fifteenth pass), and passing gained the heuristics alone about two thirds
of a point of hands won in the open-bidding presets.
"""

from __future__ import annotations

from engine.ai import StrongPlayer, casual_action
from engine.cards import Card, parse_cards
from engine.ruleset import RULESETS
from engine.views import BidView, HandView

STRONG = StrongPlayer(budget=float("inf"))


def _after_the_dealer_sides_bid(viewer: int, hand: tuple[Card, ...]) -> HandView:
    """南通 (open bids), level 2, the dealer side (seats 0 and 2) known: seat 0 has bid 2♦2♦, the others may answer."""
    return HandView(
        viewer=viewer, preset="nantong", number=2, phase="bidding", flag=False, level=2, levels=(2, 2),
        dealer=None, dealer_side=0, trump=None, trump_known=False, my_bid_trump=None, hand=hand,
        hand_sizes=(25, 25, 25, 25), bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),),
        flipped=(), kitty=None, kitty_holder=None, to_act=(0, 1, 2, 3), turn=None, passed=(), current=(),
        tricks=(), trick_points=0, adjustments=(), threshold=80, result=None, escaped=None,
    )


def test_never_takes_the_bid_from_a_partner() -> None:
    """Seat 2 holds 2♠2♠, both jokers, ten more spades and five good diamonds: its partner's ♦ trump serves it well.

    Overriding with 2♠2♠ would only move trump within the side and show the
    pair; the baseline (and the strong AI before) did so from strength 20.
    """
    hand = tuple(parse_cards("2S 2S BJ SJ AS KS QS JS 10S 9S 8S 7S 6S 5S AD KD QD 10D 9D AH KH AC KC 9C 4C"))
    view = _after_the_dealer_sides_bid(2, hand)
    r = RULESETS["nantong"]
    assert casual_action(view, r).kind == "bid"
    assert STRONG(view, r).kind == "pass"


def test_an_attacker_does_not_override_the_dealer_sides_open_bid() -> None:
    """Attacker seat 1 holds 2♥2♥, 大王 and ten hearts; the dealer side has bid 2♦2♦ in the open.

    The override would make hearts trump but hand the dealer side the kitty
    to bury against it, show the pair, and leave the dealer side free to
    override again; the baseline makes it.
    """
    hand = tuple(parse_cards("2H 2H BJ AH KH QH JH 10H 9H 7H 5H 4H AC KC QC 9C 3S 4S 6S 8S 9D 7D 6D 3D 4C"))
    view = _after_the_dealer_sides_bid(1, hand)
    r = RULESETS["nantong"]
    assert casual_action(view, r).kind == "bid"
    assert STRONG(view, r).kind == "pass"


def _stealing_view(preset: str, hand: tuple[Card, ...]) -> HandView:
    """Seat 1, an attacker, may steal the kitty the dealer (seat 0) buried after declaring ♦ with 2♦2♦ (level 2)."""
    return HandView(
        viewer=1, preset=preset, number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump="D", trump_known=True, my_bid_trump=None, hand=hand, hand_sizes=(25, 25, 25, 25),
        bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),), flipped=(), kitty=None,
        kitty_holder=0, to_act=(1,), turn=1, passed=(), current=(), tricks=(), trick_points=0, adjustments=(),
        threshold=80, result=None, escaped=None,
    )


def test_an_attacker_steals_whenever_the_steal_cannot_fail() -> None:
    """南通 (open bids): seat 1 holds 2♥2♥ and only two other hearts, and is long in the dealer's diamonds.

    Its hand is weaker under hearts than under diamonds, but the steal turns
    the dealer side's trump plain and gives the attackers the kitty, whose
    points then count for them alone: the steals the heuristics passed on
    beat passing by 0.3 to 5.3 积分 a decision, played out in the true deal.
    """
    hand = tuple(parse_cards("2H 2H 9H 4H AD KD QD JD 9D 8D 7D 6D 4D 3D AC 9C 7C 4C KS 9S 8S 6S 4S 3S JS"))
    action = STRONG(_stealing_view("nantong", hand), RULESETS["nantong"])
    assert action.kind == "steal" and sorted(action.cards) == sorted(parse_cards("2H 2H"))


def _overridden(overrider: int, dealer_side: int) -> HandView:
    """南通, level 2: seat 1 bid 2♥ alone, ``overrider`` overrode it with 2♠2♠; seat 1 holds the other 2♥ and a fair hand."""
    hand = tuple(parse_cards("2H 2H AH KH QH 9H 8H 6H 4H 3H AC KC 9C 7C 4C KD 8D 6D 3D 10S 9S 6S 4S 3S BJ"))
    return HandView(
        viewer=1, preset="nantong", number=2, phase="bidding", flag=False, level=2, levels=(2, 2),
        dealer=None, dealer_side=dealer_side, trump=None, trump_known=False, my_bid_trump="H", hand=hand,
        hand_sizes=(25, 25, 25, 25),
        bids=(BidView(1, "declare", tuple(parse_cards("2H")), "single", "H", False),
              BidView(overrider, "override", tuple(parse_cards("2S 2S")), "S2", "S", False)),
        flipped=(), kitty=None, kitty_holder=None, to_act=(0, 1, 2, 3), turn=None, passed=(), current=(),
        tricks=(), trick_points=0, adjustments=(), threshold=80, result=None, escaped=None,
    )


def test_looks_back_only_on_the_dealer_side_and_never_over_a_partner() -> None:
    """回头望 (re-bidding the overridden single as the pair on top) is kept for the dealer side over an opponent.

    An attacker's look-back over the dealer side did worse than passing
    (-3.6 积分 a decision in 南通), and one over a partner only moves trump
    within the side; the strong AI before this made both, as the baseline does.
    """
    r = RULESETS["nantong"]
    cases = {(0, 0): "pass", (3, 0): "pass", (0, 1): None, (3, 1): "pass"}  # (overrider, dealer side): seat 1 does
    for (overrider, dealer_side), expected in cases.items():
        view = _overridden(overrider, dealer_side)
        assert casual_action(view, r).kind == "bid"
        action = STRONG(view, r)
        if expected is None:
            assert action.kind == "bid" and sorted(action.cards) == sorted(parse_cards("2H 2H"))
        else:
            assert action.kind == expected, (overrider, dealer_side)


def test_an_attacker_does_not_bid_over_the_dealer_sides_hidden_bid() -> None:
    """安徽 (hidden bids): the dealer (seat 0) has bid, unseen; attacker seat 1 holds 2♥2♥, 大王 and ten hearts.

    The bidders are public under 暗炒: a bid over the dealer side's would
    hand it the kitty to bury against the new trump, as in open bidding.
    """
    hand = tuple(parse_cards("2H 2H BJ AH KH QH JH 10H 9H 7H 5H 4H AC KC QC 9C 3S 4S 6S 8S 9D 7D 6D 3D 4C"))
    view = HandView(
        viewer=1, preset="anhui", number=2, phase="bidding", flag=False, level=2, levels=(2, 2),
        dealer=None, dealer_side=0, trump=None, trump_known=False, my_bid_trump=None, hand=hand,
        hand_sizes=(25, 25, 25, 25), bids=(BidView(0, "declare", None, None, None, True),),
        flipped=(), kitty=None, kitty_holder=None, to_act=(0, 1, 2, 3), turn=None, passed=(), current=(),
        tricks=(), trick_points=0, adjustments=(), threshold=80, result=None, escaped=None,
    )
    r = RULESETS["anhui"]
    assert casual_action(view, r).kind == "bid"
    assert STRONG(view, r).kind == "pass"
