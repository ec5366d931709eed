"""Public facts told as they happen (decision 17): failed throws, 逼红5/保红5, and the bid history.

Each test checks the moment a fact becomes public (never earlier), what it
says, that the group's view carries it, and that it survives JSON.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.bidding import BidRecord
from engine.cards import RED_FIVE
from engine.notices import RedFive, ThrowFailed, notice_from_dict
from engine.ruleset import RULESETS
from engine.views import view_for
from tests.engine.rig import cards, full_deal, mini_hand, new_hand, play_tricks
from tests.engine.selfplay import check_bid_history, drive

ZERO_KITTY = "2S 9H JH QH 4H 6H 7H 8H"


def _nonbid(hand):  # type: ignore[no-untyped-def]
    return [c for c in hand if c.rank != 2 and not c.is_joker][:8]


def test_failed_throw_is_told_with_what_beat_it() -> None:
    """甩牌失败: seat 0 throws ♦A QQ; seat 1's ♦KK beats the pair; the pair is forced, p += 20 (dealer side)."""
    plays = ["3S AD QD QD 3H", "KD KD AC QC 4H", "3D 4D KC 6H 7H", "6D 7D 8C 9C 8H"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    assert view_for(h, None).notices == ()
    ev = h.play(0, cards("AD QD QD"))
    notice = ThrowFailed(1, 0, tuple(cards("AD QD QD")), tuple(cards("QD QD")), 1, tuple(cards("KD KD")), 20)
    assert h.notices == [notice]
    assert notice.beaten == tuple(cards("QD QD"))
    assert ev.notices == (notice,) and ev.to_dict()["info"]["notices"] == [notice.to_dict()]
    assert view_for(h, None).notices == (notice,) and view_for(h, 3).notices == (notice,)
    assert notice_from_dict(json.loads(json.dumps(notice.to_dict()))) == notice


def test_red_five_forced_is_told_when_its_trick_is_won() -> None:
    """逼红5: told at the end of the trick that the other side won, not when the red five is played."""
    plays = ["3C 4D 6D", "AC 5H 9D", "6C 5H 7C", "8C 7D 8D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3C", "AC", "6C", "8C"])
    h.play(1, cards("5H"))
    h.play(2, cards("5H"))
    h.play(3, cards("7D"))
    assert h.notices == []
    ev = h.play(0, cards("4D"))
    notice = RedFive("red5_forced", 2, 2, (RED_FIVE,), 50)
    assert h.notices == [notice] and ev.notices == (notice,)
    assert view_for(h, None).notices == (notice,)
    seen = view_for(h, 0)
    assert set(seen.hand) | {RED_FIVE} <= set(seen.visible_cards())  # the leak tests' list covers the notice too
    play_tricks(h, ["9D", "7C", "8D", "6D"])
    assert h.result is not None and h.result.notices == (notice,)
    assert h.result.to_dict()["notices"] == [notice.to_dict()]


def test_red_five_kept_is_told_with_the_last_trick() -> None:
    """保红5: the dealer side leads R5 R5 to the last trick: p −= 100, told with that trick."""
    plays = ["3S 5H 5H", "3C 4C 6C", "7C 8C 9C", "3D 4D 6D"]
    h = mini_hand("yancheng", plays=plays, kitty=ZERO_KITTY, bid="2S", dealer=0)
    play_tricks(h, ["3S", "3C", "7C", "3D"])
    assert h.notices == []
    out = play_tricks(h, ["5H 5H", "4C 6C", "8C 9C", "4D 6D"])
    notice = RedFive("red5_kept", 2, 0, (RED_FIVE, RED_FIVE), -100)
    assert h.notices == [notice] and out[-1].notices == (notice,)
    assert notice_from_dict(notice.to_dict()) == notice


def test_hidden_bid_history_is_told_when_the_steal_rounds_end() -> None:
    """暗炒 (T17): nothing of the bids shows until the last pass of the steal rounds; then the whole
    history, with each kind, which stood, and the ±80 of each failed steal."""
    h = new_hand("yancheng", deal=full_deal({0: "2H 2H", 1: "2D 2D", 2: "2C 2C", 3: "SJ SJ"}, seed=9))
    h.bid(0, cards("2H 2H"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    h.steal(1, cards("2D 2D"))
    h.bury(1, _nonbid(h.hands[1]))
    h.steal(2, cards("2C 2C"))
    h.bury(2, _nonbid(h.hands[2]))
    h.pass_steal(3)
    h.pass_steal(0)
    assert h.bid_history is None
    assert all(view_for(h, v).bid_history is None for v in (None, 0, 1, 2, 3))
    h.pass_steal(1)
    history = view_for(h, None).bid_history
    assert history is not None
    assert [(r.seat, r.kind, r.stood, r.final, r.points) for r in history] == [
        (0, "declare", True, True, 0), (1, "steal", False, False, -80), (2, "steal", False, False, 80)]
    assert [r.failed_steal for r in history] == [False, True, True]
    assert all(view_for(h, seat).bid_history == history for seat in range(4))
    assert [BidRecord.from_dict(json.loads(json.dumps(r.to_dict()))) for r in history] == list(history)


def test_open_bid_history_is_public_from_the_first_bid() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 3: "BJ BJ"}))
    h.bid(0, cards("2S"))
    history = view_for(h, None).bid_history
    assert history is not None and [(r.seat, r.kind, r.stood, r.final) for r in history] == [
        (0, "declare", True, True)]
    h.bid(3, cards("BJ BJ"))
    h.bid(0, cards("2S 2S"))
    history = view_for(h, 2).bid_history
    assert history is not None
    assert [(r.seat, r.kind, r.final) for r in history] == [
        (0, "declare", False), (3, "override", False), (0, "look_back", True)]


@pytest.mark.parametrize("preset", list(RULESETS))
def test_bid_history_timing_over_seeded_self_play(preset: str) -> None:
    """Property (decision 17): after every action of seeded random play, the bid history is hidden
    under 暗炒 until the steal rounds end and public under open bidding from the first bid, the same
    in every view, its failed steals matching the ±80 adjustments (:func:`check_bid_history`)."""
    seen_bids = 0
    for i in range(6):
        rng = random.Random(f"history/{preset}/{i}")
        hand = new_hand(preset, seed=1000 + i)
        drive(hand, rng, checks=False, apply=_checked(hand), bid_rate=0.5, steal_rate=0.4)
        seen_bids += len(hand.bids)
    assert seen_bids > 0


def _checked(hand):  # type: ignore[no-untyped-def]
    def apply(action):  # type: ignore[no-untyped-def]
        event = hand.apply(action)
        check_bid_history(hand)
        return event
    return apply
