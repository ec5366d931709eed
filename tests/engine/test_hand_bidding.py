"""Bidding scenarios with rigged decks (RULES.md decision 4, §2.6.1, §2.6.4, §3 bid_ladder, A2–A9, A32, A40, A41).

Expectations come from the spec; the level is 2 unless a test says otherwise,
so the level cards are 2S 2H 2D 2C, and 5H is the red five (R5) in the
red-five presets.
"""

from __future__ import annotations

import itertools

import pytest

from engine.errors import IllegalActionError
from engine.views import view_for
from tests.engine.rig import cards, full_deal, new_hand

OPEN_LADDER_PRESETS = ("yangzhou", "yangzhong", "nantong", "xin", "chizhou")

# §3 row bid_ladder, low to high (pairs only; LB and singles are tested apart).
SPEC_LADDERS = {
    "yancheng": ["C2", "D2", "S2", "H2", "SJ2", "BJ2", "R52"],
    "yangzhou": ["D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52"],
    "yangzhong": ["D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52"],
    "nantong": ["D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52"],
    "xin": ["C2", "D2", "S2", "H2", "SJ2", "BJ2"],
    "chizhou": ["C2", "D2", "S2", "H2", "SJ2", "BJ2"],
}

STEP_CARDS = {"C2": "2C 2C", "D2": "2D 2D", "S2": "2S 2S", "H2": "2H 2H",
              "SJ2": "SJ SJ", "BJ2": "BJ BJ", "R52": "5H 5H"}
STEP_TRUMP = {"C2": "C", "D2": "D", "S2": "S", "H2": "H", "SJ2": None, "BJ2": None, "R52": None}


def spec_beats(preset: str, new: str, old: str) -> bool:
    """§3 bid_ladder (+ A4: 新炒地皮's ♣ pair may override a BJ pair)."""
    if preset in ("xin", "chizhou") and new == "C2" and old == "BJ2":
        return True
    ladder = SPEC_LADDERS[preset]
    return ladder.index(new) > ladder.index(old)


def bid_trump_choice(preset: str, step: str) -> str | None:
    """A choice for steps that need one: 新炒地皮's BJ pair names a suit (A3); R5 pair may be NT."""
    if step == "BJ2" and preset in ("xin", "chizhou"):
        return "D"
    return None


def expected_trump(preset: str, step: str) -> str | None:
    if step == "BJ2" and preset in ("xin", "chizhou"):
        return "D"
    return STEP_TRUMP[step]


# --- open bidding: the ladder, refusals ------------------------------------------------------

@pytest.mark.parametrize("preset", OPEN_LADDER_PRESETS)
def test_open_ladder_pairwise(preset: str) -> None:
    """Every ordered pair of pair-bids: the second is accepted iff it is higher on the preset's ladder."""
    ladder = SPEC_LADDERS[preset]
    for old, new in itertools.permutations(ladder, 2):
        deal = full_deal({0: STEP_CARDS[old], 1: STEP_CARDS[new]}, seed=3)
        h = new_hand(preset, deal=deal)
        h.bid(0, cards(STEP_CARDS[old]), bid_trump_choice(preset, old))
        ok = spec_beats(preset, new, old)
        assert h.can_bid(1, cards(STEP_CARDS[new]), bid_trump_choice(preset, new)) is ok, (old, new)
        if ok:
            h.bid(1, cards(STEP_CARDS[new]), bid_trump_choice(preset, new))
            h.close()
            # Decision 14: in 新炒地皮/池州 hand 1 goes to the first player to bid a 2.
            first_two = preset in ("xin", "chizhou") and old[0] in "SHDC" and len(old) == 2
            assert h.dealer == (0 if first_two else 1) and h.trump == expected_trump(preset, new), (old, new)
        else:
            with pytest.raises(IllegalActionError) as err:
                h.bid(1, cards(STEP_CARDS[new]), bid_trump_choice(preset, new))
            assert err.value.code == "bid_not_higher", (old, new)


