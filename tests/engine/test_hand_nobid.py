"""Nobody bids (RULES.md §2.6.2, A12, A13; T15, T16).

Hand 1: redeal everywhere but 安徽, which flips in turn.  Later hands: the
kitty flip (BASE: first level card or joker; 新炒地皮/池州: the first card,
a joker giving no-trump and θ = 60; 安徽: flip in turn).  A flip fixes trump:
no steals follow.
"""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.hand import next_seat, side_of
from engine.views import view_for
from tests.engine.rig import all_pass_bidding, cards, full_deal, new_hand, p_deal, play_tricks, rig_pickup, run

REDEAL_PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong", "xin", "chizhou")
BASE_PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong")


# --- hand 1 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", REDEAL_PRESETS)
def test_hand_one_without_bids_is_redealt(preset: str) -> None:
    h = new_hand(preset, seed=11)
    run(h, all_pass_bidding())
    assert h.phase == "redeal" and h.over
    assert h.dealer is None and h.trump is None
    with pytest.raises(IllegalActionError):
        h.bury(0, h.hands[0][:8])


@pytest.mark.parametrize("preset", REDEAL_PRESETS)
def test_hand_one_timer_without_bids_is_redealt(preset: str) -> None:
    h = new_hand(preset, seed=12)
    h.pass_bid(2)
    h.close()
    assert h.phase == "redeal"


def test_anhui_hand_one_flips_and_the_flippers_side_deals() -> None:
    """安徽 hand 1: flip in turn; 「翻到级牌…的一方为庄家」; trump is that level card's suit."""
    deal = full_deal({"kitty": "3C 9D 2H 4S 7S 8S 9S JS"}, seed=5)
    h = new_hand("anhui", deal=deal)
    run(h, all_pass_bidding())
    assert h.phase == "burying"
    flips = list(h.flipped)
    assert [str(c) for _s, c in flips] == ["3C", "9D", "2H"]
    seats = [s for s, _c in flips]
    assert all(s is not None for s in seats)
    assert all(next_seat(a) == b for a, b in zip(seats, seats[1:]))  # one card each, in turn
    flipper = seats[-1]
    assert h.dealer_side == side_of(flipper) and h.dealer is not None and side_of(h.dealer) == side_of(flipper)
    assert h.trump == "H"
    h.bury(h.dealer, h.hands[h.dealer][:8])
    assert h.phase == "playing"  # 停止炒底: no steals after a flip (A13)


# --- BASE later hands (A12) -----------------------------------------------------------------

@pytest.mark.parametrize("preset", BASE_PRESETS)
@pytest.mark.parametrize("kitty,trump,decider", [
    ("3C 9D 5S 5C 7H 8H 9H JH", "S", 2),  # the first level card sets the suit
    ("3C SJ 5D 7H 8H 9H JH QH", None, 1),  # a joker first: no-trump
    ("5H 3C 5S 7D 8D 9D JD QD", "S", 2),  # at level 5 the red five does not decide (decision 3, A12)
    ("BJ 5C 3C 7D 8D 9D JD QD", None, 0),
])
def test_base_later_hand_flip(preset: str, kitty: str, trump: str | None, decider: int) -> None:
    h = new_hand(preset, number=4, levels=(5, 9), dealer_side=0, previous_dealer=2,
                 deal=full_deal({"kitty": kitty}, seed=21))
    run(h, all_pass_bidding())
    assert h.phase == "burying"
    assert h.trump == trump
    flipped = [c for _s, c in h.flipped]
    assert flipped == cards(kitty)[: decider + 1]
    assert h.dealer_side == 0 and h.dealer in (0, 2)
    assert view_for(h, None).flipped == tuple(flipped)  # turned cards are public
    h.bury(h.dealer, h.hands[h.dealer][:8])
    assert h.phase == "playing"  # 本副牌无法炒底
    assert h.trump == trump


@pytest.mark.parametrize("preset", BASE_PRESETS)
def test_base_flip_without_level_card_or_joker_uses_first_card_skipping_red_five(preset: str) -> None:
    """A12: no level card and no joker: the first card's suit; the red five does not decide."""
    kitty = "5H 9D 3C 7S 8H 9H JH QC"
    h = new_hand(preset, number=2, levels=(2, 2), dealer_side=1, previous_dealer=1,
                 deal=full_deal({"kitty": kitty}, seed=22))
    run(h, all_pass_bidding())
    assert h.trump == "D"
    assert h.dealer_side == 1 and h.dealer in (1, 3)


@pytest.mark.parametrize("preset,kitty", [
    ("nantong", "5H 9D 3C 7S 8H 9H JH QC"),
    ("anhui", "3C KD 9S KH SJ 4C 7H 8D"),
])
def test_flip_with_no_decider_shows_all_eight(preset: str, kitty: str) -> None:
    h = new_hand(preset, number=2, levels=(2, 2), dealer_side=1, previous_dealer=1,
                 deal=full_deal({"kitty": kitty}, seed=23))
    run(h, all_pass_bidding())
    assert len(view_for(h, None).flipped) == 8


def test_steal_refused_after_a_flip() -> None:
    h = new_hand("nantong", number=2, levels=(2, 2), dealer_side=0, previous_dealer=0,
                 deal=full_deal({"kitty": "2D 3C 4C 6C 7C 8C 9C JC", 1: "SJ SJ"}, seed=24))
    run(h, all_pass_bidding())
    h.bury(h.dealer, h.hands[h.dealer][:8])
    assert h.phase == "playing"
    assert not h.can_steal(1, cards("SJ SJ"))


