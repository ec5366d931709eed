"""The engine's fast paths (issue 56) against the general code they stand in for, on drawn positions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import ALL_CARDS, DECK, Card
from engine.errors import EngineError
from engine.follow import _check_follow, check_follow
from engine.trump import trump_context
from tests.engine._util import PRESETS, R

contexts = st.builds(
    lambda name, level, trump: trump_context(R(name), level, trump),
    st.sampled_from(PRESETS), st.integers(2, 14), st.sampled_from(("S", "H", "D", "C", None)),
)


def _verdict(check: object, *args: object) -> tuple[str, str] | None:
    """None if the check passes, else its error's type and code."""
    try:
        check(*args)  # type: ignore[operator]
    except EngineError as error:
        return type(error).__name__, getattr(error, "code", "")
    return None


@settings(max_examples=300, deadline=None)
@given(contexts, st.randoms(use_true_random=False), st.integers(1, 25), st.booleans())
def test_a_single_follows_check_is_the_general_checks(ctx: object, rng: random.Random, size: int,
                                                      held: bool) -> None:
    deck = list(DECK)
    rng.shuffle(deck)
    hand = deck[:size]
    lead = (rng.choice(ALL_CARDS),)
    # A card of the hand, or now and then one it does not hold.
    play: tuple[Card, ...] = (rng.choice(hand),) if held or rng.random() < 0.8 else (rng.choice(ALL_CARDS),)
    assert _verdict(check_follow, ctx, lead, hand, play) == _verdict(_check_follow, ctx, lead, hand, play, False)
    if play[0] in hand:
        assert _verdict(lambda *a: check_follow(*a, held=True), ctx, lead, hand, play) == \
            _verdict(_check_follow, ctx, lead, hand, play, True)
