"""RULES.md §5 worked examples T1–T9, T21, T22, one test each."""

from __future__ import annotations

import pytest

from engine import is_tractor, kitty_multiplier, level_outcome, trick_winner
from engine.cards import card_points, parse_cards
from engine.combos import classify
from engine.throws import judge_throw, throw_penalty
from tests.engine._util import PRESETS, R5_PRESETS, C, R, ctx

# The seed's E-examples assume ordinary ranks: level J keeps 2…10 out of the way, ♠ is trump,
# and the plain suit is clubs (no red five in the R5 family).


@pytest.mark.parametrize("name", PRESETS)
def test_T1_trump_998872_ruffs_AK5544(name: str) -> None:
    plays = ["AC KC 5C 5C 4C 4C", "9S 9S 8S 8S 7S 2S", "3C 3C 6C 7C 8C 9C", "3D 4D 6D 7D 8D 9D"]
    assert trick_winner(R(name), "J", "S", plays) == 1


@pytest.mark.parametrize("name", PRESETS)
def test_T2_trump_998872_does_not_ruff_AA5544(name: str) -> None:
    plays = ["AC AC 5C 5C 4C 4C", "9S 9S 8S 8S 7S 2S", "3C 3C 6C 7C 8C 9C", "3D 4D 6D 7D 8D 9D"]
    assert trick_winner(R(name), "J", "S", plays) == 0
    assert trick_winner(R(name), "J", "S", plays[:2]) == 0


