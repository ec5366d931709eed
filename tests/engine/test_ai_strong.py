"""The strong AI (「高手」): legal, blind to hidden cards, its search sound (its habits: tests/engine/ai/test_habits.py)."""

from __future__ import annotations

import io
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import (
    Player,
    StrongPlayer,
    _rollout_policy,
    casual_action,
    choose_action,
    heuristic_action,
    random_action,
)
from engine.ai.memory import Knowledge, build_memory, context
from engine.ai.rollout import Rollout
from engine.ai.search import deck_is_whole, rollout_value, sample_world, world_hand
from engine.cards import Card
from engine.errors import IllegalActionError
from engine.hand import Action, Hand, HandSetup
from engine.match import Match
from engine.ruleset import RULESETS
from engine.selfplay import actions, duel, main
from engine.trump import TRUMP
from engine.views import view_for

PRESETS = sorted(RULESETS)
STRONG = StrongPlayer(budget=float("inf"))
"""The strong player with a table's sampled deals and no time cap, so that no decision depends on the machine's load."""
QUICK = StrongPlayer(deals=2, budget=float("inf"))
"""The strong player with few sampled deals: the same code paths, fast enough to drive many hands."""


def _drive(hand: Hand, players: Sequence[Player], rng: random.Random) -> Hand:
    for action in actions(hand, players, rng):
        assert hand.can(action), (hand.ruleset.name, hand.phase, action)
        hand.apply(action)
    return hand


# --- legality and blindness ---------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
def test_strong_is_legal_through_matches(preset: str) -> None:
    """Four strong seats play hands of a match (hand 1's bidding, later hands, level moves) without a refusal."""
    ruleset = RULESETS[preset]
    rng = random.Random(2)
    match = Match(ruleset, 21)
    for _ in range(3):
        hand = match.hand
        for action in actions(hand, [QUICK] * 4, rng):
            assert hand.can(action), (preset, hand.phase, action)
            match.apply(action)
        if match.over:
            break


@pytest.mark.long
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), level=st.integers(2, 14),
       dealer_side=st.sampled_from([None, 0, 1]), mix=st.integers(0, 15))
def test_strong_is_legal_among_other_players(preset: str, seed: int, level: int, dealer_side: int | None,
                                             mix: int) -> None:
    """Strong seats stay legal beside random and casual seats (odd bids, steals, failed throws, any level)."""
    ruleset = RULESETS[preset]
    setup = HandSetup(ruleset, seed, 1 if dealer_side is None else 2, (level, level), dealer_side,
                      None if dealer_side is None else dealer_side)
    others: list[Player] = [random_action, casual_action]
    players: list[Player] = [QUICK if mix >> s & 1 else others[s % 2] for s in range(4)]
    hand = _drive(Hand(setup), players, random.Random(seed))
    assert hand.over


@pytest.mark.parametrize("preset", ["yangzhou", "yangzhong"])
def test_strong_is_legal_in_the_flag_hand(preset: str) -> None:
    setup = HandSetup(RULESETS[preset], 3, 5, (14, 9), 0, 0, flag=True, flag_dealer=0)
    hand = _drive(Hand(setup), [QUICK] * 4, random.Random(3))
    assert hand.phase == "finished"


def test_strong_is_blind_to_hidden_cards() -> None:
    """Rearranging the cards the seat cannot see changes neither its view nor its action (search included)."""
    rng = random.Random(9)
    for preset in ("yancheng", "anhui"):
        ruleset = RULESETS[preset]
        hand = Hand(HandSetup(ruleset, 77, 2, (6, 6), 1, 1))
        steps = 0
        for action in actions(hand, [QUICK] * 4, rng):
            steps += 1
            if hand.phase == "playing" and steps % 11 == 0:
                seat = hand.turn
                assert seat is not None
                before = view_for(hand, seat)
                chosen = STRONG(before, ruleset)
                _shuffle_hidden(hand, seat, rng)
                after = view_for(hand, seat)
                assert after == before
                assert STRONG(after, ruleset) == chosen
                action = chosen
            hand.apply(action)


