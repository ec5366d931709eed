"""Rulesets: the seven presets and the §3 matrix rows they differ on (RULES.md binding decision 1, §3)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine import RULESETS, Ruleset, RulesetError, get_ruleset
from tests.engine._util import PLAIN_PRESETS, PRESETS, R5_PRESETS, R


def test_exactly_the_seven_presets() -> None:
    assert set(RULESETS) == set(PRESETS)
    for name, ruleset in RULESETS.items():
        assert ruleset.name == name
        assert isinstance(ruleset, Ruleset)


def test_default_preset_is_yancheng() -> None:
    from engine.ruleset import DEFAULT_RULESET

    assert DEFAULT_RULESET == "yancheng"


@pytest.mark.parametrize(("alias", "name"), [
    ("暗炒", "yancheng"), ("扛旗", "yangzhou"), ("明炒", "nantong"),
    ("盐城", "yancheng"), ("扬州", "yangzhou"), ("镇江", "yangzhou"), ("扬中", "yangzhong"),
    ("南通", "nantong"), ("连云港", "nantong"), ("新炒地皮", "xin"), ("池州", "chizhou"), ("安徽", "anhui"),
    ("yancheng", "yancheng"), ("anhui", "anhui"),
])
def test_aliases(alias: str, name: str) -> None:
    assert get_ruleset(alias) is RULESETS[name]


@pytest.mark.parametrize("bad", ["beijing", "", "炒地皮", "yancheng2"])
def test_unknown_name_is_a_value_error_naming_the_presets(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        get_ruleset(bad)
    assert isinstance(info.value, RulesetError)
    message = str(info.value)
    for name in PRESETS:
        assert name in message
    assert message.rstrip().endswith(".")


# --- §3 matrix rows on which the presets differ ------------------------------------------

def _pairs_of(ladder: tuple[str, ...] | None) -> tuple[str, ...] | None:
    return None if ladder is None else tuple(s for s in ladder if s != "single")


@pytest.mark.parametrize(("name", "pairs"), [
    ("yancheng", ("C2", "D2", "S2", "H2", "SJ2", "BJ2", "R52", "LB")),
    ("yangzhou", ("D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52")),
    ("yangzhong", ("D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52")),
    ("nantong", ("D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52", "LB")),
    ("xin", ("C2", "D2", "S2", "H2", "SJ2", "BJ2")),
    ("chizhou", ("C2", "D2", "S2", "H2", "SJ2", "BJ2")),
    ("anhui", None),
])
def test_bid_ladder_row(name: str, pairs: tuple[str, ...] | None) -> None:
    assert _pairs_of(R(name).bid_ladder) == pairs


def test_new_family_club_pair_over_big_joker() -> None:
    assert R("xin").club_pair_overrides_big_joker and R("chizhou").club_pair_overrides_big_joker
    assert not any(R(n).club_pair_overrides_big_joker for n in R5_PRESETS + ("anhui",))


# (config field, {preset: value}) — one entry per §3 row on which the presets differ.
MATRIX: list[tuple[str, dict[str, object]]] = [
    ("red5_trump", {"yancheng": True, "yangzhou": True, "yangzhong": True, "nantong": True,
                    "xin": False, "chizhou": False, "anhui": False}),
    ("look_back", {"yancheng": True, "yangzhou": False, "yangzhong": False, "nantong": True,
                   "xin": False, "chizhou": False, "anhui": False}),
    ("reinforce", {"xin": True, "chizhou": True}),
    ("hidden_bidding", {"yancheng": True, "yangzhou": False, "yangzhong": False, "nantong": False,
                        "xin": False, "chizhou": False, "anhui": True}),
    ("failed_steal_points", {"yancheng": 80, "yangzhou": 0, "yangzhong": 0, "nantong": 0,
                             "xin": 0, "chizhou": 0, "anhui": 0}),
    ("small_joker_pair_bid", {"yancheng": "no_trump", "nantong": "no_trump", "xin": "no_trump",
                              "anhui": "steal_only"}),
    ("big_joker_pair_bid", {"yancheng": "no_trump", "yangzhou": "no_trump", "xin": "choose_suit",
                            "chizhou": "choose_suit", "anhui": "steal_only"}),
    ("steal_with_any_trump_pair", {"anhui": True, "yancheng": False, "xin": False}),
    ("first_hand_no_bid", {"yancheng": "redeal", "yangzhou": "redeal", "nantong": "redeal",
                           "xin": "redeal", "chizhou": "redeal", "anhui": "flip_in_turn"}),
    ("later_no_bid", {"yancheng": "first_level_card", "yangzhou": "first_level_card",
                      "yangzhong": "first_level_card", "nantong": "first_level_card",
                      "xin": "first_card", "chizhou": "first_card", "anhui": "flip_in_turn"}),
    ("flipped_joker_threshold", {"xin": 60, "chizhou": 60, "yancheng": None, "anhui": None}),
    ("threshold", {n: 80 for n in PRESETS}),
    ("pairs_must_follow", {"yancheng": True, "yangzhou": True, "yangzhong": True, "nantong": True,
                           "xin": False, "chizhou": False, "anhui": True}),
    ("tractor_skip_level", {"yancheng": False, "yangzhou": True, "yangzhong": True, "nantong": False,
                            "xin": True, "chizhou": True, "anhui": True}),
    ("tractor_skip_level_in_trump", {"anhui": True, "yangzhou": False, "xin": False, "yancheng": False}),
    ("level_pair_in_trump_tractor", {"yancheng": True, "yangzhou": True, "yangzhong": True, "nantong": True,
                                     "xin": True, "chizhou": True, "anhui": False}),
    ("top_chain", {"anhui": True, "yancheng": False, "nantong": False, "xin": False, "chizhou": False}),
    ("joker_tractor", {n: True for n in PRESETS}),
    ("ace_low_tractor", {n: True for n in PRESETS}),
    ("five_ten_king", {"yancheng": True, "yangzhou": True, "yangzhong": True, "nantong": True,
                       "xin": False, "chizhou": False, "anhui": False}),
    ("red5_in_plain_ftk", {"yancheng": True, "yangzhou": False, "yangzhong": False, "nantong": True}),
    ("ftk_forces_highest", {"yancheng": True, "yangzhou": True, "yangzhong": False, "nantong": True}),
    ("throw_penalty", {"yancheng": 10, "yangzhou": 10, "yangzhong": 10, "nantong": 10,
                       "xin": 5, "chizhou": 5, "anhui": 10}),
    ("kitty_multiplier_cap", {"anhui": 8, "xin": None, "chizhou": None, "yancheng": None}),
    ("heaven_and_earth", {"yancheng": "exact_either_side", "yangzhou": "attackers_containing",
                          "yangzhong": "attackers_containing", "nantong": "attackers_containing",
                          "xin": "none", "chizhou": "none", "anhui": "none"}),
    ("red5_bonus", {"yancheng": 50, "yangzhou": 0, "yangzhong": 0, "nantong": 0}),
    ("must_play", {"nantong": frozenset({11, 14}), "chizhou": frozenset({11, 14}),
                   "anhui": frozenset({11, 14}), "yangzhou": frozenset(), "xin": frozenset()}),
    ("j_to_bottom", {"nantong": "nantong", "chizhou": "chizhou", "yancheng": "none", "anhui": "none"}),
    ("after_ace", {"yancheng": "next_lap", "yangzhou": "flag_hand", "yangzhong": "flag_hand",
                   "anhui": "anhui_bonus"}),
    ("level_table", {"yancheng": "B", "yangzhou": "B", "yangzhong": "B", "nantong": "B",
                     "xin": "A", "chizhou": "A", "anhui": "A"}),
    ("escape", {"anhui": "anhui", "yancheng": "fifteen", "nantong": "fifteen"}),
]


@pytest.mark.parametrize(("field", "expected"), MATRIX, ids=[m[0] for m in MATRIX])
def test_matrix_row(field: str, expected: dict[str, object]) -> None:
    actual = {name: getattr(R(name), field) for name in expected}
    assert actual == expected


def test_heaven_and_earth_rewards() -> None:
    assert R("yancheng").heaven_and_earth_reward == 16
    assert R("yangzhou").heaven_and_earth_reward == 16
    assert R("yangzhong").heaven_and_earth_reward == 16
    assert R("nantong").heaven_and_earth_reward == 13


def test_yancheng_laps_with_a_in_lap_three() -> None:
    assert R("yancheng").laps == 3


def test_flag_hand_threshold_is_100() -> None:
    assert R("yangzhou").flag_threshold == 100 and R("yangzhong").flag_threshold == 100


# --- construction checks -------------------------------------------------------------------

INCONSISTENT = [
    ("yancheng", {"look_back": False}),                 # ladder has LB but no look-back
    ("yangzhou", {"look_back": True}),                  # look-back without an LB step
    ("xin", {"red5_in_plain_ftk": True}),               # no red five, no 5-10-K
    ("xin", {"heaven_and_earth": "exact_either_side"}),  # 上天入地 needs 5-10-K
    ("yangzhou", {"failed_steal_points": 80}),          # failed steals need hidden bidding
    ("xin", {"red5_bonus": 50}),                        # red-five bonus needs the red five
    ("yancheng", {"threshold": 83}),
    ("yancheng", {"threshold": 0}),
    ("yancheng", {"bid_ladder": ("single", "C2", "X2")}),
    ("anhui", {"look_back": True}),
    ("anhui", {"steal_with_any_trump_pair": False}),   # no ladder: any trump pair steals
    ("yancheng", {"steal_with_any_trump_pair": True}),  # the ladder orders steals
    ("xin", {"bid_ladder": ("single", "C2", "R52")}),   # red-five pair without the red five
    ("yancheng", {"laps": 1}),                           # next_lap without laps
    ("yancheng", {"throw_penalty": -10}),
    ("anhui", {"kitty_multiplier_cap": 1}),
    ("yangzhou", {"must_play": frozenset({14})}),       # flag hand passes A
    ("yancheng", {"must_play": frozenset({15})}),
]


@pytest.mark.parametrize(("name", "changes"), INCONSISTENT, ids=[f"{n}-{sorted(c)[0]}" for n, c in INCONSISTENT])
def test_inconsistent_options_raise_a_sentence(name: str, changes: dict[str, object]) -> None:
    with pytest.raises(RulesetError) as info:
        R(name).replace(**changes)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert message[0].isupper()
    assert message.rstrip().endswith(".")
    assert len(message.split()) >= 5


def test_replace_returns_a_checked_copy() -> None:
    base = R("yancheng")
    changed = base.replace(tractor_skip_level=True)
    assert changed.tractor_skip_level and not base.tractor_skip_level
    assert changed != base


def test_ruleset_is_frozen_and_hashable() -> None:
    base = R("yancheng")
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.threshold = 70  # type: ignore[misc]
    assert hash(base) == hash(R("yancheng"))


@pytest.mark.parametrize("name", PRESETS)
def test_to_dict_from_dict_round_trip(name: str) -> None:
    ruleset = R(name)
    data = ruleset.to_dict()
    text = json.dumps(data, ensure_ascii=False)
    again = Ruleset.from_dict(json.loads(text))
    assert again == ruleset
    assert again.to_dict() == data


def test_from_dict_refuses_unknown_keys() -> None:
    data = R("xin").to_dict()
    data["colour"] = "red"
    with pytest.raises(RulesetError) as info:
        Ruleset.from_dict(data)
    assert "colour" in str(info.value)


def test_from_dict_checks_consistency() -> None:
    data = R("yancheng").to_dict()
    data["look_back"] = False
    with pytest.raises(RulesetError):
        Ruleset.from_dict(data)


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_has_no_red_five_machinery(name: str) -> None:
    r = R(name)
    assert not r.red5_trump and not r.five_ten_king and not r.red5_in_plain_ftk and r.red5_bonus == 0