def test_yancheng_ladder_is_club_diamond_spade_heart() -> None:
    """盐城 (hidden): ♣<♦<♠<♥ decides which bid stands (dealer of hand 1 and trump)."""
    order = ["C2", "D2", "S2", "H2"]
    for old, new in itertools.permutations(order, 2):
        h = new_hand("yancheng", deal=full_deal({0: STEP_CARDS[old], 1: STEP_CARDS[new]}, seed=4))
        h.bid(0, cards(STEP_CARDS[old]))
        h.bid(1, cards(STEP_CARDS[new]))  # hidden: accepted either way
        h.close()
        higher = 1 if order.index(new) > order.index(old) else 0
        assert h.dealer == higher, (old, new)
        h.bury(higher, h.hands[higher][:8])
        for s in [(higher + i) % 4 for i in (1, 2, 3)]:
            h.pass_steal(s)
        assert h.trump == STEP_TRUMP[new if higher else old]


def test_yancheng_and_yangzhou_ladders_differ() -> None:
    """♥ pair over ♠ pair: stands in 盐城, not in 扬州 (where ♠ is the top suit)."""
    yz = new_hand("yangzhou", deal=full_deal({0: "2S 2S", 1: "2H 2H"}))
    yz.bid(0, cards("2S 2S"))
    assert not yz.can_bid(1, cards("2H 2H"))
    yc = new_hand("yancheng", deal=full_deal({0: "2S 2S", 1: "2H 2H"}))
    yc.bid(0, cards("2S 2S"))
    yc.bid(1, cards("2H 2H"))
    yc.close()
    assert yc.dealer == 1


def test_not_higher_refused_with_code() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 1: "2H 2H SJ SJ"}))
    h.bid(0, cards("2S 2S"))
    with pytest.raises(IllegalActionError) as err:
        h.check_bid(1, cards("2H 2H"))
    assert err.value.code == "bid_not_higher"
    assert h.can_bid(1, cards("SJ SJ"))


@pytest.mark.parametrize("preset", OPEN_LADDER_PRESETS)
def test_single_cannot_override_single(preset: str) -> None:
    """A8: a single never overrides a single (even of a higher suit); any ladder pair does."""
    h = new_hand(preset, deal=full_deal({0: "2D", 1: "2H 2C 2C"}))
    h.bid(0, cards("2D"))
    with pytest.raises(IllegalActionError) as err:
        h.bid(1, cards("2H"))
    assert err.value.code == "bid_not_higher"
    h.bid(1, cards("2C 2C"))
    h.close()
    first_two = preset in ("xin", "chizhou")  # decision 14: the first to bid a 2 deals hand 1
    assert h.dealer == (0 if first_two else 1) and h.trump == "C"


@pytest.mark.parametrize("preset", ["yancheng", "nantong", "xin", "anhui"])
def test_single_bid_opens(preset: str) -> None:
    """A8/A41: a single level card may open the bidding."""
    h = new_hand(preset, deal=full_deal({2: "2C"}))
    h.bid(2, cards("2C"))
    h.close()
    assert h.dealer == 2


@pytest.mark.parametrize("preset", ["yancheng", "nantong", "xin"])
@pytest.mark.parametrize("text", ["BJ", "SJ", "5H", "3S", "2S 2H", "BJ SJ", "3S 3S"])
def test_malformed_bids_refused(preset: str, text: str) -> None:
    """A8: jokers and R5 bid only as pairs; two different level cards are no pair (A2: BJ+SJ is no bid)."""
    h = new_hand(preset, deal=full_deal({0: "BJ SJ 5H 3S 3S 2S 2H"}))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards(text))
    assert err.value.code in ("not_a_bid", "bid_not_allowed")


def test_cards_not_held_refused() -> None:
    h = new_hand("nantong", deal=full_deal({1: "2S 2S"}))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards("2S"))
    assert err.value.code == "cards_not_held"