def _shuffle_hidden(hand: Hand, seat: int, rng: random.Random) -> None:
    others = [s for s in range(4) if s != seat]
    kitty_hidden = hand.burier != seat
    pool = [c for s in others for c in hand.hands[s]] + (list(hand.kitty) if kitty_hidden else [])
    rng.shuffle(pool)
    for s in others:
        n = len(hand.hands[s])
        hand.hands[s], pool = pool[:n], pool[n:]
    if kitty_hidden:
        hand.kitty = pool


def test_casual_strength_is_the_frozen_baseline() -> None:
    """strength="casual" is exactly the baseline player, decision for decision."""
    rng = random.Random(4)
    hand = Hand(HandSetup(RULESETS["nantong"], 5, 2, (4, 4), 0, 0))
    for action in actions(hand, [casual_action] * 4, rng):
        if hand.phase != "bidding":
            seat = hand.turn
            assert seat is not None
            assert choose_action(view_for(hand, seat), hand.ruleset, strength="casual") == action
        hand.apply(action)


# --- the search's worlds -------------------------------------------------------------------

def _mid_hand(preset: str, seed: int, tricks: int) -> Hand:
    hand = Hand(HandSetup(RULESETS[preset], seed, 2, (5, 5), 0, 0))
    for action in actions(hand, [casual_action] * 4, random.Random(seed)):
        hand.apply(action)
        if hand.phase == "playing" and len(hand.tricks) == tricks and len(hand.current) == 1:
            break
    assert not hand.over
    return hand


@pytest.mark.parametrize("preset,seed", [("yancheng", 1), ("xin", 2), ("anhui", 3), ("nantong", 4)])
def test_world_hand_with_the_true_cards_plays_as_the_real_hand(preset: str, seed: int) -> None:
    """Rebuilt from a view and the true hidden cards, the search's hand ends exactly as the real one."""
    real = _mid_hand(preset, seed, 5)
    seat = real.turn
    assert seat is not None
    view = view_for(real, seat)
    sim = world_hand(view, real.ruleset, real.ctx, [list(h) for h in real.hands], list(real.kitty))
    while not real.over:
        turn = real.turn
        assert turn is not None and sim.turn == turn
        action = heuristic_action(view_for(real, turn), real.ruleset)
        real.apply(action)
        sim.apply(action)
    assert sim.result is not None and real.result is not None
    assert sim.result.attacker_points == real.result.attacker_points
    assert sim.result.scores == real.result.scores
    assert sim.result.adjustments == real.result.adjustments


@pytest.mark.parametrize("preset,seed", [("yancheng", 5), ("chizhou", 6), ("yangzhong", 7)])
def test_sampled_worlds_respect_what_is_public(preset: str, seed: int) -> None:
    """Hand sizes, the seat's own cards, shown voids, the kitty it buried: every world keeps them."""
    real = _mid_hand(preset, seed, 7)
    seat = real.turn
    assert seat is not None
    view = view_for(real, seat)
    ctx = context(real.ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    played = [c for t in view.tricks for _s, cs in t.plays for c in cs] + [c for _s, cs in view.current for c in cs]
    rng = random.Random(seed)
    for _ in range(20):
        world = sample_world(view, mem, rng)
        assert world is not None
        hands, kitty = world
        assert Counter(hands[seat]) == Counter(view.hand)
        assert [len(h) for h in hands] == list(view.hand_sizes)
        assert deck_is_whole(hands, kitty, played)
        for other in range(4):
            for group in mem.voids[other]:
                assert not any(ctx.group(c) == group for c in hands[other]), (other, group)
        if view.kitty is not None:
            assert Counter(kitty) == Counter(view.kitty)


@pytest.mark.parametrize("preset,trumps", [("yancheng", 0.5), ("chizhou", 0.1)])
def test_sampled_kitties_hold_what_players_bury(preset: str, trumps: float) -> None:
    """A seat that did not bury draws the kitty mostly from low plain cards, seldom from aces, and from trumps
    next to never where the burier knew the trump (盐城's bids are hidden, 池州's are not)."""
    real = _mid_hand(preset, 5, 1)
    assert real.burier is not None
    seat = (real.burier + 1) % 4
    view = view_for(real, seat)
    assert view.kitty is None
    ctx = context(real.ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)

    def shares(cards: Counter[Card]) -> tuple[float, float, float]:
        n = sum(cards.values())
        plain = [(c, m) for c, m in cards.items() if ctx.group(c) != TRUMP]
        return (1 - sum(m for _c, m in plain) / n, sum(m for c, m in plain if c.rank == 14) / n,
                sum(m for c, m in plain if c.rank < 11 and not c.points) / n)

    buried: Counter[Card] = Counter()
    rng = random.Random(4)
    for _ in range(300):
        world = sample_world(view, mem, rng)
        assert world is not None
        buried.update(world[1])
    pool_trumps, pool_aces, pool_low = shares(Counter(mem.unseen))
    kitty_trumps, kitty_aces, kitty_low = shares(buried)
    # Drawn uniformly, each share would be the pool's (about 40 % trumps, 4 % aces, 40 % low cards).
    assert kitty_trumps < trumps * pool_trumps and kitty_aces < 0.4 * pool_aces
    assert kitty_low > 1.5 * pool_low


def _heuristic_hand(setup: HandSetup, tricks: int) -> Hand:
    """A hand played by the strong heuristics on all four seats until ``tricks`` tricks are done."""
    hand = Hand(setup)
    for action in actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(1)):
        if hand.phase == "playing" and len(hand.tricks) == tricks and not hand.current:
            break
        hand.apply(action)
    return hand


