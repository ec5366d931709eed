"""engine/special.py called directly: the whole HandResult of an ordinary hand, 上天入地, J到底 and an escape,
their JSON form, and the edges the scenario tests do not reach (RULES.md §2.12–2.16)."""

from __future__ import annotations

from engine.scoring import Adjustment, level_outcome
from engine.special import HandResult, escape_loss, score_escape, score_hand
from tests.engine._util import C, R, ctx

KITTY = tuple(C("KH 5D 3C 4C 6C 7C 8C 9C"))  # 15 points
NO_POINTS = tuple(C("3C 4C 6C 7C 8C 9D 2D 3D"))


def test_an_ordinary_hand_adds_tricks_the_kitty_and_the_adjustments() -> None:
    """p = trick points + kitty points × multiplier + adjustments (a failed throw's −10 here): exactly θ."""
    throw = (Adjustment("throw", 1, -10),)
    result = score_hand(ctx("yancheng", "9", "H"), dealer_side=0, threshold=80, trick_points=60, kitty=KITTY,
                        kitty_multiplier=2, adjustments=throw, last_winner=3, winning_play=C("3S"), levels=(9, 5))
    outcome = level_outcome(R("yancheng"), 80, 80)
    assert result == HandResult(80, 60, KITTY, 2, throw, 80, 0, outcome, (-1, 1, -1, 1))
    assert result.to_dict() == {
        "attacker_points": 80, "trick_points": 60, "kitty": "KH 5D 3C 4C 6C 7C 8C 9C", "kitty_multiplier": 2,
        "kitty_bonus": 30, "adjustments": [{"reason": "throw", "seat": 1, "points": -10}], "threshold": 80,
        "dealer_side": 0, "dealer_keeps": False, "levels": 0, "scores": [-1, 1, -1, 1],
        "heaven_and_earth_side": None, "demoted_to": None, "levels_removed": 0, "escaped": None,
        "notices": [], "bids": [],
    }


def test_heaven_and_earth_for_the_attackers_when_they_hold_the_last_trick() -> None:
    """扬州 (attackers containing a 5-10-K): seat 2 of the attacking side 0 takes the last trick with one."""
    result = score_hand(ctx("yangzhou", "9", "H"), dealer_side=1, threshold=80, trick_points=100, kitty=NO_POINTS,
                        kitty_multiplier=2, adjustments=(), last_winner=2, winning_play=C("5C 10C KC"),
                        levels=(5, 9))
    outcome = level_outcome(R("yangzhou"), 100, 80)
    assert result == HandResult(100, 100, NO_POINTS, 2, (), 80, 1, outcome, (16, -16, 16, -16),
                                heaven_and_earth_side=0)


def test_heaven_and_earth_pays_the_table_when_the_table_pays_more() -> None:
    """盐城 (either side, an exact 5-10-K): the dealer side takes it at p = −100, where the table pays 19 > 16."""
    fines = (Adjustment("throw", 1, -100),)
    result = score_hand(ctx("yancheng", "9", "H"), dealer_side=0, threshold=80, trick_points=0, kitty=NO_POINTS,
                        kitty_multiplier=2, adjustments=fines, last_winner=2, winning_play=C("5C 10C KC"),
                        levels=(9, 5))
    outcome = level_outcome(R("yancheng"), -100, 80)
    assert outcome.dealer_score == 19
    assert result == HandResult(-100, 0, NO_POINTS, 2, fines, 80, 0, outcome, (19, -19, 19, -19),
                                heaven_and_earth_side=0)


def _nantong_at_jack(last_winner: int, winning: str, trick_points: int = 100) -> HandResult:
    return score_hand(ctx("nantong", "J", "S"), dealer_side=0, threshold=80, trick_points=trick_points,
                      kitty=NO_POINTS, kitty_multiplier=2, adjustments=(), last_winner=last_winner,
                      winning_play=C(winning), levels=(11, 5))


