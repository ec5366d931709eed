"""The strong player's candidate plays, from a seat's :class:`engine.ai.memory.Memory` and the trick so far.

Shared by the player itself (:func:`engine.ai.heuristic_action`, from a
view) and by the search's rollouts (:func:`engine.ai.search.rollout_value`,
which keeps each seat's memory up to date play by play instead of building
a view and a memory for every decision).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.following import every_play, follow_candidates, single_choice
from engine.ai.leading import lead_candidates
from engine.ai.memory import Memory
from engine.ai.pair_follow import pair_choice
from engine.ai.prices import distinct, power
from engine.cards import Card
from engine.errors import IllegalPlayError
from engine.follow import check_lead
from engine.ruleset import Ruleset
from engine.trump import TrumpContext

CANDIDATES = 4
"""Plays compared by a search at most, before the end of the hand (see :data:`ENDGAME_HAND`)."""

ENDGAME_HAND = 5
"""From this many cards in hand down, a search compares every play (up to :data:`ENDGAME_CANDIDATES`)."""

ENDGAME_CANDIDATES = 8
"""Plays an end-of-hand search compares at most (beyond it, the heuristic's few)."""

Current = Sequence[tuple[int, Sequence[Card]]]
"""The trick so far: (seat, cards) in play order."""


def candidates(mem: Memory, current: Current, dealer_side: int | None, ruleset: Ruleset,
               limit: int = CANDIDATES) -> list[list[Card]]:
    """The plays worth searching for the memory's seat, the heuristic's choice first; every one legal.

    ``dealer_side`` is the hand's dealer side (None before it is known).
    """
    ctx = mem.ctx
    if current:
        # Every follow here is built by cheapest_follow (which checks) or checked where it is built.
        lead = current[0][1]
        if limit == 1 and len(lead) == 1:
            return [single_choice(mem, current)]  # a single led (the rollouts' commonest decision)
        if limit == 1 and len(lead) == 2 and lead[0] is lead[1]:
            return [pair_choice(mem, current)]  # a pair led (the commonest follow after a single's)
        out = follow_candidates(mem, current, limit)
    else:
        leads = lead_candidates(mem, dealer_side=dealer_side is not None and dealer_side == mem.seat % 2,
                                heaven_and_earth=ruleset.heaven_and_earth != "none", limit=limit)
        out = [cards for cards in leads if _lead_ok(ctx, mem.hand, cards)] or [_legal_lead(ctx, mem.hand, leads[0])]
    if limit > 1 and len(mem.hand) <= ENDGAME_HAND:
        # The last tricks decide the kitty: compare every play when there are few (each checked by the engine's rules).
        rest = every_play(mem, current, ENDGAME_CANDIDATES)
        if rest is not None:
            out = distinct(out + rest)[:ENDGAME_CANDIDATES]
    return out


def _lead_ok(ctx: TrumpContext, hand: Sequence[Card], cards: list[Card]) -> bool:
    try:
        check_lead(ctx, hand, cards)
        return True
    except IllegalPlayError:  # pragma: no cover - a guard; the tests see it never fire
        return False


def _legal_lead(ctx: TrumpContext, hand: Sequence[Card], cards: list[Card]) -> list[Card]:
    try:
        check_lead(ctx, hand, cards)
        return cards
    except IllegalPlayError:  # pragma: no cover - a guard; the tests see it never fire
        return [min(hand, key=lambda c: power(ctx, c))]