def test_xin_club_pair_overrides_big_joker_pair() -> None:
    """A4: in 新炒地皮 a ♣ pair may override a BJ pair (and nothing else changes)."""
    h = new_hand("xin", deal=full_deal({0: "BJ BJ", 1: "2C 2C", 2: "2H 2H", 3: "SJ SJ"}))
    h.bid(0, cards("BJ BJ"), "S")
    assert not h.can_bid(2, cards("2H 2H"))  # ♥ pair is below BJ pair
    assert not h.can_bid(3, cards("SJ SJ"))
    h.bid(1, cards("2C 2C"))
    assert h.can_bid(3, cards("SJ SJ"))  # the ♣ pair is back at its own rung
    h.close()
    assert h.dealer == 1 and h.trump == "C"


def test_xin_big_joker_pair_names_a_suit_not_nt() -> None:
    """A3: 新炒地皮's BJ pair chooses one of the four suits, never no-trump."""
    h = new_hand("xin", deal=full_deal({0: "BJ BJ"}))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards("BJ BJ"))
    assert err.value.code == "choose_suit"
    h.bid(0, cards("BJ BJ"), "H")
    h.close()
    assert h.trump == "H"


def test_xin_small_joker_pair_is_no_trump() -> None:
    h = new_hand("xin", deal=full_deal({0: "SJ SJ"}))
    h.bid(0, cards("SJ SJ"))
    h.close()
    assert h.trump is None


@pytest.mark.parametrize("preset", ["yangzhou", "nantong", "yangzhong"])
def test_joker_pairs_bid_no_trump_in_red_five_family(preset: str) -> None:
    for text in ("SJ SJ", "BJ BJ"):
        h = new_hand(preset, deal=full_deal({0: text}))
        h.bid(0, cards(text))
        h.close()
        assert h.trump is None


@pytest.mark.parametrize("choice", [None, "S", "H", "D", "C"])
def test_red_five_pair_chooses_trump(choice: str | None) -> None:
    """R5 pair: the bidder chooses no-trump or any of the four suits."""
    h = new_hand("nantong", deal=full_deal({3: "5H 5H"}))
    h.bid(3, cards("5H 5H"), choice)
    h.close()
    assert h.trump == choice and h.dealer == 3


def test_red_five_pair_choice_under_hidden_bidding() -> None:
    h = new_hand("yancheng", deal=full_deal({1: "5H 5H", 0: "2S 2S"}))
    h.bid(0, cards("2S 2S"))
    h.bid(1, cards("5H 5H"), "C")
    h.close()
    h.bury(1, h.hands[1][:8])
    for s in (2, 3, 0):
        h.pass_steal(s)
    assert h.trump == "C"


def test_no_red_five_pair_in_plain_family() -> None:
    h = new_hand("xin", deal=full_deal({0: "5H 5H"}))
    assert not h.can_bid(0, cards("5H 5H"))


# --- reinforce and look-back -----------------------------------------------------------------

def test_xin_reinforce_own_single() -> None:
    """加固: the bidder turns their own single into the pair; it then stands as that pair."""
    h = new_hand("xin", deal=full_deal({0: "2S 2S", 1: "2D 2D 2H 2H"}))
    h.bid(0, cards("2S"))
    ev = h.bid(0, cards("2S 2S"))
    assert ev.info["bid"] == "reinforce"
    assert h.standing is not None and h.standing.step == "S2"
    assert not h.can_bid(1, cards("2D 2D"))  # ♦ < ♠ in 新炒地皮
    h.bid(1, cards("2H 2H"))
    h.close()
    assert h.dealer == 0 and h.trump == "H"  # decision 14: seat 0 bid the first 2


def test_reinforce_only_in_xin() -> None:
    """Reinforce is 新炒地皮's (§3); in 南通 a bidder cannot bid their own card's pair right away."""
    h = new_hand("nantong", deal=full_deal({0: "2S 2S"}))
    h.bid(0, cards("2S"))
    assert not h.can_bid(0, cards("2S 2S"))


