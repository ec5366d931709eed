"""Bury and steal rounds (RULES.md §2.6.3, §2.6.5, §2.6.6, decisions 5–6, A10, A11; T14, T17)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cards import DECK
from engine.errors import EngineError, IllegalActionError
from engine.views import view_for
from tests.engine.rig import cards, full_deal, new_hand


def _nonbid(hand_cards, level: int = 2, n: int = 8):
    """n cards of a hand that are no level card, joker or red five (safe to bury)."""
    out = [c for c in hand_cards if not c.is_joker and c.rank != level and str(c) != "5H"]
    return out[:n]


def _conserved(h) -> bool:
    played = [c for t in h.tricks for _s, cs in t.plays for c in cs] + [c for _s, cs in h.current for c in cs]
    return Counter(c for hh in h.hands for c in hh) + Counter(h.kitty) + Counter(played) == Counter(DECK)


# --- bury ------------------------------------------------------------------------------------------

def _to_bury(preset: str = "nantong"):
    h = new_hand(preset, deal=full_deal({0: "2D 2D KS KS 10S 10S"}, seed=2))
    h.bid(0, cards("2D 2D"))
    h.close()
    assert h.phase == "burying" and h.turn == 0 and len(h.hands[0]) == 33
    return h


@pytest.mark.parametrize("n", [0, 7, 9, 33])
def test_bury_exactly_eight(n: int) -> None:
    h = _to_bury()
    with pytest.raises(IllegalActionError) as err:
        h.bury(0, h.hands[0][:n])
    assert err.value.code == "bury_count"


def test_bury_cards_must_be_held() -> None:
    h = _to_bury()
    missing = next(c for c in DECK if h.hands[0].count(c) == 0)
    with pytest.raises(EngineError) as err:
        h.check_bury(0, h.hands[0][:7] + [missing])
    assert err.value.code == "cards_not_held"
    # Two copies asked for, one held:
    single = next(c for c in h.hands[0] if h.hands[0].count(c) == 1)
    assert not h.can_bury(0, [single, single] + [c for c in h.hands[0] if c is not single][:6])


def test_only_the_dealer_buries() -> None:
    h = _to_bury()
    with pytest.raises(IllegalActionError) as err:
        h.bury(1, h.hands[1][:8])
    assert err.value.code == "not_your_turn"


def test_point_cards_may_be_buried() -> None:
    """§2.6.3: 庄家可在底牌中扣分牌."""
    h = _to_bury()
    pts = cards("KS KS 10S 10S")
    rest = [c for c in h.hands[0] if c.points == 0][:4]
    h.bury(0, pts + rest)
    assert sorted(map(str, h.kitty)) == sorted(map(str, pts + rest))
    assert len(h.hands[0]) == 25
    assert _conserved(h)


# --- steal rounds, open bidding ---------------------------------------------------------------------

def _nantong_steal_deal():
    return full_deal({0: "2D 2D SJ SJ", 1: "2S 2S 2H", 2: "2C 2C", 3: "BJ BJ 2H"}, seed=7)


def test_steal_round_order_restart_and_end() -> None:
    """Decision 6: ask from the burier's next seat; a steal restarts from the stealer's next seat;
    the phase ends when the three others have passed.  A10: the dealer stays."""
    h = new_hand("nantong", deal=_nantong_steal_deal())
    h.bid(0, cards("2D 2D"))
    h.close()
    assert h.dealer == 0 and h.trump == "D"
    h.bury(0, _nonbid(h.hands[0]))
    assert h.phase == "stealing" and h.turn == 1
    with pytest.raises(IllegalActionError) as err:
        h.pass_steal(2)
    assert err.value.code == "not_your_turn"
    h.pass_steal(1)
    assert h.turn == 2
    h.steal(2, cards("2C 2C"))  # ♣ over ♦ in 南通
    assert h.phase == "burying" and h.turn == 2 and len(h.hands[2]) == 33 and h.kitty == []
    assert h.trump == "C" and h.dealer == 0
    buried_by_2 = _nonbid(h.hands[2])
    h.bury(2, buried_by_2)
    assert h.phase == "stealing" and h.turn == 3  # restart from next(2)
    h.pass_steal(3)
    assert h.turn == 0
    h.steal(0, cards("SJ SJ"))  # the dealer may steal back
    assert h.trump is None and h.dealer == 0
    h.bury(0, _nonbid(h.hands[0]))
    assert h.turn == 1
    h.pass_steal(1)
    h.pass_steal(2)
    assert h.phase == "stealing"
    h.pass_steal(3)
    assert h.phase == "playing"
    assert h.dealer == 0 and h.turn == 0  # the dealer leads the first trick
    assert h.trump is None
    assert all(len(x) == 25 for x in h.hands) and len(h.kitty) == 8
    assert _conserved(h)


def test_attacker_steal_changes_trump_and_kitty_not_dealer() -> None:
    """A10: a steal changes trump and the kitty, not the dealer (nor the dealer side)."""
    h = new_hand("nantong", deal=_nantong_steal_deal())
    h.bid(0, cards("2D 2D"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    h.steal(1, cards("2S 2S"))
    buried = _nonbid(h.hands[1])
    h.bury(1, buried)
    for s in (2, 3, 0):
        h.pass_steal(s)
    assert h.phase == "playing"
    assert h.dealer == 0 and h.dealer_side == 0 and h.turn == 0
    assert h.trump == "S"
    assert Counter(h.kitty) == Counter(buried)


def test_open_steal_must_be_higher() -> None:
    h = new_hand("nantong", deal=_nantong_steal_deal())
    h.bid(0, cards("SJ SJ"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    with pytest.raises(IllegalActionError) as err:
        h.steal(1, cards("2S 2S"))
    assert err.value.code == "bid_not_higher"


def test_single_cannot_steal() -> None:
    h = new_hand("nantong", deal=_nantong_steal_deal())
    h.bid(0, cards("2D"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    with pytest.raises(IllegalActionError) as err:
        h.steal(1, cards("2H"))
    assert err.value.code in ("bid_not_allowed", "not_a_bid")


def test_card_shown_in_bidding_cannot_steal() -> None:
    """§2.6.1.6 applies to steals (a steal is a bid, 视同反主).  扬州 has no look-back, which would
    otherwise reuse the card (whether 回头望 may be used as a steal is not stated)."""
    h = new_hand("yangzhou", deal=full_deal({0: "2D", 1: "2S 2S", 2: "2H 2H"}, seed=8))
    h.bid(1, cards("2S"))
    h.bid(2, cards("2H 2H"))
    h.close()
    assert h.dealer == 2
    h.bury(2, _nonbid(h.hands[2]))
    h.pass_steal(3)
    h.pass_steal(0)
    with pytest.raises(IllegalActionError) as err:  # ♠ pair outranks ♥ pair in 扬州, but 2S was shown
        h.steal(1, cards("2S 2S"))
    assert err.value.code == "card_already_shown"


def test_stealing_only_in_the_steal_phase() -> None:
    h = new_hand("nantong", deal=_nantong_steal_deal())
    with pytest.raises(IllegalActionError) as err:
        h.steal(3, cards("BJ BJ"))
    assert err.value.code == "wrong_phase"


def test_stealer_sees_the_kitty_and_spectators_never_do() -> None:
    h = new_hand("nantong", deal=_nantong_steal_deal())
    h.bid(0, cards("2D 2D"))
    h.close()
    first = _nonbid(h.hands[0])
    h.bury(0, first)
    assert Counter(view_for(h, 0).kitty or ()) == Counter(first)
    assert view_for(h, None).kitty is None and view_for(h, 1).kitty is None
    h.steal(1, cards("2S 2S"))
    assert set(first) <= set(view_for(h, 1).hand)  # the stealer picked it up and sees it (T14 views)
    second = _nonbid(h.hands[1])
    h.bury(1, second)
    assert Counter(view_for(h, 1).kitty or ()) == Counter(second)
    assert view_for(h, 0).kitty is None and view_for(h, None).kitty is None


# --- hidden bidding: reveal and failed steals (T17) ------------------------------------------------

def _yancheng_t17():
    h = new_hand("yancheng", deal=full_deal({0: "2H 2H", 1: "2D 2D", 2: "2C 2C", 3: "SJ SJ"}, seed=9))
    h.bid(0, cards("2H 2H"))
    h.close()
    assert h.dealer == 0
    h.bury(0, _nonbid(h.hands[0]))
    return h


def test_t17_failed_steals_scored_on_reveal() -> None:
    """T17: an attacker's lower steal p −= 80, a dealer-side lower steal p += 80; trump = the highest bid;
    the failed stealer's bury stands (A11 iv); the dealer stays (A10)."""
    h = _yancheng_t17()
    h.steal(1, cards("2D 2D"))  # attacker, below ♥ pair: fails
    h.bury(1, _nonbid(h.hands[1]))
    h.steal(2, cards("2C 2C"))  # dealer side, below ♥ pair: fails
    last_bury = _nonbid(h.hands[2])
    h.bury(2, last_bury)
    for s in (3, 0):
        h.pass_steal(s)
    assert h.phase == "stealing"
    # Nothing is revealed or scored before the steal rounds end.
    assert h.adjustments == [] and view_for(h, None).trump is None
    ev = h.pass_steal(1)
    assert h.phase == "playing"
    assert "revealed" in ev.info
    assert h.trump == "H" and h.dealer == 0 and h.turn == 0
    assert [(a.reason, a.seat, a.points) for a in h.adjustments] == [("failed_steal", 1, -80), ("failed_steal", 2, 80)]
    assert h.attacker_points == 0
    assert Counter(h.kitty) == Counter(last_bury)
    spectator = view_for(h, None)
    assert spectator.trump == "H" and all(not b.hidden for b in spectator.bids)
    assert [(b.seat, b.step) for b in spectator.bids] == [(0, "H2"), (1, "D2"), (2, "C2")]


