"""A random but legal self-play driver, and the invariants it checks at every step.

The driver only proposes actions; the engine's ``can_x`` forms filter bids
and steals, leads are single components (sometimes a throw of several, or
a 5-10-K), and follows come from :func:`engine.hints.cheapest_follow` with a
random cost.  :func:`check_step` re-checks, independently where the spec
allows, what every action did.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

from engine.cards import DECK, RED_FIVE, Card, card_points
from engine.combos import classify, decompose, five_ten_king
from engine.follow import check_follow, check_lead
from engine.hand import Action, Event, Hand, side_of
from engine.hints import cheapest_follow
from engine.match import Applied
from engine.notices import ThrowFailed
from engine.scoring import level_outcome
from engine.views import view_for

SUITS = ("S", "H", "D", "C")


# --- candidate actions ---------------------------------------------------------------------------

def candidate_bids(hand: Hand, seat: int, *, steal: bool) -> list[tuple[list[Card], str | None]]:
    """Bids this seat might make (unchecked): level singles and pairs, joker pairs, red-five pairs."""
    level = hand.level
    if level is None:
        return []
    r = hand.ruleset
    counts = Counter(hand.hands[seat])
    out: list[tuple[list[Card], str | None]] = []
    for c, n in counts.items():
        red5 = r.red5_trump and c is RED_FIVE
        if c.rank == level and not c.is_joker and not red5:
            if not steal:
                out.append(([c], None))
            if n >= 2:
                out.append(([c, c], None))
        elif n >= 2 and (c.is_joker or red5):
            for t in (None, *SUITS):
                out.append(([c, c], t))
    return out


def legal_bids(hand: Hand, seat: int) -> list[tuple[list[Card], str | None]]:
    return [(cs, t) for cs, t in candidate_bids(hand, seat, steal=False) if hand.can_bid(seat, cs, t)]


def legal_steals(hand: Hand, seat: int) -> list[tuple[list[Card], str | None]]:
    return [(cs, t) for cs, t in candidate_bids(hand, seat, steal=True) if hand.can_steal(seat, cs, t)]


def choose_lead(hand: Hand, seat: int, rng: random.Random) -> list[Card]:
    ctx = hand.ctx
    cards = hand.hands[seat]
    groups: dict[str, list[Card]] = {}
    for c in cards:
        groups.setdefault(ctx.group(c), []).append(c)
    if ctx.ruleset.five_ten_king and rng.random() < 0.3:
        ftks = []
        for trio in combinations(sorted(set(cards), key=lambda c: c.sort_key), 3):
            if five_ten_king(ctx, list(trio)) is not None:
                ftks.append(list(trio))
        if ftks:
            return rng.choice(ftks)
    group = rng.choice(sorted(groups))
    comps = decompose(ctx, groups[group])
    if len(comps) >= 2 and rng.random() < 0.15:
        k = rng.randint(2, min(3, len(comps)))
        picked = rng.sample(comps, k)
        return [c for comp in picked for c in comp.cards]
    return list(rng.choice(comps).cards)


# --- invariants -------------------------------------------------------------------------------------

def played_cards(hand: Hand) -> list[Card]:
    return [c for t in hand.tricks for _s, cs in t.plays for c in cs] + [c for _s, cs in hand.current for c in cs]


def check_conservation(hand: Hand) -> None:
    total = Counter(c for h in hand.hands for c in h) + Counter(hand.kitty) + Counter(played_cards(hand))
    assert total == Counter(DECK), "the 108 cards are not all accounted for"


def public_cards(hand: Hand) -> set[Card]:
    """Cards the group has been shown: played, flipped, bids (open, or after the reveal), the final kitty."""
    pub = set(played_cards(hand)) | {c for _s, c in hand.flipped}
    if not hand.ruleset.hidden_bidding or hand.trump_decided:
        pub |= {c for b in hand.bids for c in b.cards}
    if hand.over and hand.phase != "redeal":
        pub |= set(hand.kitty)
        if hand.result is not None:
            pub |= set(hand.result.kitty)
    for notice in hand.notices:  # a failed throw shows what was thrown and what beats it (decision 17)
        pub |= set(notice.thrown) | set(notice.beaten_with) if isinstance(notice, ThrowFailed) else set(notice.cards)
    return pub


def check_views(hand: Hand) -> None:
    """No hidden card in the group's view; a seat sees its own hand and bids, never another's."""
    hidden_bids = hand.ruleset.hidden_bidding and not hand.trump_decided
    pub = public_cards(hand)
    spectator = view_for(hand, None)
    json.dumps(spectator.to_dict())
    assert spectator.hand == ()
    leaked = set(spectator.visible_cards()) - pub
    assert not leaked, f"the group view shows hidden cards {sorted(map(str, leaked))}"
    if not (hand.over and hand.phase != "redeal"):
        assert spectator.kitty is None
    assert spectator.flipped == tuple(c for _s, c in hand.flipped)
    if hidden_bids:
        assert spectator.trump is None and not spectator.trump_known
        assert all(b.cards is None and b.trump is None and b.step is None for b in spectator.bids)
    check_bid_history(hand)
    for seat in range(4):
        v = view_for(hand, seat)
        assert list(v.hand) == list(hand.hands[seat])
        own_bids = {c for b in hand.bids if b.seat == seat for c in b.cards}
        allowed = pub | set(hand.hands[seat]) | own_bids
        if hand.buried and hand.burier == seat and hand.phase in ("stealing", "playing"):
            allowed |= set(hand.kitty)
        allowed |= {c for burier, cards in hand.buries if burier == seat for c in cards}  # it buried them
        leaked = set(v.visible_cards()) - allowed
        assert not leaked, f"seat {seat} sees {sorted(map(str, leaked))}"
        if not (hand.over and hand.phase != "redeal") and not (hand.burier == seat and hand.buried):
            assert v.kitty is None
        if hidden_bids:
            assert all(b.cards is None for b in v.bids if b.seat != seat)
            assert v.trump is None


def check_bid_history(hand: Hand) -> None:
    """Decision 17: the public bid history shows under hidden bidding exactly once the steal rounds
    are over (play has begun), under open bidding from the first bid; every view carries the same."""
    history = view_for(hand, None).bid_history
    assert all(view_for(hand, seat).bid_history == history for seat in range(4))
    steal_rounds_over = hand.leader is not None
    if hand.ruleset.hidden_bidding and hand.bids and not steal_rounds_over:
        assert history is None, "hidden bids shown before the steal rounds ended"
    if steal_rounds_over or (hand.bids and not hand.ruleset.hidden_bidding):
        assert history is not None
    if history is None:
        return
    assert [(r.seat, r.cards, r.kind) for r in history] == [(b.seat, b.cards, b.kind) for b in hand.bids]
    failed = [a.points for a in hand.adjustments if a.reason == "failed_steal"]
    assert [r.points for r in history if r.points] == failed
    assert all(r.failed_steal for r in history if r.points)
    if hand.bids:
        assert sum(r.final for r in history) == 1 and next(r for r in history if r.final).stood


def spec_multiplier(hand: Hand) -> int:
    """§2.12 m: 2 × the largest lead component (5-10-K as singles, its pair form as pairs); 安徽 caps at 8."""
    last = hand.tricks[-1]
    if not hand.is_attacker(last.winner) or not hand.kitty:
        return 0
    ctx = hand.ctx
    lead = list(last.plays[0][1])
    shape = classify(ctx, lead)
    assert shape is not None
    if shape.kind == "ftk":
        m = 2
    elif shape.kind == "ftk2":
        m = 4
    else:
        m = 2 * max(c.size for c in decompose(ctx, lead))
    cap = hand.ruleset.kitty_multiplier_cap
    return min(m, cap) if cap else m


def spec_table(level_table: str, p: int, theta: int) -> tuple[bool, int, int, int]:
    """§2.14 closed forms: (dealer keeps, levels, dealer 积分, attacker 积分)."""
    if p >= theta:
        m = (p - theta) // 10
        return False, m, -(m + 1), m + 1
    n = -((p - theta) // 10)
    if level_table == "B" and p <= 0:
        n += 1
    return True, n, n, -n


def check_finished(hand: Hand) -> dict[str, Any]:
    """p = trick points + kitty bonus + adjustments; 积分 from the table when no special rule fired."""
    res = hand.result
    assert res is not None
    stats: dict[str, Any] = {}
    for t in hand.tricks:
        assert t.points == sum(c.points for _s, cs in t.plays for c in cs)
    trick_pts = sum(t.points for t in hand.tricks if hand.is_attacker(t.winner))
    assert trick_pts == res.trick_points == hand.trick_points
    m = spec_multiplier(hand)
    assert res.kitty_multiplier == m, (res.kitty_multiplier, m)
    p = trick_pts + card_points(hand.kitty) * m + sum(a.points for a in res.adjustments)
    assert res.attacker_points == p
    assert tuple(res.kitty) == tuple(hand.kitty)
    outcome = level_outcome(hand.ruleset, p, hand.threshold)
    keeps, levels, d_score, a_score = spec_table(hand.ruleset.level_table, p, hand.threshold)
    assert res.outcome == outcome
    assert (outcome.dealer_keeps, outcome.levels, outcome.dealer_score, outcome.attacker_score) == \
        (keeps, levels, d_score, a_score)
    ds = hand.dealer_side
    assert ds is not None
    if res.heaven_and_earth_side is None and res.demoted_to is None:
        assert res.scores == tuple(d_score if side_of(s) == ds else a_score for s in range(4))
    else:
        stats["special"] = "hae" if res.heaven_and_earth_side is not None else "j"
    assert sum(res.scores) == 0
    # adjustments match their causes
    per = hand.ruleset.throw_penalty
    throws = [e for e in hand.events if e.info.get("throw_failed")]
    throw_adj = [a for a in res.adjustments if a.reason == "throw"]
    assert len(throws) == len(throw_adj)
    for e, a in zip(throws, throw_adj):
        assert e.action.seat == a.seat
        n = len(e.info["played"].split())
        assert a.points == (-per * n if hand.is_attacker(a.seat) else per * n)
    if not hand.ruleset.red5_bonus:
        assert not [a for a in res.adjustments if a.reason.startswith("red5")]
    if not hand.ruleset.failed_steal_points:
        assert not [a for a in res.adjustments if a.reason == "failed_steal"]
    for a in res.adjustments:
        if a.reason == "failed_steal":
            assert a.points == (hand.ruleset.failed_steal_points * (-1 if hand.is_attacker(a.seat) else 1))
    stats["throws"] = len(throws)
    stats["adjustments"] = len(res.adjustments)
    return stats


def check_replay(hand: Hand) -> None:
    fp = hand.fingerprint()
    assert Hand.replay(hand.setup, hand.actions).fingerprint() == fp
    data = json.loads(json.dumps(hand.to_dict()))
    assert Hand.from_dict(data).fingerprint() == fp


# --- the driver -------------------------------------------------------------------------------------

Apply = Callable[[Action], Any]


def _event(out: Event | Applied) -> Event:
    return out.event if isinstance(out, Applied) else out


def drive(hand: Hand, rng: random.Random, *, apply: Apply | None = None, checks: bool = True,
          escape_rate: float = 0.0, bid_rate: float = 0.35, steal_rate: float = 0.25,
          replay_at: int | None = None) -> dict[str, Any]:
    """Play ``hand`` to its end with random legal actions; check invariants after each one.

    ``replay_at``: also check the replay and JSON round trip after that many actions.
    """
    do: Apply = apply or hand.apply
    stats: dict[str, Any] = {"steps": 0}

    def act(action: Action) -> Event:
        ev = _event(do(action))
        stats["steps"] += 1
        if checks:
            check_conservation(hand)
            check_views(hand)
            if stats["steps"] == replay_at:
                check_replay(hand)
        return ev

    bidding_steps = 0
    while not hand.over:
        if escape_rate and rng.random() < escape_rate:
            act(Action("escape", rng.randrange(4)))
            stats["escaped"] = True
            break
        if hand.phase == "bidding":
            bidding_steps += 1
            if bidding_steps > 24 or rng.random() < 0.03:
                act(Action("close"))
                continue
            seat = rng.randrange(4)
            bids = legal_bids(hand, seat) if rng.random() < bid_rate else []
            if bids:
                cs, t = rng.choice(bids)
                act(Action("bid", seat, tuple(cs), t))
            else:
                act(Action("pass", seat))
        elif hand.phase == "burying":
            seat = hand.turn
            assert seat is not None
            act(Action("bury", seat, tuple(rng.sample(hand.hands[seat], 8))))
        elif hand.phase == "stealing":
            seat = hand.turn
            assert seat is not None
            steals = legal_steals(hand, seat) if rng.random() < steal_rate else []
            if steals:
                cs, t = rng.choice(steals)
                act(Action("steal", seat, tuple(cs), t))
                stats["steals"] = stats.get("steals", 0) + 1
            else:
                act(Action("pass_steal", seat))
        elif hand.phase == "playing":
            seat = hand.turn
            assert seat is not None
            before = list(hand.hands[seat])
            ctx = hand.ctx
            if not hand.current:
                attempt = choose_lead(hand, seat, rng)
                ntricks = len(hand.tricks)
                ev = act(Action("play", seat, tuple(attempt)))
                played = list(hand.tricks[ntricks].plays[0][1]) if len(hand.tricks) > ntricks else \
                    list(hand.current[0][1])
                if checks:
                    check_lead(ctx, before, attempt)
                    if ev.info.get("throw_failed"):
                        assert not Counter(played) - Counter(attempt) and len(played) < len(attempt)
                        shape = classify(ctx, attempt)
                        assert shape is not None and shape.kind == "throw"
                        assert any(Counter(comp.cards) == Counter(played) for comp in shape.components)
                    else:
                        assert played == attempt
            else:
                lead = list(hand.current[0][1])
                prices = {c: rng.random() for c in set(before)}
                play = cheapest_follow(ctx, lead, before, lambda c: prices[c])
                ntricks = len(hand.tricks)
                act(Action("play", seat, tuple(play)))
                if checks:
                    check_follow(ctx, lead, before, play)  # legal by the trick rules (raises if not)
                    if len(hand.tricks) > ntricks:
                        assert list(hand.tricks[ntricks].plays[-1][1]) == list(play)
                    else:
                        assert list(hand.current[-1][1]) == list(play)
        else:  # pragma: no cover
            raise AssertionError(hand.phase)
    if checks:
        if hand.phase == "finished":
            stats.update(check_finished(hand))
        check_replay(hand)
    stats["phase"] = hand.phase
    return stats
