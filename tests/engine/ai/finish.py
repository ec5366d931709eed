"""Reaching a position and playing it out for the AI's scenario tests (not a test module)."""

from __future__ import annotations

from engine.ai import casual_action
from engine.hand import Action, Hand
from engine.views import view_for


def casual_until(hand: Hand, events: int) -> Hand:
    """Play a hand with four casual seats (bids asked seat by seat from seat 0) until ``events`` actions."""
    while len(hand.events) < events:
        if hand.phase == "bidding":
            for seat in range(4):
                if hand.phase == "bidding" and seat not in hand.passed:
                    hand.apply(casual_action(view_for(hand, seat), hand.ruleset))
            continue
        turn = hand.turn
        assert turn is not None
        hand.apply(casual_action(view_for(hand, turn), hand.ruleset))
    return hand


def finish_casually(hand: Hand, action: Action) -> Hand:
    """``hand`` after ``action``, played to its end by the casual (baseline) player on every seat."""
    hand.apply(action)
    while not hand.over:
        turn = hand.turn
        assert turn is not None
        hand.apply(casual_action(view_for(hand, turn), hand.ruleset))
    return hand