def test_cannot_override_own_bid() -> None:
    """§2.6.1.4: a player cannot override their own bid."""
    h = new_hand("nantong", deal=full_deal({0: "2D 2D SJ SJ"}))
    h.bid(0, cards("2D 2D"))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards("SJ SJ"))
    assert err.value.code == "override_self"


def test_nantong_look_back_tops_the_ladder() -> None:
    """回头望: the overridden single bidder re-bids the pair; it beats everything, nothing beats it."""
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 1: "2H 2H", 2: "5H 5H", 3: "BJ BJ"}))
    h.bid(0, cards("2S"))
    h.bid(3, cards("BJ BJ"))
    ev = h.bid(0, cards("2S 2S"))
    assert ev.info["bid"] == "look_back"
    with pytest.raises(IllegalActionError) as err:
        h.bid(2, cards("5H 5H"), None)
    assert err.value.code == "bid_not_higher"
    h.close()
    assert h.dealer == 0 and h.trump == "S"


def test_look_back_needs_an_override_first() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2S 2S"}))
    h.bid(0, cards("2S"))
    assert not h.can_bid(0, cards("2S 2S"))


def test_yancheng_look_back_under_hidden_bidding() -> None:
    """回头望 under 暗炒 (A11 v): the single bidder learns only that someone bid, and looks back."""
    h = new_hand("yancheng", deal=full_deal({0: "2S 2S", 1: "5H 5H"}))
    h.bid(0, cards("2S"))
    h.bid(1, cards("5H 5H"), "D")
    ev = h.bid(0, cards("2S 2S"))
    assert ev.info["bid"] == "look_back"
    h.close()
    assert h.dealer == 0
    h.bury(0, h.hands[0][:8])
    for s in (1, 2, 3):
        h.pass_steal(s)
    assert h.trump == "S"


@pytest.mark.parametrize("preset", ["yangzhou", "yangzhong"])
def test_no_look_back_in_yangzhou(preset: str) -> None:
    """扬州 has no 回头望, and a card shown once cannot bid again (♠ pair would outrank ♥ pair there)."""
    h = new_hand(preset, deal=full_deal({0: "2S 2S", 1: "2H 2H"}))
    h.bid(0, cards("2S"))
    h.bid(1, cards("2H 2H"))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards("2S 2S"))
    assert err.value.code == "card_already_shown"


def test_card_shown_once_cannot_bid_again_xin() -> None:
    """§2.6.1.6: after someone else bid, the single's card cannot make a new pair bid."""
    h = new_hand("xin", deal=full_deal({0: "2H 2H", 1: "2S 2S"}))
    h.bid(0, cards("2H"))
    h.bid(1, cards("2S 2S"))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards("2H 2H"))
    assert err.value.code == "card_already_shown"


def test_card_shown_once_cannot_bid_again_anhui() -> None:
    h = new_hand("anhui", deal=full_deal({0: "2D 2D", 1: "2S 2S"}))
    h.bid(0, cards("2D"))
    h.bid(1, cards("2S 2S"))
    assert not h.can_bid(0, cards("2D 2D"))


# --- the window -------------------------------------------------------------------------------

def test_window_closes_when_all_four_passed_since_last_bid() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 3: "SJ SJ"}))
    h.pass_bid(1)
    h.bid(0, cards("2S 2S"))
    h.pass_bid(1)
    h.pass_bid(2)
    h.bid(3, cards("SJ SJ"))  # a new bid: passes start again
    for s in (0, 1, 2):
        h.pass_bid(s)
        if h.phase != "bidding":
            break
    # Whether the bidder (3) must pass too is tested apart; after all four it is closed.
    if h.phase == "bidding":
        h.pass_bid(3)
    assert h.phase == "burying" and h.dealer == 3 and h.trump is None


def test_window_stays_open_until_the_bidder_passes_too() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2S"}))
    h.bid(0, cards("2S"))
    for s in (1, 2, 3):
        h.pass_bid(s)
    assert h.phase == "bidding"
    h.pass_bid(0)
    assert h.phase == "burying"