def _worlds(hand: Hand, seat: int, seed: int, n: int) -> list[tuple[list[list[Card]], list[Card]]]:
    """``n`` worlds the search samples from ``seat``'s view."""
    view = view_for(hand, seat)
    mem = build_memory(view, context(hand.ruleset, view.level, view.trump))
    rng = random.Random(seed)
    worlds = [sample_world(view, mem, rng) for _ in range(n)]
    assert all(w is not None for w in worlds)
    return [w for w in worlds if w is not None]


@pytest.mark.parametrize("preset,seed", [("nantong", 6), ("yancheng", 9), ("anhui", 7)])
@pytest.mark.parametrize("tricks", [0, 6])
def test_sampled_worlds_keep_a_stolen_kitty_with_its_takers(preset: str, seed: int, tricks: int) -> None:
    """A seat whose kitty was stolen knows where its 8 cards went: every world puts those not played since in the
    hands of the seats that took the kitty after it, or back in the kitty."""
    hand = _heuristic_hand(HandSetup(RULESETS[preset], seed, 2, (2, 2), 0, 0), tricks)
    assert len(hand.buries) >= 2, "the deal has a steal"
    played: list[Counter[Card]] = [Counter() for _ in range(4)]
    for trick in hand.tricks:
        for s, cs in trick.plays:
            played[s].update(cs)
    checked = 0
    for seat in range(4):
        view = view_for(hand, seat)
        if not view.passed_kitty:
            continue
        takers = view.kitty_takers
        # The buried copies not played since: at least this many of each card lie with the takers or in the kitty.
        bound = Counter(view.passed_kitty) - sum((played[s] for s in takers), Counter())
        assert bound, "some of the stolen kitty is still out"
        held = lambda hands, kitty: sum((Counter(hands[s]) for s in takers), Counter(kitty))  # noqa: E731
        assert bound <= held(hand.hands, hand.kitty)  # the true deal, for a start
        for world in _worlds(hand, seat, seed, 60):
            assert bound <= held(*world), (seat, takers)
        checked += 1
    assert checked == len(hand.buries) - 1  # every burier but the last


@pytest.mark.parametrize("preset,seed", [("chizhou", 0), ("yancheng", 4), ("anhui", 4), ("xin", 7)])
def test_sampled_worlds_keep_the_kitty_holders_bid_cards_with_it(preset: str, seed: int) -> None:
    """The cards the kitty holder showed in its bids and has not played are in its hand or the kitty it buried."""
    hand = _heuristic_hand(HandSetup(RULESETS[preset], seed, 2, (5, 5), seed % 2, seed % 2), 3)
    holder = hand.burier
    assert holder is not None
    shown: Counter[Card] = Counter()
    for bid in hand.bids:
        if bid.seat == holder:
            shown |= Counter(bid.cards)
    played: Counter[Card] = Counter(c for trick in hand.tricks for s, cs in trick.plays if s == holder for c in cs)
    kept = shown - played
    assert kept, "the holder bid, and some of its bid cards are still out"
    assert kept <= Counter(hand.hands[holder]) + Counter(hand.kitty)  # the true deal, for a start
    for seat in range(4):
        if seat == holder:
            continue
        for hands, kitty in _worlds(hand, seat, seed, 40):
            assert kept <= Counter(hands[holder]) + Counter(kitty), seat


