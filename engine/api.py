"""The engine's stable entry points for judging plays.

Each takes the ruleset, the level rank as a string (``"2"`` … ``"A"``, or
None in the flag hand) and the trump suit (``"S" "H" "D" "C"``, or None for
no-trump).  Cards may be given as lists of :class:`Card` or as notation
strings.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, parse_cards
from engine.combos import classify
from engine.combos import is_tractor as _is_tractor
from engine.errors import IllegalPlayError
from engine.follow import is_legal_follow as _is_legal_follow
from engine.ruleset import Ruleset
from engine.scoring import kitty_multiplier_in
from engine.throws import judge_throw
from engine.tricks import trick_winner_in
from engine.trump import TrumpContext, parse_level, parse_trump, trump_context

Cards = Sequence[Card] | str


def _cards(cards: Cards) -> list[Card]:
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


def context(ruleset: Ruleset, level: str | int | None, trump: str | None) -> TrumpContext:
    """The trump context for a level rank (string or ordinal) and a trump suit."""
    return trump_context(ruleset, parse_level(level), parse_trump(trump))


def trick_winner(ruleset: Ruleset, level: str | None, trump: str | None, plays: Sequence[Cards]) -> int:
    """Index of the winning play of a trick, the lead first; plays are assumed legal."""
    return trick_winner_in(context(ruleset, level, trump), [_cards(p) for p in plays])


def is_legal_follow(ruleset: Ruleset, level: str | None, trump: str | None,
                    lead: Cards, hand: Cards, play: Cards) -> bool:
    """May a player holding ``hand`` (which includes ``play``) answer ``lead`` with ``play``?"""
    return _is_legal_follow(context(ruleset, level, trump), _cards(lead), _cards(hand), _cards(play))


def is_tractor(ruleset: Ruleset, level: str | None, trump: str | None, cards: Cards) -> bool:
    """True if the cards are exactly one tractor under this ruleset, level and trump."""
    return _is_tractor(context(ruleset, level, trump), _cards(cards))


def resolve_throw(ruleset: Ruleset, level: str | None, trump: str | None,
                  throw: Cards, other_hands: Sequence[Cards]) -> list[Card]:
    """The cards a lead actually plays: the whole throw if valid, else its forced component."""
    ctx = context(ruleset, level, trump)
    cards = _cards(throw)
    shape = classify(ctx, cards)
    if shape is None:
        raise IllegalPlayError("A throw must be all of one suit, or all trumps.", code="lead_mixed_suits")
    return list(judge_throw(ctx, shape, [_cards(h) for h in other_hands]).played)


def kitty_multiplier(ruleset: Ruleset, level: str | None, trump: str | None,
                     lead: Cards, winning_play: Cards) -> int:
    """The kitty-capture multiplier for a last trick with this lead and winning play."""
    ctx = context(ruleset, level, trump)
    shape = classify(ctx, _cards(lead))
    if shape is None:
        raise IllegalPlayError("The lead must be all of one suit, or all trumps.", code="lead_mixed_suits")
    return kitty_multiplier_in(ctx, shape, _cards(winning_play))
