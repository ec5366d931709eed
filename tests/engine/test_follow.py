"""Following rules F1–F4 (RULES.md §2.8, A14, A20) — scenarios and an independent enumeration."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import is_legal_follow
from engine.cards import Card
from engine.errors import IllegalPlayError
from engine.follow import check_follow
from tests.engine._util import PAIRS_MUST_FOLLOW, PRESETS, R5_PRESETS, C, R, ctx


def legal(name: str, level: str, trump: str | None, lead: str, hand: str, play: str) -> bool:
    return is_legal_follow(R(name), level, trump, lead, hand, play)


def code(name: str, level: str, trump: str | None, lead: str, hand: str, play: str) -> str:
    try:
        check_follow(ctx(name, level, trump), C(lead), C(hand), C(play))
    except IllegalPlayError as e:
        return e.code
    return "ok"


# --- F1: follow suit -------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_f1_single(name: str) -> None:
    assert legal(name, "2", "S", "AC", "KC 3D", "KC")
    assert not legal(name, "2", "S", "AC", "KC 3D", "3D")
    assert code(name, "2", "S", "AC", "KC 3D", "3D") == "must_follow_suit"


@pytest.mark.parametrize("name", PRESETS)
def test_f1_short_follower_plays_all_then_fills(name: str) -> None:
    assert legal(name, "2", "S", "AC AC", "KC 3D 4D", "KC 3D")
    assert legal(name, "2", "S", "AC AC", "KC 3D 4D", "4D KC")
    assert not legal(name, "2", "S", "AC AC", "KC 3D 4D", "3D 4D")
    assert legal(name, "2", "S", "AC AC QC", "KC 3D 4D 5S", "KC 5S 4D")


@pytest.mark.parametrize("name", PRESETS)
def test_f1_void_may_discard_or_ruff(name: str) -> None:
    assert legal(name, "2", "S", "AC", "3D 4S", "3D")
    assert legal(name, "2", "S", "AC", "3D 4S", "4S")


@pytest.mark.parametrize("name", PRESETS)
def test_f1_trump_lead_is_followed_with_any_trump(name: str) -> None:
    # Level 2: ♥2 is a trump and must answer a trump lead.
    assert legal(name, "2", "S", "AS", "2H 3C", "2H")
    assert not legal(name, "2", "S", "AS", "2H 3C", "3C")
    assert legal(name, "2", "S", "AS", "BJ 3C", "BJ")


@pytest.mark.parametrize("name", PRESETS)
def test_f1_level_card_of_the_led_suit_is_not_that_suit(name: str) -> None:
    # At level 7 the ♣7 is a trump: a follower with only ♣7 is void in clubs.
    assert legal(name, "7", "S", "AC", "7C 3D", "3D")
    assert legal(name, "7", "S", "AC", "7C 3D", "7C")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_f1_red_five_is_not_a_heart(name: str) -> None:
    assert legal(name, "2", "S", "AH", "5H 3C", "3C")
    assert legal(name, "2", "S", "AH", "5H 3C", "5H")


@pytest.mark.parametrize("name", ("xin", "chizhou", "anhui"))
def test_f1_plain_family_heart_five_is_a_heart(name: str) -> None:
    assert legal(name, "2", "S", "AH", "5H 3C", "5H")
    assert not legal(name, "2", "S", "AH", "5H 3C", "3C")


@pytest.mark.parametrize("name", PRESETS)
def test_wrong_count_or_cards_not_held(name: str) -> None:
    assert not legal(name, "2", "S", "AC AC", "KC QC JC", "KC")
    assert not legal(name, "2", "S", "AC AC", "KC QC JC", "KC QC JC")
    assert not legal(name, "2", "S", "AC", "KC QC", "9C")
    assert code(name, "2", "S", "AC AC", "KC QC JC", "KC") == "wrong_count"


# --- F2: pairs and tractors ------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_f2_pair_lead(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    assert legal(name, "2", "S", "AC AC", "KC KC 3C", "KC KC")
    assert legal(name, "2", "S", "AC AC", "KC KC 3C", "KC 3C") is not forced
    if forced:
        assert code(name, "2", "S", "AC AC", "KC KC 3C", "KC 3C") == "must_follow_pair"


@pytest.mark.parametrize("name", PRESETS)
def test_f2_pair_inside_a_tractor_must_be_broken(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    hand = "3C 3C 4C 4C 9C"
    assert legal(name, "2", "S", "AC AC", hand, "3C 3C")
    assert legal(name, "2", "S", "AC AC", hand, "4C 4C")
    assert legal(name, "2", "S", "AC AC", hand, "3C 9C") is not forced


@pytest.mark.parametrize("name", PRESETS)
def test_f2_tractor_lead_needs_a_tractor(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    hand = "3C 3C 4C 4C 8C 8C 9C"
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 4C 4C")
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 8C 8C") is not forced
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 4C 8C 9C") is not forced
    if forced:
        assert code(name, "2", "S", "AC AC KC KC", hand, "3C 3C 8C 8C") == "must_follow_tractor"


@pytest.mark.parametrize("name", PRESETS)
def test_f2_tractor_cut_from_a_longer_one(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    hand = "3C 3C 4C 4C 5C 5C 9C"
    assert legal(name, "2", "S", "AC AC KC KC", hand, "4C 4C 5C 5C")
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 4C 4C")
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 5C 5C") is not forced
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 9C 4C") is not forced


@pytest.mark.parametrize("name", PRESETS)
def test_f2_no_tractor_then_pairs(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    hand = "3C 3C 6C 6C 9C 8C"
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 6C 6C")
    assert legal(name, "2", "S", "AC AC KC KC", hand, "3C 3C 9C 8C") is not forced
    # One pair only: it must be played, the rest is free.
    assert legal(name, "2", "S", "AC AC KC KC", "3C 3C 6C 9C 8C", "3C 3C 9C 8C")
    assert legal(name, "2", "S", "AC AC KC KC", "3C 3C 6C 9C 8C", "3C 6C 9C 8C") is not forced


@pytest.mark.parametrize("name", PRESETS)
def test_f2_throw_with_tractor_and_pair(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    lead = "AC AC KC KC 9C 9C"          # tractor + loose pair
    hand = "3C 3C 4C 4C 5C 5C 7C"
    assert legal(name, "2", "S", lead, hand, "3C 3C 4C 4C 5C 5C")
    assert legal(name, "2", "S", lead, hand, "3C 3C 4C 4C 5C 7C") is not forced


@pytest.mark.parametrize("name", PRESETS)
def test_f2_two_tractor_throw(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    lead = "AC AC KC KC 8C 8C 7C 7C"
    hand = "2C 2C 3C 3C 4C 4C 5C 5C 10C"
    assert legal(name, "J", "S", lead, hand, "2C 2C 3C 3C 4C 4C 5C 5C")
    hand = "2C 2C 3C 3C 5C 5C 6C 6C 10C"
    assert legal(name, "J", "S", lead, hand, "2C 2C 3C 3C 5C 5C 6C 6C")
    assert legal(name, "J", "S", lead, hand, "2C 2C 3C 3C 5C 5C 6C 10C") is not forced


@pytest.mark.parametrize("name", PRESETS)
def test_f2_trump_pairs(name: str) -> None:
    forced = name in PAIRS_MUST_FOLLOW
    assert legal(name, "2", "S", "3S 3S", "BJ BJ 4S 2H", "BJ BJ")
    assert legal(name, "2", "S", "3S 3S", "BJ BJ 4S 2H", "BJ 4S") is not forced


@pytest.mark.parametrize("name", PAIRS_MUST_FOLLOW)
def test_f2_trump_tractors(name: str) -> None:
    # The joker tractor answers a trump tractor lead.
    assert legal(name, "9", "S", "3S 3S 4S 4S", "SJ SJ BJ BJ 7S 7S 8D", "SJ SJ BJ BJ")
    assert not legal(name, "9", "S", "3S 3S 4S 4S", "SJ SJ BJ BJ 7S 7S 8D", "SJ SJ 7S 7S")


def test_f2_anhui_chain_is_a_tractor_to_follow_with() -> None:
    hand = "AS AS 9H 9H 5S 8S 4C"
    assert legal("anhui", "9", "S", "6S 6S 7S 7S", hand, "AS AS 9H 9H")
    assert not legal("anhui", "9", "S", "6S 6S 7S 7S", hand, "AS AS 5S 8S")
    # Elsewhere the same cards are two loose pairs: both pairs must still be played.
    assert legal("yangzhou", "9", "S", "6S 6S 7S 7S", hand, "AS AS 9H 9H")
    assert not legal("yangzhou", "9", "S", "6S 6S 7S 7S", hand, "AS AS 5S 8S")


@pytest.mark.parametrize("name", PRESETS)
def test_f2_off_suit_level_cards_are_no_pair(name: str) -> None:
    assert legal(name, "7", "S", "AS AS", "7H 7D 3S 4S", "3S 4S")
    assert legal(name, "7", "S", "AS AS", "7H 7D 3S 4S", "7H 7D")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_f2_plain_five_ten_king_pairs_force_pairs(name: str) -> None:
    # A plain 5-10-K pair form is 逼对: F2 applies.
    lead = "5C 5C 10C 10C KC KC"
    hand = "3C 3C 7C 7C AC 2C 8C 9C"
    assert legal(name, "J", "S", lead, hand, "3C 3C 7C 7C AC 2C")
    assert not legal(name, "J", "S", lead, hand, "3C 3C 7C AC 2C 8C")


@pytest.mark.parametrize("name", R5_PRESETS)
def test_plain_five_ten_king_asks_only_the_suit(name: str) -> None:
    lead = "5C 10C KC"
    hand = "AC AC 3C 9D"
    assert legal(name, "J", "S", lead, hand, "AC AC 3C")
    assert not legal(name, "J", "S", lead, "AC AC 3C 4C 9D", "AC AC 9D")


# --- F4: trump 5-10-K forcing ------------------------------------------------------------------

@pytest.mark.parametrize("name", ("yancheng", "yangzhou", "nantong"))
def test_f4_holder_of_the_other_trump_ftk_must_play_it(name: str) -> None:
    lead = "5S 10S KS"
    hand = "5S 10S KS BJ AS 3D"
    assert legal(name, "9", "S", lead, hand, "5S 10S KS")
    assert not legal(name, "9", "S", lead, hand, "BJ AS KS")
    assert code(name, "9", "S", lead, hand, "BJ AS KS") == "must_play_ftk"


@pytest.mark.parametrize("name", ("yancheng", "yangzhou", "nantong"))
def test_f4_otherwise_three_highest_trumps(name: str) -> None:
    lead = "5S 10S KS"
    hand = "5H SJ 9S AS 3S 4C"       # R5 > SJ > trump-suit level ♠9 > ♠A > ♠3
    assert legal(name, "9", "S", lead, hand, "5H SJ 9S")
    assert not legal(name, "9", "S", lead, hand, "5H SJ AS")
    assert not legal(name, "9", "S", lead, hand, "SJ 9S AS")
    # Equal off-suit level cards are interchangeable.
    hand = "BJ 9H 9D 3S 4C"
    assert legal(name, "9", "S", lead, hand, "BJ 9H 9D")
    assert legal(name, "9", "S", lead, "BJ 9H 9D 9C 3S", "BJ 9C 9D")
    assert not legal(name, "9", "S", lead, "BJ 9H 9D 9C 3S", "BJ 9C 3S")


@pytest.mark.parametrize("name", ("yancheng", "yangzhou", "nantong"))
def test_f4_fewer_trumps_play_them_all(name: str) -> None:
    assert legal(name, "9", "S", "5S 10S KS", "3S 4C 4D 8H", "3S 4C 8H")
    assert not legal(name, "9", "S", "5S 10S KS", "3S 4C 4D 8H", "4C 4D 8H")


@pytest.mark.parametrize("name", ("yancheng", "yangzhou", "nantong"))
def test_f4_trump_hearts_five_ten_king_forces(name: str) -> None:
    lead = "5H 10H KH"
    assert legal(name, "9", "H", lead, "5H 10H KH BJ BJ SJ", "5H 10H KH")
    assert not legal(name, "9", "H", lead, "5H 10H KH BJ BJ SJ", "BJ BJ SJ")
    assert legal(name, "9", "H", lead, "BJ SJ 9H AH 3H 4C", "BJ SJ 9H")
    assert not legal(name, "9", "H", lead, "BJ SJ 9H AH 3H 4C", "BJ SJ 3H")


def test_f4_yangzhong_does_not_force_highest_trumps() -> None:
    lead = "5S 10S KS"
    assert legal("yangzhong", "9", "S", lead, "5H SJ 9S AS 3S 4C", "AS 3S 9S")
    assert legal("yangzhong", "9", "S", lead, "5S 10S KS BJ AS 3D", "BJ AS KS")
    assert not legal("yangzhong", "9", "S", lead, "5H SJ 9S AS 3S 4C", "AS 3S 4C")   # F1 still holds


def test_f4_trump_ftk_pair_form_pairs_first_then_highest() -> None:
    # A20 (ii) [R]: six highest trumps, F2 pairs taking priority.
    lead = "5S 5S 10S 10S KS KS"
    hand = "BJ BJ SJ AS QS 4S 4S 3C"
    assert legal("yancheng", "9", "S", lead, hand, "BJ BJ 4S 4S SJ AS")
    assert not legal("yancheng", "9", "S", lead, hand, "BJ BJ SJ AS QS 4S")


# --- independent enumeration (hypothesis) ------------------------------------------------------

RANKS = list(range(2, 15))


def _plain_positions(rank: int, suit: str, level: int, skip: bool, red5: bool) -> list[int]:
    """Tractor positions of a plain-suit pair, written from §2.7 and clarification 12."""
    missing = {level} | ({5} if red5 and suit == "H" else set())
    present = [r for r in RANKS if r not in missing]
    ace_low = 14 in present                      # AA22 allowed (ace_low_tractor) unless A is missing
    if skip:                                     # hollow: consecutive among present ranks
        seq = ([1] if ace_low else []) + present
        index = {v: i for i, v in enumerate(seq)}
    else:                                        # adjacent face values only
        index = {r: r for r in present}
        if ace_low:
            index[1] = 1
    out = [index[rank]] if rank in index else []
    if rank == 14 and ace_low:
        out.append(index[1])
    return out


def _windows(pair_ranks: frozenset[int], k: int, pos_of) -> set[frozenset[int]]:
    by_pos: dict[int, list[int]] = {}
    for r in pair_ranks:
        for p in pos_of(r):
            by_pos.setdefault(p, []).append(r)
    found: set[frozenset[int]] = set()

    def walk(p: int, used: frozenset[int]) -> None:
        if len(used) == k:
            found.add(used)
            return
        for r in by_pos.get(p, []):
            if r not in used:
                walk(p + 1, used | {r})

    for start in by_pos:
        walk(start, frozenset())
    return found


def _lead_structure(pair_ranks: frozenset[int], pos_of) -> list[int]:
    """Lead tractors by the greedy split of §2.7.6 (longest first)."""
    avail = set(pair_ranks)
    out: list[int] = []
    while True:
        for k in range(len(avail), 1, -1):
            ws = _windows(frozenset(avail), k, pos_of)
            if ws:
                w = max(ws, key=lambda w: max(max(pos_of(r)) for r in w))
                out.append(k)
                avail -= w
                break
        else:
            return out


def _max_tractors(pair_ranks: frozenset[int], lead_tractors: list[int], pos_of) -> int:
    best = 0

    def rec(i: int, avail: frozenset[int], got: int) -> None:
        nonlocal best
        best = max(best, got)
        if i == len(lead_tractors) or got + len(lead_tractors) - i <= best:
            return
        for w in _windows(avail, lead_tractors[i], pos_of):
            rec(i + 1, avail - w, got + 1)
        rec(i + 1, avail, got)

    rec(0, pair_ranks, 0)
    return best


def expected_legal_plays(name: str, level: int, trump: str | None, suit: str,
                         lead: list[Card], hand: list[Card]) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """(F1-valid plays, legal plays) as sorted token tuples, by brute force from the spec text."""
    r = R(name)
    red5 = r.red5_trump

    def in_group(c: Card) -> bool:
        if c.suit != suit or c.rank == level:
            return False
        return not (red5 and c.suit == "H" and c.rank == 5)

    def pos_of(rank: int) -> list[int]:
        return _plain_positions(rank, suit, level, r.tractor_skip_level, red5)

    n = len(lead)
    lead_pairs = frozenset(c.rank for c, k in Counter(lead).items() if k == 2)
    lead_tractors = _lead_structure(lead_pairs, pos_of)
    lead_pair_count = len(lead_pairs)
    group = [c for c in hand if in_group(c)]
    others = [c for c in hand if not in_group(c)]
    f1: set[tuple[str, ...]] = set()
    if len(group) >= n:
        for combo in combinations(range(len(group)), n):
            f1.add(tuple(sorted(str(group[i]) for i in combo)))
        scored = {}
        for play in f1:
            cs = Counter(play)
            pairs = frozenset(int(_rank(t)) for t, k in cs.items() if k == 2)
            score = (_max_tractors(pairs, lead_tractors, pos_of), min(len(pairs), lead_pair_count))
            scored[play] = score
        if r.pairs_must_follow and lead_pair_count:
            best = max(scored.values())
            legal_set = {p for p, s in scored.items() if s == best}
        else:
            legal_set = set(f1)
    else:
        for combo in combinations(range(len(others)), n - len(group)):
            f1.add(tuple(sorted([str(c) for c in group] + [str(others[i]) for i in combo])))
        legal_set = set(f1)
    return f1, legal_set


def _rank(token: str) -> int:
    from engine.cards import rank_value

    return rank_value(token[:-1])


@st.composite
def follow_case(draw):
    """A plain-suit lead (pairs, tractors, singles or a throw of them) and a small hand around it."""
    name = draw(st.sampled_from(("yancheng", "nantong", "yangzhou", "anhui")))
    level = draw(st.integers(2, 14))
    trump = draw(st.sampled_from(("S", None)))
    suit = draw(st.sampled_from(("C", "H")))
    start = draw(st.integers(2, 9))
    window = draw(st.sampled_from([
        [r for r in range(start, start + 8) if r <= 14],
        [14, 2, 3, 4, 5, 6, 7],               # the ace both high and low (AA22…, KKAA)
        [12, 13, 14, 2, 3, 4],
    ]))
    red5 = R(name).red5_trump
    pool = [Card(rk, suit) for rk in window for _ in (0, 1)] + [Card(3, "D"), Card(9, "S"), Card(16)]
    group_ranks = sorted({c.rank for c in pool
                          if c.suit == suit and c.rank != level and not (red5 and suit == "H" and c.rank == 5)})
    if not group_ranks:
        return None
    pair_ranks = draw(st.lists(st.sampled_from(group_ranks), max_size=3, unique=True))
    lead = [Card(rk, suit) for rk in pair_ranks for _ in (0, 1)]
    single_choices = [rk for rk in group_ranks if rk not in pair_ranks]
    singles = draw(st.lists(st.sampled_from(single_choices), min_size=0 if lead else 1, max_size=2,
                            unique=True)) if single_choices else []
    lead += [Card(rk, suit) for rk in singles]
    if not lead:
        return None
    rest = list(pool)
    for c in lead:
        rest.remove(c)
    if len(rest) < max(len(lead), 6):
        return None
    hand_size = draw(st.integers(max(len(lead), 6), min(13, len(rest))))
    hand = draw(st.permutations(rest))[:hand_size]
    return name, level, trump, suit, lead, hand


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(follow_case())
def test_is_legal_follow_matches_independent_enumeration(case) -> None:
    assume(case is not None)  # the drawn window held no lead to follow: not an example, not a pass
    name, level, trump, suit, lead, hand = case
    from engine.cards import rank_name

    level_s = rank_name(level)
    f1, expected = expected_legal_plays(name, level, trump, suit, lead, hand)
    r = R(name)
    lead_s = " ".join(map(str, lead))
    hand_s = " ".join(map(str, hand))
    for play in f1:
        got = is_legal_follow(r, level_s, trump, lead_s, hand_s, " ".join(play))
        assert got == (play in expected), (name, level_s, trump, lead_s, hand_s, play, got)
    # Some F1-invalid plays of the right size are refused.
    n = len(lead)
    for combo in list(combinations(range(len(hand)), n))[:40]:
        play = tuple(sorted(str(hand[i]) for i in combo))
        if play not in f1:
            assert not is_legal_follow(r, level_s, trump, lead_s, hand_s, " ".join(play))


# Trump-group leads: the same independent matcher, but with the engine's own tractor positions
# (ctx.positions, checked on their own in test_combos.py) since trump adjacency has many pieces
# (level pairs at face value, joker pairs, 安徽's chain with several cards on one position).

@st.composite
def trump_follow_case(draw):
    name = draw(st.sampled_from(("yancheng", "yangzhou", "nantong", "anhui")))
    level = draw(st.sampled_from((2, 6, 9, 13, 14)))
    trump = draw(st.sampled_from(("S", "H", None)))
    t = ctx(name, rank_name(level), trump)
    trumps = sorted((c for c in _all_cards() if t.is_trump(c)), key=lambda c: -t.order(c))
    top = trumps[: draw(st.integers(6, 14))]
    pool = [c for c in top for _ in (0, 1)] + [Card(3, "D"), Card(4, "C")]
    distinct = list(dict.fromkeys(top))
    pair_cards = draw(st.lists(st.sampled_from(distinct), max_size=3, unique=True))
    lead = [c for c in pair_cards for _ in (0, 1)]
    single_choices = [c for c in distinct if c not in pair_cards]
    lead += draw(st.lists(st.sampled_from(single_choices), min_size=0 if lead else 1, max_size=2, unique=True))
    rest = list(pool)
    for c in lead:
        rest.remove(c)
    if len(rest) < max(6, len(lead)):
        return None
    hand = draw(st.permutations(rest))[: draw(st.integers(max(6, len(lead)), min(12, len(rest))))]
    return name, level, trump, lead, hand


def _all_cards() -> list[Card]:
    from engine.cards import ALL_CARDS

    return list(ALL_CARDS)


def rank_name(level: int) -> str:
    from engine.cards import rank_name as _rn

    return _rn(level)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trump_follow_case())
def test_trump_lead_follow_matches_independent_matching(case) -> None:
    assume(case is not None)  # hypothesis draws another case (an early return would pass asserting nothing)
    name, level, trump, lead, hand = case
    t = ctx(name, rank_name(level), trump)
    from engine.combos import classify

    assume(classify(t, lead).kind not in ("ftk", "ftk2"))  # F4, tested by scenario above

    def pos_of(c: Card) -> list[int]:
        return list(t.positions(c))

    lead_pairs = frozenset(c for c, k in Counter(lead).items() if k == 2)
    lead_tractors = _lead_structure(lead_pairs, pos_of)
    group = [c for c in hand if t.is_trump(c)]
    n = len(lead)
    assume(len(group) >= n)  # short of trumps: every trump must go, tested elsewhere
    plays = {tuple(sorted(combo, key=str)) for combo in combinations(group, n)}
    scores = {}
    for play in plays:
        pairs = frozenset(c for c, k in Counter(play).items() if k == 2)
        scores[play] = (_max_tractors(pairs, lead_tractors, pos_of), min(len(pairs), len(lead_pairs)))
    best = max(scores.values())
    r = R(name)
    for play, score in scores.items():
        expected = score == best if lead_pairs else True
        got = is_legal_follow(r, rank_name(level), trump, lead, hand, list(play))
        assert got == expected, (name, level, trump, [str(c) for c in lead], [str(c) for c in hand],
                                 [str(c) for c in play])


# --- every legal follow, for one-tap buttons --------------------------------------------------

def follows(level: str, trump: str | None, lead: str, hand: str, most: int = 4) -> list[str] | None:
    from engine.cards import format_cards
    from engine.follow import legal_follows

    found = legal_follows(ctx("yancheng", level, trump), C(lead), C(hand), most)
    return None if found is None else [format_cards(play) for play in found]


def test_legal_follows_lists_each_play_once() -> None:
    assert follows("2", "S", "AC", "KC KC 9C 3D 4H") == ["KC", "9C"]  # the hand's order: high to low
    assert follows("2", "S", "AC", "9C 3D 4H") == ["9C"]  # a lone legal play


def test_legal_follows_of_a_pair_keeps_the_pair_rule() -> None:
    found = follows("2", "S", "AC AC", "KC KC 9C 3D 4H")
    assert found == ["KC KC"]  # F2: a pair held must answer a pair


def test_legal_follows_gives_up_when_any_card_may_fill() -> None:
    assert follows("2", "S", "AC", "3D 4H 5H 6D") is None  # void: any card, too many to list
    assert follows("2", "S", "AC AC", "9C 3D 4H 5H") is None  # short: one club and any other card
    assert follows("2", "S", "AC", "9C 10C JC QC KC") is None  # more than four


def test_legal_follows_the_last_cards_are_the_only_play() -> None:
    assert follows("2", "S", "AC AC", "3D 4H") == ["4H 3D"]


def test_legal_follows_agree_with_check_follow() -> None:
    from engine.follow import is_legal_follow as legal_follow
    from engine.follow import legal_follows

    c = ctx("yancheng", "2", "S")
    hand = C("KC KC QC QC 9C 3D")
    found = legal_follows(c, C("AC AC"), hand, 10)
    assert found is not None and len(found) == len(set(found)) == 2
    every = {tuple(sorted(p, key=c.sort_key)) for p in combinations(hand, 2) if legal_follow(c, C("AC AC"), hand, p)}
    assert set(found) == every
