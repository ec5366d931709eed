"""The engine's fast paths (issue 56) against the general code they stand in for, on drawn positions."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import random_action
from engine.ai.drawing import dealing_order, weighted_pick
from engine.ai.random_play import _random_bid, cheapest_single, random_prices
from engine.bidding import needs_choice, read_step
from engine.cards import ALL_CARDS, DECK, SUITS, Card
from engine.combos import (
    _SPLITS,
    Component,
    _classify,
    _longest_run,
    _run_top,
    classify,
    decompose,
    split,
    tractors_in,
)
from engine.counting import copies, has, holds, remove_cards
from engine.errors import CardsNotHeldError, EngineError
from engine.follow import _check_follow, check_follow
from engine.hand import Action, Hand, HandSetup
from engine.legal_bids import BidOption, accepted_bid, bid_card_sets, bid_options
from engine.ruleset import RULESETS, Ruleset
from engine.selfplay import actions
from engine.trump import TrumpContext, trump_context
from engine.views import _BIDS_SEEN, _PASSED_SEEN, HandView, view_for
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


@settings(max_examples=500, deadline=None)
@given(contexts, st.randoms(use_true_random=False), st.integers(2, 25), st.booleans())
def test_a_pair_follows_check_is_the_general_checks(ctx: TrumpContext, rng: random.Random, size: int,
                                                    held: bool) -> None:
    deck = list(DECK)
    rng.shuffle(deck)
    hand = deck[:size]
    pairs = [c for c, n in Counter(hand).items() if n >= 2]
    card = rng.choice(ALL_CARDS)
    lead = (card, card)
    # Two cards of the hand (a pair of it now and then), or now and then cards it does not hold.
    if pairs and rng.random() < 0.3:
        pair = rng.choice(pairs)
        play: tuple[Card, ...] = (pair, pair)
    elif held or rng.random() < 0.8:
        play = tuple(rng.sample(hand, 2))
    else:
        play = (rng.choice(hand), rng.choice(ALL_CARDS))
    assert _verdict(check_follow, ctx, lead, hand, play) == _verdict(_check_follow, ctx, lead, hand, play, False)
    if all(hand.count(c) >= play.count(c) for c in play):
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


def _bid_views(preset: str, seed: int) -> list[HandView]:
    """Every view a random legal player was asked to bid or steal from in one hand (hidden or open bidding)."""
    hand = Hand(HandSetup(RULESETS[preset], seed, 2, (seed % 13 + 2,) * 2, seed % 2, seed % 2))
    views = []
    for action in actions(hand, [random_action] * 4, random.Random(seed)):
        if hand.phase in ("bidding", "stealing") and action.seat is not None:
            views.append(view_for(hand, action.seat))
        hand.apply(action)
    return views


def _each_option_alone(view: HandView, ruleset: Ruleset, steal: bool) -> list[BidOption]:
    """bid_options as it was written: every card set and trump choice judged on its own by accepted_bid."""
    out = []
    for cards in bid_card_sets(ruleset, view.level, view.hand):
        step = read_step(ruleset, view.level, cards)
        choices: tuple[str | None, ...] = (None,)
        if needs_choice(ruleset, step):
            choices = SUITS if step == "BJ2" else (*SUITS, None)
        out += [o for choice in choices if (o := accepted_bid(view, ruleset, cards, choice, steal=steal))]
    return out


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 2**32))
def test_bid_options_and_the_random_bid_are_those_judged_one_by_one(preset: str, seed: int) -> None:
    ruleset = RULESETS[preset]
    for view in _bid_views(preset, seed):
        steal = view.phase == "stealing"
        options = _each_option_alone(view, ruleset, steal)
        assert bid_options(view, ruleset, steal=steal) == options
        ours, theirs = random.Random(seed), random.Random(seed)
        picked = options and theirs.random() < 0.25 and theirs.choice(options) or None
        assert _random_bid(view, ruleset, ours, steal=steal, odds=0.25) == picked
        assert ours.random() == theirs.random()  # the same draws


def _split_as_written(ctx: TrumpContext, seq: list[Card]) -> list[Component]:
    """decompose as it was written: each component built afresh, sorted by the negated order."""
    if len(seq) == 1:
        return [Component("single", (seq[0],), ctx.order(seq[0]))]
    counts: dict[Card, int] = {}
    for c in seq:
        counts[c] = counts.get(c, 0) + 1
    pair_cards = [c for c, n in counts.items() if n >= 2]
    comps: list[Component] = []
    for run, top in tractors_in(ctx, pair_cards) if len(pair_cards) >= 2 else ():
        comps.append(Component("tractor", tuple(c for c in run for _ in (0, 1)), top))
        for c in run:
            counts[c] -= 2
    for card in sorted((c for c, n in counts.items() if n >= 2), key=lambda c: -ctx.order(c)):
        comps.append(Component("pair", (card, card), ctx.order(card)))
        counts[card] -= 2
    singles = sorted((c for c, n in counts.items() for _ in range(n)), key=lambda c: -ctx.order(c))
    return comps + [Component("single", (c,), ctx.order(c)) for c in singles]


@settings(max_examples=300, deadline=None)
@given(contexts, st.randoms(use_true_random=False), st.integers(1, 16))
def test_a_split_is_the_split_as_written(ctx: TrumpContext, rng: random.Random, size: int) -> None:
    deck = list(DECK)
    rng.shuffle(deck)
    group = ctx.group(deck[0])
    cards = [c for c in deck if ctx.group(c) == group][:size]  # one group, in a random order (copies now and then)
    _SPLITS.clear()
    assert decompose(ctx, cards) == _split_as_written(ctx, cards)
    assert split(ctx, cards) == _split_as_written(ctx, cards)  # the same, not kept


@settings(max_examples=300, deadline=None)
@given(contexts, contexts, st.sampled_from(ALL_CARDS))
def test_a_singles_shape_is_the_shape_worked_out_in_its_context(ctx: TrumpContext, other: TrumpContext,
                                                                 card: Card) -> None:
    classify(other, [card])  # the table of singles' shapes filled from another context first
    assert classify(ctx, [card]) == _classify(ctx, (card,))


@given(st.lists(st.sampled_from(ALL_CARDS), max_size=30), st.lists(st.sampled_from(ALL_CARDS), max_size=6))
def test_cards_found_by_identity_are_those_the_list_methods_find(hand: list[Card], asked: list[Card]) -> None:
    for card in asked:
        assert has(hand, card) == (card in hand) and copies(hand, card) == hand.count(card)
    assert holds(hand, asked) == all(hand.count(c) >= asked.count(c) for c in asked)
    rest, missing = list(hand), []
    for card in asked:
        if card in rest:
            rest.remove(card)
        else:
            missing.append(card)
    if missing:
        with pytest.raises(CardsNotHeldError):
            remove_cards(hand, asked)
    else:
        assert remove_cards(hand, asked) == rest


def _tractors_as_written(ctx: TrumpContext, pair_cards: list[Card]) -> list[tuple[list[Card], int]]:
    """tractors_in as it was written: no look first for two pairs side by side."""
    remaining = sorted(set(pair_cards), key=lambda c: (-ctx.order(c), c.sort_key))
    out: list[tuple[list[Card], int]] = []
    while len(remaining) >= 2:
        run = _longest_run(ctx, remaining)
        if len(run) < 2:
            break
        out.append((run, _run_top(ctx, run)))
        taken = set(run)
        remaining = [c for c in remaining if c not in taken]
    return out


@settings(max_examples=300, deadline=None)
@given(contexts, st.lists(st.sampled_from(ALL_CARDS), max_size=14))
def test_tractors_are_the_tractors_as_written(ctx: TrumpContext, pair_cards: list[Card]) -> None:
    assert tractors_in(ctx, pair_cards) == _tractors_as_written(ctx, pair_cards)


def _thief(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
    """A random legal player who steals the kitty whenever it can (kitties passed on, and on again)."""
    if view.phase == "stealing" and view.viewer is not None:
        options = bid_options(view, ruleset, steal=True)
        if options:
            option = rng.choice(options)
            return Action("steal", view.viewer, option.cards, option.choice)
    return random_action(view, ruleset, rng)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 2**32))
def test_views_built_with_the_bids_and_buries_kept_are_views_built_afresh(preset: str, seed: int) -> None:
    """Every seat's and the spectator's view at every decision of a random hand (steals and hidden bids among
    them), the views kept per viewer in play as views/_BIDS_SEEN and _PASSED_SEEN keep them, against the same
    views with nothing kept."""
    hand = Hand(HandSetup(RULESETS[preset], seed, 2, (seed % 13 + 2,) * 2, seed % 2, seed % 2))
    for action in actions(hand, [_thief] * 4, random.Random(seed)):
        kept = [view_for(hand, viewer) for viewer in (0, 1, 2, 3, None)]  # from what the last decision's views kept
        _BIDS_SEEN.clear()
        _PASSED_SEEN.clear()
        assert kept == [view_for(hand, viewer) for viewer in (0, 1, 2, 3, None)]
        hand.apply(action)


@given(st.randoms(use_true_random=False), st.integers(0, 40), st.integers(0, 3))
def test_a_deals_order_is_the_sort_by_bound_and_voids(rng: random.Random, size: int, bound: int) -> None:
    cards = rng.sample(list(DECK), size)
    void_seats = {c: rng.randint(0, 3) for c in ALL_CARDS}
    musts = [(Counter({c: rng.randint(0, 2) for c in rng.sample(list(ALL_CARDS), 5)}), [1, 2]) for _ in range(bound)]
    written = sorted(cards, key=lambda c: (any(m[c] > 0 for m, _s in musts), void_seats[c]), reverse=True)
    assert dealing_order(cards, musts, void_seats) == written


@settings(max_examples=300, deadline=None)
@given(contexts, st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=27), st.sampled_from(ALL_CARDS),
       st.integers(0, 2**32))
def test_the_random_players_single_follow_is_the_cheapest_under_its_prices(ctx: TrumpContext, hand: list[Card],
                                                                          led: Card, seed: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    prices = random_prices(hand, theirs)
    group = ctx.group(led)
    assert cheapest_single(ctx, group, hand, ours) == \
        min([c for c in hand if ctx.group(c) == group] or hand, key=prices.__getitem__)
    assert ours.random() == theirs.random()  # the same draws


@given(st.lists(st.sampled_from(ALL_CARDS), max_size=27), st.integers(0, 2**32))
def test_the_random_players_prices_are_drawn_as_a_loop_draws_them(hand: list[Card], seed: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    prices = random_prices(hand, ours)  # as random_action draws them
    assert list(prices.items()) == [(c, theirs.random()) for c in dict.fromkeys(hand)]
    assert ours.random() == theirs.random()  # no draw beyond the cards