def test_a_player_who_passed_may_still_bid() -> None:
    """Decision 4: actions arrive in any order; a pass is not final while the window is open."""
    h = new_hand("nantong", deal=full_deal({0: "2D", 1: "2S 2S"}))
    h.pass_bid(1)
    h.bid(0, cards("2D"))
    h.bid(1, cards("2S 2S"))
    h.close()
    assert h.dealer == 1


def test_close_by_timer_with_a_standing_bid() -> None:
    h = new_hand("nantong", deal=full_deal({2: "2C 2C"}))
    h.bid(2, cards("2C 2C"))
    ev = h.close()
    assert ev.info.get("closed") and h.phase == "burying" and h.dealer == 2
    assert len(h.hands[2]) == 33 and h.kitty == []
    with pytest.raises(IllegalActionError) as err:
        h.close()
    assert err.value.code == "wrong_phase"


def test_no_bid_after_close() -> None:
    h = new_hand("nantong", deal=full_deal({2: "2C 2C"}))
    h.bid(2, cards("2C 2C"))
    h.close()
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards(h.hands[0][:1]))
    assert err.value.code == "wrong_phase"


# --- hidden bidding ----------------------------------------------------------------------------

def test_hidden_bidding_accepts_any_well_formed_bid_and_the_highest_counts() -> None:
    """Decision 4/5: under 暗炒 lower bids are accepted (refusing would leak); the highest stands."""
    h = new_hand("yancheng", deal=full_deal({0: "2H 2H", 1: "2C 2C", 2: "2D", 3: "2S"}))
    h.bid(0, cards("2H 2H"))
    h.bid(1, cards("2C 2C"))  # lower than ♥ in 盐城
    h.bid(2, cards("2D"))  # a single after a pair
    h.bid(3, cards("2S"))
    h.close()
    assert h.dealer == 0
    # The group never saw which cards anyone bid, nor the trump, before the reveal.
    spectator = view_for(h, None)
    assert all(b.hidden and b.cards is None and b.trump is None for b in spectator.bids)
    assert spectator.trump is None and not spectator.trump_known
    assert [b.seat for b in spectator.bids] == [0, 1, 2, 3]
    # A seat sees its own bid, not the others'.
    v1 = view_for(h, 1)
    assert [(b.seat, b.cards is None) for b in v1.bids] == [(0, True), (1, False), (2, True), (3, True)]
    assert v1.my_bid_trump == "C"
    h.bury(0, h.hands[0][:8])
    for s in (1, 2, 3):
        h.pass_steal(s)
    assert h.trump == "H"
    assert all(not b.hidden for b in view_for(h, None).bids)  # revealed after the steal rounds


def test_anhui_single_does_not_override_a_pair() -> None:
    h = new_hand("anhui", deal=full_deal({0: "2S 2S", 1: "2D"}))
    h.bid(0, cards("2S 2S"))
    if h.can_bid(1, cards("2D")):  # accepting (hidden) is fine; it must not stand
        h.bid(1, cards("2D"))
    h.close()
    assert h.dealer == 0


def test_anhui_latest_level_pair_wins() -> None:
    """A40: any level pair overrides; the latest bid wins (whatever the suits)."""
    for first, second in itertools.permutations(["2S 2S", "2H 2H", "2D 2D", "2C 2C"], 2):
        h = new_hand("anhui", deal=full_deal({0: first, 3: second}))
        h.bid(0, cards(first))
        h.bid(3, cards(second))
        h.close()
        assert h.dealer == 3
        h.bury(3, h.hands[3][:8])
        for s in (0, 1, 2):
            h.pass_steal(s)
        assert h.trump == second[1]


@pytest.mark.parametrize("text", ["SJ SJ", "BJ BJ"])
def test_anhui_joker_pairs_cannot_bid_directly(text: str) -> None:
    """安徽: 对大鬼和对小鬼不能直接亮主 (steal only)."""
    h = new_hand("anhui", deal=full_deal({0: text}))
    with pytest.raises(IllegalActionError) as err:
        h.bid(0, cards(text))
    assert err.value.code == "bid_not_allowed"


