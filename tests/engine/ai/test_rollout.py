"""The rollouts' fast paths: the light hand state (engine.ai.rollout.Rollout) plays and scores as a checked Hand does;
a suit's low leads remembered are those worked out; a led single or pair is followed as the general follow chooses;
the prices held per card are those written."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import _rollout_policy, heuristic_action, random_action
from engine.ai.following import follow_candidates, single_choice
from engine.ai.leading import _low_leads, _low_leads_of
from engine.ai.memory import build_memory, context
from engine.ai.pair_follow import pair_choice
from engine.ai.playing import candidates
from engine.ai.prices import discard_cost, feed_cost, power
from engine.ai.rollout import Rollout
from engine.ai.search import rollout_value, sample_world, world_hand
from engine.cards import ALL_CARDS, DECK
from engine.hand import Action, Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import actions
from engine.trump import TRUMP
from engine.views import view_for

PRESETS = sorted(RULESETS)


def _random_until(preset: str, seed: int, level: int, plays: int) -> Hand | None:
    """A hand of random legal players (odd bids, steals, failed throws) ``plays`` card plays into its play phase."""
    hand = Hand(HandSetup(RULESETS[preset], seed, 2, (level, level), seed % 2, seed % 2))
    done = 0
    for action in actions(hand, [random_action] * 4, random.Random(seed)):
        if hand.phase == "playing":
            if done == plays:
                return hand
            done += 1
        hand.apply(action)
    return None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), level=st.integers(2, 14),
       plays=st.integers(0, 99), world=st.integers(0, 2**32))
def test_a_rollout_plays_and_scores_as_a_checked_hand(preset: str, seed: int, level: int, plays: int,
                                                      world: int) -> None:
    """From a random position and a sampled world, each searched play (the candidates, and a random legal play, which
    may be a failed throw) played out on a copy of the light state ends as the hand played out through Hand.apply by
    the heuristic player from its views: the same value, and the same result but the notices a Hand tells."""
    hand = _random_until(preset, seed, level, plays)
    if hand is None:
        return
    ruleset = hand.ruleset
    seat = hand.turn
    assert seat is not None
    view = view_for(hand, seat)
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    dealt = sample_world(view, mem, random.Random(world))
    assert dealt is not None
    firsts = [tuple(c) for c in candidates(mem, view.current, view.dealer_side, ruleset)]
    firsts.append(random_action(view, ruleset, random.Random(world)).cards)
    start = Rollout(view, ruleset, ctx, *dealt)  # each play from a copy of it, as the search plays them
    for cards in firsts:
        light = start.copy()
        light.play_first(seat, cards)
        full = world_hand(view, ruleset, ctx, *dealt)
        full.apply(Action("play", seat, cards))
        assert rollout_value(light, seat) == rollout_value(full, seat, _rollout_policy, checked=True)
        assert full.result is not None
        assert light.result == replace(full.result, notices=(), bids=())


def test_a_rollout_from_the_true_cards_ends_as_the_real_hand() -> None:
    """Played out from the real hands (no searched play first), the light state ends as the real hand does."""
    for preset in PRESETS:
        hand = _random_until(preset, 5, 7, 30)
        assert hand is not None
        seat = hand.turn
        assert seat is not None
        view = view_for(hand, seat)
        light = Rollout(view, hand.ruleset, hand.ctx, hand.hands, hand.kitty)
        value = rollout_value(light, seat)
        assert value == rollout_value(hand, seat, _rollout_policy, checked=True)
        assert hand.result is not None and light.result == replace(hand.result, notices=(), bids=())


@settings(max_examples=200, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), level=st.integers(2, 14),
       trump=st.sampled_from(["S", "H", "D", "C", None]), size=st.integers(1, 12))
def test_a_suits_low_leads_are_remembered_as_worked_out(preset: str, seed: int, level: int, trump: str | None,
                                                         size: int) -> None:
    """The low leads of a plain suit's cards, remembered across leads, are those worked out afresh, each a new list."""
    ctx = context(RULESETS[preset], level, trump)
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    plain = [c for c in deck if ctx.group(c) != TRUMP]
    suit = ctx.group(plain[0])
    cards = [c for c in plain if ctx.group(c) == suit][:size]
    fresh = [(score, list(play)) for score, play in _low_leads_of(ctx, cards)]
    first = _low_leads(ctx, cards)
    assert first == fresh
    for _score, play in first:
        play.append(cards[0])  # a caller's list is its own
    assert _low_leads(ctx, list(cards)) == fresh


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), level=st.integers(2, 14),
       mix=st.integers(0, 15))
def test_a_single_or_a_pair_led_is_followed_as_the_general_follow_chooses(preset: str, seed: int, level: int,
                                                                           mix: int) -> None:
    """At every follow to a led single or pair of a hand (random and heuristic seats: ruffs, over-ruffs, odd follows),
    the single's or the pair's choice is the general follow's first candidate."""
    ruleset = RULESETS[preset]
    hand = Hand(HandSetup(ruleset, seed, 2, (level, level), seed % 2, seed % 2))
    players = [random_action if mix >> s & 1 else (lambda v, r, _g: heuristic_action(v, r)) for s in range(4)]
    for action in actions(hand, players, random.Random(seed)):
        current = hand.current
        if hand.phase == "playing" and current and len(current[0][1]) <= 2 and current[0][1][0] is current[0][1][-1]:
            assert action.seat is not None
            view = view_for(hand, action.seat)
            mem = build_memory(view, context(ruleset, view.level, view.trump))
            choice = single_choice if len(current[0][1]) == 1 else pair_choice
            assert choice(mem, view.current) == follow_candidates(mem, view.current, 4)[0]
        hand.apply(action)
    assert hand.over


@pytest.mark.parametrize("preset", PRESETS)
def test_the_prices_held_per_card_are_the_prices_written(preset: str) -> None:
    """discard_cost and feed_cost read their prices from tables worked out once a context: those of the formulas."""
    for level, trump in ((5, "H"), (11, "S"), (14, None)):
        ctx = context(RULESETS[preset], level, trump)
        for copies in (1, 2):
            counts = dict.fromkeys(ALL_CARDS, copies)
            discard, feed = discard_cost(ctx, counts), feed_cost(ctx, counts)
            for c in ALL_CARDS:
                assert discard(c) == power(ctx, c) + 4.0 * c.points + (6.0 if copies == 2 else 0.0)
                assert feed(c) == power(ctx, c) - 4.5 * c.points + (6.0 if copies == 2 and not c.points else 0.0)
