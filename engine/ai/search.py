"""Determinized search for the strong AI's plays (leads and follows).

The seat does not know the other hands, so it samples them: each *world*
deals the unseen cards (see :mod:`engine.ai.memory`) to the other seats and
the kitty, consistent with everything the seat knows — the hand sizes, the
voids shown, the cards of open bids not yet played (the kitty holder's in
its hand or its kitty), and a kitty it buried that was stolen (with the
seats that took the kitty since, or back in the kitty) — and with how
players bury: a hidden kitty is drawn mostly from low plain cards, seldom
from trumps, aces or point cards (:data:`_KITTY_LIKELIHOOD`).  In each world
every candidate play is applied to the hand rebuilt at the current trick
(a light :class:`engine.ai.rollout.Rollout`, which plays by the same rules
without checks or events), and the hand is played out by the heuristic
player on all four seats (each from its own memory of that world).  The candidate with the
best mean result for the seat's side wins; all candidates see the same
worlds, so their difference is not blurred by the luck of the deal.

Only the view goes in: the worlds are guesses drawn from it, never the
hidden cards themselves.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from engine.ai.drawing import dealing_order, weighted_pick
from engine.ai.memory import BIG_TRUMP, GROUPS, Memory, card_rows, card_table
from engine.ai.rollout import Rollout, forced_play
from engine.cards import DECK, Card
from engine.errors import IllegalActionError
from engine.follow import red_fives_forced
from engine.hand import Action, Hand, HandSetup
from engine.ruleset import Ruleset
from engine.special import HandResult
from engine.trump import TRUMP, TrumpContext
from engine.views import HandView, view_for

Policy = Callable[[HandView, Ruleset], Action]
"""A rollout player other than the strong player's heuristics: a play for the seat whose view it is given."""

WIN_WEIGHT = 1.0
"""What winning the hand (positive 积分) adds to a rollout's value, losing it takes off: hands won decide a match."""

_RETRIES = 30

_KITTY_LIKELIHOOD: dict[int, float] = {14: 0.12, 13: 0.17, 12: 0.26, 11: 0.36, 10: 0.14, 5: 0.18}
"""How likely a plain card of a rank is buried, next to a low plain card (1).

Measured on buries in play (the strong heuristics and the baseline, 300
hands each of 盐城 and 池州): a low plain card (2–9 but the 5) in the
burier's hand went to the kitty about half the time, a jack about one time
in five, a queen one in eight, an ace, a king, a ten or a five one in ten
to fifteen; the weights are those rates over the low cards'.  Big trumps
(level cards, jokers, the red five) were never buried, nor any trump where
the burier knew the trump; where bids are hidden it may not, and a small
trump was buried about a third as often as a low card
(:data:`_HIDDEN_TRUMP`).  Drawn uniformly, a sampled kitty would hold
trumps and aces as often as low cards.
"""

_TRUMP_IN_KITTY = 0.02
"""A trump's weight for a kitty slot: next to never (not nil, so that every consistent deal stays possible)."""

_HIDDEN_TRUMP = 0.3
"""A small trump's weight where the burier may not have known the trump (hidden bidding)."""


@lru_cache(maxsize=256)
def kitty_weights(ctx: TrumpContext) -> dict[Card, float]:
    """Each card's weight for a sampled kitty slot, by how often players bury its kind (see :data:`_KITTY_LIKELIHOOD`)."""
    small_trump = _HIDDEN_TRUMP if ctx.ruleset.hidden_bidding else _TRUMP_IN_KITTY
    out: dict[Card, float] = {}
    for card, group, order in card_rows(ctx):
        if group != TRUMP:
            out[card] = _KITTY_LIKELIHOOD.get(card.rank, 1.0)
        else:
            out[card] = small_trump if order < BIG_TRUMP else _TRUMP_IN_KITTY
    return out


