"""The random legal player (:func:`random_action`), the yardstick the AI is measured against, and the seat a
view acts for.

Kept apart from :mod:`engine.ai` so that the optional compiled build (``setup.py``) compiles it: the random
player decides at every decision of the speed bench's self-play.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai.memory import context
from engine.cards import Card
from engine.combos import split
from engine.errors import IllegalActionError
from engine.frozen import builder
from engine.hand import Action
from engine.hints import cheapest_follow
from engine.legal_bids import BidOption, each_bid_option
from engine.ruleset import Ruleset
from engine.trump import TrumpContext
from engine.views import HandView


def acting_seat(view: HandView) -> int:
    """The seat ``view`` acts for, or raise :class:`IllegalActionError` (``not_your_turn``) if it may not act now."""
    seat = view.viewer
    if seat is None:
        raise IllegalActionError("A spectator's view cannot act.", code="not_your_turn")
    if view.phase == "bidding":
        return seat  # every seat may bid or pass while the window is open
    if view.phase not in ("burying", "stealing", "playing") or view.turn != seat:
        raise IllegalActionError("It is not this seat's turn.", code="not_your_turn")
    return seat


_ACTION = builder(Action)
"""An :class:`Action` from all its fields (the random player builds one at every decision)."""


def _random_bid(view: HandView, ruleset: Ruleset, rng: random.Random, *, steal: bool, odds: float) -> BidOption | None:
    """With these odds, if the engine would accept any bid, one of them at random: the draws of
    ``options = bid_options(...); if options and rng.random() < odds: rng.choice(options)``, the options beyond
    the first worked out only for a bid."""
    found = each_bid_option(view, ruleset, steal=steal)
    first = next(found, None)
    if first is None or rng.random() >= odds:
        return None
    return rng.choice([first, *found])


def random_prices(hand: Sequence[Card], rng: random.Random) -> dict[Card, float]:
    """A random price for each distinct card of ``hand``, drawn in the hand's order (not a set's: its order
    follows addresses), one draw a card."""
    prices = dict.fromkeys(hand, 0.0)
    draw = rng.random
    for card in prices:  # the values replaced, the keys kept: the dict may change so while it is walked
        prices[card] = draw()
    return prices


def cheapest_single(ctx: TrumpContext, led: str, hand: Sequence[Card], rng: random.Random) -> Card:
    """The follow to a single of group ``led`` that :func:`engine.hints.cheapest_follow` builds under
    :func:`random_prices` (the cheapest card of the group, else of the hand), found as the prices are drawn."""
    group = ctx.group
    draw = rng.random
    cheapest: Card | None = None
    price = 2.0
    fallback = hand[0]
    lowest = 2.0
    for card in dict.fromkeys(hand):
        drawn = draw()
        if drawn < lowest:  # the cheapest of the hand, should it hold none of the group
            fallback, lowest = card, drawn
        if drawn < price and group(card) == led:
            cheapest, price = card, drawn
    return fallback if cheapest is None else cheapest


def random_action(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
    """A random legal action for the viewing seat (the yardstick the AI is measured against).

    It bids a random acceptable bid a quarter of the time, steals a tenth of
    the time, buries 8 random cards, leads a random component of a random
    suit-group (now and then a random throw, which may fail), and follows
    with the cheapest legal play under random prices.
    """
    seat = acting_seat(view)
    phase = view.phase
    if phase == "bidding":
        o = _random_bid(view, ruleset, rng, steal=False, odds=0.25)
        return Action("pass", seat) if o is None else Action("bid", seat, o.cards, o.choice)
    if phase == "burying":
        return Action("bury", seat, tuple(rng.sample(list(view.hand), 8)))
    if phase == "stealing":
        o = _random_bid(view, ruleset, rng, steal=True, odds=0.1)
        return Action("pass_steal", seat) if o is None else Action("steal", seat, o.cards, o.choice)
    ctx = context(ruleset, view.level, view.trump)
    hand = view.hand
    group = ctx.group
    current = view.current
    if not current:
        # A random suit-group (their names sorted), and its cards in the hand's order.
        chosen = rng.choice(sorted(set(map(group, hand))))
        comps = split(ctx, [c for c in hand if group(c) == chosen])
        if len(comps) >= 2 and rng.random() < 0.1:
            picked = rng.sample(comps, rng.randint(2, len(comps)))
            return _ACTION("play", seat, tuple(c for comp in picked for c in comp.cards), None)
        return _ACTION("play", seat, rng.choice(comps).cards, None)
    lead = current[0][1]
    if len(lead) == 1:  # a single (most follows): cheapest_follow's own first case, as the prices are drawn
        return _ACTION("play", seat, (cheapest_single(ctx, group(lead[0]), hand, rng),), None)
    return _ACTION("play", seat, tuple(cheapest_follow(ctx, lead, hand, random_prices(hand, rng).__getitem__)), None)
