"""Regression: under 安徽's hidden bidding a single never overrides (A41), though it is accepted unseen."""

from __future__ import annotations

from engine.cards import Card
from engine.hand import Hand, HandSetup
from engine.ruleset import RULESETS


def test_a_later_single_does_not_take_the_bid() -> None:
    hand = Hand(HandSetup(RULESETS["anhui"], 0, 2, (6, 6), 0, 0))
    # Give the seats the cards this test needs (the deal itself does not matter here).
    spade, heart = Card(6, "S"), Card(6, "H")
    for seat in range(4):
        hand.hands[seat] = [c for c in hand.hands[seat] if c.rank != 6]
    hand.hands[0] += [spade, spade]
    hand.hands[1] += [heart]
    hand.bid(0, [spade, spade])
    hand.bid(1, [heart])  # accepted: refusing it would tell the bidder something
    assert hand.standing is not None and hand.standing.seat == 0
    for seat in (2, 3, 0, 1):
        if hand.phase == "bidding":
            hand.pass_bid(seat)
    assert hand.trump == "S" and hand.dealer == 0


def test_a_later_pair_still_takes_the_bid() -> None:
    hand = Hand(HandSetup(RULESETS["anhui"], 0, 2, (6, 6), 0, 0))
    club, diamond = Card(6, "C"), Card(6, "D")
    for seat in range(4):
        hand.hands[seat] = [c for c in hand.hands[seat] if c.rank != 6]
    hand.hands[0] += [club]
    hand.hands[1] += [diamond, diamond]
    hand.bid(0, [club])
    hand.bid(1, [diamond, diamond])
    assert hand.standing is not None and hand.standing.seat == 1
