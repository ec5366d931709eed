"""Matches: level tables hand after hand, must-play levels, 盐城 laps, the flag hand, 安徽's end bonus,
escapes, redeals, league starts and replay (RULES.md §2.14–2.16, A26, A29–A31, A36, A37;
T10, T23–T25).

Each hand of a match is rigged when it is dealt (``match.hand`` is a fresh
:class:`Hand`) and driven through :meth:`Match.apply`, so settlement runs as
in play.  The two-trick template of :func:`tests.engine.rig.p_deal` gives an
exact attackers' score p with no special rule firing.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.errors import EngineError, IllegalActionError
from engine.hand import Action
from engine.match import Match, MatchStart, SideLevel
from engine.ruleset import get_ruleset
from tests.engine.rig import (
    action,
    cards,
    flag_plays,
    flag_tricks,
    full_deal,
    mini_setup_steps,
    p_hand_steps,
    play_tricks,
    rig,
    side_scores,
)
from tests.engine.selfplay import drive


def start(preset: str, side0: tuple[int, int] | int = 2, side1: tuple[int, int] | int = 2,
          dealer_side: int | None = None, previous_dealer: int | None = None, seed: int = 1) -> Match:
    def lv(x: tuple[int, int] | int) -> SideLevel:
        return SideLevel(*x) if isinstance(x, tuple) else SideLevel(1, x)
    return Match(get_ruleset(preset), seed, MatchStart((lv(side0), lv(side1)), dealer_side, previous_dealer))


def play_p(match: Match, p: int, dealer: int | None = None):
    """Rig the current hand as a two-trick hand scoring p; play it through the match; return its record."""
    hand = match.hand
    ds = hand.setup.dealer_side
    if dealer is None:
        dealer = 0 if ds is None else ds
    assert hand.level is not None
    deal, steps = p_hand_steps(p, level=hand.level, dealer=dealer)
    rig(hand, *deal)
    out = None
    for s in steps:
        out = match.apply(action(s))
    assert hand.phase == "finished", hand.phase
    assert hand.result is not None and hand.result.attacker_points == p
    assert out is not None and out.record is not None
    return out.record


def play_flag(match: Match, *, fail: bool):
    hand = match.hand
    assert hand.setup.flag and hand.dealer is not None
    d = hand.dealer
    rig(hand, [cards(x) for x in flag_plays(d, fail=fail)], [])
    out = play_tricks(hand, *flag_tricks(d, fail=fail), apply=match.apply)
    assert hand.phase == "finished"
    assert out[-1].record is not None
    return out[-1].record


def levels(match: Match) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((match.sides[0].lap, match.sides[0].rank), (match.sides[1].lap, match.sides[1].rank))


def ranks(match: Match) -> tuple[int, int]:
    return (match.sides[0].rank, match.sides[1].rank)


# --- level tables through the match ------------------------------------------------------------------

@pytest.mark.parametrize("preset,p,dealer_levels,scores", [
    ("yangzhou", 0, 9, 9),  # table B: 大光 adds one
    ("yangzhou", 5, 8, 8),
    ("yangzhou", 70, 1, 1),
    ("xin", 0, 8, 8),  # table A
    ("xin", 10, 7, 7),
    ("anhui", 40, 4, 4),
])
def test_dealer_side_keeps_and_rises(preset: str, p: int, dealer_levels: int, scores: int) -> None:
    m = start(preset)
    rec = play_p(m, p, dealer=0)
    assert m.dealer_side == 0
    assert ranks(m) == (2 + dealer_levels, 2)
    assert rec.after == m.sides and rec.before == (SideLevel(), SideLevel())
    assert m.scores == list(side_scores(0, scores, -scores))


@pytest.mark.parametrize("preset", ["yangzhou", "nantong", "xin", "anhui", "yancheng"])
@pytest.mark.parametrize("p,gain", [(80, 0), (85, 0), (90, 1), (150, 7)])
def test_attackers_take_over(preset: str, p: int, gain: int) -> None:
    m = start(preset, 4, 3, dealer_side=1, previous_dealer=1)
    assert m.hand.level == 3
    play_p(m, p, dealer=1)
    assert m.dealer_side == 0  # 换庄 / takeover
    assert m.sides[1].rank == 3  # the losing dealer side stays
    expected = 4 + gain
    if preset in ("nantong", "anhui") and expected > 11:
        expected = 11  # J is must-play
    assert m.sides[0].rank == expected
    assert m.scores == list(side_scores(1, -(gain + 1), gain + 1))


def test_scores_accumulate_over_hands() -> None:
    m = start("yangzhou")
    play_p(m, 40, dealer=0)  # side 0 +4 → 6
    play_p(m, 100, dealer=0)  # side 1 takes over +2 → 4
    play_p(m, 60, dealer=1)  # side 1 +2 → 6
    assert ranks(m) == (6, 6) and m.dealer_side == 1
    assert m.scores == [4 - 3 - 2, -4 + 3 + 2, 4 - 3 - 2, -4 + 3 + 2]
    assert [r.result.attacker_points for r in m.records] == [40, 100, 60]


# --- must-play levels (A29, T10) ---------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["anhui", "nantong", "chizhou"])
def test_t10_must_play_j_stops_a_jump(preset: str) -> None:
    """T10: the dealer side at 10 scores a hold worth +3 (p = 50); it goes to J, not K."""
    m = start(preset, 10, 4, dealer_side=0, previous_dealer=0)
    play_p(m, 50, dealer=0)
    assert ranks(m) == (11, 4)


def test_must_play_a_stops_a_jump_and_passing_j_moves_on() -> None:
    m = start("nantong", 11, 4, dealer_side=0, previous_dealer=0)
    play_p(m, 60, dealer=0)  # +2 from J: J is passed by winning at it
    assert ranks(m) == (13, 4)
    play_p(m, 0, dealer=0)  # +9 from K: stops at A
    assert ranks(m) == (14, 4) and not m.over
    play_p(m, 70, dealer=0)  # win at A: the match ends (A31 / must-play A)
    assert m.over and m.winner_side == 0


def test_yancheng_j_is_not_must_play() -> None:
    m = start("yancheng", 10, 4, dealer_side=0, previous_dealer=0)
    play_p(m, 50, dealer=0)
    assert ranks(m) == (13, 4)


@pytest.mark.parametrize("preset", ["nantong", "anhui", "chizhou"])
def test_takeover_at_unpassed_must_play_level_stays(preset: str) -> None:
    """A29: the attackers at an unpassed J take over but stay at J; from 10 they stop at J."""
    m = start(preset, 7, 11, dealer_side=0, previous_dealer=0)
    play_p(m, 120, dealer=0)  # attackers +4
    assert m.dealer_side == 1 and ranks(m) == (7, 11)
    m2 = start(preset, 7, 10, dealer_side=0, previous_dealer=0)
    play_p(m2, 120, dealer=0)
    assert ranks(m2) == (7, 11)


def test_attackers_never_pass_a() -> None:
    m = start("yangzhou", 7, 12, dealer_side=0, previous_dealer=0)
    play_p(m, 150, dealer=0)  # attackers +7 from Q
    assert ranks(m) == (7, 14) and not m.over
    assert not m.sides[1].at_flag


# --- 盐城 laps (A29) -------------------------------------------------------------------------------------

def test_yancheng_wraps_a_to_two_of_the_next_lap() -> None:
    m = start("yancheng", (1, 12), (1, 4), dealer_side=0, previous_dealer=0)
    play_p(m, 40, dealer=0)  # +4 from lap-1 Q: K, A, lap-2 2, 3
    assert levels(m) == ((2, 3), (1, 4)) and not m.over


def test_yancheng_lap_one_ace_won_goes_on() -> None:
    m = start("yancheng", (1, 14), (1, 4), dealer_side=0, previous_dealer=0)
    play_p(m, 70, dealer=0)
    assert levels(m) == ((2, 2), (1, 4)) and not m.over


def test_yancheng_lap_three_ace_is_must_play_and_ends_the_match() -> None:
    m = start("yancheng", (3, 12), (2, 9), dealer_side=0, previous_dealer=0)
    play_p(m, 20, dealer=0)  # +6 from lap-3 Q: stops at lap-3 A
    assert levels(m) == ((3, 14), (2, 9)) and not m.over
    play_p(m, 70, dealer=0)
    assert m.over and m.winner_side == 0
    with pytest.raises(IllegalActionError) as err:
        m.apply(Action("pass", 0))
    assert err.value.code == "match_over"


def test_yancheng_attackers_at_lap_three_ace_take_over_without_passing() -> None:
    m = start("yancheng", (2, 9), (3, 14), dealer_side=0, previous_dealer=0)
    play_p(m, 130, dealer=0)
    assert levels(m) == ((2, 9), (3, 14)) and m.dealer_side == 1 and not m.over


def test_yancheng_heaven_and_earth_sets_laps() -> None:
    """T19 through a match: winners to lap 3 A, losers to lap 1 level 2; the winners deal next (A23 ii)."""
    m = start("yancheng", (2, 6), (2, 6))
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    deal, steps = mini_setup_steps(plays, "6S 9H JH QH 4H 3H 7H 8H", "6S", 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    hand = m.hand
    play_tricks(hand, plays, apply=m.apply)
    assert hand.result is not None and hand.result.heaven_and_earth_side == 1
    assert levels(m) == ((1, 2), (3, 14)) and m.dealer_side == 1
    assert m.scores == list(side_scores(0, -16, 16))


def test_yangzhou_heaven_and_earth_sets_a_and_two() -> None:
    m = start("yangzhou", 6, 9, dealer_side=0, previous_dealer=0)
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    deal, steps = mini_setup_steps(plays, "6S 9H JH QH 4H 3H 7H 8H", "6S", 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    hand = m.hand
    play_tricks(hand, plays, apply=m.apply)
    assert ranks(m) == (2, 14) and m.dealer_side == 1 and not m.over


# --- J到底 through the match (T11, T13) ------------------------------------------------------------------

def _j_capture(m: Match, plays: list[str], kitty: str, bid: str) -> None:
    deal, steps = mini_setup_steps(plays, kitty, bid, 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    hand = m.hand
    play_tricks(hand, plays, apply=m.apply)
    assert hand.phase == "finished"


def test_t13_nantong_level_change() -> None:
    """A27 (a): the dealer side's level becomes 2; the deal passes as usual (p ≥ 80)."""
    m = start("nantong", 11, 7, dealer_side=0, previous_dealer=0)
    _j_capture(m, ["3S", "JS", "4S", "6S"], "JS KH KH 10H 10H 4H 6H 7H", "JS")
    assert ranks(m) == (2, 7) and m.dealer_side == 1


