"""Cards, notation, the 108-card deck and the seeded deal (RULES.md binding decision 2, §2.1, §2.5)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import DECK, Card, NotationError, deal, format_cards, parse_cards
from engine.cards import ALL_CARDS, TOTAL_POINTS

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
ALL_TOKENS = [r + s for s in SUITS for r in RANKS] + ["BJ", "SJ"]


@pytest.mark.parametrize("token", ALL_TOKENS)
def test_every_card_round_trips(token: str) -> None:
    (card,) = parse_cards(token)
    assert str(card) == token
    assert format_cards([card]) == token
    assert parse_cards(format_cards([card])) == [card]


def test_whole_deck_round_trips_as_one_string() -> None:
    text = format_cards(DECK)
    assert parse_cards(text) == list(DECK)
    assert format_cards(parse_cards(text)) == text


def test_notation_examples_from_binding_decision_2() -> None:
    ten_h, q_s, bj, sj, five_h, j_s = parse_cards("10H QS BJ SJ 5H JS")
    assert (ten_h.rank, ten_h.suit) == (10, "H")
    assert (q_s.rank, q_s.suit) == (12, "S")
    assert bj.is_joker and sj.is_joker and bj != sj
    assert (five_h.rank, five_h.suit) == (5, "H")
    # JS is the jack of spades, SJ the small joker.
    assert (j_s.rank, j_s.suit) == (11, "S")
    assert sj.suit is None and str(sj) == "SJ"


@pytest.mark.parametrize(("symbol", "letter"), [("♠", "S"), ("♥", "H"), ("♦", "D"), ("♣", "C")])
def test_suit_symbols_accepted(symbol: str, letter: str) -> None:
    for rank in RANKS:
        assert parse_cards(rank + symbol) == parse_cards(rank + letter)
    assert format_cards(parse_cards("10" + symbol)) == "10" + letter


def test_symbols_in_a_list() -> None:
    assert format_cards(parse_cards("10♥ Q♠ BJ 5♦ A♣")) == "10H QS BJ 5D AC"


def test_two_copies_are_the_same_value() -> None:
    a, b = parse_cards("AS AS")
    assert a == b and hash(a) == hash(b)


@pytest.mark.parametrize("token", ["1H", "11S", "XS", "10X", "AJ", "B", "5", "H5H", "JJ", "10", "♠", "S♠"])
def test_bad_token_raises_notation_error_naming_it(token: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_cards(f"AS {token} KH")
    assert token in str(info.value)


def test_notation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_cards("ZZ")


def test_empty_text_is_no_cards() -> None:
    assert parse_cards("") == []
    assert format_cards([]) == ""


def test_deck_has_108_cards_every_card_twice() -> None:
    assert len(DECK) == 108
    counts = Counter(DECK)
    assert len(counts) == 54
    assert set(counts.values()) == {2}
    assert set(counts) == set(ALL_CARDS)
    assert {str(c) for c in counts} == set(ALL_TOKENS)


def test_deck_holds_200_points() -> None:
    assert sum(c.points for c in DECK) == 200
    assert TOTAL_POINTS == 200


@pytest.mark.parametrize(("token", "points"), [("5S", 5), ("5H", 5), ("10D", 10), ("KC", 10), ("QS", 0),
                                               ("AH", 0), ("BJ", 0), ("SJ", 0), ("2C", 0)])
def test_point_values(token: str, points: int) -> None:
    (card,) = parse_cards(token)
    assert card.points == points


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**40])
def test_deal_25_each_and_kitty_8(seed: int) -> None:
    hands, kitty = deal(seed)
    assert [len(h) for h in hands] == [25, 25, 25, 25]
    assert len(kitty) == 8
    assert Counter(c for h in hands for c in h) + Counter(kitty) == Counter(DECK)


@pytest.mark.parametrize("seed", [0, 3, 99])
def test_flag_hand_deal_27_each_no_kitty(seed: int) -> None:
    hands, kitty = deal(seed, kitty_size=0)
    assert [len(h) for h in hands] == [27, 27, 27, 27]
    assert kitty == []
    assert Counter(c for h in hands for c in h) == Counter(DECK)


def test_deal_is_a_pure_function_of_the_seed() -> None:
    import random

    first = deal(424242)
    random.seed(1)
    random.random()
    second = deal(424242)
    assert first == second
    assert deal(424243) != first


def test_deal_does_not_touch_global_random_state() -> None:
    import random

    random.seed(5)
    expected = random.random()
    random.seed(5)
    deal(11)
    assert random.random() == expected


def test_card_is_immutable() -> None:
    (c,) = parse_cards("AS")
    with pytest.raises(AttributeError):
        c.rank = 3  # type: ignore[misc]


def test_card_constructor_rejects_nonsense() -> None:
    with pytest.raises(NotationError):
        Card(1, "S")
    with pytest.raises(NotationError):
        Card(5, "X")
