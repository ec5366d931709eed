"""The engine's fast paths (issue 56) against the general code they stand in for, on drawn positions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai.search import weighted_pick
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


@given(st.lists(st.one_of(st.integers(1, 27), st.floats(0.001, 30.0)), min_size=1, max_size=5),
       st.integers(0, 2**32))
def test_a_weighted_pick_is_random_choices_pick(weights: list[float], seed: int) -> None:
    population = list(range(-1, len(weights) - 1))  # the kitty (-1) and the seats, as a sampled deal has them
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(5):
        assert weighted_pick(ours, population, weights) == theirs.choices(population, weights)[0]
    assert ours.random() == theirs.random()  # one draw a pick, as choices makes
