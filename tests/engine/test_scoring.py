"""Level tables A and B, θ, 大光 and the kitty multiplier (RULES.md §2.12, §2.14, A22, A28, clarification 12)."""

from __future__ import annotations

import pytest

from engine import LevelOutcome, kitty_multiplier, level_outcome, trick_winner
from tests.engine._util import PRESETS, R5_PRESETS, R

# --- the printed tables, encoded from the text of §2.14 -------------------------------------------
# Each entry: p -> (who gains, levels, dealer 积分, attacker 积分); "dealer" = dealer side keeps the deal.

def _dealer(n: int) -> tuple[str, int, int, int]:
    return ("dealer", n, n, -n)


def _attackers(n: int) -> tuple[str, int, int, int]:
    return ("attackers", n, -(n + 1), n + 1)


SWAP = ("attackers", 0, -1, 1)        # 换庄

# Table B [S003], 5-point bands, as printed.
TABLE_B_PRINTED: dict[int, tuple[str, int, int, int]] = {
    -10: _dealer(10), -5: _dealer(10),
    0: _dealer(9),                                   # 大光
    5: _dealer(8),
    10: _dealer(7), 15: _dealer(7),
    20: _dealer(6), 25: _dealer(6),
    30: _dealer(5), 35: _dealer(5),
    40: _dealer(4), 45: _dealer(4),
    50: _dealer(3), 55: _dealer(3),
    60: _dealer(2), 65: _dealer(2),
    70: _dealer(1), 75: _dealer(1),
    80: SWAP, 85: SWAP,
    90: _attackers(1), 95: _attackers(1),
    100: _attackers(2), 105: _attackers(2),
    110: _attackers(3), 115: _attackers(3),
    120: _attackers(4), 125: _attackers(4),
    130: _attackers(5), 135: _attackers(5),
    140: _attackers(6), 145: _attackers(6),
    150: _attackers(7), 155: _attackers(7),
    160: _attackers(8), 165: _attackers(8),
}
# 「类推」 beyond the printed rows (the §2.14 text: −15 and −20 → 11).
TABLE_B_EXTENDED = {
    -30: _dealer(12), -25: _dealer(12), -20: _dealer(11), -15: _dealer(11),
    170: _attackers(9), 175: _attackers(9), 180: _attackers(10), 185: _attackers(10),
    190: _attackers(11), 195: _attackers(11), 200: _attackers(12),
}

# Table A [S001 池州], rows of 10 as printed; other p bucket down to a multiple of 10 (A28 iii).
TABLE_A_PRINTED: dict[int, tuple[str, int, int, int]] = {
    -20: _dealer(10), -10: _dealer(9), 0: _dealer(8), 10: _dealer(7), 20: _dealer(6), 30: _dealer(5),
    40: _dealer(4), 50: _dealer(3), 60: _dealer(2), 70: _dealer(1), 80: SWAP,
    90: _attackers(1), 100: _attackers(2), 110: _attackers(3), 120: _attackers(4), 130: _attackers(5),
    140: _attackers(6), 150: _attackers(7), 160: _attackers(8),
}
TABLE_A_EXTENDED = {-30: _dealer(11), 170: _attackers(9), 180: _attackers(10), 190: _attackers(11),
                    200: _attackers(12)}


