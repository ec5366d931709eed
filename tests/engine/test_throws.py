"""Throws: validity against the other hands, the forced component and penalties (RULES.md §2.11, A21, A39, clarification 12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalPlayError, format_cards, resolve_throw
from engine.cards import DECK, Card, rank_name
from engine.combos import classify, decompose
from engine.throws import beating_cards, beats_component, judge_throw, throw_penalty
from tests.engine._util import PLAIN_PRESETS, PRESETS, R5_PRESETS, C, R, ctx


def played(name: str, level: str, trump: str | None, throw: str, *others: str) -> str:
    """The cards the throw actually plays, as sorted notation (order-free comparison)."""
    return _sorted(format_cards(resolve_throw(R(name), level, trump, throw, list(others))))


def _sorted(text: str) -> str:
    return " ".join(sorted(text.split()))


def judge(name: str, level: str, trump: str | None, throw: str, *others: str):
    t = ctx(name, level, trump)
    shape = classify(t, C(throw))
    assert shape is not None
    return judge_throw(t, shape, [C(o) for o in others])


# --- validity ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_valid_throw_plays_every_card(name: str) -> None:
    throw = "AC KC"
    assert played(name, "9", "S", throw, "QC JC", "3C", "") == _sorted(throw)
    # The other copy of ♣K is equal, not higher.
    assert played(name, "9", "S", throw, "KC QC", "3C", "") == _sorted(throw)
    # The other ♣A is equal to the thrown single, and singles never beat a pair.
    assert played(name, "9", "S", "AC QC QC", "AC KC", "JC") == _sorted("AC QC QC")
    assert not judge(name, "9", "S", "AC QC QC", "AC KC", "JC").failed


@pytest.mark.parametrize("name", PRESETS)
def test_void_and_trump_holders_do_not_break_a_throw(name: str) -> None:
    assert played(name, "9", "S", "QC JC", "AS BJ SJ", "3D 4D", "9C 9H") == _sorted("QC JC")


@pytest.mark.parametrize("name", PRESETS)
def test_partner_counts_too(name: str) -> None:
    # other_hands holds the three other players, partner included.
    assert played(name, "9", "S", "AC QC", "3D", "KC", "4D") == _sorted("QC")


@pytest.mark.parametrize("name", PRESETS)
def test_higher_single_breaks_a_throw(name: str) -> None:
    assert played(name, "9", "S", "AC QC", "KC 3D", "", "") == _sorted("QC")
    result = judge(name, "9", "S", "AC QC", "KC 3D")
    assert result.failed and result.penalty_cards == 1


@pytest.mark.parametrize("name", PRESETS)
def test_pairs_only_beaten_by_higher_pairs(name: str) -> None:
    assert played(name, "9", "S", "AC AC QC QC", "KC JC", "KC 3C") == _sorted("AC AC QC QC")
    assert played(name, "9", "S", "AC AC QC QC", "KC KC", "") == _sorted("QC QC")


@pytest.mark.parametrize("name", PRESETS)
def test_tractors_only_beaten_by_tractors(name: str) -> None:
    throw = "JC JC 10C 10C AC"
    assert played(name, "9", "S", throw, "KC KC QC", "8C 8C 7C 7C") == _sorted(throw)
    assert played(name, "9", "S", throw, "QC QC KC KC") == _sorted("JC JC 10C 10C")


@pytest.mark.parametrize("name", PRESETS)
def test_longer_higher_tractor_beats_a_thrown_tractor(name: str) -> None:
    # Clarification 12: it can be cut to length.
    throw = "9C 9C 10C 10C AC"
    assert played(name, "5", "S", throw, "JC JC QC QC KC KC") == _sorted("9C 9C 10C 10C")
    # Longer but lower does not.
    assert played(name, "5", "S", throw, "2C 2C 3C 3C 4C 4C") == _sorted(throw)


@pytest.mark.parametrize("name", ("yancheng", "nantong", "yangzhou", "xin", "anhui"))
def test_a_tractor_the_hand_could_form_is_enough(name: str) -> None:
    # The other hand holds ♣AA KK 22 33: it may play ♣KKAA, higher than both thrown tractors.
    # (A greedy split of that hand into ♣AA2233 + ♣KK must not hide the ♣KKAA tractor.)
    throw = "QC QC JC JC 7C 7C 6C 6C"
    got = played(name, "9", "S", throw, "AC AC KC KC 2C 2C 3C 3C")
    assert got == _sorted("7C 7C 6C 6C")


@pytest.mark.parametrize("name", PRESETS)
def test_trump_throw(name: str) -> None:
    # BJ and SJ thrown together; a red five (R5 family) beats both singles.
    if name in R5_PRESETS:
        assert played(name, "9", "S", "BJ SJ", "5H", "", "") == _sorted("SJ")
    else:
        assert played(name, "9", "S", "BJ SJ", "5H", "", "") == _sorted("BJ SJ")
    assert played(name, "9", "S", "BJ SJ AS", "9S", "", "") == _sorted("AS")


@pytest.mark.parametrize("name", PRESETS)
def test_equal_cards_do_not_beat(name: str) -> None:
    assert played(name, "9", "S", "9H 9D", "9C 9C", "") == _sorted("9H 9D")


@pytest.mark.parametrize("name", PRESETS)
def test_an_equal_pair_does_not_beat(name: str) -> None:
    """Off-suit level pairs are equal in the trump order: ♣9♣9 does not beat a thrown ♥9♥9."""
    assert played(name, "9", "S", "9H 9H BJ", "9C 9C") == _sorted("9H 9H BJ")


@pytest.mark.parametrize("name", PRESETS)
def test_the_beater_named_is_the_highest_in_the_trump_order(name: str) -> None:
    """The cards named as beating a failed throw are the beater's highest in the trump order (the trump level
    card above the ace), not in the order cards are sorted for display."""
    single = judge(name, "9", "S", "AS KS", "AS 9S")
    assert single.failed and single.played == tuple(C("KS")) and single.beaten_with == tuple(C("9S"))
    pair = judge(name, "9", "S", "KS KS BJ", "AS AS 9S 9S")
    assert pair.failed and pair.played == tuple(C("KS KS")) and pair.beaten_with == tuple(C("9S 9S"))


@pytest.mark.parametrize("name", PRESETS)
def test_a_throw_that_stands_carries_no_penalty_basis(name: str) -> None:
    """A throw nobody beats, and a lead of one component, are judged not failed, with no penalty cards and no
    beater: exactly the defaults a failure fills in."""
    for result in (judge(name, "9", "S", "AC KC", "QC JC", "3C", ""), judge(name, "9", "S", "3C 3C", "AC AC")):
        assert (result.failed, result.penalty_cards, result.beaten_by, result.beaten_with) == (False, 0, None, ())


@pytest.mark.parametrize("name", PRESETS)
def test_single_component_is_not_a_throw(name: str) -> None:
    assert played(name, "9", "S", "3C", "AC") == _sorted("3C")
    assert played(name, "9", "S", "3C 3C", "AC AC") == _sorted("3C 3C")
    assert played(name, "9", "S", "3C 3C 4C 4C", "AC AC KC KC") == _sorted("3C 3C 4C 4C")
    assert not judge(name, "9", "S", "3C 3C", "AC AC").failed


@pytest.mark.parametrize("name", R5_PRESETS)
def test_five_ten_king_lead_is_never_a_throw(name: str) -> None:
    assert played(name, "9", "S", "5C 10C KC", "AC QC") == _sorted("5C 10C KC")
    assert played(name, "9", "S", "5C 5C 10C 10C KC KC", "AC AC QC QC") == _sorted("5C 5C 10C 10C KC KC")
    # 5-10-K plus another card is an ordinary throw.
    assert played(name, "9", "S", "5C 10C KC AC", "QC") == _sorted("5C")


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_five_ten_king_is_a_throw_in_the_plain_family(name: str) -> None:
    assert played(name, "9", "S", "5C 10C KC", "AC QC") == _sorted("5C")


@pytest.mark.parametrize("name", PRESETS)
def test_mixed_suit_throw_is_refused(name: str) -> None:
    with pytest.raises(IllegalPlayError):
        resolve_throw(R(name), "9", "S", "AC AD", ["KC"])


# --- the forced component: fewest cards, then lowest, then earliest ----------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_forced_component_fewest_cards(name: str) -> None:
    # QQ beaten by KK, J beaten by A: the single goes.
    assert played(name, "9", "S", "QC QC JC", "KC KC AC") == _sorted("JC")
    # Pair 33 and tractor JJ1010 both beaten: the pair goes.
    assert played(name, "9", "S", "3C 3C JC JC 10C 10C", "QC QC KC KC") == _sorted("3C 3C")


@pytest.mark.parametrize("name", PRESETS)
def test_forced_component_lowest(name: str) -> None:
    assert played(name, "9", "S", "KC KC 7C 7C", "AC AC") == _sorted("7C 7C")
    assert played(name, "9", "S", "QC JC 8C", "KC") == _sorted("8C")
    assert played(name, "9", "S", "QC QC JC JC 6C 6C 5C 5C", "KC KC AC AC") == _sorted("6C 6C 5C 5C")


@pytest.mark.parametrize("name", PRESETS)
def test_forced_component_earliest_among_equals(name: str) -> None:
    # ♥9 and ♦9 are equal off-suit level cards; the trump-suit ♠9 beats both.
    assert played(name, "9", "S", "9H 9D", "9S") == _sorted("9H")
    assert played(name, "9", "S", "9D 9H", "9S") == _sorted("9D")


# --- penalties (A21, A39) ---------------------------------------------------------------------------

def test_throw_penalty_signs() -> None:
    assert throw_penalty(10, 2, thrower_is_attacker=False) == 20
    assert throw_penalty(10, 1, thrower_is_attacker=True) == -10
    assert throw_penalty(5, 2, thrower_is_attacker=False) == 10
    assert throw_penalty(5, 1, thrower_is_attacker=True) == -5
    assert throw_penalty(10, 4, thrower_is_attacker=True) == -40


@pytest.mark.parametrize(("name", "per_card"), [("yancheng", 10), ("yangzhou", 10), ("yangzhong", 10),
                                                ("nantong", 10), ("xin", 5), ("chizhou", 5), ("anhui", 10)])
def test_penalty_basis_is_the_forced_component(name: str, per_card: int) -> None:
    assert R(name).throw_penalty == per_card
    result = judge(name, "9", "S", "AC AC JC JC 10C 10C", "QC QC KC KC")
    assert result.failed and result.penalty_cards == 4
    assert _sorted(format_cards(result.played)) == _sorted("JC JC 10C 10C")
    assert throw_penalty(R(name).throw_penalty, result.penalty_cards, True) == -4 * per_card


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(2, 14), st.sampled_from(["S", "H", "D", "C", None]),
       st.lists(st.sampled_from(DECK), min_size=1, max_size=4), st.lists(st.sampled_from(DECK), max_size=14))
def test_a_component_is_beaten_exactly_where_beating_cards_are_found(name: str, level: int, trump: str | None,
                                                                      thrown: list[Card], hand: list[Card]) -> None:
    """beats_component looks for a higher single or pair without choosing the highest: the same answer as
    beating_cards, for singles, pairs and tractors of any group."""
    t = ctx(name, rank_name(level), trump)
    group = t.group(thrown[0])
    cards = [c for c in thrown if t.group(c) == group]
    hand = hand + [c for c in hand if t.group(c) == group][:3]  # second copies: pairs to beat pairs
    for comp in decompose(t, cards + cards):  # pairs and tractors
        assert beats_component(t, comp, group, hand) == (beating_cards(t, comp, group, hand) is not None)
    for comp in decompose(t, list(dict.fromkeys(cards))):  # singles
        assert beats_component(t, comp, group, hand) == (beating_cards(t, comp, group, hand) is not None)
