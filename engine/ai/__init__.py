"""The built-in AI players, and a random legal player to measure them against.

Two strengths, both deciding for one seat from that seat's
:class:`engine.views.HandView` alone (never the hand, so never a hidden card):

* 「轻松」 casual: :func:`casual_action`, today's heuristic player, frozen in
  :mod:`engine.ai.baseline` so that the comparison can be rerun.
* 「高手」 strong (the default): :class:`StrongPlayer`.  It bids, buries and
  steals with improved heuristics, and chooses each play by determinized
  search (:mod:`engine.ai.search`): a few candidate plays from the heuristic
  player (with five cards or fewer left, every play, up to eight) are played
  out in sampled deals of the unseen cards, and the best on average is played.

The ruleset is passed explicitly because a table may play a modified preset;
the trump context comes from it, the level and the trump as the view shows
them.  Every action either returns is one the engine accepts (the tests
drive whole hands of every preset to check this): bids and steals are
chosen among those the engine says it would accept from the view
(:mod:`engine.legal_bids`, the hand's own bid rule), every follow is built or checked by
:func:`engine.follow.check_follow`, and a lead by
:func:`engine.follow.check_lead`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Literal

from engine.ai import playing, rollout
from engine.ai.baseline import choose_action as casual_action
from engine.ai.bidding import choose_bid, choose_steal
from engine.ai.burying import choose_bury
from engine.ai.dominance import prune_follows, prune_leads
from engine.ai.memory import Memory, build_memory, context
from engine.ai.playing import CANDIDATES
from engine.ai.random_play import acting_seat, random_action
from engine.ai.search import best_play
from engine.cards import Card, format_cards
from engine.compiled import is_compiled
from engine.hand import Action
from engine.ruleset import Ruleset
from engine.trump import TrumpContext
from engine.views import HandView

__all__ = ["STRENGTHS", "Player", "Strength", "StrongPlayer", "casual_action", "choose_action",
           "heuristic_action", "random_action", "strong_player"]

Player = Callable[[HandView, Ruleset, random.Random], Action]
"""Anything that picks an action from a seat's view: :func:`choose_action`, :func:`random_action`."""

Strength = Literal["casual", "strong"]
STRENGTHS: tuple[Strength, ...] = ("casual", "strong")
"""The strengths a table may choose, weakest first."""

COMPILED_SEARCH = is_compiled(rollout)
"""Whether the search's rollouts run compiled (the optional build of ``setup.py``)."""

DEFAULT_DEALS = 44 if COMPILED_SEARCH else 16
"""Sampled deals per searched play: the strong player's default.  Compiled, a deal costs about a fifth of the
CPU it cost at issue 56's start: 44 deals of :data:`DEFAULT_CANDIDATES` plays spend about four fifths of the CPU
the 高手 of 6 December (0823a46) spent on its 16 deals of 4, and win 55 % of hands against it
(``bench/bench_sprt.py --deals 44 --candidates 6``, docs/ai-history); pure Python keeps 16."""

DEFAULT_CANDIDATES = 6 if COMPILED_SEARCH else CANDIDATES
"""Plays a search compares at most before the end of the hand: the strong player's default.  More deals of the
same four plays bought no strength (47 % against 0823a46 at 40 and at 88 deals); six plays, with the CPU the
compiled engine saves, did.  Pure Python keeps :data:`engine.ai.playing.CANDIDATES`."""

DEFAULT_BUDGET = 0.4
"""Seconds after which a searched play that has sampled its deals samples no more for a close call."""

DEFAULT_CAP = 1.2
"""Seconds a searched play takes at most, its deals sampled or not: the longest a person waits for it.

About what its deals take on a core shared three ways (on an idle one a
search seldom takes more than :data:`DEFAULT_BUDGET`), so that a busy host
slows the strong player down a little before it makes it play worse.
"""

_CLOSE_CALL = 3
"""A search whose leader is not clear after its deals samples on, up to this many times them (within the budget)."""

_MAX_DEALS_FACTOR = 6
"""Late in the hand a search samples up to this many times its deals (rollouts are short then)."""


def choose_action(view: HandView, ruleset: Ruleset, rng: random.Random | None = None,
                  strength: Strength = "casual") -> Action:
    """The AI's action for the viewing seat, from its view alone, at the given strength.

    The casual player is the default here, since it answers at once (tests,
    hints, demos); a table passes its own setting, which is strong unless the
    table chose otherwise.

    In the bidding window it bids or passes; while burying it buries 8
    cards; in the steal rounds it steals or passes; in play it leads or
    follows.  Both strengths are deterministic for a given view (``rng`` is
    accepted for the common player signature).  Raises
    :class:`IllegalActionError` if the seat has nothing to do now.
    """
    if strength == "casual":
        return casual_action(view, ruleset, rng)
    return _STRONG(view, ruleset, rng)