def sample_world(view: HandView, mem: Memory, rng: random.Random) -> tuple[list[list[Card]], list[Card]] | None:
    """Hands for all four seats and a kitty, drawn from the unseen cards consistently with the view.

    A kitty the seat has not seen is drawn first, each card by how often
    players bury its kind (:func:`kitty_weights`), and the hands from the
    rest; where the shown voids leave no room for that, the cards are dealt
    to hands and kitty together, still weighted.  Cards shown in open bids
    and not played since stay with their bidder; the kitty holder's may also
    be in the kitty.  The cards of a kitty the seat buried and another seat
    stole go to the seats that took the kitty since, or back into the kitty.
    Returns None if no consistent deal was found in a few tries (the search
    then does without this world).
    """
    global _LAST_PREPARED
    if _LAST_PREPARED is not None and _LAST_PREPARED[0] is view and _LAST_PREPARED[1] is mem:
        prepared = _LAST_PREPARED[2]
    else:
        prepared = _prepare(view, mem)
        _LAST_PREPARED = (view, mem, prepared)
    if prepared is None:
        return None
    seat = mem.seat
    table = card_table(mem.ctx)
    likely = kitty_weights(mem.ctx)
    others, room, kitty_known, kitty_room, pinned, base, homeless, bound, void_seats = prepared
    cards_left = list(base)
    for attempt in range(_RETRIES):
        rng.shuffle(cards_left)
        kitty: list[Card] = []
        rest = cards_left
        if kitty_room and attempt < _RETRIES // 2:
            # The kitty first, as players bury; then the hands from the rest (failing that, all at once).
            kitty, rest = _draw_kitty(cards_left, kitty_room, likely, homeless, table, rng)
        drawn = Counter(kitty)
        musts: list[tuple[Counter[Card], list[int]]] = []
        for cards, seats in bound:  # the bound copies not drawn into the kitty already
            musts.append((cards - drawn, seats))
            drawn -= cards
        order = dealing_order(rest, musts, void_seats)
        free = dict(room)
        kitty_free = kitty_room - len(kitty)
        hands: dict[int, list[Card]] = {s: list(pinned.get(s, Counter()).elements()) for s in others}
        ok = True
        for card in order:
            group = table[card][0]
            seats = others
            for must, allowed in musts:
                if must[card] > 0:
                    must[card] -= 1
                    seats = allowed
                    break
            slots = [s for s in seats if free[s] > 0 and group not in mem.voids[s]]
            weights: list[float] = [free[s] for s in slots]
            if kitty_free > 0:
                slots.append(-1)
                weights.append(kitty_free * likely[card])
            if not slots:
                ok = False
                break
            pick = weighted_pick(rng, slots, weights)
            if pick == -1:
                kitty.append(card)
                kitty_free -= 1
            else:
                hands[pick].append(card)
                free[pick] -= 1
        if ok:
            full = [list(mem.hand) if s == seat else hands[s] for s in range(4)]
            return full, list(view.kitty) if kitty_known and view.kitty is not None else kitty
    return None


_Prepared = tuple[list[int], dict[int, int], bool, int, dict[int, Counter[Card]], tuple[Card, ...], set[str],
                  list[tuple[Counter[Card], list[int]]], dict[Card, int]]
"""What :func:`sample_world` works out of the view before drawing: the other seats, their room, whether the kitty
is known and the room in it, the cards pinned to seats, the cards to deal (in their first order), the groups no
other seat can hold, the bound cards and how many other seats lack each card's group."""

_LAST_PREPARED: tuple[HandView, Memory, _Prepared | None] | None = None
"""The last view and memory :func:`sample_world` drew from, with what it worked out of them (a search draws every
world from one view and memory)."""


def _prepare(view: HandView, mem: Memory) -> _Prepared | None:
    """What :func:`sample_world` needs of the view before it draws, or None if no consistent deal is possible."""
    seat = mem.seat
    table = card_table(mem.ctx)
    pool: Counter[Card] = Counter(mem.unseen)
    others = [s for s in range(4) if s != seat]
    room = {s: view.hand_sizes[s] for s in others}
    kitty_known = view.kitty is not None
    kitty_room = 0 if kitty_known else sum(pool.values()) - sum(room.values())
    if kitty_room < 0:
        return None
    played = _played_by_seat(view)
    pinned = _pinned(view, mem, played)
    holder = view.kitty_holder
    kept = pinned.pop(holder, Counter()) if holder is not None else Counter()  # in its hand, or buried
    for s, cards in pinned.items():
        pool.subtract(cards)
        room[s] -= sum(cards.values())
    if any(n < 0 for n in pool.values()) or any(r < 0 for r in room.values()):
        return None
    cards_left = list(pool.elements())
    homeless = {g for g in {table[c][0] for c in cards_left}
                if all(g in mem.voids[s] or room[s] <= 0 for s in others)}
    bound = _bound(view, mem, played, pinned, pool, kept)
    lacking = {g: sum(g in mem.voids[s] for s in others) for g in GROUPS}  # how many other seats lack each group
    void_seats = {c: lacking[group] for c, (group, _order) in table.items()}
    return others, room, kitty_known, kitty_room, pinned, tuple(cards_left), homeless, bound, void_seats


