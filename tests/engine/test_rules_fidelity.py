"""Regression tests for issue 10, "Rules fidelity II" (binding decisions 13–16 of RULES.md).

Each test replays the rigged deal or match named in the issue, in card notation.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from engine.cards import ACE, DECK, RED_FIVE
from engine.combos import classify
from engine.follow import is_legal_follow, red_fives_forced
from engine.levels import LevelMove, MoveReason, SideLevel
from engine.ruleset import get_ruleset
from engine.trump import TrumpContext, trump_context
from tests.engine.rig import cards, full_deal, mini_deal, new_hand, play_tricks, run
from tests.engine.test_match import play_p, start


def ctx_of(preset: str, trump: str | None, level: int = 2) -> TrumpContext:
    """The trump context of a preset at a level."""
    return trump_context(get_ruleset(preset), level, trump)


def _adjust(h) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    assert h.result is not None
    return [(a.reason, a.seat, a.points) for a in h.result.adjustments]


def test_red_five_not_forced_when_a_legal_follow_avoids_it() -> None:
    """Decision 7 (A25): 逼红5 only when no legal play avoids the red five.

    ♠ is trump at level 2; seat 0 leads the tractor ♠991010JJ.  Seat 1 holds
    R5 R5, ♠7788 and ♠QQ: QS QS 7S 7S 8S 8S is a legal follow without a red five,
    so playing 5H 5H QS QS 7S 7S is a free choice, not a forced one.
    """
    deal = mini_deal(["9S 9S 10S 10S JS JS AS AS", "5H 5H 7S 7S 8S 8S QS QS",
                      "3D 4D 6D 7D 8D 9D 3C 4C", "3H 4H 6H 7H 8H 9H 3C 4C"],
                     "2S KD KD QD QD JD JD AD")
    h = new_hand("yancheng", number=1, levels=(2, 2), dealer_side=0, deal=deal)
    run(h, [("pass", s) for s in range(4)])
    assert h.trump == "S" and h.dealer == 0
    run(h, [("bury", 0, "2S KD KD QD QD JD JD AD")])
    assert h.can_play(0, cards("9S 9S 10S 10S JS JS"))
    h.play(0, cards("9S 9S 10S 10S JS JS"))
    assert h.can_play(1, cards("QS QS 7S 7S 8S 8S"))
    h.play(1, cards("5H 5H QS QS 7S 7S"))
    h.play(2, cards("3D 4D 6D 7D 8D 9D"))
    h.play(3, cards("3H 4H 6H 7H 8H 9H"))
    assert h.tricks[-1].winner == 0
    play_tricks(h, ["AS AS", "8S 8S", "3C 4C", "3C 4C"])
    assert h.phase == "finished"
    assert [a for a in _adjust(h) if a[0] == "red5_forced"] == []


def _brute_fewest_red_fives(ctx, lead, hand):  # type: ignore[no-untyped-def]
    """The fewest red fives over every legal follow, by trying every combination (independent of the engine's search)."""
    best = None
    for combo in set(combinations(sorted(hand, key=str), len(lead))):
        if is_legal_follow(ctx, lead, hand, combo):
            k = sum(1 for c in combo if ctx.is_red_five(c))
            best = k if best is None else min(best, k)
    return best


@pytest.mark.parametrize("preset", ["yancheng", "yangzhong"])
@pytest.mark.parametrize("trump", ["S", "H", None])
def test_red_fives_forced_agrees_with_every_legal_follow(preset: str, trump: str | None) -> None:
    """The 逼红5 count is the fewest red fives in any legal follow, checked by brute force on small hands."""
    rng = random.Random(f"{preset}/{trump}")
    deck = [c for c in DECK if not ctx_of(preset, trump).is_red_five(c)]
    ctx = ctx_of(preset, trump)
    checked = 0
    while checked < 200:
        group = ctx.group(rng.choice(deck))
        in_group = sorted({c for c in deck if ctx.group(c) == group}, key=ctx.order)
        start = rng.randrange(len(in_group))
        run_ = in_group[start:start + rng.randint(1, 3)]
        lead = [c for c in run_ for _ in (0, 1)] if rng.random() < 0.7 else run_
        if classify(ctx, lead) is None:
            continue
        near = rng.randrange(len(in_group))
        follower = [c for c in in_group[near:near + 2] + rng.sample(in_group, rng.randint(0, 2)) for _ in (0, 1)]
        follower += rng.sample(deck, 8 - len(follower)) + [RED_FIVE] * rng.randint(1, 2)
        if max(Counter(follower).values()) > 2:
            continue
        fewest = _brute_fewest_red_fives(ctx, lead, follower)
        assert fewest is not None
        legal_with_fives = [combo for combo in set(combinations(sorted(follower, key=str), len(lead)))
                            if is_legal_follow(ctx, lead, follower, combo) and any(ctx.is_red_five(c) for c in combo)]
        for play in legal_with_fives[:3]:
            in_play = sum(1 for c in play if ctx.is_red_five(c))
            assert red_fives_forced(ctx, lead, follower, play) == min(in_play, fewest), (lead, follower, play)
        checked += 1


def test_look_back_only_by_the_seat_whose_single_stood() -> None:
    """Decision 15: 回头望 belongs to the seat whose single was standing when it was overridden.

    盐城 (hidden bidding), hand 1: seat 0 bids ♠2 (stands), seat 1 bids ♥2 (a
    single after a single never stands), seat 3 overrides with BJ BJ, seat 1
    bids ♥2 ♥2.  Seat 1's single never stood, so its pair is an ordinary ♥
    pair, below the big-joker pair: seat 3 deals, no-trump.
    """
    deal = mini_deal(["2S 3D 4D 6D", "2H 2H 7D 8D", "3C 4C 6C 7C", "BJ BJ 9D 10D"], "")
    h = new_hand("yancheng", deal=deal)
    run(h, [("bid", 0, "2S"), ("bid", 1, "2H"), ("bid", 3, "BJ BJ"), ("bid", 1, "2H 2H")])
    assert [b.kind for b in h.bids] == ["declare", "override", "override", "override"]
    run(h, [("pass", s) for s in range(4)])
    assert h.dealer == 3
    assert h.standing is not None and h.standing.seat == 3 and h.standing.trump is None


def test_look_back_right_ends_when_its_override_is_overridden() -> None:
    """Decision 15 ("only while that override stands"): once another bid tops the override, the
    single's seat can no longer look back."""
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 1: "2H 2H", 3: "BJ BJ"}))
    h.bid(0, cards("2S"))
    h.bid(1, cards("2H 2H"))
    h.bid(3, cards("BJ BJ"))
    assert not h.can_bid(0, cards("2S 2S"))