class StrongPlayer:
    """The 「高手」 player: improved heuristics, and determinized search for every play with a choice.

    The search's budget is counted in work: ``deals`` sets the number of
    sampled deals per searched play (more late in the hand, where rollouts
    are short), and a play samples them all however long they take, up to
    ``cap`` seconds (the longest a person waits; after at least one deal).
    ``budget`` only bounds the sampling past them for a close call.  With
    ``cap`` None the budget stops any search (a budget counted in time
    alone, as before issue 56).  With ``deals`` 0 it plays the heuristics
    alone.  ``clock`` measures both: wall-clock by default (a person waits
    for the play); :func:`time.process_time` keeps a loaded machine from
    cutting the search short, for measurements on a shared machine.
    ``candidates`` is how many of the heuristic's plays a search compares
    at most before the end of the hand (each sampled deal plays out every
    one of them).
    """

    def __init__(self, deals: int = DEFAULT_DEALS, budget: float = DEFAULT_BUDGET,
                 clock: Callable[[], float] = time.perf_counter, cap: float | None = DEFAULT_CAP,
                 candidates: int = DEFAULT_CANDIDATES) -> None:
        self.deals = deals
        self.budget = budget
        self.clock = clock
        self.cap = cap
        self.candidates = candidates

    def __call__(self, view: HandView, ruleset: Ruleset, rng: random.Random | None = None) -> Action:
        """The strong AI's action for the viewing seat (the :data:`Player` signature)."""
        started = self.clock()
        if view.phase != "playing":
            return heuristic_action(view, ruleset)
        seat = acting_seat(view)
        ctx = context(ruleset, view.level, view.trump)
        mem = build_memory(view, ctx)
        candidates = _candidates(view, ruleset, ctx, mem, self.candidates)
        if view.current:
            candidates = prune_follows(mem, view.current, candidates)
        else:
            candidates = prune_leads(mem, candidates)
        if len(candidates) == 1 or self.deals <= 0:
            return Action("play", seat, tuple(candidates[0]))
        search_rng = random.Random(_view_seed(view))
        # Rollouts shorten as the hand goes on: sample more deals for the same work (the end decides the kitty);
        # and with fewer candidates than usual (dominated follows dropped), more deals for each.
        deals = min(self.deals * 25 // max(len(view.hand), 1), _MAX_DEALS_FACTOR * self.deals)
        deals = deals * max(self.candidates, len(candidates)) // len(candidates)
        play = best_play(view, ruleset, mem, candidates, None, search_rng, deals,
                         started + self.budget, self.clock, most=_CLOSE_CALL * deals,
                         cap=None if self.cap is None else started + max(self.cap, self.budget))
        return Action("play", seat, tuple(play))


def strong_player(deals: int = DEFAULT_DEALS, budget: float = DEFAULT_BUDGET,
                  clock: Callable[[], float] = time.perf_counter, cap: float | None = DEFAULT_CAP,
                  candidates: int = DEFAULT_CANDIDATES) -> StrongPlayer:
    """A strong player with these search settings (see :class:`StrongPlayer`)."""
    return StrongPlayer(deals, budget, clock, cap, candidates)


_STRONG = StrongPlayer()


def heuristic_action(view: HandView, ruleset: Ruleset, rng: random.Random | None = None) -> Action:
    """The strong player's heuristics alone, without search (its rollout player, and its bids and buries)."""
    seat = acting_seat(view)
    phase = view.phase
    if phase == "bidding":
        bid = choose_bid(view, ruleset)
        if bid is None:
            return Action("pass", seat)
        return Action("bid", seat, bid.cards, bid.choice)
    if phase == "burying":
        return Action("bury", seat, choose_bury(_bury_context(view, ruleset), view.hand, view.is_attacker(seat)))
    if phase == "stealing":
        steal = choose_steal(view, ruleset)
        if steal is None:
            return Action("pass_steal", seat)
        return Action("steal", seat, steal.cards, steal.choice)
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    return Action("play", seat, tuple(_candidates(view, ruleset, ctx, mem, limit=1)[0]))


def _rollout_policy(view: HandView, ruleset: Ruleset) -> Action:
    return heuristic_action(view, ruleset)


def _candidates(view: HandView, ruleset: Ruleset, ctx: TrumpContext, mem: Memory,
                limit: int = CANDIDATES) -> list[list[Card]]:
    """The plays worth searching from a view (:func:`engine.ai.playing.candidates`), the heuristic's choice first."""
    return playing.candidates(mem, view.current, view.dealer_side, ruleset, limit)


def _view_seed(view: HandView) -> str:
    """A seed for the search drawn from the view alone, so the same view always gets the same play."""
    played = " ".join(format_cards(c) for t in view.tricks for _s, c in t.plays)
    current = " ".join(format_cards(c) for _s, c in view.current)
    return f"{view.number}|{view.viewer}|{format_cards(view.hand)}|{played}|{current}"


def _bury_context(view: HandView, ruleset: Ruleset) -> TrumpContext:
    """The trump to bury under: the known one, else the viewer's own bid's, else no-trump (only the fixed trumps)."""
    if view.trump_known:
        return context(ruleset, view.level, view.trump)
    own = any(b.seat == view.viewer for b in view.bids)
    return context(ruleset, view.level, view.my_bid_trump if own else None)
