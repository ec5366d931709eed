"""Today's AI, frozen: the 「轻松」 (casual) player, and the yardstick the strong player is measured against.

A copy of the built-in AI as it stood before the strong player (issue 14),
kept unchanged so that ``python -m engine.selfplay --vs-baseline`` can rerun
the comparison.  It decides from a seat's :class:`engine.views.HandView`
alone, like the strong player; only the engine's shared modules are
imported, never the strong player's.
"""

from __future__ import annotations

import random

from engine.ai.baseline.bidding import choose_bid, choose_steal
from engine.ai.baseline.burying import choose_bury
from engine.ai.baseline.memory import build_memory, context
from engine.ai.baseline.playing import choose_follow, choose_lead, power
from engine.cards import Card
from engine.errors import IllegalActionError, IllegalPlayError
from engine.follow import check_lead
from engine.hand import Action
from engine.ruleset import Ruleset
from engine.trump import TrumpContext
from engine.views import HandView

__all__ = ["choose_action"]


def choose_action(view: HandView, ruleset: Ruleset, rng: random.Random | None = None) -> Action:
    """The casual (baseline) AI's action for the viewing seat, from its view alone.

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