@pytest.mark.parametrize("preset", PRESETS)
def test_rollouts_played_unchecked_are_legal_and_score_as_checked(preset: str) -> None:
    """The search's rollouts skip the engine's checks for speed: through :meth:`Hand.apply`, every play passes and the
    hand ends the same."""
    real = _mid_hand(preset, 11, 3)
    seat = real.turn
    assert seat is not None
    view = view_for(real, seat)
    ctx = context(real.ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    rng = random.Random(3)
    for _ in range(6):
        world = sample_world(view, mem, rng)
        assert world is not None
        quick, checked = Rollout(view, real.ruleset, ctx, *world), world_hand(view, real.ruleset, ctx, *world)
        fast = rollout_value(quick, seat)
        assert rollout_value(checked, seat, _rollout_policy, checked=True) == fast
        assert checked.result is not None and quick.result == replace(checked.result, notices=(), bids=())
        assert checked.events  # the checked hand went through apply


@pytest.mark.parametrize("preset", PRESETS)
def test_rollouts_from_kept_memories_play_as_the_heuristic_player_from_views(preset: str) -> None:
    """A rollout keeps each seat's memory play by play (Knowledge) instead of building a view and a memory for
    every decision: at every play the memory is the one build_memory gives, and the plays are heuristic_action's."""
    real = _mid_hand(preset, 13, 2)
    seat = real.turn
    assert seat is not None
    view = view_for(real, seat)
    ctx = context(real.ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    rng = random.Random(5)
    for _ in range(4):
        world = sample_world(view, mem, rng)
        assert world is not None
        sim = world_hand(view, real.ruleset, ctx, *world)
        knowledge = Knowledge(sim.ctx, sim.tricks, sim.current, sim.hands, sim.kitty, sim.burier)
        while not sim.over:
            turn = sim.turn
            assert turn is not None
            seen = view_for(sim, turn)
            kept = knowledge.memory(turn, sim.hands)
            built = build_memory(seen, ctx)
            assert (kept.hand, kept.unseen, list(kept.unseen), kept.voids, kept.counts) == (
                built.hand, built.unseen, list(built.unseen), built.voids, built.counts)
            lead = sim.current[0][1] if sim.current else None
            sim.apply(heuristic_action(seen, real.ruleset))
            knowledge.played(turn, sim.current[-1][1] if sim.current else sim.tricks[-1].plays[-1][1], lead)
        again = Rollout(view, real.ruleset, ctx, *world)
        assert rollout_value(again, seat) == rollout_value(world_hand(view, real.ruleset, ctx, *world), seat,
                                                           _rollout_policy)
        assert sim.result is not None and again.result == replace(sim.result, notices=(), bids=())


def test_simulate_play_refuses_anything_but_the_turns_play() -> None:
    hand = _mid_hand("yancheng", 12, 2)
    turn = hand.turn
    assert turn is not None
    card = hand.hands[turn][0]
    with pytest.raises(IllegalActionError):
        hand.simulate_play(Action("play", (turn + 1) % 4, (card,)))
    with pytest.raises(IllegalActionError):
        hand.simulate_play(Action("escape", turn))


# --- the command line ----------------------------------------------------------------------

def test_selfplay_vs_baseline_prints_the_margin() -> None:
    out = io.StringIO()
    assert main(["--preset", "xin", "--hands", "8", "--seed", "1", "--vs-baseline", "--deals", "1"], out=out) == 0
    text = out.getvalue()
    assert "strong AI won" in text and "of 8 hands (xin) against the baseline" in text and "±" in text
    assert "over 2 deals" in text and "nan" not in text
    assert "buries that made a void" in text and "last trick lost by the dealer side at J/A" in text
    assert "strong side: steals" in text and "baseline side: steals" in text


def test_duel_counts_per_deal_and_per_side_add_up_to_the_tally() -> None:
    """The per-deal sums (for the intervals) and the per-side habit counts split the duel's totals exactly."""
    for preset in ("yancheng", "chizhou"):
        tally = duel(RULESETS[preset], 120, 5, heuristic_action, casual_action)
        assert len(tally.deal_wins) == len(tally.deal_scores) == 30
        assert sum(tally.deal_wins) == tally.ai_wins and sum(tally.deal_scores) == tally.ai_score
        assert sum(tally.side_steals) == tally.steals
        assert sum(tally.side_red5_forced) == tally.red5_forced
        assert sum(tally.side_must_play) == tally.must_play_hands
        assert sum(tally.side_last_lost) == tally.last_lost_at_must_play


def test_a_duel_played_in_parts_adds_up_to_the_whole() -> None:
    """Parts starting at deal boundaries, merged in order, give the tally of the whole duel (bench_ai --jobs)."""
    ruleset = RULESETS["nantong"]
    whole = duel(ruleset, 22, 7, heuristic_action, casual_action)
    merged = duel(ruleset, 12, 7, heuristic_action, casual_action)
    merged.merge(duel(ruleset, 10, 7, heuristic_action, casual_action, first=12))
    merged.seconds = whole.seconds = 0.0
    assert merged == whole
    with pytest.raises(ValueError):
        duel(ruleset, 4, 7, heuristic_action, casual_action, first=2)


def test_the_search_budget_is_measured_by_the_players_clock() -> None:
    """A clock that never moves never ends a search early (the plays of no budget at all); the wall clock with
    the same tiny budget and cap stops after one world, and then some plays differ (so the comparison can fail)."""
    ruleset = RULESETS["yancheng"]
    stopped = StrongPlayer(budget=1e-9, clock=lambda: 0.0, cap=1e-9)
    hurried = StrongPlayer(budget=1e-9, cap=1e-9)
    differ = 0
    for tricks in (1, 3, 5, 7, 9, 11):  # seed 4: at seed 3 the pruned candidates leave one world enough (issue 56)
        hand = _mid_hand("yancheng", 4, tricks)
        seat = hand.turn
        assert seat is not None
        view = view_for(hand, seat)
        assert stopped(view, ruleset) == STRONG(view, ruleset)
        differ += hurried(view, ruleset) != STRONG(view, ruleset)
    assert differ


def test_a_search_samples_its_deals_however_slow_the_clock_and_stops_at_the_cap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget is counted in work: past a tiny time budget a search still samples its deals (a loaded host
    makes it slower, not weaker); the cap stops it after one world, as the time budget alone did before."""
    import engine.ai as ai
    import engine.ai.search as search

    asked: list[int] = []
    sampled: list[int] = []
    real_best, real_sample = ai.best_play, search.sample_world

    def counting_best(*args: object, **kwargs: object) -> list[Card]:
        asked.append(args[6])  # type: ignore[arg-type]  # the deals
        sampled.append(0)
        return real_best(*args, **kwargs)  # type: ignore[arg-type]

    def counting_sample(*args: object) -> object:
        world = real_sample(*args)  # type: ignore[arg-type]
        sampled[-1] += world is not None
        return world

    monkeypatch.setattr(ai, "best_play", counting_best)
    monkeypatch.setattr(search, "sample_world", counting_sample)
    ruleset = RULESETS["xin"]
    views = []
    for tricks in (2, 6, 10):
        hand = _mid_hand("xin", 5, tricks)
        assert hand.turn is not None
        views.append(view_for(hand, hand.turn))
    for view in views:
        StrongPlayer(deals=3, budget=1e-9, cap=3600.0)(view, ruleset)
        StrongPlayer(deals=3, budget=1e-9, cap=1e-9)(view, ruleset)
        StrongPlayer(deals=3, budget=1e-9, cap=None)(view, ruleset)
    searched = [(a, s) for a, s in zip(asked, sampled)]
    assert searched, "no view had a choice to search"
    assert all(s >= a for a, s in searched[0::3])  # its deals, though the budget ran out at once
    assert all(s == 1 for _a, s in searched[1::3] + searched[2::3])  # the cap (or the time budget alone)
