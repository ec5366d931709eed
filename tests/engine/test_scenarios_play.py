"""Play-phase scenarios: failed throws inside a hand (§2.11, A21, A39, T22) and the red five (§2.13.2,
decision 7, A25, T18).  Short rigged hands: trump ♠ at level 2 (the dealer's 2S bid ends in the kitty).
"""

from __future__ import annotations

import pytest

from engine.views import view_for
from tests.engine.rig import cards, mini_hand, play_tricks

ZERO_KITTY = "2S 9H JH QH 4H 6H 7H 8H"
ALL_PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong", "xin", "chizhou", "anhui")
# Points per card of the forced component (A21): 5 in 新炒地皮/池州, 10 elsewhere (安徽: 10 × cards).
PER_CARD = {"xin": 5, "chizhou": 5}


# --- T22: failed throws within a hand ------------------------------------------------------------

T22_PLAYS = [
    "3S AD QD QD 3H",  # dealer: throws ♦A + ♦QQ, but seat 1 holds ♦KK
    "KD KD AC QC 4H",  # attacker: throws ♣A + ♣Q, but seat 2 holds ♣K
    "3D 4D KC 6H 7H",
    "6D 7D 8C 9C 8H",
]


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_t22_failed_throws_in_a_hand(preset: str) -> None:
    """T22: a dealer-side failure with a 2-card beaten component gives p += 2c; a later attacker failure
    with a 1-card component p −= c; the forced component is played alone and the rest stays in hand."""
    per = PER_CARD.get(preset, 10)
    h = mini_hand(preset, plays=T22_PLAYS, kitty=ZERO_KITTY, bid="2S", dealer=0)
    ev = h.play(0, cards("AD QD QD"))
    assert ev.info.get("throw_failed") is True
    assert cards(ev.info["played"]) == cards("QD QD")
    assert ev.info["penalty"] == 2 * per
    assert h.current == [(0, tuple(cards("QD QD")))]
    assert cards("AD")[0] in h.hands[0] and len(h.hands[0]) == 3  # ♦A went back to the hand
    assert view_for(h, None).current[0][1] == tuple(cards("QD QD"))
    h.play(1, cards("KD KD"))
    h.play(2, cards("3D 4D"))
    h.play(3, cards("6D 7D"))
    assert h.tricks[-1].winner == 1 and h.trick_points == 20
    ev = h.play(1, cards("AC QC"))
    assert ev.info.get("throw_failed") is True and cards(ev.info["played"]) == cards("QC")
    assert ev.info["penalty"] == -per
    h.play(2, cards("KC"))
    h.play(3, cards("8C"))
    h.play(0, cards("3H"))
    assert h.tricks[-1].winner == 2
    play_tricks(h, ["7H", "8H", "AD", "4H"], ["9C", "3S", "AC", "6H"])
    assert h.phase == "finished"
    assert h.tricks[-1].winner == 0  # the ♠3 ruff
    assert [(a.reason, a.seat, a.points) for a in h.adjustments] == [("throw", 0, 2 * per), ("throw", 1, -per)]
    res = h.result
    assert res is not None
    assert res.kitty_multiplier == 0
    assert res.attacker_points == 20 + 2 * per - per


def test_failed_throw_followers_answer_the_forced_component() -> None:
    """After a failed throw the trick is the forced component: followers play that many cards."""
    h = mini_hand("nantong", plays=T22_PLAYS, kitty=ZERO_KITTY, bid="2S", dealer=0)
    h.play(0, cards("AD QD QD"))
    assert not h.can_play(1, cards("KD KD AC"))
    assert h.can_play(1, cards("KD KD"))