def _table_a(p: int) -> tuple[str, int, int, int]:
    bucket = (p // 10) * 10
    return (TABLE_A_PRINTED | TABLE_A_EXTENDED)[bucket]


def _as_tuple(out: LevelOutcome) -> tuple[str, int, int, int]:
    return ("dealer" if out.dealer_keeps else "attackers", out.levels, out.dealer_score, out.attacker_score)


ALL_P = list(range(-30, 205, 5))


@pytest.mark.parametrize("name", ("yancheng", "yangzhou", "yangzhong", "nantong"))
@pytest.mark.parametrize("p", ALL_P)
def test_table_b_every_row(name: str, p: int) -> None:
    expected = (TABLE_B_PRINTED | TABLE_B_EXTENDED)[p]
    assert _as_tuple(level_outcome(R(name), p)) == expected


@pytest.mark.parametrize("name", ("xin", "chizhou", "anhui"))
@pytest.mark.parametrize("p", ALL_P)
def test_table_a_every_row(name: str, p: int) -> None:
    assert _as_tuple(level_outcome(R(name), p)) == _table_a(p)


@pytest.mark.parametrize(("p", "a", "b"), [
    (0, _dealer(8), _dealer(9)),
    (5, _dealer(8), _dealer(8)),
    (75, _dealer(1), _dealer(1)),
    (80, SWAP, SWAP),
    (85, SWAP, SWAP),
    (165, _attackers(8), _attackers(8)),
    (-10, _dealer(9), _dealer(10)),
])
def test_T21_rows(p: int, a: tuple, b: tuple) -> None:
    assert _as_tuple(level_outcome(R("xin"), p)) == a
    assert _as_tuple(level_outcome(R("yancheng"), p)) == b


def test_scores_are_zero_sum() -> None:
    for name in PRESETS:
        for p in ALL_P:
            out = level_outcome(R(name), p)
            assert out.dealer_score == -out.attacker_score


# --- θ override and 大光 ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_threshold_shifts_the_whole_table(name: str) -> None:
    r = R(name)
    for theta in (60, 100):
        assert _as_tuple(level_outcome(r, theta, threshold=theta)) == SWAP
        assert _as_tuple(level_outcome(r, theta + 5, threshold=theta)) == SWAP
        assert _as_tuple(level_outcome(r, theta + 10, threshold=theta)) == _attackers(1)
        assert _as_tuple(level_outcome(r, theta - 5, threshold=theta)) == _dealer(1)
        assert _as_tuple(level_outcome(r, theta - 10, threshold=theta)) == _dealer(1)
        assert _as_tuple(level_outcome(r, theta - 15, threshold=theta)) == _dealer(2)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_big_shutout_stays_tied_to_p_at_most_zero_table_b(name: str) -> None:
    r = R(name)
    # θ = 100 (flag hand): p = 0 gives 10 levels + 1 for 大光; p = 5 gives 10 without it.
    assert _as_tuple(level_outcome(r, 0, threshold=100)) == _dealer(11)
    assert _as_tuple(level_outcome(r, 5, threshold=100)) == _dealer(10)
    assert _as_tuple(level_outcome(r, 10, threshold=100)) == _dealer(9)
    # θ = 60: p = 0 → 6 + 1.
    assert _as_tuple(level_outcome(r, 0, threshold=60)) == _dealer(7)
    assert _as_tuple(level_outcome(r, -5, threshold=60)) == _dealer(8)


@pytest.mark.parametrize("name", ("xin", "chizhou", "anhui"))
def test_table_a_has_no_big_shutout_level(name: str) -> None:
    r = R(name)
    assert _as_tuple(level_outcome(r, 0, threshold=60)) == _dealer(6)
    assert _as_tuple(level_outcome(r, 0, threshold=100)) == _dealer(10)


def test_flipped_joker_threshold_sixty() -> None:
    r = R("xin")
    assert r.flipped_joker_threshold == 60
    assert _as_tuple(level_outcome(r, 60, threshold=r.flipped_joker_threshold)) == SWAP
    assert _as_tuple(level_outcome(r, 55, threshold=r.flipped_joker_threshold)) == _dealer(1)


# --- kitty multiplier ------------------------------------------------------------------------------

def km(name: str, lead: str, winner: str, level: str = "2", trump: str | None = "S") -> int:
    return kitty_multiplier(R(name), level, trump, lead, winner)


@pytest.mark.parametrize("name", PRESETS)
def test_single_and_pair_multipliers(name: str) -> None:
    assert km(name, "AC", "AC") == 2
    assert km(name, "3C", "3S") == 2
    assert km(name, "3C 3C", "AC AC") == 4
    assert km(name, "3C 3C", "3S 3S") == 4
    assert km(name, "AC KC QC JC 9C", "AC KC QC JC 9C") == 2
    assert km(name, "AC AC KC QC JC", "AC AC KC QC JC") == 4
    assert km(name, "AC AC QC QC 9C", "AC AC QC QC 9C") == 4


@pytest.mark.parametrize(("name", "two", "three"), [
    ("yancheng", 8, 12), ("yangzhou", 8, 12), ("yangzhong", 8, 12), ("nantong", 8, 12),   # A22
    ("xin", 8, 12), ("chizhou", 8, 12),
    ("anhui", 8, 8),                                                                        # capped
])
def test_tractor_multipliers(name: str, two: int, three: int) -> None:
    assert km(name, "3C 3C 4C 4C", "3C 3C 4C 4C") == two
    assert km(name, "3C 3C 4C 4C", "5S 5S 6S 6S") == two
    assert km(name, "3C 3C 4C 4C 5C 5C", "3C 3C 4C 4C 5C 5C") == three
    assert km(name, "AC AC KC KC QC", "AC AC KC KC QC") == two


@pytest.mark.parametrize("name", PRESETS)
def test_the_lead_structure_as_matched_decides(name: str) -> None:
    # [S001]: 庄家出了副牌AAKQJ，闲家出了主牌77889，结果扣底为4倍.
    assert km(name, "AC AC KC QC JC", "7S 7S 8S 8S 9S") == 4
    # A ruff of a five-single throw is a single capture even if it holds pairs.
    assert km(name, "AC KC QC JC 9C", "3S 3S 4S 4S 6S") == 2


@pytest.mark.parametrize("name", R5_PRESETS)
def test_five_ten_king_multipliers(name: str) -> None:
    # Clarification 12: a 5-10-K counts as three singles (×2), its pair form as pairs (×4).
    assert km(name, "5C 10C KC", "5C 10C KC", level="9") == 2
    assert km(name, "5C 10C KC", "5S 10S KS", level="9") == 2
    assert km(name, "5C 5C 10C 10C KC KC", "5C 5C 10C 10C KC KC", level="9") == 4
    assert km(name, "5S 10S KS", "5S 10S KS", level="9") == 2
    assert km(name, "5S 5S 10S 10S KS KS", "5S 5S 10S 10S KS KS", level="9") == 4


def test_winner_order_does_not_matter() -> None:
    assert km("xin", "AC AC KC QC JC", "9S 8S 7S 8S 7S") == 4
    assert km("xin", "3C 4C 3C 4C", "4C 4C 3C 3C") == 8


def test_T8_trick_is_won_by_the_ruff() -> None:
    assert trick_winner(R("xin"), "2", "S", ["AC AC KC QC JC", "7S 7S 8S 8S 9S"]) == 1