def test_t13_nantong_aces_to_j() -> None:
    m = start("nantong", 14, 7, dealer_side=0, previous_dealer=0)
    _j_capture(m, ["3S 3S", "AH AH", "4S 4S", "6S 6S"], "AS KH KH 4H 6H 7H 8H 9H", "AS")
    assert ranks(m) == (11, 7) and m.dealer_side == 1


def test_t11_chizhou_level_change_and_score() -> None:
    m = start("chizhou", 11, 7, dealer_side=0, previous_dealer=0)
    _j_capture(m, ["3S", "JS", "4S", "6S"], "JS KH KH 10H 10H KD 4H 6H", "JS")
    assert ranks(m) == (2, 9) and m.dealer_side == 1  # attackers +2 for p = 100
    assert m.scores == list(side_scores(0, -12, 12))


# --- the flag hand (T24, A30) --------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["yangzhou", "yangzhong"])
def test_t24_flag_hand_after_passing_a(preset: str) -> None:
    m = start(preset, 14, 9, dealer_side=0, previous_dealer=0)
    play_p(m, 30, dealer=0)  # the dealer side wins at A: passes A
    assert m.sides[0].at_flag and not m.over and m.dealer_side == 0
    hand = m.hand
    assert hand.setup.flag
    assert hand.phase == "playing"  # no bidding, bury or steals
    assert hand.level is None and hand.trump is None
    assert hand.kitty == [] and [len(x) for x in hand.hands] == [27, 27, 27, 27]
    assert hand.threshold == 100
    ctx = hand.ctx
    trumps = {str(c) for c in set(sum(hand.hands, [])) if ctx.is_trump(c)}
    assert trumps <= {"5H", "BJ", "SJ"}
    assert not ctx.is_trump(cards("AS")[0]) and not ctx.is_trump(cards("2C")[0])
    with pytest.raises(IllegalActionError) as err:
        hand.bid(0, hand.hands[0][:1])
    assert err.value.code == "wrong_phase"
    play_flag(m, fail=False)
    assert m.over and m.winner_side == 0


