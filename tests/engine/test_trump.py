"""Trump membership, ranking, suit-groups and equal cards (RULES.md §2.4, binding decision 3)."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine import trick_winner
from engine.cards import ALL_CARDS
from tests.engine._util import PLAIN_PRESETS, R5_PRESETS, C, R, card, ctx

Tier = str  # cards of equal strength, space separated


def _check_tiers(name: str, level: str | None, trump: str | None, tiers: list[Tier], group: str) -> None:
    """Each tier is strictly above the next; cards inside a tier are equal; all are in ``group``."""
    t = ctx(name, level, trump)
    tier_cards = [C(tier) for tier in tiers]
    for cards in tier_cards:
        for c in cards:
            assert t.group(c) == group, (str(c), t.group(c))
        assert len({t.order(c) for c in cards}) == 1, [str(c) for c in cards]
    for high, low in zip(tier_cards, tier_cards[1:]):
        assert t.order(high[0]) > t.order(low[0]), (str(high[0]), str(low[0]))


def _check_by_tricks(name: str, level: str | None, trump: str | None, tiers: list[Tier]) -> None:
    """The same ranking seen through trick_winner: a single lead, one single follow of the same group."""
    flat = [(i, c) for i, tier in enumerate(tiers) for c in tier.split()]
    r = R(name)
    for (ti, a), (tj, b) in combinations(flat, 2):
        # a is at least as high as b (lower tier index is higher)
        assert trick_winner(r, level, trump, [a, b]) == 0, (a, b)
        assert trick_winner(r, level, trump, [b, a]) == (1 if ti < tj else 0), (b, a)


def _trumps(name: str, level: str | None, trump: str | None) -> set[str]:
    t = ctx(name, level, trump)
    return {str(c) for c in ALL_CARDS if t.is_trump(c)}


# --- trump sets ------------------------------------------------------------------------------

def _suit(s: str, skip: set[str] = set()) -> set[str]:
    return {r + s for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()} - skip


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_suit_trump_set(name: str) -> None:
    expected = {"5H", "BJ", "SJ", "7S", "7H", "7D", "7C"} | _suit("D")
    assert _trumps(name, "7", "D") == expected


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_no_trump_set(name: str) -> None:
    assert _trumps(name, "9", None) == {"5H", "BJ", "SJ", "9S", "9H", "9D", "9C"}


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_flag_hand_only_r5_and_jokers(name: str) -> None:
    assert _trumps(name, None, None) == {"5H", "BJ", "SJ"}


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_suit_trump_set(name: str) -> None:
    assert _trumps(name, "7", "D") == {"BJ", "SJ", "7S", "7H", "7C"} | _suit("D")
    assert not ctx(name, "7", "D").is_trump(card("5H"))


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_no_trump_set(name: str) -> None:
    assert _trumps(name, "9", None) == {"BJ", "SJ", "9S", "9H", "9D", "9C"}


@pytest.mark.parametrize("name", R5_PRESETS)
def test_red_five_stays_r5_at_level_five(name: str) -> None:
    t = ctx(name, "5", "S")
    assert t.is_red_five(card("5H"))
    assert t.order(card("5H")) > t.order(card("BJ")) > t.order(card("5S")) > t.order(card("5D"))
    assert t.order(card("5D")) == t.order(card("5C"))


# --- ranking ---------------------------------------------------------------------------------

R5_SUIT_TRUMP = ["5H", "BJ", "SJ", "7S", "7H 7D 7C", "AS", "KS", "QS", "JS", "10S", "9S", "8S", "6S", "5S",
                 "4S", "3S", "2S"]
R5_HEART_TRUMP = ["5H", "BJ", "SJ", "7H", "7S 7D 7C", "AH", "KH", "QH", "JH", "10H", "9H", "8H", "6H",
                  "4H", "3H", "2H"]
R5_NO_TRUMP = ["5H", "BJ", "SJ", "7S 7H 7D 7C"]
PLAIN_SUIT_TRUMP = ["BJ", "SJ", "7S", "7H 7D 7C", "AS", "KS", "QS", "JS", "10S", "9S", "8S", "6S", "5S",
                    "4S", "3S", "2S"]
PLAIN_HEART_TRUMP = ["BJ", "SJ", "7H", "7S 7D 7C", "AH", "KH", "QH", "JH", "10H", "9H", "8H", "6H", "5H",
                     "4H", "3H", "2H"]
PLAIN_NO_TRUMP = ["BJ", "SJ", "7S 7H 7D 7C"]


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_suit_trump_ranking(name: str) -> None:
    _check_tiers(name, "7", "S", R5_SUIT_TRUMP, "T")
    _check_by_tricks(name, "7", "S", R5_SUIT_TRUMP)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_heart_trump_skips_the_red_five(name: str) -> None:
    _check_tiers(name, "7", "H", R5_HEART_TRUMP, "T")
    _check_by_tricks(name, "7", "H", R5_HEART_TRUMP)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_no_trump_ranking(name: str) -> None:
    _check_tiers(name, "7", None, R5_NO_TRUMP, "T")
    _check_by_tricks(name, "7", None, R5_NO_TRUMP)


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_suit_trump_ranking(name: str) -> None:
    _check_tiers(name, "7", "S", PLAIN_SUIT_TRUMP, "T")
    _check_by_tricks(name, "7", "S", PLAIN_SUIT_TRUMP)


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_heart_trump_has_an_ordinary_heart_five(name: str) -> None:
    _check_tiers(name, "7", "H", PLAIN_HEART_TRUMP, "T")


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_no_trump_ranking(name: str) -> None:
    _check_tiers(name, "7", None, PLAIN_NO_TRUMP, "T")
    _check_by_tricks(name, "7", None, PLAIN_NO_TRUMP)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_plain_hearts_skip_level_and_red_five(name: str) -> None:
    tiers = ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "6H", "4H", "3H", "2H"]
    _check_tiers(name, "7", "S", tiers, "H")
    _check_by_tricks(name, "7", "S", tiers)


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_plain_hearts_keep_the_five(name: str) -> None:
    tiers = ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "6H", "5H", "4H", "3H", "2H"]
    _check_tiers(name, "7", "S", tiers, "H")
    _check_by_tricks(name, "7", "S", tiers)


@pytest.mark.parametrize("name", R5_PRESETS)
def test_flag_hand_ranking(name: str) -> None:
    _check_tiers(name, None, None, ["5H", "BJ", "SJ"], "T")
    # No level rank: every plain suit keeps all its ranks (hearts without the red five).
    _check_tiers(name, None, None, ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "5S", "4S",
                                   "3S", "2S"], "S")
    _check_tiers(name, None, None, ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "4H", "3H",
                                   "2H"], "H")
    r = R(name)
    assert trick_winner(r, None, None, ["AS", "2S", "SJ", "3D"]) == 2
    assert trick_winner(r, None, None, ["2S", "AH", "KD", "3C"]) == 0


def test_red_five_rank_option_below_big_joker() -> None:
    r = R("yancheng").replace(red5_above_big_joker=False)
    t = ctx(r, "7", "S")
    assert t.order(card("BJ")) > t.order(card("5H")) > t.order(card("SJ")) > t.order(card("7S"))


# --- equal cards: the first played ranks higher ---------------------------------------------------

@pytest.mark.parametrize("name", R5_PRESETS + PLAIN_PRESETS)
def test_equal_cards_first_played_wins(name: str) -> None:
    r = R(name)
    assert trick_winner(r, "7", "S", ["7H", "7D", "7C", "7D"]) == 0
    assert trick_winner(r, "7", "S", ["6S", "7D", "7H", "7C"]) == 1
    assert trick_winner(r, "7", "S", ["6S", "7D", "7S", "7C"]) == 2
    assert trick_winner(r, "7", None, ["7S", "7H", "7D", "7C"]) == 0
    assert trick_winner(r, "7", None, ["6S", "7C", "7S", "7C"]) == 1
    assert trick_winner(r, "7", "S", ["AC", "AC", "KC", "AC"]) == 0
    assert trick_winner(r, "7", "S", ["KC", "AC", "AC", "AC"]) == 1
    assert trick_winner(r, "7", "S", ["BJ", "BJ", "SJ", "AS"]) == 0


def test_suit_groups() -> None:
    t = ctx("yancheng", "7", "S")
    assert {t.group(c) for c in C("AS 2S 7H 7D 5H BJ SJ")} == {"T"}
    assert t.group(card("AH")) == "H" and t.group(card("4H")) == "H"
    assert t.group(card("AD")) == "D" and t.group(card("AC")) == "C"
    t = ctx("xin", "7", "S")
    assert t.group(card("5H")) == "H"


def test_level_and_trump_arguments() -> None:
    from engine.errors import EngineError

    with pytest.raises(EngineError):
        ctx("yancheng", None, "S")  # the flag hand is no-trump
    with pytest.raises(ValueError):
        trick_winner(R("yancheng"), "1", "S", ["AS", "KS"])


@pytest.mark.parametrize("name", R5_PRESETS)
def test_r5_family_level_five_no_trump(name: str) -> None:
    # ♥5 stays R5 at level 5; the other three 5s are equal level cards.
    _check_tiers(name, "5", None, ["5H", "BJ", "SJ", "5S 5D 5C"], "T")
    _check_by_tricks(name, "5", None, ["5H", "BJ", "SJ", "5S 5D 5C"])
    _check_tiers(name, "5", None, ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "4H", "3H", "2H"], "H")


@pytest.mark.parametrize("name", PLAIN_PRESETS)
def test_plain_family_level_five_heart_trump(name: str) -> None:
    # Plain family: ♥5 is simply the trump-suit level card.
    _check_tiers(name, "5", "H", ["BJ", "SJ", "5H", "5S 5D 5C", "AH", "KH"], "T")


def test_a_copied_or_unpickled_context_is_the_cached_one() -> None:
    """Its lookups are bound to its own tables; a copy (a deep-copied Hand holds its context) is the same object."""
    import copy
    import pickle

    from engine.ruleset import RULESETS
    from engine.trump import trump_context

    ctx = trump_context(RULESETS["xin"], 7, "H")
    assert copy.copy(ctx) is ctx and copy.deepcopy(ctx) is ctx and pickle.loads(pickle.dumps(ctx)) is ctx