# --- 新炒地皮 / 池州 later hands: the first card (T16) -----------------------------------------

@pytest.mark.parametrize("preset", ["xin", "chizhou"])
@pytest.mark.parametrize("kitty,trump,theta", [
    ("9D 4S 7H 8H 9H JH QH AH", "D", 80),
    ("4H 9D 7C 8C 9C JC QC AC", "H", 80),  # a level card first: its suit
    ("BJ 4S 7H 8H 9H JH QH AH", None, 60),
    ("SJ 9D 7H 8H 9H JH QH AH", None, 60),
])
def test_xin_first_kitty_card(preset: str, kitty: str, trump: str | None, theta: int) -> None:
    h = new_hand(preset, number=2, levels=(4, 6), dealer_side=0, previous_dealer=0,
                 deal=full_deal({"kitty": kitty}, seed=31))
    run(h, all_pass_bidding())
    assert h.trump == trump and h.threshold == theta
    assert [c for _s, c in h.flipped] == cards(kitty)[:1]
    h.bury(h.dealer, h.hands[h.dealer][:8])
    assert h.phase == "playing"


@pytest.mark.parametrize("preset", ["xin", "chizhou"])
@pytest.mark.parametrize("p,takeover,levels", [(60, True, 0), (55, False, 1), (75, True, 1)])
def test_t16_flipped_joker_no_trump_threshold_sixty(preset: str, p: int, takeover: bool, levels: int) -> None:
    """T16: first kitty card a joker → no-trump, no steals, the attackers take over with 60."""
    h = new_hand(preset, number=2, levels=(4, 4), dealer_side=0, previous_dealer=0,
                 deal=full_deal({"kitty": "BJ 3S 7H 8H 9H JH QH AH"}, seed=32))
    run(h, all_pass_bidding())
    assert h.trump is None
    d = h.dealer
    assert d is not None
    plays, kitty, _bid = p_deal(p, level=4, dealer=d)
    # The template's "bid" card (4S) is just a buried card here.
    bury = rig_pickup(h, plays, kitty)
    h.bury(d, bury)
    assert h.phase == "playing"
    hands = [cards(x) for x in plays]
    play_tricks(h, [str(hands[(d + i) % 4][0]) for i in range(4)], [str(hands[(d + i) % 4][1]) for i in range(4)])
    assert h.phase == "finished"
    res = h.result
    assert res is not None and res.outcome is not None
    assert res.attacker_points == p and res.threshold == 60
    assert res.outcome.dealer_keeps is (not takeover)
    assert res.outcome.levels == levels


# --- 安徽 later hands: flip in turn (A13, T15) -------------------------------------------------

@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_t15_anhui_flip_dealer_by_flipper(index: int) -> None:
    """T15: the flipper of the decisive level card deals if on the dealer side, else next(flipper) deals."""
    zeros = ["3C", "9D", "4S", "7H"]
    kitty = zeros[:index] + ["6D"] + ["8C", "8D", "8H", "9C", "9H", "JC", "JD"][: 7 - index]
    h = new_hand("anhui", number=3, levels=(6, 10), dealer_side=0, previous_dealer=0,
                 deal=full_deal({"kitty": " ".join(kitty)}, seed=41))
    run(h, all_pass_bidding())
    assert h.trump == "D"
    flips = list(h.flipped)
    assert [str(c) for _s, c in flips] == kitty[: index + 1]
    seats = [s for s, _c in flips]
    assert all(next_seat(a) == b for a, b in zip(seats, seats[1:]))
    flipper = seats[-1]
    assert flipper is not None
    expected = flipper if side_of(flipper) == 0 else next_seat(flipper)
    assert h.dealer == expected and h.dealer_side == 0
    h.bury(h.dealer, h.hands[h.dealer][:8])
    assert h.phase == "playing"


def test_t15_both_cases_occur() -> None:
    """Across consecutive decisive positions the flipper alternates sides, so (a) and (b) are both exercised."""
    sides = set()
    for index in range(4):
        zeros = ["3C", "9D", "4S", "7H"]
        kitty = zeros[:index] + ["6D"] + ["8C", "8D", "8H", "9C", "9H", "JC", "JD"][: 7 - index]
        h = new_hand("anhui", number=3, levels=(6, 10), dealer_side=0, previous_dealer=0,
                     deal=full_deal({"kitty": " ".join(kitty)}, seed=41))
        run(h, all_pass_bidding())
        sides.add(side_of(h.flipped[-1][0]))  # type: ignore[arg-type]
    assert sides == {0, 1}


def test_anhui_flip_joker_does_not_decide_and_highest_plain_card_otherwise() -> None:
    """A13: a flipped joker does not decide; with no level card the highest plain card does (first on ties)."""
    h = new_hand("anhui", number=2, levels=(6, 6), dealer_side=1, previous_dealer=1,
                 deal=full_deal({"kitty": "BJ 6C 3D 7H 8H 9H JH QH"}, seed=42))
    run(h, all_pass_bidding())
    assert h.trump == "C"
    h2 = new_hand("anhui", number=2, levels=(6, 6), dealer_side=1, previous_dealer=1,
                  deal=full_deal({"kitty": "3C KD 9S KH SJ 4C 7H 8D"}, seed=43))
    run(h2, all_pass_bidding())
    assert h2.trump == "D"
    assert h2.dealer_side == 1