def test_j_to_bottom_sends_the_dealer_side_back_to_two() -> None:
    result = _nantong_at_jack(1, "JH")
    outcome = level_outcome(R("nantong"), 100, 80)
    assert result == HandResult(100, 100, NO_POINTS, 2, (), 80, 0, outcome, (-3, 3, -3, 3), demoted_to=2,
                                levels_removed=9)
    assert result.to_dict()["demoted_to"] == 2 and result.to_dict()["levels_removed"] == 9


def test_j_to_bottom_needs_the_attackers_last_trick_won_with_level_jacks_alone() -> None:
    """Not by the dealer side, not with another card, not with two different jacks (not a pair)."""
    for last_winner, winning in ((0, "JH"), (1, "AS"), (1, "JH JD"), (1, "JH BJ")):
        result = _nantong_at_jack(last_winner, winning)
        assert result.demoted_to is None and result.levels_removed == 0, (last_winner, winning)
    assert _nantong_at_jack(1, "JH JH").demoted_to == 2


def test_chizhou_j_rule_not_at_a_jack_or_ace_level() -> None:
    """池州's J/A rule needs the dealer side at J or A: at 5 a level five winning the last trick is nothing."""
    result = score_hand(ctx("chizhou", "5", "S"), dealer_side=0, threshold=80, trick_points=100, kitty=NO_POINTS,
                        kitty_multiplier=2, adjustments=(), last_winner=1, winning_play=C("5H"), levels=(5, 5))
    assert result.demoted_to is None and result.scores == (-3, 3, -3, 3)


def test_chizhou_j_rule_at_exactly_the_threshold_adds_the_table() -> None:
    """池州: the attackers' gain is the levels removed plus the table's 积分 once p reaches θ (p = θ counts)."""
    result = score_hand(ctx("chizhou", "J", "S"), dealer_side=0, threshold=80, trick_points=80, kitty=NO_POINTS,
                        kitty_multiplier=2, adjustments=(), last_winner=1, winning_play=C("JH"), levels=(11, 5))
    assert (result.demoted_to, result.levels_removed, result.scores) == (2, 9, (-10, 10, -10, 10))


def test_an_escape_is_scored_for_the_escaper_alone() -> None:
    """A dealer-side seat escapes while the attackers are far ahead (p = 400 with a kitty multiplier, θ = 60):
    it loses what the table would take from its side (35 > 15); the result has no tricks, kitty or outcome."""
    result = score_escape(R("yancheng"), seat=2, dealer_side=0, threshold=60, attacker_points=400,
                          cards_played=True, levels=(5, 5))
    assert result == HandResult(400, 0, (), 0, (), 60, 0, None, (0, 0, -35, 0), escaped=2)
    data = result.to_dict()
    assert (data["dealer_keeps"], data["levels"], data["escaped"], data["scores"]) == (None, None, 2, [0, 0, -35, 0])


def test_an_escaper_whose_side_is_ahead_or_level_loses_fifteen() -> None:
    for seat in (1, 3):
        assert escape_loss(R("yancheng"), seat=seat, dealer_side=0, threshold=60, attacker_points=400,
                           cards_played=True, levels=(5, 5)) == 15
    for seat in (0, 2):
        assert escape_loss(R("yancheng"), seat=seat, dealer_side=1, threshold=60, attacker_points=400,
                           cards_played=True, levels=(5, 5)) == 15
        assert escape_loss(R("yancheng"), seat=seat, dealer_side=0, threshold=60, attacker_points=60,
                           cards_played=True, levels=(5, 5)) == 15


def test_the_flag_hand_is_scored_by_the_table_alone() -> None:
    """The flag hand has no kitty: a 5-10-K in its last trick is not 上天入地; p is tricks and adjustments."""
    fine = (Adjustment("throw", 0, -10),)
    result = score_hand(ctx("yangzhou", None, None), dealer_side=1, threshold=100, trick_points=120, kitty=(),
                        kitty_multiplier=0, adjustments=fine, last_winner=0, winning_play=C("5C 10C KC"),
                        levels=(14, 6), flag=True)
    outcome = level_outcome(R("yangzhou"), 110, 100)
    assert result == HandResult(110, 120, (), 0, fine, 100, 1, outcome, (2, -2, 2, -2))
