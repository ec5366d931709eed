"""End-of-hand scenarios: kitty capture (§2.12, A22, T8, T9), 上天入地 (§2.13.1, A23, A24, T19, T20),
J到底 (§2.13.3, A27, T11–T13).  Short rigged hands; trump ♠, the dealer (seat 0) bid the L of ♠,
which ends in the kitty.  Expected 积分 come from the closed forms of §2.14, written out here.
"""

from __future__ import annotations

import pytest

from engine.ruleset import get_ruleset
from tests.engine.rig import mini_hand, play_tricks, side_scores

KITTY30 = "2S KH KH 10H 4H 6H 7H 8H"  # 30 points
ZERO_KITTY = "2S 9H JH QH 4H 6H 7H 8H"


def table(preset: str, p: int, theta: int = 80) -> tuple[bool, int, int, int]:
    """§2.14 closed forms: (dealer keeps, levels, dealer 积分, attacker 积分)."""
    level_table = "A" if preset in ("xin", "chizhou", "anhui") else "B"
    if p >= theta:
        m = (p - theta) // 10
        return False, m, -(m + 1), m + 1
    n = -((p - theta) // 10)
    if level_table == "B" and p <= 0:
        n += 1
    return True, n, n, -n


def finish(preset, plays, kitty, tricks, *, bid="2S", levels=(2, 2), **kw):
    h = mini_hand(preset, plays=plays, kitty=kitty, bid=bid, dealer=0, levels=levels, **kw)
    play_tricks(h, *tricks)
    assert h.phase == "finished"
    assert h.result is not None
    return h, h.result


# --- kitty capture -----------------------------------------------------------------------------

CAPTURES = {
    "single": (["3D", "6D", "7C", "8C"], 2, 0),
    "pair": (["3D 3D", "6D 6D", "7C 8C", "9C JC"], 4, 0),
    "tractor2": (["3D 3D 4D 4D", "6D 6D 7D 7D", "7C 8C 9C JC", "3C 4C 6C QC"], 8, 0),
    "tractor3": (["6D 6D 7D 7D 8D 8D", "JD JD QD QD KD KD", "7C 8C 9C JC QC AC", "3C 4C 6C 7C 8C 9C"], 12, 20),
}


@pytest.mark.parametrize("preset", ["yangzhou", "nantong", "yancheng", "xin", "anhui"])
@pytest.mark.parametrize("kind", list(CAPTURES))
def test_kitty_capture_multiplier(preset: str, kind: str) -> None:
    """§2.12: m = 2 × the cards of the largest component (BASE [R] A22, 新 ×8/×12); 安徽 caps at 8."""
    plays, m, trick_pts = CAPTURES[kind]
    if preset == "anhui":
        m = min(m, 8)
    h, res = finish(preset, plays, KITTY30, [plays])
    assert h.tricks[-1].winner == 1
    assert res.kitty_multiplier == m
    assert res.kitty_bonus == 30 * m
    assert res.attacker_points == trick_pts + 30 * m
    keeps, _lv, dealer_s, att_s = table(preset, res.attacker_points)
    assert res.scores == side_scores(0, dealer_s, att_s)


@pytest.mark.parametrize("preset", ["yangzhou", "xin", "anhui"])
def test_no_capture_when_dealer_side_wins_last(preset: str) -> None:
    plays = ["6D", "3D", "7C", "8C"]
    h, res = finish(preset, plays, KITTY30, [plays])
    assert res.kitty_multiplier == 0 and res.kitty_bonus == 0 and res.attacker_points == 0


def test_t8_ruff_of_pair_lead_captures_times_four() -> None:
    """T8 (新炒地皮): plain AAKQJ led, trump 77889 ruffs and wins; kitty K+5 = 15 → ×4 = 60."""
    plays = ["AD AD KD QD JD", "7S 7S 8S 8S 9S", "3C 4C 6C 7C 8C", "9C JC QC AC 3H"]
    h, res = finish("xin", plays, "2S KH 5C 9H JH QH 4H 6H", [plays])
    assert h.tricks[-1].winner == 1
    assert res.kitty_multiplier == 4 and res.kitty_bonus == 60
    assert res.attacker_points == 10 + 60  # the ♦K in the trick, then the kitty


@pytest.mark.parametrize("preset,m", [("yangzhou", 4), ("xin", 4), ("anhui", 4)])
def test_t9_two_pairs_no_tractor_is_pair_capture(preset: str, m: int) -> None:
    """T9 (b): a capture containing two pairs but no tractor counts as pairs (×4)."""
    plays = ["AD AD QD QD", "7S 7S 9S 9S", "3C 4C 6C 7C", "8C 9C JC QC"]
    h, res = finish(preset, plays, KITTY30, [plays])
    assert h.tricks[-1].winner == 1 and res.kitty_multiplier == m


# --- 上天入地 T19 (盐城: exactly 5-10-K, either side) ------------------------------------------------

def test_t19_dealer_side_defends_with_exact_five_ten_king() -> None:
    plays = ["5C 10C KC", "3D 4D 6D", "7D 8D 9D", "JD QD AD"]
    h, res = finish("yancheng", plays, ZERO_KITTY, [plays])
    assert h.tricks[-1].winner == 0
    assert res.heaven_and_earth_side == 0
    assert res.attacker_points == 0
    # A24: max(16, normal 9 for p = 0 under table B)
    assert res.scores == side_scores(0, 16, -16)


def test_t19_attackers_capture_with_exact_trump_five_ten_king() -> None:
    """Only the trump 5-10-K beats a plain 5-10-K (RF5); the attackers win the last trick with exactly it."""
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    h, res = finish("yancheng", plays, ZERO_KITTY, [plays])
    assert h.tricks[-1].winner == 1
    assert res.heaven_and_earth_side == 1
    assert res.attacker_points == 50  # A23 i: points and kitty count as usual
    assert res.scores == side_scores(0, -16, 16)


@pytest.mark.parametrize("plays", [
    ["AC KC 10C 5C", "3D 4D 6D 7D", "8D 9D JD QD", "3H 4H 6H 7H"],  # 5-10-K plus one more card
    ["5C 5C 10C 10C KC KC", "3D 3D 4D 6D 7D 8D", "8D 9D JD QD AD 9D", "3H 4H 6H 7H 9H JH"],  # the pair form
])
def test_t19_not_exact_gets_no_reward(plays: list[str]) -> None:
    h, res = finish("yancheng", plays, ZERO_KITTY, [plays])
    assert h.tricks[-1].winner == 0
    assert res.heaven_and_earth_side is None
    keeps, _lv, d, a = table("yancheng", res.attacker_points)
    assert res.scores == side_scores(0, d, a)


# --- 上天入地 T20 (扬州/扬中/南通: attackers, a play containing 5-10-K) ---------------------------------

T20_PLAYS = ["3D 3H 4H 6H 7H", "AD 5C 10C KC AC", "4D 6D 7D 8D 9D", "JD QD 3H 9H JH"]
T20_TRICKS = [["3D", "AD", "4D", "JD"], ["5C 10C KC AC", "6D 7D 8D 9D", "QD 3H 9H JH", "3H 4H 6H 7H"]]
REWARD = {"yangzhou": 16, "yangzhong": 16, "nantong": 13}


@pytest.mark.parametrize("preset", list(REWARD))
def test_t20_attackers_capture_with_a_play_containing_five_ten_king(preset: str) -> None:
    h, res = finish(preset, T20_PLAYS, ZERO_KITTY, T20_TRICKS)
    assert h.tricks[-1].winner == 1
    assert res.heaven_and_earth_side == 1
    assert res.attacker_points == 25
    r = REWARD[preset]
    assert res.scores == side_scores(0, -r, r)


@pytest.mark.parametrize("preset", list(REWARD))
def test_t20_reward_is_the_normal_one_when_larger(preset: str) -> None:
    """A24: 积分 = max(16 or 13, the table's).  Here p = 25 + 70 × 4 = 305: the table gives 23."""
    plays = ["3D 3H 4H 6H 7H 8H", "AD 5C 10C KC AC AC", "4D 6D 7D 8D 9D JD", "QD 3H 4H 6H 7H 8H"]
    tricks = [["3D", "AD", "4D", "QD"], ["5C 10C KC AC AC", "6D 7D 8D 9D JD", "3H 4H 6H 7H 8H", "3H 4H 6H 7H 8H"]]
    h, res = finish(preset, plays, "2S KH KH 10H 10H KS KS 10S", tricks)
    assert res.heaven_and_earth_side == 1
    assert res.kitty_multiplier == 4 and res.attacker_points == 305
    assert res.scores == side_scores(0, -23, 23)


@pytest.mark.parametrize("preset", list(REWARD))
def test_t20_dealer_side_five_ten_king_gets_nothing(preset: str) -> None:
    plays = ["5C 10C KC", "3D 4D 6D", "7D 8D 9D", "JD QD AD"]
    h, res = finish(preset, plays, ZERO_KITTY, [plays])
    assert h.tricks[-1].winner == 0 and res.heaven_and_earth_side is None


def test_t20_exact_five_ten_king_also_counts_for_attackers() -> None:
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    h, res = finish("yangzhou", plays, ZERO_KITTY, [plays])
    assert res.heaven_and_earth_side == 1 and res.scores == side_scores(0, -16, 16)


def test_yancheng_containing_is_not_enough() -> None:
    """盐城: 带其他牌…不享受奖励 — the T20 play gets nothing there."""
    h, res = finish("yancheng", T20_PLAYS, ZERO_KITTY, T20_TRICKS)
    assert res.heaven_and_earth_side is None


@pytest.mark.parametrize("preset", ["xin", "chizhou", "anhui"])
def test_no_heaven_and_earth_in_plain_family(preset: str) -> None:
    plays = ["5C 10C KC", "3D 4D 6D", "7D 8D 9D", "JD QD AD"]
    h, res = finish(preset, plays, ZERO_KITTY, [plays])
    assert res.heaven_and_earth_side is None


# --- J到底 T13 (南通) ---------------------------------------------------------------------------------

def test_t13_nantong_single_j_capture_at_level_j() -> None:
    plays = ["3S", "JS", "4S", "6S"]
    h, res = finish("nantong", plays, "JS KH KH 10H 10H 4H 6H 7H", [plays], bid="JS", levels=(11, 11))
    assert h.tricks[-1].winner == 1 and res.attacker_points == 80
    assert res.demoted_to == 2
    keeps, _lv, d, a = table("nantong", 80)
    assert res.scores == side_scores(0, d, a)  # 南通 keeps the table's 积分


def test_t13_nantong_pair_j_capture_at_level_j() -> None:
    plays = ["3S 3S", "JH JH", "4S 4S", "6S 6S"]
    h, res = finish("nantong", plays, "JS KH KH 4H 6H 7H 8H 9H", [plays], bid="JS", levels=(11, 11))
    assert h.tricks[-1].winner == 1 and res.attacker_points == 80
    assert res.demoted_to == 2


def test_t13_nantong_needs_eighty() -> None:
    plays = ["3S", "JS", "4S", "6S"]
    h, res = finish("nantong", plays, "JS KH KH 10H 5D 4H 6H 7H", [plays], bid="JS", levels=(11, 11))
    assert res.attacker_points == 70 and res.demoted_to is None


def test_t13_nantong_pair_of_aces_at_level_a_demotes_to_j() -> None:
    plays = ["3S 3S", "AH AH", "4S 4S", "6S 6S"]
    h, res = finish("nantong", plays, "AS KH KH 4H 6H 7H 8H 9H", [plays], bid="AS", levels=(14, 14))
    assert h.tricks[-1].winner == 1 and res.attacker_points == 80
    assert res.demoted_to == 11


def test_t13_nantong_single_ace_does_not_qualify() -> None:
    plays = ["3S", "AH", "4S", "6S"]
    h, res = finish("nantong", plays, "AS KH KH 10H 10H 4H 6H 7H", [plays], bid="AS", levels=(14, 14))
    assert h.tricks[-1].winner == 1 and res.attacker_points == 80
    assert res.demoted_to is None


@pytest.mark.parametrize("preset", ["yangzhou", "yancheng", "xin", "anhui"])
def test_no_j_to_bottom_elsewhere(preset: str) -> None:
    plays = ["3S", "JS", "4S", "6S"]
    h, res = finish(preset, plays, "JS KH KH 10H 10H 4H 6H 7H", [plays], bid="JS", levels=(11, 11))
    assert res.demoted_to is None


# --- 池州 T11, T12 (A27) -------------------------------------------------------------------------------

def test_t11_chizhou_j_capture_p100() -> None:
    """T11: level J, p = 100, capture with J: dealer side back to 2; attackers' 积分 9 + 3 = 12."""
    plays = ["3S", "JS", "4S", "6S"]
    h, res = finish("chizhou", plays, "JS KH KH 10H 10H KD 4H 6H", [plays], bid="JS", levels=(11, 11))
    assert res.attacker_points == 100
    assert res.demoted_to == 2
    assert res.scores == side_scores(0, -12, 12)


def test_t11_chizhou_pair_of_j_capture() -> None:
    plays = ["3S 3S", "JH JH", "4S 4S", "6S 6S"]
    h, res = finish("chizhou", plays, "JS KH KH 5D 4H 6H 7H 8H", [plays], bid="JS", levels=(11, 11))
    assert res.attacker_points == 100 and res.demoted_to == 2
    assert res.scores == side_scores(0, -12, 12)


def test_t12a_chizhou_single_ace_to_j() -> None:
    plays = ["3S", "AH", "4S", "6S"]
    h, res = finish("chizhou", plays, "AS KH KH 10H 10H KD 4H 6H", [plays], bid="AS", levels=(14, 14))
    assert res.attacker_points == 100 and res.demoted_to == 11
    assert res.scores == side_scores(0, -6, 6)


@pytest.mark.parametrize("fixed_nine,score", [(False, 15), (True, 12)])
def test_t12b_chizhou_pair_of_aces_to_two(fixed_nine: bool, score: int) -> None:
    """T12 (b), A27 iv: 12 levels removed + 3 = 15 by default; the compatibility option gives the seed's 12."""
    r = get_ruleset("chizhou").replace(chizhou_fixed_nine=fixed_nine)
    plays = ["3S 3S", "AH AH", "4S 4S", "6S 6S"]
    h, res = finish(r, plays, "AS KH KH 5D 4H 6H 7H 8H", [plays], bid="AS", levels=(14, 14))
    assert res.attacker_points == 100 and res.demoted_to == 2
    assert res.scores == side_scores(0, -score, score)


def test_chizhou_demotion_without_eighty() -> None:
    """A27 iii: 池州 needs no p ≥ 80; the attackers' 积分 are the levels removed only; the deal stays."""
    plays = ["3S", "JS", "4S", "6S"]
    h, res = finish("chizhou", plays, "JS KH KH 4H 6H 7H 8H 9H", [plays], bid="JS", levels=(11, 11))
    assert res.attacker_points == 40 and res.demoted_to == 2
    assert res.outcome is not None and res.outcome.dealer_keeps
    assert res.scores == side_scores(0, -9, 9)


# --- 5-10-K leads (decision 12) ---------------------------------------------------------------------------

def test_five_ten_king_lead_is_never_a_throw() -> None:
    """Decision 12: exactly a 5-10-K is that combination, not a throw — no validity check, no penalty;
    only a trump 5-10-K beats a plain one (RF5), so the ♣A Q J follow loses."""
    plays = ["5C 10C KC", "3D 4D 6D", "AC QC JC", "7D 8D 9D"]
    h, res = finish("nantong", plays, ZERO_KITTY, [plays])
    assert h.events[-4].info.get("throw_failed") is None
    assert h.tricks[-1].winner == 0 and res.adjustments == ()


@pytest.mark.parametrize("preset,hae", [("yancheng", None), ("nantong", 1)])
def test_five_ten_king_pair_form_captures_times_four(preset: str, hae: int | None) -> None:
    """Decision 12: a 5-10-K pair form counts as pairs in the kitty multiplier (×4)."""
    plays = ["3D 3H 4H 6H 7H 8H 9H", "AD 5C 5C 10C 10C KC KC", "4D 6D 7D 8D 9D JD QD", "6D 3H 4H 6H 7H 8H 9H"]
    tricks = [["3D", "AD", "4D", "6D"],
              ["5C 5C 10C 10C KC KC", "6D 7D 8D 9D JD QD", "3H 4H 6H 7H 8H 9H", "3H 4H 6H 7H 8H 9H"]]
    h, res = finish(preset, plays, "2S KH KH 10H JH QH AH JS", tricks)
    assert h.tricks[-1].winner == 1
    assert res.kitty_multiplier == 4 and res.attacker_points == 50 + 120
    assert res.heaven_and_earth_side == hae


def test_five_ten_king_single_form_captures_times_two() -> None:
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    h, res = finish("yancheng", plays, KITTY30, [plays])
    assert res.kitty_multiplier == 2 and res.attacker_points == 50 + 60
    assert res.heaven_and_earth_side == 1  # A23 i: the kitty still counts
    assert res.scores == side_scores(0, -16, 16)  # table: p = 110 gives 4 < 16