@pytest.mark.parametrize("name", PRESETS)
def test_T3_977_ruffs_544_and_884_over_ruffs(name: str) -> None:
    plays = ["5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "2D 3D 6D"]
    r = R(name)
    assert trick_winner(r, "J", "S", plays[:2]) == 1
    assert trick_winner(r, "J", "S", plays) == 2


@pytest.mark.parametrize("name", PRESETS)
def test_T4_977_ruffs_567_and_884_does_not_over_ruff(name: str) -> None:
    plays = ["5C 6C 7C", "9S 7S 7S", "8S 8S 4S", "2D 3D 9D"]
    r = R(name)
    assert trick_winner(r, "J", "S", plays[:2]) == 1
    assert trick_winner(r, "J", "S", plays) == 1


@pytest.mark.parametrize("name", ("xin", "chizhou"))
def test_T5_new_level_five_spades(name: str) -> None:
    r = R(name)
    assert not is_tractor(r, "5", "S", "5H 5H 5S 5S SJ SJ")      # (a)
    assert is_tractor(r, "5", "S", "5S 5S 6S 6S")                # (b)
    assert trick_winner(r, "5", "S", ["5S 5S 6S 6S", "7S 7S 8S 8S"]) == 1   # (c)
    assert trick_winner(r, "5", "S", ["7S 7S 8S 8S", "5S 5S 6S 6S"]) == 0
    assert is_tractor(r, "5", "S", "4C 4C 6C 6C")                # (d) hollow
    assert not is_tractor(r, "5", "S", "5C 5C 6C 6C")            # (e) the 5s are trump


def test_T6_anhui_level_six_spades() -> None:
    r = R("anhui")
    cases = [
        ("3C 3C 4C 4C", True),
        ("7C 7C 8C 8C 9C 9C", True),
        ("5C 5C 7C 7C", True),
        ("6S 6S 7S 7S", False),
        ("5S 5S 7S 7S", True),
        ("AS AS 6H 6H 6S 6S SJ SJ BJ BJ", True),
    ]
    for cards, expected in cases:
        assert is_tractor(r, "6", "S", cards) is expected, cards


@pytest.mark.parametrize("name", R5_PRESETS)
def test_T7_base_family_tractors(name: str) -> None:
    r = R(name)
    assert not is_tractor(r, "9", "S", "KC KC AC AC 2C 2C")
    assert is_tractor(r, "9", "S", "AC AC 2C 2C")
    # AA22 ranks with A = 1: the lowest clubs tractor.
    assert trick_winner(r, "9", "S", ["AC AC 2C 2C", "3C 3C 4C 4C"]) == 1
    assert is_tractor(r, "9", "S", "AC AC KC KC")
    # AAKK ranks with A high.
    assert trick_winner(r, "9", "S", ["JC JC QC QC", "KC KC AC AC"]) == 1
    assert trick_winner(r, "9", "S", ["KC KC AC AC", "JC JC QC QC"]) == 0
    assert is_tractor(r, "9", "S", "BJ BJ SJ SJ")
    assert not is_tractor(r, "9", "S", "5H 5H BJ BJ")


def test_T8_new_capture_AAKQJ_by_77889_is_times_four() -> None:
    r = R("xin")
    lead, ruff = "AC AC KC QC JC", "7S 7S 8S 8S 9S"
    assert trick_winner(r, "2", "S", [lead, ruff]) == 1
    m = kitty_multiplier(r, "2", "S", lead, ruff)
    assert m == 4
    kitty = parse_cards("KD 5D 3D 4D 6C 7C 8C 9D")
    assert card_points(kitty) == 15
    assert card_points(kitty) * m == 60


@pytest.mark.parametrize(("name", "expected"), [("xin", (2, 4, 4, 8, 12)), ("anhui", (2, 4, 4, 8, 8))])
def test_T9_capture_multipliers(name: str, expected: tuple[int, ...]) -> None:
    r = R(name)
    leads = [
        "AC KC QC JC 9C",            # (a) five singles
        "AC AC KC QC JC",            # (b) one pair
        "AC AC QC QC 9C",            # (b) two pairs
        "AC AC KC KC QC",            # (c) a 2-pair tractor
        "AC AC KC KC QC QC",         # (d) a 3-pair tractor
    ]
    got = tuple(kitty_multiplier(r, "2", "S", lead, lead) for lead in leads)
    assert got == expected
    # The same through a ruff that matches the lead's structure.
    ruffs = ["3S 4S 6S 7S 8S", "3S 3S 4S 6S 7S", "3S 3S 6S 6S 7S", "3S 3S 4S 4S 7S", "3S 3S 4S 4S 5S 5S"]
    for lead, ruff in zip(leads, ruffs):
        assert trick_winner(r, "2", "S", [lead, ruff]) == 1, (lead, ruff)
    assert tuple(kitty_multiplier(r, "2", "S", lead, ruff) for lead, ruff in zip(leads, ruffs)) == expected


def test_T21_tables_a_and_b() -> None:
    a, b = R("xin"), R("yancheng")
    rows = {0: ((True, 8), (True, 9)), 5: ((True, 8), (True, 8)), 75: ((True, 1), (True, 1)),
            80: ((False, 0), (False, 0)), 85: ((False, 0), (False, 0)),
            165: ((False, 8), (False, 8)), -10: ((True, 9), (True, 10))}
    for p, (ea, eb) in rows.items():
        oa, ob = level_outcome(a, p), level_outcome(b, p)
        assert (oa.dealer_keeps, oa.levels) == ea, p
        assert (ob.dealer_keeps, ob.levels) == eb, p
    assert (level_outcome(a, 165).dealer_score, level_outcome(a, 165).attacker_score) == (-9, 9)
    assert (level_outcome(b, 80).dealer_score, level_outcome(b, 80).attacker_score) == (-1, 1)


@pytest.mark.parametrize(("name", "dealer_delta", "attacker_delta"), [
    ("yancheng", 20, -10), ("chizhou", 10, -5), ("anhui", 20, -10),
    ("yangzhou", 20, -10), ("nantong", 20, -10), ("xin", 10, -5),
])
def test_T22_failed_throw_penalties(name: str, dealer_delta: int, attacker_delta: int) -> None:
    r = R(name)
    t = ctx(name, "J", "S")
    # The dealer side throws ♣A + ♣QQ; an attacker holds ♣KK: the pair (2 cards) is forced.
    dealer = judge_throw(t, classify(t, C("AC QC QC")), [C("KC KC 3D"), C("4D"), C("AC 2C")])
    assert dealer.failed and dealer.penalty_cards == 2
    # An attacker throws ♣AA + ♣Q; the dealer holds ♣K: the single (1 card) is forced.
    attacker = judge_throw(t, classify(t, C("AC AC QC")), [C("KC 3D"), C("4D"), C("2C")])
    assert attacker.failed and attacker.penalty_cards == 1
    p = 0
    p += throw_penalty(r.throw_penalty, dealer.penalty_cards, thrower_is_attacker=False)
    assert p == dealer_delta
    p += throw_penalty(r.throw_penalty, attacker.penalty_cards, thrower_is_attacker=True)
    assert p == dealer_delta + attacker_delta