def test_hidden_successful_steals_are_not_penalised() -> None:
    """A11 ii: a steal fails only if it ranks below the highest bid made before it."""
    h = new_hand("yancheng", deal=full_deal({0: "2H 2H", 1: "BJ BJ", 2: "2S 2S", 3: "SJ SJ"}, seed=10))
    h.bid(0, cards("2H 2H"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    h.pass_steal(1)
    h.pass_steal(2)
    h.steal(3, cards("SJ SJ"))  # above ♥ pair: succeeds
    h.bury(3, _nonbid(h.hands[3]))
    h.pass_steal(0)
    h.steal(1, cards("BJ BJ"))  # above SJ pair: succeeds
    h.bury(1, _nonbid(h.hands[1]))
    h.steal(2, cards("2S 2S"))  # dealer side, below BJ pair: fails, p += 80
    h.bury(2, _nonbid(h.hands[2]))
    for s in (3, 0, 1):
        h.pass_steal(s)
    assert h.phase == "playing"
    assert h.trump is None  # the BJ pair is the highest bid
    assert [(a.seat, a.points) for a in h.adjustments] == [(2, 80)]
    assert h.dealer == 0


def test_hidden_steal_views_before_reveal() -> None:
    """Decision 5: the group is told that a seat stole, never with which cards; the taker of the kitty is public."""
    h = _yancheng_t17()
    h.steal(1, cards("2D 2D"))
    spectator = view_for(h, None)
    assert [(b.seat, b.kind, b.cards) for b in spectator.bids] == [(0, "declare", None), (1, "steal", None)]
    assert spectator.kitty_holder == 1 and spectator.trump is None
    mine = view_for(h, 1)
    assert mine.bids[1].cards == tuple(cards("2D 2D")) and mine.bids[0].cards is None
    assert view_for(h, 3).bids[1].cards is None


# --- 安徽 (T14) -----------------------------------------------------------------------------------------

def test_t14_anhui_steals_change_trump_latest_wins() -> None:
    """T14: 打黑桃6; X steals with ♦66 (views and re-buries; ♦ trump), then Y with BJ BJ: no-trump."""
    h = new_hand("anhui", number=2, levels=(6, 6), dealer_side=0, previous_dealer=0,
                 deal=full_deal({0: "6S 6S", 1: "6D 6D", 3: "BJ BJ"}, seed=12))
    h.bid(0, cards("6S 6S"))
    h.close()
    assert h.dealer == 0
    h.bury(0, _nonbid(h.hands[0], level=6))
    h.steal(1, cards("6D 6D"))
    assert len(h.hands[1]) == 33
    h.bury(1, _nonbid(h.hands[1], level=6))
    h.pass_steal(2)
    h.steal(3, cards("BJ BJ"))
    h.bury(3, _nonbid(h.hands[3], level=6))
    for s in (0, 1, 2):
        h.pass_steal(s)
    assert h.phase == "playing"
    assert h.trump is None and h.dealer == 0
    assert h.adjustments == []  # 安徽 has no failed-steal rule


def test_anhui_last_steal_sets_trump_even_if_lower() -> None:
    """A40: latest wins — a level pair after a joker pair sets its suit."""
    h = new_hand("anhui", number=2, levels=(6, 6), dealer_side=0, previous_dealer=0,
                 deal=full_deal({0: "6S 6S", 1: "SJ SJ", 2: "6C 6C"}, seed=13))
    h.bid(0, cards("6S 6S"))
    h.close()
    h.bury(0, _nonbid(h.hands[0], level=6))
    h.steal(1, cards("SJ SJ"))
    h.bury(1, _nonbid(h.hands[1], level=6))
    h.steal(2, cards("6C 6C"))
    h.bury(2, _nonbid(h.hands[2], level=6))
    for s in (3, 0, 1):
        h.pass_steal(s)
    assert h.trump == "C" and h.adjustments == []


def test_anhui_single_cannot_steal() -> None:
    h = new_hand("anhui", number=2, levels=(6, 6), dealer_side=0, previous_dealer=0,
                 deal=full_deal({0: "6S 6S", 1: "6D"}, seed=14))
    h.bid(0, cards("6S 6S"))
    h.close()
    h.bury(0, _nonbid(h.hands[0], level=6))
    assert not h.can_steal(1, cards("6D"))
