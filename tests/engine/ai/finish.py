"""Playing a position out for the AI's scenario tests (not a test module)."""

from __future__ import annotations

from engine.ai import casual_action
from engine.hand import Action, Hand
from engine.views import view_for


def finish_casually(hand: Hand, action: Action) -> Hand:
    """``hand`` after ``action``, played to its end by the casual (baseline) player on every seat."""
    hand.apply(action)
    while not hand.over:
        turn = hand.turn
        assert turn is not None
        hand.apply(casual_action(view_for(hand, turn), hand.ruleset))
    return hand
