"""Combinations: pairs, tractors for every §2.7 option, 5-10-K, decomposition (RULES.md §2.7, clarification 12, A18–A20, A42)."""

from __future__ import annotations

import pytest

from engine import is_tractor, trick_winner
from engine.combos import classify, decompose, structure
from tests.engine._util import PLAIN_PRESETS, PRESETS, R5_PRESETS, C, R, ctx

SKIP_PRESETS = ("yangzhou", "yangzhong", "xin", "chizhou", "anhui")
NO_SKIP_PRESETS = ("yancheng", "nantong")
FACE_VALUE_PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong", "xin", "chizhou")


def tr(name: str, level: str | None, trump: str | None, cards: str) -> bool:
    return is_tractor(R(name), level, trump, cards)


# --- basic tractors ------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_plain_adjacent_pairs(name: str) -> None:
    assert tr(name, "9", "S", "3C 3C 4C 4C")
    assert tr(name, "9", "S", "3C 3C 4C 4C 5C 5C 6C 6C")
    assert not tr(name, "9", "S", "3C 3C")          # one pair is not a tractor
    assert not tr(name, "9", "S", "3C 3C 4C")
    assert not tr(name, "9", "S", "3C 3C 4D 4D")    # two suits
    assert not tr(name, "9", "S", "3C 3C 3C 3C")    # impossible, but not two pairs of adjacent ranks
    assert not tr(name, "9", "S", "3C 4C 3C 5C")


@pytest.mark.parametrize("name", PRESETS)
def test_ace_low_and_no_wrap(name: str) -> None:
    assert tr(name, "9", "S", "AC AC 2C 2C")
    assert tr(name, "9", "S", "AC AC 2C 2C 3C 3C")
    assert tr(name, "9", "S", "KC KC AC AC")
    assert not tr(name, "9", "S", "KC KC AC AC 2C 2C")


def test_ace_low_option_off() -> None:
    r = R("yancheng").replace(ace_low_tractor=False)
    assert not is_tractor(r, "9", "S", "AC AC 2C 2C")
    assert is_tractor(r, "9", "S", "KC KC AC AC")


@pytest.mark.parametrize("name", PRESETS)
def test_joker_tractor(name: str) -> None:
    assert tr(name, "9", "S", "SJ SJ BJ BJ")
    assert tr(name, "9", None, "BJ BJ SJ SJ")
    assert not tr(name, "9", "S", "SJ BJ")


def test_joker_tractor_option_off() -> None:
    r = R("yancheng").replace(joker_tractor=False)
    assert not is_tractor(r, "9", "S", "SJ SJ BJ BJ")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_red_five_pairs_never_in_tractors(name: str) -> None:
    assert not tr(name, "9", "S", "5H 5H BJ BJ")
    assert not tr(name, "9", "S", "5H 5H SJ SJ")
    assert not tr(name, "9", "H", "4H 4H 5H 5H")
    assert not tr(name, "9", "H", "5H 5H 6H 6H")
    assert not tr(name, "5", "S", "5H 5H BJ BJ")   # at level 5 the ♥5 is still R5
    assert not tr(name, None, None, "5H 5H BJ BJ")


# --- level pairs and hollow tractors (clarification 12) ------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_level_pair_never_in_a_plain_tractor(name: str) -> None:
    assert not tr(name, "5", "S", "4C 4C 5C 5C")
    assert not tr(name, "5", "S", "5C 5C 6C 6C")
    assert not tr(name, "5", "S", "4C 4C 5C 5C 6C 6C")


@pytest.mark.parametrize("name", SKIP_PRESETS)
def test_hollow_tractor_over_the_level_rank(name: str) -> None:
    assert tr(name, "5", "S", "4C 4C 6C 6C")
    assert tr(name, "5", "S", "3C 3C 4C 4C 6C 6C 7C 7C")
    assert not tr(name, "5", "S", "3C 3C 6C 6C")        # only one missing rank is jumped
    assert tr(name, "A", "S", "QC QC KC KC")