def _draw_kitty(cards: list[Card], size: int, likely: dict[Card, float], homeless: set[str],
                table: dict[Card, tuple[str, int]], rng: random.Random) -> tuple[list[Card], list[Card]]:
    """``size`` of the cards for a kitty, drawn without replacement by their weights; and the cards left.

    Cards of a group that no other seat can hold go first.  Each card is
    keyed by ``u ** (1 / weight)`` for a uniform ``u`` and the largest keys
    are kept (weighted sampling without replacement, Efraimidis and Spirakis).
    """
    keys = [(table[c][0] in homeless, rng.random() ** (1.0 / likely[c])) for c in cards]
    ranked = sorted(range(len(cards)), key=keys.__getitem__, reverse=True)
    chosen = set(ranked[:size])
    return [cards[i] for i in ranked[:size]], [c for i, c in enumerate(cards) if i not in chosen]


def _bound(view: HandView, mem: Memory, played: list[Counter[Card]], pinned: dict[int, Counter[Card]],
           pool: Counter[Card], kept: Counter[Card]) -> list[tuple[Counter[Card], list[int]]]:
    """Cards known to be with some seats or in the kitty, each group with those seats.

    The kitty holder's open bids' cards not played since (``kept``) are in
    its hand or the kitty it buried; a kitty the viewer buried and another
    seat stole is with the seats that took the kitty since, or in the kitty.
    A card in both counts once, with all those seats.
    """
    out: list[tuple[Counter[Card], list[int]]] = []
    passed = _passed_on(view, mem, played, pinned, pool)
    kept = kept & pool
    if passed:
        takers = [s for s in view.kitty_takers if s != mem.seat]
        for card in list(kept):
            if card in passed:
                passed[card] = max(passed[card], kept.pop(card))
        out.append((passed, takers))
    if kept:
        assert view.kitty_holder is not None
        out.append((kept, [view.kitty_holder]))
    return out


def _passed_on(view: HandView, mem: Memory, played: list[Counter[Card]], pinned: dict[int, Counter[Card]],
               pool: Counter[Card]) -> Counter[Card]:
    """Copies among ``pool`` that must be the viewer's stolen kitty: in a later taker's hand or the kitty.

    A copy of a card the viewer buried may since have been played by a
    taker, while the card's other copy lies elsewhere; so only the copies
    that cannot all be the other copy are bound (a lower bound, which never
    rules out a consistent deal).
    """
    if not view.passed_kitty:
        return Counter()
    takers = set(view.kitty_takers)
    elsewhere: Counter[Card] = Counter(mem.hand)  # copies seen away from the takers: never the buried ones
    for s in range(4):
        if s not in takers:
            elsewhere.update(played[s])
    out: Counter[Card] = Counter()
    for card, n in Counter(view.passed_kitty).items():
        other_copies = max(0, 2 - n - elsewhere[card])  # the unburied copies that may still be unseen
        held = sum(pinned[s][card] for s in takers if s in pinned)  # a taker's shown copy may be the buried one
        bound = min(pool[card], mem.unseen.get(card, 0) - other_copies - held)
        if bound > 0:
            out[card] = bound
    return out


def _played_by_seat(view: HandView) -> list[Counter[Card]]:
    """The cards each seat has played so far, the current trick's included."""
    played: list[Counter[Card]] = [Counter() for _ in range(4)]
    for trick in view.tricks:
        for s, cards in trick.plays:
            played[s].update(cards)
    for s, cards in view.current:
        played[s].update(cards)
    return played


def _pinned(view: HandView, mem: Memory, played: list[Counter[Card]]) -> dict[int, Counter[Card]]:
    """Cards other seats are known to hold: their open bids' cards not played since.

    The kitty holder's may also be in the kitty (:func:`sample_world` deals them so).
    """
    out: dict[int, Counter[Card]] = {}
    for bid in view.bids:
        if bid.seat == mem.seat or bid.cards is None:
            continue
        shown = out.setdefault(bid.seat, Counter())
        for card, n in Counter(bid.cards).items():
            shown[card] = max(shown[card], n)
    for s in list(out):
        left = out[s] - played[s]
        left &= Counter({c: n for c, n in mem.unseen.items()})
        out[s] = left
    return out


