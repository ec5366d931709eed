"""Property tests over seeded self-play hands and matches, every preset.

At every step (see :mod:`tests.engine.selfplay`): the 108 cards are all
accounted for (hands + kitty + played, the stealer's picked-up kitty being in
a hand), the group's view shows no card that is not public and a seat's view
no other seat's hand or hidden bid.  Every play is re-checked with
:func:`engine.follow.check_follow` against the hand before it; a failed throw
plays one of its own components.  At the end: p = trick points + kitty ×
m (m from §2.12 by the lead's largest component) + adjustments; 积分 from
the §2.14 closed forms (and ``level_outcome``) when no special rule fired;
replay and the JSON round trip give the same fingerprint.  Matches: every
settled hand moves the levels as §2.14–2.15 / A29–A30 say (a model written
from the spec), and 积分 add up.

Hands and matches are drawn through hypothesis (preset, seed, every choice), so a failure shrinks;
the file stays well under a minute.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import ACE
from engine.hand import Hand, HandSetup
from engine.match import Match, MatchStart, SideLevel
from engine.ruleset import RULESETS, Ruleset
from tests.engine.selfplay import check_finished, drive, spec_table

PRESETS = sorted(RULESETS)
HANDS_PER_PRESET = 40


def random_setup(r: Ruleset, seed: int, rng: random.Random) -> HandSetup:
    """Hand 1 at a random common level, a later hand with random levels, or (扛旗 presets) a flag hand."""
    kind = rng.random()
    if kind < 0.3:
        level = rng.randint(2, ACE)
        return HandSetup(r, seed, 1, (level, level))
    if kind < 0.9 or r.after_ace != "flag_hand":
        side = rng.randrange(2)
        return HandSetup(r, seed, rng.randint(2, 9), (rng.randint(2, ACE), rng.randint(2, ACE)), side,
                         rng.randrange(4))
    dealer = rng.randrange(4)
    return HandSetup(r, seed, 5, (ACE, rng.randint(2, ACE)), dealer % 2, dealer, True, dealer)


PRESET = st.sampled_from(PRESETS)
SEED = st.integers(0, 2**32 - 1)
CHOICES = st.randoms(use_true_random=True)
"""Every random choice of a hand (its setup, each seat's action, a steal, an escape, when to check the replay)
from a ``Random`` whose seed hypothesis draws, shrinks and prints.  (Its shrinkable ``Random`` would draw each
value towards 0.0: every hand would escape at its first action.)"""
WHOLE_HANDS = [HealthCheck.too_slow]
"""A whole hand is slow next to hypothesis's usual examples."""


@settings(max_examples=HANDS_PER_PRESET * len(PRESETS) // 2, deadline=None,
          suppress_health_check=WHOLE_HANDS)
@given(preset=PRESET, seed=SEED, choices=CHOICES)
def test_self_play_hand(preset: str, seed: int, choices: random.Random) -> None:
    """One hand of random legal play, every invariant checked after every action (see the module)."""
    r = RULESETS[preset]
    hand = Hand(random_setup(r, seed, choices))
    drive(hand, choices, steal_rate=0.5, escape_rate=0.0004, replay_at=choices.randint(1, 120))


@pytest.mark.parametrize("preset", PRESETS)
def test_the_self_play_reaches_steals_and_failed_throws(preset: str) -> None:
    """The generator itself (no invariant checked: the property test above does): over seeded hands most
    are played out, some with failed throws and, where the preset allows it, steals."""
    r = RULESETS[preset]
    phases: Counter[str] = Counter()
    steals = throws = 0
    for i in range(HANDS_PER_PRESET):
        rng = random.Random(f"{preset}/{i}")
        hand = Hand(random_setup(r, 1000 + i, rng))
        stats = drive(hand, rng, checks=False, steal_rate=0.5, escape_rate=0.0004)
        if hand.phase == "finished":
            stats.update(check_finished(hand))
        phases[stats["phase"]] += 1
        steals += stats.get("steals", 0)
        throws += stats.get("throws", 0)
    assert phases["finished"] >= HANDS_PER_PRESET // 2
    assert throws > 0
    if r.kitty_steal:
        assert steals > 0


@settings(max_examples=12, deadline=None, suppress_health_check=WHOLE_HANDS)
@given(preset=st.sampled_from(["yangzhou", "yangzhong"]), seed=SEED, dealer=st.integers(0, 3),
       level=st.integers(2, ACE), choices=CHOICES)
def test_flag_hands_self_play(preset: str, seed: int, dealer: int, level: int, choices: random.Random) -> None:
    r = RULESETS[preset]
    hand = Hand(HandSetup(r, seed, 3, (ACE, level), dealer % 2, dealer, True, dealer))
    assert [len(h) for h in hand.hands] == [27] * 4 and hand.kitty == []
    stats = drive(hand, choices)
    assert stats["phase"] == "finished"
    assert hand.threshold == 100


# --- matches: a model of level movement written from the spec ----------------------------------------------

def _index(s: SideLevel) -> int:
    return (s.lap - 1) * 13 + s.rank - 2


def _at(index: int, at_flag: bool) -> SideLevel:
    lap, off = divmod(index, 13)
    return SideLevel(lap + 1, off + 2, at_flag)


def _stops(r: Ruleset) -> set[int]:
    """Must-play positions: the preset's must-play ranks in every lap, and (盐城) A of the last lap."""
    stops = {(lap - 1) * 13 + m - 2 for lap in range(1, r.laps + 1) for m in r.must_play}
    if r.laps > 1:
        stops.add(r.laps * 13 - 1)
    return stops


def _rise(r: Ruleset, side: SideLevel, n: int, *, dealer: bool) -> tuple[SideLevel, bool]:
    """A29, decision 13: a jump stops at the first must-play level inside it and never goes beyond
    the last A; an attacking side at an unpassed must-play level stays; only a dealer side winning
    while at the last A passes it."""
    last = r.laps * 13 - 1
    start = _index(side)
    stops = _stops(r)
    if not dealer and start in stops:
        return side, False
    if dealer and n > 0 and start == last:
        return side, True
    target = start + n
    inside = [m for m in stops if start < m < target]
    if inside:
        target = min(inside)
    return _at(min(target, last), side.at_flag), False


def model_settle(r: Ruleset, hand: Hand, before: tuple[SideLevel, SideLevel]):
    """Expected (sides after, next dealer side or None, match winner or None)."""
    res = hand.result
    assert res is not None and res.outcome is not None and hand.dealer_side is not None
    ds, att = hand.dealer_side, 1 - hand.dealer_side
    sides = list(before)
    out = res.outcome
    if hand.setup.flag:  # A30: hold → the game ends; fail → attackers take over at their own level
        return tuple(sides), (ds if out.dealer_keeps else att), (ds if out.dealer_keeps else None)
    if res.heaven_and_earth_side is not None:  # §2.13.1, A23 ii
        w = res.heaven_and_earth_side
        sides[w] = SideLevel(r.laps, ACE)
        sides[1 - w] = SideLevel(1, 2)
        return tuple(sides), w, None
    if res.demoted_to is not None:  # A27 (a)
        sides[ds] = SideLevel(sides[ds].lap, res.demoted_to, sides[ds].at_flag)
        if not out.dealer_keeps:
            sides[att], _ = _rise(r, sides[att], out.levels, dealer=False)
        return tuple(sides), (ds if out.dealer_keeps else att), None
    if out.dealer_keeps:
        sides[ds], passed = _rise(r, sides[ds], out.levels, dealer=True)
        winner = None
        if passed:
            if r.after_ace == "flag_hand":
                sides[ds] = SideLevel(sides[ds].lap, sides[ds].rank, True)
            else:
                winner = ds
        return tuple(sides), ds, winner
    sides[att], _ = _rise(r, sides[att], out.levels, dealer=False)
    return tuple(sides), att, None


@settings(max_examples=3 * len(PRESETS), deadline=None, suppress_health_check=WHOLE_HANDS)
@given(preset=PRESET, seed=SEED, choices=CHOICES)
def test_self_play_matches_move_levels_by_the_rules(preset: str, seed: int, choices: random.Random) -> None:
    """Up to six hands of a match from random levels: each settled hand moves the levels as the model says,
    积分 add up, and the match survives a JSON round trip."""
    r = RULESETS[preset]
    rng = choices
    a = SideLevel(rng.randint(1, r.laps), rng.randint(2, ACE))
    b = SideLevel(rng.randint(1, r.laps), rng.randint(2, ACE))
    ds = rng.randrange(2)
    m = Match(r, seed, MatchStart((a, b), ds, rng.randrange(4)))
    scores = [0, 0, 0, 0]
    for _ in range(6):
        if m.over:
            break
        before = m.sides
        hand = m.hand
        drive(hand, rng, apply=m.apply, steal_rate=0.3, escape_rate=0.0003)
        rec = m.records[-1]
        assert rec.before == before
        if hand.phase in ("redeal", "abandoned"):
            assert rec.after == before
        else:
            sides, next_ds, winner = model_settle(r, hand, before)
            assert rec.after == sides == m.sides, (hand.result, before)
            assert m.winner_side == winner
            if not m.over:
                assert m.dealer_side == next_ds
        if rec.result is not None:
            scores = [s + d + e for s, d, e in zip(scores, rec.result.scores, rec.bonus)]
        assert m.scores == scores
    again = Match.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.sides == m.sides and again.scores == m.scores and again.winner_side == m.winner_side
    assert [x.result for x in again.records] == [x.result for x in m.records]
    assert again.hand.fingerprint() == m.hand.fingerprint()


def test_spec_table_sanity() -> None:
    """T21 (rule), the closed forms used above: table A vs table B."""
    a = [spec_table("A", p, 80)[1:3] for p in (0, 5, 75, 80, 85, 165, -10)]
    b = [spec_table("B", p, 80)[1:3] for p in (0, 5, 75, 80, 85, 165, -10)]
    assert a == [(8, 8), (8, 8), (1, 1), (0, -1), (0, -1), (8, -9), (9, 9)]
    assert b == [(9, 9), (8, 8), (1, 1), (0, -1), (0, -1), (8, -9), (10, 10)]
