"""Ruffs, over-ruffs and the trick winner (RULES.md §2.9 RF1–RF5, §2.10, A15, A20, clarification 12)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import deal, trick_winner
from engine.cards import DECK, Card, rank_name
from engine.combos import decompose
from engine.tricks import _pair_winner, _single_winner, _winner_by_shape
from tests.engine._util import PRESETS, R5_PRESETS, R, ctx


def win(name: str, level: str | None, trump: str | None, *plays: str) -> int:
    return trick_winner(R(name), level, trump, list(plays))


# --- RF1: only a plain lead can be ruffed, with trumps only --------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_rf1_single_ruff(name: str) -> None:
    assert win(name, "9", "S", "AC", "3S") == 1
    assert win(name, "9", "S", "AC", "KC", "3S", "QC") == 2
    assert win(name, "9", "S", "AC", "9D") == 1                       # an off-suit level card is a trump
    assert win(name, "9", None, "AC", "9D") == 1
    assert win(name, "9", None, "AC", "AS") == 0                      # no-trump: ♠A is a plain card


@pytest.mark.parametrize("name", PRESETS)
def test_rf1_trump_lead_is_not_ruffed(name: str) -> None:
    assert win(name, "9", "S", "3S", "AD") == 0
    assert win(name, "9", "S", "3S", "4S") == 1                       # a higher trump follows and wins
    assert win(name, "9", "S", "3S 3S", "AD AD") == 0


@pytest.mark.parametrize("name", PRESETS)
def test_rf1_mixed_play_is_a_discard(name: str) -> None:
    assert win(name, "9", "S", "AC KC", "BJ 3D") == 0
    assert win(name, "9", "S", "3C 3C", "AS 4D") == 0


# --- RF2: structure ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_rf2_pair_lead_needs_a_trump_pair(name: str) -> None:
    assert win(name, "9", "S", "3C 3C", "AS KS") == 0
    assert win(name, "9", "S", "3C 3C", "2S 2S") == 1
    assert win(name, "9", "S", "3C 3C", "9H 9D") == 0                 # off-suit level cards: no pair
    assert win(name, "9", "S", "3C 3C", "9H 9H") == 1


@pytest.mark.parametrize("name", PRESETS)
def test_rf2_tractor_lead_needs_a_tractor_as_long(name: str) -> None:
    assert win(name, "9", "S", "3C 3C 4C 4C", "2S 2S 3S 3S") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C", "2S 2S 7S 7S") == 0     # two pairs, no tractor
    assert win(name, "9", "S", "3C 3C 4C 4C 5C 5C", "2S 2S 3S 3S 4S 4S") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C 5C 5C", "2S 2S 3S 3S QS QS") == 0   # 2-tractor + pair
    assert win(name, "9", "S", "3C 3C 4C 4C", "SJ SJ BJ BJ") == 1


@pytest.mark.parametrize("name", PRESETS)
def test_rf2_long_ruff_tractor_is_not_cut_in_two(name: str) -> None:
    # Clarification 12: ♠33445566 does not ruff a lead of 3344 + 7788.
    lead = "3C 3C 4C 4C 7C 7C 8C 8C"
    assert win(name, "10", "S", lead, "3S 3S 4S 4S 5S 5S 6S 6S") == 0
    assert win(name, "10", "S", lead, "2S 2S 3S 3S 7S 7S 8S 8S") == 1
    assert win(name, "10", "S", lead, "3S 3S 4S 4S 5S 5S 6S 6S", "2S 2S 3S 3S 7S 7S 8S 8S") == 2


@pytest.mark.parametrize("name", PRESETS)
def test_rf2_pairs_count_inside_tractors(name: str) -> None:
    # Lead: tractor + pair (3 pairs).  A 3-pair trump tractor has one tractor and three pairs: a ruff.
    assert win(name, "10", "S", "AC AC 5C 5C 4C 4C", "2S 2S 3S 3S 4S 4S") == 1
    # Tractor + two singles offers 2 pairs < 3.
    assert win(name, "10", "S", "AC AC 5C 5C 4C 4C", "2S 2S 3S 3S 6S 7S") == 0
    # A15 (b) would wrongly reject 8899 against AA QQ: 2 pairs ≥ 2.
    assert win(name, "10", "S", "AC AC QC QC", "8S 8S 9S 9S") == 1


# --- RF3/RF4: strength and over-ruffs -----------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_rf3_single_lead_highest_card(name: str) -> None:
    assert win(name, "9", "S", "AC", "3S", "4S") == 2
    assert win(name, "9", "S", "AC", "4S", "3S") == 1
    assert win(name, "9", "S", "AC", "4S", "4S") == 1                 # equal keys: the earlier ruff
    assert win(name, "9", "S", "AC", "9H", "9D") == 1
    assert win(name, "9", "S", "AC", "9H", "9S") == 2
    assert win(name, "9", "S", "AC", "AS", "BJ", "SJ") == 2


@pytest.mark.parametrize("name", PRESETS)
def test_rf3_pair_lead_highest_pair(name: str) -> None:
    assert win(name, "9", "S", "AC AC", "3S 3S", "4S 4S") == 2
    assert win(name, "9", "S", "AC AC", "9H 9H", "9D 9D") == 1        # equal pairs: the earlier
    assert win(name, "9", "S", "AC AC", "9H 9H", "9S 9S") == 2


@pytest.mark.parametrize("name", PRESETS)
def test_rf3_tractor_lead_tractor_rank(name: str) -> None:
    assert win(name, "9", "S", "3C 3C 4C 4C", "2S 2S 3S 3S", "5S 5S 6S 6S") == 2
    assert win(name, "9", "S", "3C 3C 4C 4C", "5S 5S 6S 6S", "2S 2S 3S 3S") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C", "QS QS KS KS", "SJ SJ BJ BJ") == 2
    # AA22 ranks with the ace as 1.
    assert win(name, "9", "S", "3C 3C 4C 4C", "3S 3S 4S 4S", "AS AS 2S 2S") == 1


@pytest.mark.parametrize("name", PRESETS)
def test_rf3_throw_with_tractor_longest_tractor_counts(name: str) -> None:
    lead = "AC KC 5C 5C 4C 4C"
    assert win(name, "J", "S", lead, "9S 9S 8S 8S 7S 2S", "3S 3S 4S 4S AS KS") == 1
    assert win(name, "J", "S", lead, "3S 3S 4S 4S AS KS", "9S 9S 8S 8S 7S 2S") == 2


@pytest.mark.parametrize("name", PRESETS)
def test_rf4_ruff_beats_every_follow(name: str) -> None:
    assert win(name, "9", "S", "3C", "2S", "AC") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C", "2S 2S 3S 3S", "QC QC KC KC") == 1


# --- RF5 and 5-10-K ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", R5_PRESETS)
def test_rf5_plain_ftk_only_trump_ftk_beats_it(name: str) -> None:
    lead = "5C 10C KC"
    assert win(name, "9", "S", lead, "BJ BJ SJ") == 0
    assert win(name, "9", "S", lead, "AC AC QC") == 0
    assert win(name, "9", "S", lead, "AC AC QC", "5S 10S KS") == 2
    assert win(name, "9", "S", lead, "5S 10S KS", "5S 10S KS") == 1
    assert win(name, "9", None, lead, "BJ BJ SJ") == 0                # A20 (iv): nothing beats it in NT


@pytest.mark.parametrize("name", R5_PRESETS)
def test_rf5_plain_ftk_pairs_only_trump_ftk_pairs(name: str) -> None:
    lead = "5C 5C 10C 10C KC KC"
    assert win(name, "9", "S", lead, "BJ BJ SJ SJ AS AS") == 0
    assert win(name, "9", "S", lead, "5S 5S 10S 10S KS KS") == 1


@pytest.mark.parametrize("name", R5_PRESETS)
def test_trump_ftk_is_unbeatable(name: str) -> None:
    assert win(name, "9", "S", "5S 10S KS", "5H BJ BJ") == 0
    assert win(name, "9", "S", "5S 10S KS", "5S 10S KS") == 0
    assert win(name, "9", "H", "5H 10H KH", "BJ BJ SJ", "5H 10H KH") == 0
    assert win(name, "9", "S", "5S 5S 10S 10S KS KS", "5H 5H BJ BJ SJ SJ") == 0


@pytest.mark.parametrize("name", ("yancheng", "nantong"))
def test_red_five_plain_hearts_ftk_is_a_hearts_unit(name: str) -> None:
    # A42: followed and ruffed as plain hearts; only the trump 5-10-K ruffs it.
    assert win(name, "9", "S", "5H 10H KH", "AH AH QH") == 0
    assert win(name, "9", "S", "5H 10H KH", "BJ BJ SJ") == 0
    assert win(name, "9", "S", "5H 10H KH", "5S 10S KS") == 1


# --- §2.10 trick winner -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_follow_same_shape_higher_wins(name: str) -> None:
    assert win(name, "9", "S", "3C", "KC", "AC", "2C") == 2
    assert win(name, "9", "S", "3C 3C", "KC QC", "4C 4C", "AC 2C") == 2
    assert win(name, "9", "S", "3C 3C 4C 4C", "QC QC KC KC", "AC AC 2C 5C") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C", "6C 6C 8C 8C") == 0      # two pairs, not a tractor


@pytest.mark.parametrize("name", PRESETS)
def test_discards_never_win(name: str) -> None:
    assert win(name, "9", "S", "3C", "AD", "AH", "KD") == 0
    assert win(name, "9", "S", "3C 3C 4C 4C", "QD QD KD KD", "AH AH KH KH", "7D 7D 8D 8D") == 0
    assert win(name, "9", "S", "3S", "AD", "AC", "AH") == 0


@pytest.mark.parametrize("name", PRESETS)
def test_trump_tractor_beats_plain_tractor(name: str) -> None:
    assert win(name, "9", "S", "QC QC KC KC", "2S 2S 3S 3S") == 1
    assert win(name, "9", "S", "3C 3C 4C 4C", "QD QD KD KD", "2S 2S 3S 3S", "QC QC KC KC") == 2


@pytest.mark.parametrize("name", PRESETS)
def test_throws_cannot_be_beaten_by_following(name: str) -> None:
    assert win(name, "9", "S", "KC QC", "AC AC") == 0
    assert win(name, "9", "S", "QC QC JC", "AC AC KC") == 0
    assert win(name, "9", "S", "QC QC JC", "2S 2S 3S") == 1
    assert win(name, "9", "S", "AS KS", "BJ BJ") == 0                 # a trump throw


@pytest.mark.parametrize("name", PRESETS)
def test_first_of_equal_plays_wins(name: str) -> None:
    assert win(name, "9", "S", "AC", "AC") == 0
    assert win(name, "9", "S", "3C", "AC", "AC") == 1
    assert win(name, "9", "S", "3S", "9H", "9D", "9C") == 1
    assert win(name, "9", None, "3C", "9S", "9H") == 1


# --- properties (hypothesis) --------------------------------------------------------------------------

def _build_trick(seed: int, name: str, level: str, trump: str | None) -> list[list[Card]]:
    """A realistic trick: a lead (component or small throw) from a dealt hand, F1-style follows."""
    rng = random.Random(seed)
    hands, _ = deal(seed)
    t = ctx(name, level, trump)
    leader = hands[0]
    groups = sorted({t.group(c) for c in leader})
    group = rng.choice(groups)
    cards = [c for c in leader if t.group(c) == group]
    comps = decompose(t, cards)
    take = rng.sample(comps, k=min(len(comps), rng.choice((1, 1, 1, 2))))
    lead = [c for comp in take for c in comp.cards]
    plays = [lead]
    for hand in hands[1:4]:
        mine = [c for c in hand if t.group(c) == group]
        n = len(lead)
        if len(mine) >= n:
            play = rng.sample(mine, n)
        else:
            rest = [c for c in hand if t.group(c) != group]
            play = mine + rng.sample(rest, n - len(mine))
        plays.append(play)
    return plays


trick_params = st.tuples(
    st.integers(0, 10**6),
    st.sampled_from(PRESETS),
    st.sampled_from([rank_name(r) for r in range(2, 15)]),
    st.sampled_from(("S", "H", "D", "C", None)),
)


@settings(max_examples=200, deadline=None)
@given(trick_params, st.randoms(use_true_random=False))
def test_winner_ignores_card_order_within_plays(params, rnd) -> None:
    seed, name, level, trump = params
    plays = _build_trick(seed, name, level, trump)
    r = R(name)
    w = trick_winner(r, level, trump, plays)
    assert 0 <= w < len(plays)
    shuffled = [rnd.sample(p, len(p)) for p in plays]
    assert trick_winner(r, level, trump, shuffled) == w


@settings(max_examples=200, deadline=None)
@given(trick_params)
def test_a_later_equal_play_never_takes_the_trick(params) -> None:
    seed, name, level, trump = params
    plays = _build_trick(seed, name, level, trump)
    r = R(name)
    w = trick_winner(r, level, trump, plays)
    # Equal cards: the first played ranks higher, so a copy of the winning play added last loses.
    assert trick_winner(r, level, trump, plays + [list(plays[w])]) == w
    # The same with an equal card of another suit (off-suit level cards) for a single.
    if len(plays[w]) == 1:
        t = ctx(name, level, trump)
        c = plays[w][0]
        equals = [d for d in {*(x for p in plays for x in p)} | set(_all_cards())
                  if d != c and t.group(d) == t.group(c) and t.order(d) == t.order(c)]
        for d in equals:
            assert trick_winner(r, level, trump, plays + [[d]]) == w


def _all_cards() -> list[Card]:
    from engine.cards import ALL_CARDS

    return list(ALL_CARDS)


@settings(max_examples=200, deadline=None)
@given(trick_params, st.randoms(use_true_random=False))
def test_all_discards_leave_the_trick_to_the_lead(params, rnd) -> None:
    seed, name, level, trump = params
    plays = _build_trick(seed, name, level, trump)
    t = ctx(name, level, trump)
    lead = plays[0]
    group = t.group(lead[0])
    n = len(lead)
    # Off-group cards that contain at least one non-trump card are discards.
    pool = [c for c in _all_cards() if t.group(c) != group]
    non_trump = [c for c in pool if t.group(c) != "T"]
    follows = []
    for _ in range(3):
        play = [rnd.choice(non_trump)] + [rnd.choice(pool) for _ in range(n - 1)]
        rnd.shuffle(play)
        follows.append(play)
    assert trick_winner(R(name), t.level and rank_name(t.level), t.trump, [lead] + follows) == 0


@settings(max_examples=300, deadline=None)
@given(trick_params, st.lists(st.sampled_from(DECK), min_size=4, max_size=4))
def test_a_single_led_is_judged_as_its_shape_judges_it(params, cards: list[Card]) -> None:
    """The singles fast path (most tricks) names the winner the judgement by shape names, ruffs and discards included."""
    _seed, name, level, trump = params
    t = ctx(name, level, trump)
    plays = [[c] for c in cards]
    assert _single_winner(t, plays) == _winner_by_shape(t, plays)
    same = [[cards[0]], [cards[0]], [cards[1]], [cards[0]]]  # ties go to the first
    assert _single_winner(t, same) == _winner_by_shape(t, same)


@settings(max_examples=300, deadline=None)
@given(trick_params, st.lists(st.sampled_from(DECK), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=3, max_size=3), st.lists(st.sampled_from(DECK), min_size=3, max_size=3))
def test_a_pair_led_is_judged_as_its_shape_judges_it(params, cards: list[Card], paired: list[bool],
                                                     others: list[Card]) -> None:
    """The pairs fast path names the winner the judgement by shape names: pairs of the group, trump pairs (ruffs and
    over-ruffs), two odd cards, equal pairs (the first wins)."""
    _seed, name, level, trump = params
    t = ctx(name, level, trump)
    plays = [[cards[0], cards[0]]] + [[c, c] if p else [c, o] for c, p, o in zip(cards[1:], paired, others)]
    assert _pair_winner(t, plays) == _winner_by_shape(t, plays)
    same = [plays[0], plays[0], [cards[1], cards[1]], [cards[1], cards[1]]]
    assert _pair_winner(t, same) == _winner_by_shape(t, same)