def test_valid_throw_plays_in_full() -> None:
    """A throw nobody can beat is played whole and wins unless ruffed."""
    plays = ["3S AD KD KD 3H", "QD QD AC QC 4H", "3D 4D KC 6H 7H", "6D 7D 8C 9C 8H"]
    h = mini_hand("nantong", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    ev = h.play(0, cards("AD KD KD"))
    assert not ev.info.get("throw_failed")
    h.play(1, cards("QD QD AC"))  # pair forced (F2), one more card
    h.play(2, cards("3D 4D 6H"))
    h.play(3, cards("6D 7D 8C"))
    assert h.tricks[-1].winner == 0 and h.adjustments == []


# --- T18: the red five (盐城) ---------------------------------------------------------------------

def _adjust(h):
    return [(a.reason, a.seat, a.points) for a in h.adjustments]


def test_t18a_attacker_red_five_forced_out() -> None:
    """Decision 7: seat 1's only trump is R5, a trump is led, and the trick goes to the dealer side: p −= 50."""
    plays = ["5H 3S 3C", "5H 4C 6D", "6C 7C 7D", "8C 9C 8D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["5H", "5H", "7D", "8D"])
    assert h.tricks[-1].winner == 0  # equal cards: the first played wins
    play_tricks(h, ["3C", "4C", "6C", "8C"], ["9C", "3S", "6D", "7C"])
    assert h.phase == "finished"
    assert _adjust(h) == [("red5_forced", 1, -50)]
    assert h.result is not None and h.result.attacker_points == -50


def test_t18a_not_forced_when_another_trump_could_follow() -> None:
    plays = ["5H 3S 3C", "5H 4S 4C", "6C 7C 7D", "8C 9C 8D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["5H", "5H", "7D", "8D"], ["3C", "4C", "6C", "8C"], ["9C", "3S", "4S", "7C"])
    assert h.phase == "finished"
    assert _adjust(h) == []


def test_t18a_forced_but_won_by_own_side_is_not_penalised() -> None:
    """Decision 7 needs the trick to go to the other side."""
    plays = ["3S 3C 4D", "5H 4C 6D", "6C 7C 7D", "8C 9C 8D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3S", "5H", "7D", "8D"])
    assert h.tricks[-1].winner == 1
    play_tricks(h, ["4C", "6C", "8C", "3C"], ["9C", "4D", "6D", "7C"])
    assert h.phase == "finished" and _adjust(h) == []


def test_t18a_dealer_side_red_five_forced_out() -> None:
    """A25: a dealer-side R5 forced out to the attackers gives p += 50."""
    plays = ["3C 4D 6D", "AC 5H 9D", "6C 5H 7C", "8C 7D 8D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3C", "AC", "6C", "8C"], ["5H", "5H", "7D", "4D"], ["9D", "7C", "8D", "6D"])
    assert h.phase == "finished"
    assert _adjust(h) == [("red5_forced", 2, 50)]
    assert h.result is not None and h.result.attacker_points == 10 + 50


def test_t18b_dealer_keeps_red_fives() -> None:
    """保红5 by the dealer side: won the penultimate trick, leads R5 R5 last: p −= 100 (A25)."""
    plays = ["3S 5H 5H", "3C 4C 6C", "7C 8C 9C", "3D 4D 6D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3S", "3C", "7C", "3D"], ["5H 5H", "4C 6C", "8C 9C", "4D 6D"])
    assert h.phase == "finished"
    assert _adjust(h) == [("red5_kept", 0, -100)]
    assert h.result is not None and h.result.attacker_points == -100


def test_t18b_attacker_keeps_red_fives() -> None:
    plays = ["3C 6D 7D", "AC 5H 5H", "4C 8D 9D", "6C 3D 4D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3C", "AC", "4C", "6C"], ["5H 5H", "8D 9D", "3D 4D", "6D 7D"])
    assert h.phase == "finished"
    assert _adjust(h) == [("red5_kept", 1, 100)]
    assert h.result is not None and h.result.attacker_points == 10 + 100


def test_t18b_single_red_five_last() -> None:
    plays = ["3C 6D", "AC 5H", "4C 8D", "6C 3D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3C", "AC", "4C", "6C"], ["5H", "8D", "3D", "6D"])
    assert _adjust(h) == [("red5_kept", 1, 50)]


@pytest.mark.parametrize("preset", ["nantong", "yangzhou", "yangzhong"])
def test_red_five_rules_are_yancheng_only(preset: str) -> None:
    plays = ["5H 3S 3C", "5H 4C 6D", "6C 7C 7D", "8C 9C 8D"]
    h = mini_hand(preset, plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["5H", "5H", "7D", "8D"], ["3C", "4C", "6C", "8C"], ["9C", "3S", "6D", "7C"])
    assert h.phase == "finished" and _adjust(h) == []


def test_t18a_red_fives_forced_by_the_pair_rule() -> None:
    """Decision 7 with F2: a joker tractor is led; the attacker holds no tractor, and R5 R5 is their only
    pair, so every legal follow holds both red fives; the trick goes to the dealer: p −= 100."""
    plays = ["BJ BJ SJ SJ 3C 4C", "5H 5H 3S 4S 6S 7S", "6C 7C 8C 9C JC QC", "3D 4D 6D 7D 8D 9D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    h.play(0, cards("BJ BJ SJ SJ"))
    assert not h.can_play(1, cards("3S 4S 6S 7S"))  # holding a pair, a pair must follow (F2)
    h.play(1, cards("5H 5H 3S 4S"))
    h.play(2, cards("6C 7C 8C 9C"))
    h.play(3, cards("3D 4D 6D 7D"))
    assert h.tricks[-1].winner == 0
    play_tricks(h, ["3C", "6S", "JC", "8D"], ["7S", "QC", "9D", "4C"])
    assert h.phase == "finished"
    assert _adjust(h) == [("red5_forced", 1, -100)]