@pytest.mark.parametrize("preset", ["xin", "chizhou"])
def test_hand_one_dealer_is_the_first_to_bid_a_two(preset: str) -> None:
    """Decision 14: in 新炒地皮 and 池州 the first player to bid a 2 deals hand 1; the override sets trump."""
    h = new_hand(preset, deal=full_deal({0: "BJ BJ", 1: "2C", 3: "2S 2S"}))
    h.bid(1, cards("2C"))
    h.bid(3, cards("2S 2S"))
    h.close()
    assert h.dealer == 1 and h.dealer_side == 1
    assert h.standing is not None and h.standing.trump == "S"


@pytest.mark.parametrize("preset", ["xin", "chizhou"])
def test_hand_one_dealer_skips_joker_bids(preset: str) -> None:
    """Decision 14: a joker pair is no level card; the first 2 bid after it decides the dealer."""
    h = new_hand(preset, deal=full_deal({0: "BJ BJ", 1: "2C 2C"}))
    h.bid(0, cards("BJ BJ"), "H")
    h.bid(1, cards("2C 2C"))  # ♣ pair over a big-joker pair (新炒地皮's edge)
    h.close()
    assert h.dealer == 1


@pytest.mark.parametrize("preset", ["yancheng", "yangzhou", "yangzhong", "nantong", "xin", "chizhou"])
def test_no_hollow_tractor_inside_the_trump_suit(preset: str) -> None:
    """Decision 16: at level 5 with ♥ trump, ♥44 66 is two pairs, not a tractor, outside 安徽."""
    shape = classify(ctx_of(preset, "H", level=5), cards("4H 4H 6H 6H"))
    assert shape is not None and shape.kind == "throw"
    assert shape.structure.tractors == () and shape.structure.pairs == 2


def test_anhui_hollow_tractor_inside_the_trump_suit() -> None:
    """Decision 16's exception: 安徽 (no red five) keeps the hollow tractor inside the trump suit."""
    shape = classify(ctx_of("anhui", "H", level=5), cards("4H 4H 6H 6H"))
    assert shape is not None and shape.kind == "tractor"


# --- decision 13: the climb ends at A ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ["yangzhou", "yangzhong"])
def test_flag_presets_jump_stops_at_a(preset: str) -> None:
    """Decision 13: a jump from K stops at A; the flag hand comes only after winning as dealer at A."""
    m = start(preset, 13, 9, dealer_side=0, previous_dealer=0)
    rec = play_p(m, 30, dealer=0)  # table B: the dealer side +5 from K
    assert m.sides[0] == SideLevel(1, ACE) and not m.sides[0].at_flag and not m.hand.setup.flag
    assert rec.moves[0] == LevelMove(0, SideLevel(1, 13), SideLevel(1, ACE), 5, MoveReason.STOPPED_AT_ACE)
    rec = play_p(m, 30, dealer=0)  # the dealer side wins again, at A: passes it
    assert rec.moves[0].reason is MoveReason.PASSED_ACE and rec.moves[0].after.at_flag
    assert m.hand.setup.flag and not m.over


@pytest.mark.parametrize("preset,rank", [("xin", 9), ("xin", 12), ("nantong", 12), ("anhui", 12)])
def test_match_is_not_won_by_a_jump_past_a(preset: str, rank: int) -> None:
    """Decision 13: 新炒地皮 (and every preset) wins the match only by winning as dealer at A."""
    m = start(preset, rank, 2, dealer_side=0, previous_dealer=0)
    rec = play_p(m, 0, dealer=0)  # table A: +8 (table B: +9)
    assert not m.over and m.sides[0].rank == ACE
    assert rec.moves[0].reason in (MoveReason.STOPPED_AT_ACE, MoveReason.MUST_PLAY)
    assert rec.winner_side is None
    rec = play_p(m, 40, dealer=0)
    assert m.over and m.winner_side == 0 and rec.winner_side == 0
    assert rec.moves[0].reason is MoveReason.PASSED_ACE and rec.moves[0].after == rec.moves[0].before


def test_yancheng_laps_one_and_two_still_wrap() -> None:
    """Decision 13's exception: in 盐城 laps 1–2, A is jumped and the level wraps (A29)."""
    m = start("yancheng", (1, 13), (1, 2), dealer_side=0, previous_dealer=0)
    rec = play_p(m, 40, dealer=0)  # table B: +4 from K of lap 1
    assert m.sides[0] == SideLevel(2, 4)
    assert rec.moves[0] == LevelMove(0, SideLevel(1, 13), SideLevel(2, 4), 4, MoveReason.LAP_WRAP)
    assert rec.moves[1] == LevelMove(1, SideLevel(1, 2), SideLevel(1, 2), 0, None)