def world_hand(view: HandView, ruleset: Ruleset, ctx: TrumpContext, hands: list[list[Card]],
               kitty: list[Card]) -> Hand:
    """A :class:`Hand` at the view's point of play, holding a sampled world's cards."""
    assert view.dealer_side is not None and view.dealer is not None
    setup = HandSetup(ruleset, 0, view.number, view.levels, view.dealer_side, view.dealer, view.flag,
                      view.dealer if view.flag else None)
    hand = Hand(setup)
    hand.level = view.level
    hand.phase = "playing"
    hand.hands = [list(h) for h in hands]
    hand.kitty = list(kitty)
    hand.dealer = view.dealer
    hand.trump = view.trump
    hand.trump_decided = True
    hand.steals_allowed = False
    hand.threshold = view.threshold
    hand.burier = view.kitty_holder
    hand.buried = view.kitty_holder is not None
    hand.tricks = list(view.tricks)
    hand.trick_points = view.trick_points
    hand.adjustments = list(view.adjustments)
    hand.current = [(s, tuple(c)) for s, c in view.current]
    hand.leader = view.current[0][0] if view.current else (view.turn if view.turn is not None else view.dealer)
    if view.current and ruleset.red5_bonus:
        lead = view.current[0][1]
        for s, played in view.current[1:]:
            forced = red_fives_forced(ctx, lead, hand.hands[s] + list(played), played)
            if forced:
                hand._pending_red5.append((s, forced))
    return hand


def rollout_value(sim: Hand | Rollout, seat: int, policy: Policy | None = None, checked: bool = False) -> float:
    """Play the hand out; the result for ``seat``'s side.

    A :class:`engine.ai.rollout.Rollout` is played out by the strong
    player's heuristics on every seat (:meth:`Rollout.play_out`, the search's
    rollouts); a :class:`Hand` by ``policy`` on every seat, from their views,
    each play applied unchecked (:meth:`Hand.simulate_play`) unless
    ``checked``, which tests use to hold the players to the rules.  A play the
    rules force (:func:`engine.ai.rollout.forced_play`) is made without asking
    the player.
    """
    if isinstance(sim, Rollout):
        return hand_value(sim.play_out(), seat)
    assert policy is not None, "a Hand is played out by a policy"
    ruleset = sim.ruleset
    play = sim.apply if checked else sim.simulate_play
    while not sim.over:
        turn = sim.turn
        assert turn is not None
        forced = forced_play(sim, turn)
        play(Action("play", turn, forced) if forced is not None else policy(view_for(sim, turn), ruleset))
    result = sim.result
    assert result is not None
    return hand_value(result, seat)


def hand_value(result: HandResult, seat: int) -> float:
    """A finished hand's worth to ``seat``'s side: its 积分 with the level table's steps smoothed, and the win.

    The level table moves one level (one 积分) for every 10 points of p, so
    that as 积分 a 5-point difference counts 0 or 1 by where p falls, and a
    search over a few worlds cannot tell a 5-point gift from none.  Here
    the table's part of the 积分 is a straight line through the steps'
    means (a tenth of a 积分 a point, with the takeover's jump at θ and table
    B's extra level for p ≤ 0 kept), and what the table does not give (上天入地,
    J到底 and 池州's J/A rule) is added as it came; winning the hand adds
    :data:`WIN_WEIGHT`, losing it takes it off.
    """
    outcome = result.outcome
    assert outcome is not None and result.dealer_side is not None
    attacker = seat % 2 != result.dealer_side
    p, theta = result.attacker_points, result.threshold
    line = (p - theta) / 10 + (0.75 if p >= theta else -0.25)
    if outcome.dealer_keeps:
        line -= outcome.dealer_score + (p - theta) // 10  # table B's 大光: one more level for the dealer side
    table = outcome.attacker_score if attacker else outcome.dealer_score
    score = result.scores[seat]
    return (line if attacker else -line) + (score - table) + (WIN_WEIGHT if score > 0 else -WIN_WEIGHT)


CLEAR = 2.0
"""Standard errors by which the leading candidate must beat every other for a search to stop at its deal count."""