@pytest.mark.parametrize("name", NO_SKIP_PRESETS)
def test_no_hollow_tractor_where_not_allowed(name: str) -> None:
    assert not tr(name, "5", "S", "4C 4C 6C 6C")


@pytest.mark.parametrize("name", ("yangzhou", "yangzhong"))
def test_hollow_tractor_over_the_red_five_in_plain_hearts(name: str) -> None:
    assert tr(name, "9", "S", "4H 4H 6H 6H")
    assert tr(name, "6", "S", "4H 4H 7H 7H")            # ♥5 and ♥6 both missing, adjacent
    assert tr(name, "4", "S", "3H 3H 6H 6H")            # ♥4 and ♥5 both missing
    assert tr(name, None, None, "4H 4H 6H 6H")          # flag hand: ♥5 is still missing


@pytest.mark.parametrize("name", NO_SKIP_PRESETS)
def test_no_hollow_over_the_red_five_where_not_allowed(name: str) -> None:
    assert not tr(name, "9", "S", "4H 4H 6H 6H")
    assert not tr(name, "6", "S", "4H 4H 7H 7H")


@pytest.mark.parametrize("name", ("xin", "chizhou"))
def test_plain_family_heart_five_is_not_missing(name: str) -> None:
    # Hollow tractors only over missing ranks: in the plain family ♥5 is an ordinary heart.
    assert not tr(name, "9", "S", "4H 4H 6H 6H")
    assert tr(name, "9", "S", "4H 4H 5H 5H 6H 6H")


@pytest.mark.parametrize("name", FACE_VALUE_PRESETS)
def test_trump_suit_level_pair_at_face_value(name: str) -> None:
    assert tr(name, "5", "S", "4S 4S 5S 5S 6S 6S")
    assert tr(name, "5", "S", "5S 5S 6S 6S")
    assert tr(name, "5", "S", "4S 4S 5S 5S")
    # The level rank is not missing inside the trump suit: no hollow tractor there.
    assert not tr(name, "5", "S", "4S 4S 6S 6S")
    # Off-suit level pairs never join.
    assert not tr(name, "5", "S", "5H 5H 5S 5S")
    assert not tr(name, "5", "S", "5D 5D 5S 5S")
    assert not tr(name, "5", "S", "5D 5D 6S 6S")


def test_anhui_trump_suit_skips_the_level_rank() -> None:
    assert tr("anhui", "5", "S", "4S 4S 6S 6S")
    assert not tr("anhui", "5", "S", "4S 4S 5S 5S 6S 6S")
    assert not tr("anhui", "6", "S", "6S 6S 7S 7S")


@pytest.mark.parametrize("name", PRESETS)
def test_no_wrap_from_king_to_two_at_level_ace(name: str) -> None:
    assert not tr(name, "A", "S", "KC KC 2C 2C")
    assert not tr(name, "A", "S", "KC KC AC AC")         # ♣A is a trump
    assert not tr(name, "A", "S", "QC QC KC KC 2C 2C")
    assert not tr(name, "A", None, "KC KC 2C 2C")


@pytest.mark.parametrize("name", FACE_VALUE_PRESETS)
def test_trump_suit_ace_level_pair_next_to_king(name: str) -> None:
    # At level A the trump-suit A pair counts at face value, next to the K pair.
    assert tr(name, "A", "S", "KS KS AS AS")


@pytest.mark.parametrize("name", PRESETS)
def test_level_pairs_and_jokers_outside_anhui_chain(name: str) -> None:
    if name == "anhui":
        return
    assert not tr(name, "6", "S", "AS AS 6H 6H")
    assert not tr(name, "6", "S", "6H 6H 6S 6S")
    assert not tr(name, "6", "S", "6S 6S SJ SJ")
    assert not tr(name, "6", None, "6H 6H SJ SJ")


# --- 安徽's top chain -----------------------------------------------------------------------