@pytest.mark.parametrize("preset", ["yangzhou", "yangzhong"])
def test_flag_hand_failure_attackers_take_over_flag_side_stays_at_flag(preset: str) -> None:
    m = start(preset, 14, 9, dealer_side=0, previous_dealer=0)
    play_p(m, 30, dealer=0)
    rec = play_flag(m, fail=True)
    assert rec.result.attacker_points == 120
    assert not m.over
    assert m.dealer_side == 1
    assert m.sides[0].at_flag and m.sides[0].rank == 14
    assert m.sides[1].rank == 9  # A30: the attackers take over at their own level
    assert not m.hand.setup.flag and m.hand.level == 9
    # The flag side wins the deal back: it must play the flag hand again.
    play_p(m, 80, dealer=1)
    assert m.dealer_side == 0 and m.hand.setup.flag


def test_flag_dealer_is_the_flag_sides_last_trick_winner() -> None:
    """A30: the flag side's player who won the previous hand's last trick deals the flag hand."""
    m = start("yangzhou", 14, 9, dealer_side=0, previous_dealer=0)
    plays = ["KD 3C", "3D 4C", "4D KC", "6D 6C"]  # seat 2 wins the last trick with ♣K (A is trump here)
    deal, steps = mini_setup_steps(plays, "AS 9H JH QH 4H 3H 7H 8H", "AS", 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    hand = m.hand
    play_tricks(hand, ["KD", "3D", "4D", "6D"], ["3C", "4C", "KC", "6C"], apply=m.apply)
    assert hand.tricks[-1].winner == 2 and hand.result.attacker_points == 0
    assert m.hand.setup.flag and m.hand.dealer == 2


# --- 安徽 end bonus (T25, A37) ----------------------------------------------------------------------------

@pytest.mark.parametrize("loser_rank,bonus", [(2, 5), (3, 4), (6, 4), (8, 3), (10, 3), (11, 2), (12, 2),
                                              (13, 2), (14, 1)])
def test_t25_anhui_end_bonus(loser_rank: int, bonus: int) -> None:
    m = start("anhui", 14, loser_rank, dealer_side=0, previous_dealer=0)
    rec = play_p(m, 40, dealer=0)  # table A: dealer +4
    assert m.over and m.winner_side == 0
    assert rec.bonus == side_scores(0, bonus, -bonus)
    assert m.scores == list(side_scores(0, 4 + bonus, -4 - bonus))


def test_anhui_no_bonus_before_a() -> None:
    m = start("anhui", 9, 2, dealer_side=0, previous_dealer=0)
    rec = play_p(m, 40, dealer=0)
    assert rec.bonus == (0, 0, 0, 0) and not m.over


# --- escapes (T23, A26, A36) --------------------------------------------------------------------------------

def _midhand_at_90(preset: str) -> Match:
    """A match whose current hand is in play with p = 90 (trick points) and cards still to play."""
    m = start(preset, 6, 6, dealer_side=0, previous_dealer=0)
    plays = ["3D 3D 4D 4D 7C", "AD AD KD KD 8C", "KH KH 10H 9H 9C", "KC KC 10C 10C JC"]
    deal, steps = mini_setup_steps(plays, "6S 3H 4H 7H 8H 7S 8S 9S", "6S", 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    play_tricks(m.hand, ["3D 3D 4D 4D", "AD AD KD KD", "KH KH 10H 9H", "KC KC 10C 10C"], apply=m.apply)
    assert m.hand.attacker_points == 90 and m.hand.phase == "playing"
    return m


@pytest.mark.parametrize("preset", ["nantong", "yancheng", "yangzhou"])
def test_t23a_attacker_escapes_while_ahead(preset: str) -> None:
    m = _midhand_at_90(preset)
    before = m.sides
    hand = m.hand
    out = m.apply(Action("escape", 1))
    assert hand.phase == "abandoned"
    assert out.record is not None and out.record.result is not None
    assert out.record.result.scores == (0, -15, 0, 0)
    assert m.scores == [0, -15, 0, 0]
    assert m.sides == before and m.dealer_side == 0 and not m.over
    assert m.hand is not hand and m.hand.phase == "bidding"


@pytest.mark.parametrize("preset", ["nantong", "yancheng"])
def test_t23b_dealer_side_escapes_while_behind(preset: str) -> None:
    m = _midhand_at_90(preset)
    m.apply(Action("escape", 2))
    assert m.scores == [0, 0, -15, 0]  # max(15, table loss 2)


@pytest.mark.parametrize("preset", ["nantong", "yancheng", "xin"])
def test_t23c_escape_before_the_first_card_is_free(preset: str) -> None:
    m = start(preset, 6, 6, dealer_side=0, previous_dealer=0)
    m.apply(Action("escape", 3))
    assert m.scores == [0, 0, 0, 0] and len(m.records) == 1


def test_escape_loss_at_least_the_table_loss() -> None:
    """A26: a losing side's escaper loses max(15, the table loss at the current p).

    Two failed attacker steals (盐城) put p at −160 before the first trick; an attacker escapes after it:
    table B at p = −160 takes 24 + 1 (大光) = 25 from the attackers.
    """
    from tests.engine.rig import new_hand
    h = new_hand("yancheng", deal=full_deal({0: "2H 2H", 1: "2D 2D", 3: "2C 2C"}, seed=17))
    h.bid(0, cards("2H 2H"))
    h.close()
    h.bury(0, [c for c in h.hands[0] if c.rank != 2][:8])
    h.steal(1, cards("2D 2D"))
    h.bury(1, [c for c in h.hands[1] if c.rank != 2][:8])
    h.pass_steal(2)
    h.steal(3, cards("2C 2C"))
    h.bury(3, [c for c in h.hands[3] if c.rank != 2][:8])
    for s in (0, 1, 2):
        h.pass_steal(s)
    assert h.attacker_points == -160
    from engine.hints import cheapest_follow
    lead = [c for c in h.hands[0] if not h.ctx.is_trump(c) and c.points == 0][:1]
    h.play(0, lead)
    for s in (1, 2, 3):
        h.play(s, cheapest_follow(h.ctx, lead, h.hands[s], lambda c: c.points + (5 if h.ctx.is_trump(c) else 0)))
    h.escape(1)
    assert h.result is not None and h.result.scores == (0, -25, 0, 0)


def test_a36_anhui_escape_fifteen_below_j() -> None:
    m = start("anhui", 9, 10, dealer_side=0, previous_dealer=0)
    plays = ["3D 3D 4D 4D 7C", "AD AD KD KD 8C", "KH KH 10H 9H 9C", "KC KC 10C 10C JC"]
    deal, steps = mini_setup_steps(plays, "9S 3H 4H 7H 8H 7S 8S 6S", "9S", 0)
    rig(m.hand, *deal)
    for s in steps:
        m.apply(action(s))
    play_tricks(m.hand, ["3D 3D 4D 4D", "AD AD KD KD", "KH KH 10H 9H", "KC KC 10C 10C"], apply=m.apply)
    m.apply(Action("escape", 1))
    assert m.scores == [0, -15, 0, 0]


@pytest.mark.parametrize("high", [(11, 4), (4, 11), (14, 2)])
def test_a36_anhui_escape_twenty_once_a_side_reached_j(high: tuple[int, int]) -> None:
    """A36: once either side's level is ≥ J any escape costs 20 (even before a card is played)."""
    m = start("anhui", high[0], high[1], dealer_side=0, previous_dealer=0)
    m.apply(Action("escape", 2))
    assert m.scores == [0, 0, -20, 0]


# --- redeal, league start, replay ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["yancheng", "xin", "nantong"])
def test_redeal_keeps_levels_and_deals_again(preset: str) -> None:
    m = start(preset, 7, 7)
    first = m.hand
    for s in range(4):
        m.apply(Action("pass", s))
    assert first.phase == "redeal"
    assert m.records[-1].result is None and m.records[-1].after == m.records[-1].before
    assert ranks(m) == (7, 7) and m.dealer_side is None and m.scores == [0, 0, 0, 0]
    assert m.hand is not first and m.hand.phase == "bidding"
    assert m.hand.setup.number == 1 and m.hand.level == 7
    assert m.hand.setup.seed != first.setup.seed


def test_league_start_at_chosen_levels_and_dealer_side() -> None:
    """A league continues: the first hand starts at the stored levels with the stored dealer side."""
    m = Match(get_ruleset("nantong"), 5, MatchStart((SideLevel(1, 5), SideLevel(1, 9)), 1, 3))
    assert m.hand.setup.levels == (5, 9) and m.hand.level == 9
    assert m.hand.setup.dealer_side == 1 and m.hand.setup.previous_dealer == 3
    play_p(m, 30, dealer=1)  # +5 from 9, but J is must-play in 南通
    assert ranks(m) == (5, 11) and m.dealer_side == 1


def test_bad_start_refused() -> None:
    with pytest.raises(EngineError):
        start("nantong", (2, 5), 5)  # only 盐城 has laps
    with pytest.raises(EngineError):
        start("yancheng", (4, 5), 5)


def _self_play_match(preset: str, seed: int, hands: int, *, history: bool = True) -> Match:
    rng = random.Random(seed)
    m = Match(get_ruleset(preset), seed, history=history)
    for _ in range(hands):
        if m.over:
            break
        drive(m.hand, rng, apply=m.apply, checks=False, escape_rate=0.0005)
    # stop mid-hand in the next one
    if not m.over:
        hand = m.hand
        for _ in range(rng.randrange(40)):
            if hand.over or m.hand is not hand:
                break
            seat = next(iter(sorted(hand.to_act())), 0)
            if hand.phase == "bidding":
                m.apply(Action("pass", seat))
            else:
                break
    return m


def _state(m: Match):
    return (m.sides, m.dealer_side, m.previous_dealer, m.scores, m.winner_side, m.deals,
            [(r.number, r.seed, r.result, r.before, r.after, r.bonus) for r in m.records],
            m.hand.fingerprint())


@pytest.mark.parametrize("preset", ["yancheng", "yangzhou", "nantong", "xin", "chizhou", "anhui", "yangzhong"])
def test_match_to_dict_from_dict_replays(preset: str) -> None:
    m = _self_play_match(preset, 100 + len(preset), 4)
    data = json.loads(json.dumps(m.to_dict()))
    again = Match.from_dict(data)
    assert _state(again) == _state(m)


def test_a_match_without_history_holds_no_past_hand_and_plays_the_same() -> None:
    """A host that stores each hand itself keeps none in memory (a long match would hold them all)."""
    kept, lean = _self_play_match("yancheng", 7, 4), _self_play_match("yancheng", 7, 4, history=False)
    assert len(kept.records) >= 4 and kept.past_actions
    assert lean.records == [] and lean.past_actions == []
    assert _state(lean)[:6] == _state(kept)[:6] and lean.hand.fingerprint() == kept.hand.fingerprint()
    assert lean.checkpoint == kept.checkpoint
    with pytest.raises(ValueError):
        lean.to_dict()  # it could not replay the match: it says so rather than give a part
    resumed = Match.resume(get_ruleset("yancheng"), lean.checkpoint, lean.hand.actions, history=False)
    assert resumed.history is False and resumed.hand.fingerprint() == lean.hand.fingerprint()


def test_flag_hand_has_no_heaven_and_earth() -> None:
    m = start("yangzhou", 14, 9, dealer_side=0, previous_dealer=0)
    play_p(m, 30, dealer=0)
    hand = m.hand
    assert hand.setup.flag and hand.dealer == 0  # A30: the flag side's last-trick winner, else the last dealer
    rig(hand, [cards(x) for x in ("3D 3H 4H 6H", "AD 5C 10C KC", "4D 7H 8H 9H", "6D JH QH AH")], [])
    play_tricks(hand, ["3D", "AD", "4D", "6D"], ["5C 10C KC", "7H 8H 9H", "JH QH AH", "3H 4H 6H"], apply=m.apply)
    res = hand.result
    assert res is not None and res.attacker_points == 25
    assert m.over and m.winner_side == 0  # p < 100: the flag side holds
    # Table B with θ = 100: the flag side rises ⌈75/10⌉ = 8, 积分 ±8 — not the attackers' 上天入地 16.
    assert res.heaven_and_earth_side is None
    assert res.scores == side_scores(0, 8, -8)


def test_start_with_unequal_levels_needs_a_dealer_side() -> None:
    """Hand 1's dealer comes from the bids only when both sides stand at the same level."""
    with pytest.raises(EngineError):
        start("nantong", 5, 9)
