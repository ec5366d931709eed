"""bench/blunders.py: each counter fires on a planted blunder and stays silent on the clean play beside it."""

from __future__ import annotations

import io
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_blunders import table  # noqa: E402
from blunders import judge_bury, judge_hand, judge_play, judge_steal, legal_plays  # noqa: E402

from engine.cards import parse_cards  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.selfplay import main as selfplay  # noqa: E402
from tests.engine.rig import cards, full_deal, mini_hand, new_hand, play_tricks  # noqa: E402

_KITTY = "2S 3S 4S 6S 7S 8S 9S JS"
"""♠ trump at level 2 (the dealer, seat 0, bid 2♠, which lies in the kitty)."""


def _hand(plays: list[str]) -> Hand:
    return mini_hand("yancheng", plays=plays, kitty=_KITTY, bid="2S", dealer=0, number=2, levels=(2, 2),
                     dealer_side=0, previous_dealer=0)


def _judge(hand: Hand, play: str) -> Counter[str]:
    seat = hand.turn
    assert seat is not None
    return judge_play(hand, seat, parse_cards(play))


def test_a_gift_as_last_player_and_the_cheap_follow_beside_it() -> None:
    """The issue's 盐城 seed 12, trick 6: the attackers lead ♣7♣7 and win with ♣8♣8; the dealer side's last player
    gives ♣10♣5 (15 points) holding ♣9 ♣J."""
    hand = _hand(["3D 3C 4C 7D 8D", "4D 8C 8C 9D 6D", "5D 10C 5C 9C JC", "QD 7C 7C 10D JD"])
    play_tricks(hand, ["3D", "4D", "5D", "QD"], ["7C 7C", "3C 4C", "8C 8C"])
    assert hand.turn == 2
    assert _judge(hand, "10C 5C") == Counter({"gift.4": 1, "given.4": 15})
    assert _judge(hand, "9C JC") == Counter()
    assert _judge(hand, "5C 9C") == Counter({"given.4": 5})  # 5 points beyond the least: counted, not a blunder


def test_a_trick_lost_that_an_ace_would_win() -> None:
    """The issue's 盐城 seed 12, trick 8: the attackers win with ♣Q; the last player holds ♣10 ♣Q ♣K ♣A and plays ♣10."""
    hand = _hand(["3D 3C 7D 8D 9H", "4D QC 6D 6H 7H", "5D 10C QC KC AC", "QD 4C 10D JD 8H"])
    play_tricks(hand, ["3D", "4D", "5D", "QD"], ["4C", "3C", "QC"])
    assert hand.turn == 2
    assert _judge(hand, "10C") == Counter({"lost.4": 1, "gift.4": 1, "given.4": 10})
    assert _judge(hand, "AC") == Counter()
    assert _judge(hand, "QC") == Counter()  # 0 points on a trick of none


def test_a_joker_on_the_partners_sure_trick() -> None:
    """The partner's ♦A holds the trick; the last player, void in diamonds, throws 大王 where ♣6 would do."""
    hand = _hand(["AD 3C 7D 8D 9H", "4D QC 6D 6H 7H", "BJ 6C QC KC AC", "3D 4C 10D JD 8H"])
    hand.current = []
    hand.leader = 3
    for seat, play in ((3, "3D"), (0, "AD"), (1, "4D")):
        hand.play(seat, parse_cards(play))
    assert hand.turn == 2
    assert _judge(hand, "BJ") == Counter({"joker.4": 1, "over_partner.4": 1})
    assert _judge(hand, "6C") == Counter()


def test_second_and_third_players_count_only_where_the_outcome_is_certain() -> None:
    """Third player: the opponents' ♣K stands whatever the last opponent does, so ♣10 on it is a gift; second
    player: the partner, last, may still win, so the same ♣10 is not judged."""
    hand = _hand(["3C 4D 7D 8D 9H", "KC 4C 6D 6H 7H", "10C 9C QD KD AD", "5C 3D 10D JD 8H"])
    hand.play(0, parse_cards("3C"))
    hand.play(1, parse_cards("KC"))
    assert _judge(hand, "10C") == Counter({"gift.3": 1})
    assert _judge(hand, "9C") == Counter()
    second = _hand(["3C 4D 7D 8D 9H", "KC 4C 6D 6H 7H", "10C 9C QD KD AD", "5C 3D 10D JD 8H"])
    second.current, second.leader = [], 1
    second.play(1, parse_cards("KC"))
    assert second.turn == 2
    assert _judge(second, "10C") == Counter()


def test_every_legal_follow_is_tried() -> None:
    hand = _hand(["3D 3C 4C 7D 8D", "4D 8C 8C 9D 6D", "5D 10C 5C 9C JC", "QD 7C 7C 10D JD"])
    play_tricks(hand, ["3D", "4D", "5D", "QD"], ["7C 7C", "3C 4C", "8C 8C"])
    plays = legal_plays(hand.ctx, parse_cards("7C 7C"), hand.hands[2])
    assert plays is not None and len(plays) == 6  # any two of four distinct clubs


def _steal_ready() -> Hand:
    """南通: the dealer bid 2♦2♦ and buried; its partner (seat 2) holds the red-five pair; seat 1 passed."""
    hand = new_hand("nantong", deal=full_deal({0: "2D 2D", 2: "5H 5H"}, seed=3), number=2, levels=(2, 2),
                    dealer_side=0, previous_dealer=0)
    hand.bid(0, cards("2D 2D"))
    hand.close()
    hand.bury(0, [c for c in hand.hands[0] if c.rank != 2][:8])
    hand.pass_steal(1)
    assert hand.turn == 2
    return hand


def test_a_steal_of_the_partners_kitty_keeping_its_trump() -> None:
    hand = _steal_ready()
    assert judge_steal(hand, 2, parse_cards("5H 5H"), "D") == Counter(steals=1, steal_partner=1,
                                                                     steal_partner_same=1)
    assert judge_steal(hand, 2, parse_cards("5H 5H"), "S") == Counter(steals=1, steal_partner=1)


def test_buried_points_and_aces_and_the_captured_kitty() -> None:
    """A dealer-side kitty with ♣10 and ♦A, captured by the attackers' last trick: its points doubled."""
    hand = mini_hand("yancheng", plays=["3D", "AH", "4D", "5D"], kitty="2S 10C AD 4S 6S 7S 8S 9S", bid="2S",
                     dealer=0, number=2, levels=(2, 2), dealer_side=0, previous_dealer=0)
    play_tricks(hand, ["3D", "AH", "4D", "5D"])
    counts = judge_bury(hand)
    assert counts["buried_points"] == 10 and counts["buried_aces"] == 1
    assert counts["captured"] == 1 and counts["capture_bonus"] == 20
    assert counts["dealer_kitty"] == 1 and counts["dealer_last_lost"] == 1


def test_a_whole_hand_is_judged_and_tabled() -> None:
    out = io.StringIO()
    assert selfplay(["--preset", "xin", "--hands", "2", "--seed", "3", "--json"], out=out, err=io.StringIO()) == 0
    counts = [judge_hand(json.loads(line)) for line in out.getvalue().splitlines()]
    assert [c["hands"] for c in counts] == [1, 1]
    lines = table({"xin": sum(counts, Counter())})
    assert lines[1].split()[-1] == "2" and any(line.startswith("blunders") for line in lines)