def test_anhui_top_chain_at_level_six() -> None:
    assert tr("anhui", "6", "S", "AS AS 6H 6H 6S 6S SJ SJ BJ BJ")
    assert tr("anhui", "6", "S", "AS AS 6H 6H")
    assert tr("anhui", "6", "S", "6D 6D 6S 6S")
    assert tr("anhui", "6", "S", "6S 6S SJ SJ")
    assert tr("anhui", "6", "S", "KS KS AS AS 6C 6C")
    assert not tr("anhui", "6", "S", "6H 6H 6D 6D")      # two off-suit level pairs are never adjacent
    assert not tr("anhui", "6", "S", "6H 6H SJ SJ")      # the trump-suit level pair sits between


def test_anhui_top_chain_at_level_ace() -> None:
    assert tr("anhui", "A", "S", "KS KS AH AH AS AS SJ SJ BJ BJ")
    assert tr("anhui", "A", "S", "QS QS KS KS AD AD")
    assert tr("anhui", "A", "S", "AC AC AS AS")
    assert not tr("anhui", "A", "S", "KS KS AS AS")      # the off-suit A pair sits between
    assert not tr("anhui", "A", "S", "AH AH AD AD")
    assert not tr("anhui", "A", "S", "KS KS 2S 2S")


def test_anhui_top_chain_in_no_trump() -> None:
    assert tr("anhui", "A", None, "AH AH SJ SJ BJ BJ")
    assert tr("anhui", "A", None, "AS AS SJ SJ")
    assert not tr("anhui", "A", None, "AH AH AD AD")
    assert tr("anhui", "6", None, "6C 6C SJ SJ BJ BJ")
    assert not tr("anhui", "6", None, "6C 6C 6H 6H SJ SJ")


def test_anhui_top_chain_tractors_outrank_plain_trump_tractors() -> None:
    r = R("anhui")
    assert trick_winner(r, "6", "S", ["QS QS KS KS", "AS AS 6H 6H"]) == 1
    assert trick_winner(r, "6", "S", ["AS AS 6H 6H", "6S 6S SJ SJ"]) == 1
    assert trick_winner(r, "6", "S", ["6S 6S SJ SJ", "SJ SJ BJ BJ"]) == 1
    assert trick_winner(r, "6", "S", ["SJ SJ BJ BJ", "6S 6S SJ SJ"]) == 0


# --- 5-10-K (R5 family only) --------------------------------------------------------------------

def kind(name: str, level: str, trump: str | None, cards: str) -> tuple[str, str] | None:
    shape = classify(ctx(name, level, trump), C(cards))
    return None if shape is None else (shape.kind, shape.group)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_plain_five_ten_king(name: str) -> None:
    assert kind(name, "2", "S", "5C 10C KC") == ("ftk", "C")
    assert kind(name, "2", "S", "KC 5C 10C") == ("ftk", "C")
    assert kind(name, "2", "S", "5C 5C 10C 10C KC KC") == ("ftk2", "C")
    assert kind(name, "2", None, "5D 10D KD") == ("ftk", "D")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_trump_five_ten_king(name: str) -> None:
    assert kind(name, "2", "S", "5S 10S KS") == ("ftk", "T")
    assert kind(name, "2", "S", "5S 5S 10S 10S KS KS") == ("ftk2", "T")
    # Clarification 12: with hearts trump, ♥5 ♥10 ♥K is the trump 5-10-K in every R5 preset.
    assert kind(name, "2", "H", "5H 10H KH") == ("ftk", "T")
    # A20 (v): the trump-suit level card may be part of the trump 5-10-K.
    assert kind(name, "10", "S", "5S 10S KS") == ("ftk", "T")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_five_ten_king_needing_a_level_card_off_suit_does_not_exist(name: str) -> None:
    # A20 (v): the ♣10 is trump at level 10, so ♣5 ♣10 ♣K is no plain 5-10-K.
    assert kind(name, "10", "S", "5C 10C KC") is None