HOPELESS = 3.0
"""Standard errors by which a candidate trailing the leader is dropped, half-way to the deal count."""


def best_play(view: HandView, ruleset: Ruleset, mem: Memory, candidates: Sequence[list[Card]],
              policy: Policy | None, rng: random.Random, deals: int, deadline: float,
              clock: Callable[[], float] = time.perf_counter, most: int | None = None,
              cap: float | None = None) -> list[Card]:
    """The candidate with the best mean rollout value over the sampled worlds, every candidate in every world.

    After ``deals`` worlds it stops if the leader beats every other
    candidate by :data:`CLEAR` standard errors of their paired difference;
    otherwise it samples on, up to ``most`` worlds (``deals`` if None), so
    that close calls get the time the budget leaves.  Half-way to ``deals``
    a candidate :data:`HOPELESS` standard errors behind the leader is
    dropped (it gets no more rollouts).  The first candidate (the
    heuristic's choice) wins ties.  The rollouts are played by ``policy``
    (None: the strong player's heuristics, see :func:`rollout_value`).

    Two ``clock`` times (wall-clock by default) stop it, each once one world
    is done, dropping a world it could not finish for every candidate still
    in: ``deadline`` once ``deals`` worlds are done (no more sampling for a
    close call), and ``cap`` at any point (the longest a person waits).
    Without ``cap`` the deadline stops it at any point (a budget counted in
    time alone).
    """
    seat = mem.seat
    cap = deadline if cap is None else cap
    most = deals if most is None else max(most, deals)
    rows: list[list[float]] = [[] for _ in candidates]
    live = list(range(len(candidates)))
    done = 0
    for _ in range(most):
        world = sample_world(view, mem, rng)
        if world is None:
            continue
        hands, kitty = world
        start = Rollout(view, ruleset, mem.ctx, hands, kitty) if policy is None else None
        values: list[float] = []
        for i in live:
            if done and _past(clock(), done, deals, deadline, cap):
                break
            sim: Hand | Rollout
            try:
                if start is not None:
                    sim = start.copy()
                    sim.play_first(seat, tuple(candidates[i]))
                else:
                    sim = world_hand(view, ruleset, mem.ctx, hands, kitty)
                    sim.apply(Action("play", seat, tuple(candidates[i])))
                values.append(rollout_value(sim, seat, policy))
            except IllegalActionError:  # pragma: no cover - candidates are legal follows and checked leads
                values.append(math.nan)
        if len(values) < len(live):
            break  # out of time in the middle of a world: compare on the finished ones only
        for i, value in zip(live, values):
            rows[i].append(value)
        live = [i for i in live if not math.isnan(rows[i][-1])] or live[:1]
        done += 1
        if _past(clock(), done, deals, deadline, cap) or len(live) == 1:
            break
        leader = max(live, key=lambda i: (sum(rows[i]), -i))
        if done >= deals and all(_ahead(rows[leader], rows[i]) >= CLEAR for i in live if i != leader):
            break
        if done == max(deals // 2, 2):
            live = [i for i in live if i == leader or _ahead(rows[leader], rows[i]) < HOPELESS]
    if not done:
        return list(candidates[0])
    best = max(live, key=lambda i: (sum(rows[i]), -i))
    return list(candidates[best])


def _past(now: float, done: int, deals: int, deadline: float, cap: float) -> bool:
    """Must a search stop at ``now``, with ``done`` worlds of its ``deals`` done? (see :func:`best_play`)"""
    return now >= cap or (done >= deals and now >= deadline)


def _ahead(leader: Sequence[float], other: Sequence[float]) -> float:
    """By how many standard errors the leader's mean beats the other's over the worlds both saw (paired)."""
    diffs = [a - b for a, b in zip(leader, other)]
    n = len(diffs)
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1)
    if spread == 0.0:
        return math.inf if mean >= 0 else -math.inf  # the same in every world: nothing more to learn
    return mean / math.sqrt(spread / n)


def deck_is_whole(hands: Sequence[Sequence[Card]], kitty: Sequence[Card], played: Sequence[Card]) -> bool:
    """True if hands, kitty and played cards make up the two decks exactly (a check for tests)."""
    total: Counter[Card] = Counter(played)
    for h in hands:
        total.update(h)
    total.update(kitty)
    return total == Counter(DECK)

