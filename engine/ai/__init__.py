"""The built-in AI player, and a random legal player to measure it against.

:func:`choose_action` picks an action for one seat from that seat's
:class:`engine.views.HandView` alone: it is never given the hand, so it
cannot look at hidden cards.  It fills empty seats and plays for a player
who timed out.  The ruleset is passed explicitly because a table may play a
modified preset; the trump context comes from it, the level and the trump as
the view shows them.

Every action it returns is one the engine accepts (the tests drive whole
hands of every preset to check this): bids and steals are checked by a
view-only mirror of the engine's bid rules (:mod:`engine.ai.bidding`),
every follow is built or checked by :func:`engine.follow.check_follow`,
and a lead is checked by :func:`engine.follow.check_lead`, falling back to
a single low card were it ever refused.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.cards import Card
from engine.combos import decompose
from engine.errors import IllegalActionError, IllegalPlayError
from engine.follow import check_lead
from engine.hand import Action
from engine.hints import cheapest_follow
from engine.ruleset import Ruleset
from engine.trump import TrumpContext
from engine.views import HandView

from engine.ai.bidding import bid_options, choose_bid, choose_steal
from engine.ai.burying import choose_bury
from engine.ai.memory import build_memory, context
from engine.ai.playing import choose_follow, choose_lead, power

__all__ = ["Player", "choose_action", "random_action"]

Player = Callable[[HandView, Ruleset, random.Random], Action]
"""Anything that picks an action from a seat's view: :func:`choose_action`, :func:`random_action`."""


def choose_action(view: HandView, ruleset: Ruleset, rng: random.Random | None = None) -> Action:
    """The AI's action for the viewing seat, from its view alone.

    In the bidding window it bids or passes; while burying it buries 8
    cards; in the steal rounds it steals or passes; in play it leads or
    follows.  ``rng`` is accepted for the common player signature; the AI
    itself is deterministic.  Raises :class:`IllegalActionError` if the seat
    has nothing to do now.
    """
    seat = _acting_seat(view)
    phase = view.phase
    if phase == "bidding":
        bid = choose_bid(view, ruleset)
        if bid is None:
            return Action("pass", seat)
        return Action("bid", seat, bid.cards, bid.choice)
    if phase == "burying":
        return Action("bury", seat, choose_bury(_bury_context(view, ruleset), view.hand))
    if phase == "stealing":
        steal = choose_steal(view, ruleset)
        if steal is None:
            return Action("pass_steal", seat)
        return Action("steal", seat, steal.cards, steal.choice)
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    if not view.current:
        dealer_side = view.dealer_side is not None and view.dealer_side == seat % 2
        cards = choose_lead(mem, dealer_side=dealer_side, heaven_and_earth=ruleset.heaven_and_earth != "none")
        return Action("play", seat, tuple(_legal_lead(ctx, view, cards)))
    # Every follow choose_follow returns has passed check_follow already (it is
    # built by cheapest_follow, which checks, or checked where it is built).
    return Action("play", seat, tuple(choose_follow(mem, view.current)))


def _acting_seat(view: HandView) -> int:
    seat = view.viewer
    if seat is None:
        raise IllegalActionError("A spectator's view cannot act.", code="not_your_turn")
    if view.phase == "bidding":
        return seat  # every seat may bid or pass while the window is open
    if view.phase not in ("burying", "stealing", "playing") or view.turn != seat:
        raise IllegalActionError("It is not this seat's turn.", code="not_your_turn")
    return seat


def _bury_context(view: HandView, ruleset: Ruleset) -> TrumpContext:
    """The trump to bury under: the known one, else the viewer's own bid's, else no-trump (only the fixed trumps)."""
    if view.trump_known:
        return context(ruleset, view.level, view.trump)
    own = any(b.seat == view.viewer for b in view.bids)
    return context(ruleset, view.level, view.my_bid_trump if own else None)


def _legal_lead(ctx: TrumpContext, view: HandView, cards: list[Card]) -> list[Card]:
    try:
        check_lead(ctx, view.hand, cards)
        return cards
    except IllegalPlayError:  # pragma: no cover - a guard; the tests see it never fire
        return [min(view.hand, key=lambda c: power(ctx, c))]


# --- the random player ---------------------------------------------------------------------

def random_action(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
    """A random legal action for the viewing seat (the yardstick the AI is measured against).

    It bids a random acceptable bid a quarter of the time, steals a tenth of
    the time, buries 8 random cards, leads a random component of a random
    suit-group (now and then a random throw, which may fail), and follows
    with the cheapest legal play under random prices.
    """
    seat = _acting_seat(view)
    phase = view.phase
    if phase == "bidding":
        options = bid_options(view, ruleset, steal=False)
        if options and rng.random() < 0.25:
            o = rng.choice(options)
            return Action("bid", seat, o.cards, o.choice)
        return Action("pass", seat)
    if phase == "burying":
        return Action("bury", seat, tuple(rng.sample(list(view.hand), 8)))
    if phase == "stealing":
        options = bid_options(view, ruleset, steal=True)
        if options and rng.random() < 0.1:
            o = rng.choice(options)
            return Action("steal", seat, o.cards, o.choice)
        return Action("pass_steal", seat)
    ctx = context(ruleset, view.level, view.trump)
    hand = list(view.hand)
    if not view.current:
        groups: dict[str, list[Card]] = {}
        for c in hand:
            groups.setdefault(ctx.group(c), []).append(c)
        cards = groups[rng.choice(sorted(groups))]
        comps = decompose(ctx, cards)
        if len(comps) >= 2 and rng.random() < 0.1:
            picked = rng.sample(comps, rng.randint(2, len(comps)))
        else:
            picked = [rng.choice(comps)]
        return Action("play", seat, tuple(c for comp in picked for c in comp.cards))
    prices = {c: rng.random() for c in dict.fromkeys(hand)}  # not a set: its order follows addresses
    play = cheapest_follow(ctx, view.current[0][1], hand, prices.__getitem__)
    return Action("play", seat, tuple(play))