@pytest.mark.parametrize("name", R5_PRESETS)
def test_five_ten_king_plus_more_is_a_throw(name: str) -> None:
    assert kind(name, "2", "S", "5C 10C KC AC") == ("throw", "C")
    assert kind(name, "2", "S", "5C 10C KC KC") == ("throw", "C")
    assert kind(name, "2", "S", "5S 10S KS AS") == ("throw", "T")
    assert kind(name, "2", "S", "5C 10D KC") is None


@pytest.mark.parametrize(("name", "allowed"), [("yancheng", True), ("nantong", True),
                                               ("yangzhou", False), ("yangzhong", False)])
def test_red_five_in_plain_hearts_five_ten_king(name: str, allowed: bool) -> None:
    # A42: where the red five may complete a plain ♥ 5-10-K, the unit is a plain-hearts combination.
    got = kind(name, "2", "S", "5H 10H KH")
    if allowed:
        assert got == ("ftk", "H")
    else:
        assert got is None or got[0] != "ftk"


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_no_five_ten_king_in_the_plain_family(name: str) -> None:
    assert kind(name, "2", "S", "5C 10C KC") == ("throw", "C")
    assert kind(name, "2", "S", "5S 10S KS") == ("throw", "T")
    assert kind(name, "2", "S", "5H 10H KH") == ("throw", "H")


# --- decomposition (§2.7.6) --------------------------------------------------------------------

def st(name: str, level: str, trump: str | None, cards: str) -> tuple[tuple[int, ...], int]:
    s = structure(ctx(name, level, trump), C(cards))
    return s.tractors, s.pairs


@pytest.mark.parametrize("name", PRESETS)
def test_structure_counts_pairs_inside_tractors(name: str) -> None:
    assert st(name, "J", "S", "AC KC 5C 5C 4C 4C") == ((2,), 2)       # E1
    assert st(name, "J", "S", "AC AC 5C 5C 4C 4C") == ((2,), 3)       # E2
    assert st(name, "J", "S", "5C 4C 4C") == ((), 1)                  # E3
    assert st(name, "J", "S", "5C 6C 7C") == ((), 0)                  # E5
    assert st(name, "J", "S", "9S 9S 8S 8S 7S 2S") == ((2,), 2)
    assert st(name, "J", "S", "3C 3C 4C 4C 5C 5C 6C 6C 9C 9C") == ((4,), 5)
    assert st(name, "J", "S", "3C 3C 4C 4C 7C 7C 8C 8C") == ((2, 2), 4)


@pytest.mark.parametrize("name", PRESETS)
def test_decompose_longest_tractor_first(name: str) -> None:
    comps = decompose(ctx(name, "J", "S"), C("9C 3C 3C 4C 4C 5C 5C 7C 7C 8C 8C"))
    assert [c.kind for c in comps] == ["tractor", "tractor", "single"]
    assert [c.pairs for c in comps] == [3, 2, 0]


@pytest.mark.parametrize("name", PRESETS)
def test_off_suit_level_cards_are_not_a_pair(name: str) -> None:
    assert st(name, "7", "S", "7H 7D") == ((), 0)
    assert st(name, "7", "S", "7H 7H") == ((), 1)


def test_the_lead_cache_stays_bounded_and_forgets_the_oldest_first() -> None:
    """A bot runs for weeks: the leads it remembers stay few, the newest kept, answers unchanged."""
    from itertools import combinations

    from engine import combos
    from engine.cards import ALL_CARDS

    context = ctx("yancheng", "2", "S")
    combos._SHAPES.clear()
    leads = [list(three) for three in combinations(ALL_CARDS, 3)][: combos._SHAPES_LIMIT + 500]
    shapes = [classify(context, lead) for lead in leads]
    assert len(combos._SHAPES) == combos._SHAPES_LIMIT
    assert classify(context, leads[-1]) is shapes[-1]  # the newest is still remembered
    assert (context, tuple(leads[0])) not in combos._SHAPES  # the oldest is not
    again = classify(context, leads[0])
    assert again == shapes[0] and again is not shapes[0]  # worked out again, the same answer
    assert len(combos._SHAPES) == combos._SHAPES_LIMIT