# --- dealer determination -----------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["yancheng", "yangzhou", "nantong", "anhui"])
def test_hand_one_dealer_is_the_standing_bid_holder(preset: str) -> None:
    """A9: hand 1's dealer is the holder of the standing bid when the window closes (not the first bidder).

    新炒地皮 and 池州 differ (decision 14): see tests/engine/test_rules_fidelity.py."""
    h = new_hand(preset, deal=full_deal({0: "2D", 3: "2S 2S"}))
    h.bid(0, cards("2D"))
    h.bid(3, cards("2S 2S"))
    h.close()
    assert h.dealer == 3 and h.dealer_side == 1
    assert h.burier == 3 and len(h.hands[3]) == 33


@pytest.mark.parametrize("bidder,dealer", [(0, 0), (2, 2), (1, 2), (3, 0)])
@pytest.mark.parametrize("preset", ["nantong", "yancheng", "xin", "anhui"])
def test_later_hand_dealer_by_self_or_next_seat(preset: str, bidder: int, dealer: int) -> None:
    """A32 自放自打 / 上放下打: a dealer-side bidder deals; an attacker's bid makes next(attacker) deal."""
    # Side 0 deals at level 5 (so 5s are the level cards); side 1 is at 3.
    h = new_hand(preset, number=2, levels=(5, 3), dealer_side=0, previous_dealer=0,
                 deal=full_deal({bidder: "5C 5C"}))
    assert h.level == 5
    h.bid(bidder, cards("5C 5C"))
    h.close()
    assert h.dealer == dealer and h.dealer_side == 0


def test_later_hand_partner_override_makes_partner_dealer() -> None:
    """AH's own example for A32: the dealer's partner overrides before the pickup and becomes dealer."""
    h = new_hand("nantong", number=3, levels=(7, 7), dealer_side=1, previous_dealer=1,
                 deal=full_deal({1: "7D", 3: "7S 7S"}))
    h.bid(1, cards("7D"))
    h.bid(3, cards("7S 7S"))
    h.close()
    assert h.dealer == 3 and h.trump == "S"


def test_later_hand_level_is_the_dealer_sides_level() -> None:
    """§2.3.3: L is the dealer side's level; the other side's level cards do not bid."""
    h = new_hand("nantong", number=2, levels=(4, 9), dealer_side=1, previous_dealer=1,
                 deal=full_deal({0: "4S 4S", 2: "9H 9H"}))
    assert h.level == 9
    assert not h.can_bid(0, cards("4S 4S"))
    assert h.can_bid(2, cards("9H 9H"))


def test_hidden_single_after_single_does_not_stand() -> None:
    """A8 under 暗炒: the second single is accepted (hidden) but never outranks the first."""
    h = new_hand("yancheng", deal=full_deal({0: "2D", 1: "2H"}))
    h.bid(0, cards("2D"))
    h.bid(1, cards("2H"))
    h.close()
    assert h.dealer == 0


@pytest.mark.parametrize("preset", ["yancheng", "nantong", "yangzhou"])
def test_red_five_is_no_level_card_bid_at_level_five(preset: str) -> None:
    """Decision 3 / A5: at level 5 the ♥5 stays the red five: no single bid with it; its pair is R5²."""
    h = new_hand(preset, levels=(5, 5), deal=full_deal({0: "5H 5H 5S"}))
    assert not h.can_bid(0, cards("5H"))
    assert h.can_bid(0, cards("5S"))
    h.bid(0, cards("5H 5H"), "C")
    assert h.standing is not None and h.standing.step == "R52"


def test_plain_family_heart_five_is_a_level_card() -> None:
    h = new_hand("xin", levels=(5, 5), deal=full_deal({0: "5H"}))
    h.bid(0, cards("5H"))
    h.close()
    assert h.trump == "H"
