"""bench/blunders.py: each counter fires on a planted blunder and stays silent on the clean play beside it."""

from __future__ import annotations

import io
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_blunders import table  # noqa: E402
from blunders import (  # noqa: E402
    confirmed,
    judge_bury,
    judge_hand,
    judge_lead,
    judge_play,
    judge_steal,
    judge_stolen_kitty,
    legal_plays,
    spent_big_trump,
)

from engine.cards import parse_cards  # noqa: E402
from engine.hand import Hand, Trick  # noqa: E402
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
    player: the partner, last, may still win, so the same ♣10 is no gift (it is points played early where ♣9 does
    the same job, the expert's kind of issue 56)."""
    hand = _hand(["3C 4D 7D 8D 9H", "KC 4C 6D 6H 7H", "10C 9C QD KD AD", "5C 3D 10D JD 8H"])
    hand.play(0, parse_cards("3C"))
    hand.play(1, parse_cards("KC"))
    assert _judge(hand, "10C") == Counter({"gift.3": 1})
    assert _judge(hand, "9C") == Counter()
    second = _hand(["3C 4D 7D 8D 9H", "KC 4C 6D 6H 7H", "10C 9C QD KD AD", "5C 3D 10D JD 8H"])
    second.current, second.leader = [], 1
    second.play(1, parse_cards("KC"))
    assert second.turn == 2
    assert _judge(second, "10C") == Counter({"points_early.2": 1})
    assert _judge(second, "9C") == Counter()


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


# --- the expert's kinds (issue 56) ---------------------------------------------------------------

def test_points_played_third_onto_the_partners_beatable_trick() -> None:
    """The partner's ♣Q leads the trick and the last opponent may hold ♣K or ♣A: the third player's ♣10 is 10
    points at risk where ♣6 does the same job (neither wins)."""
    hand = _hand(["QC 3D 7D 8D 9H", "4C 4D 6D 6H 7H", "10C 6C QD KD AD", "5C 3H 10D JD 8H"])
    hand.play(0, parse_cards("QC"))
    hand.play(1, parse_cards("4C"))
    assert _judge(hand, "10C") == Counter({"points_early.3": 1})
    assert _judge(hand, "6C") == Counter()


def test_points_played_second_where_a_pointless_card_wins_as_well() -> None:
    """Second to an opponent's ♣3: ♣10 and ♣J both win the trick as it stands, ♣J without points."""
    hand = _hand(["3C 3D 7D 8D 9H", "10C JC 6D 6H 7H", "4C 6C QD KD AD", "5C 3H 10D JD 8H"])
    hand.play(0, parse_cards("3C"))
    assert _judge(hand, "10C") == Counter({"points_early.2": 1})
    assert _judge(hand, "JC") == Counter()


def test_points_discarded_while_a_ruff_or_a_blank_was_possible() -> None:
    """Void in clubs, second to ♣3: ♥10 thrown away where the trump ♠Q ruffs (or ♥3 goes for nothing)."""
    hand = _hand(["3C 3D 7D 8D 9H", "10H 3H QS 6D 7H", "4C 6C QD KD AD", "5C 4H 10D JD 8H"])
    hand.play(0, parse_cards("3C"))
    assert _judge(hand, "10H") == Counter({"discard_points.2": 1})
    assert _judge(hand, "QS") == Counter()
    assert _judge(hand, "3H") == Counter()


def test_points_led_into_a_suit_an_opponent_showed_void_in() -> None:
    """East (seat 1) threw a diamond on the first ♥ trick: ♥10 led into that void is a lead of 10 points it may
    ruff; ♣3 is not."""
    hand = _hand(["AH 10H 3C 7D 8D", "4D 6D 6C 7C 8C", "4H 9C QD KD AD", "6H 5C 10D JD 8H"])
    play_tricks(hand, ["AH", "4D", "4H", "6H"])
    assert hand.turn == 0
    assert judge_lead(hand, 0, parse_cards("10H")) == Counter({"void_lead": 1})
    assert judge_lead(hand, 0, parse_cards("3C")) == Counter()
    assert judge_play(hand, 0, parse_cards("10H")) == Counter()  # a lead is no follow


def test_the_red_five_spent_where_it_cannot_win() -> None:
    """Void in clubs under a ♣3♣3 pair lead: ♥5 with ♠6 is no ruff (not a pair) and loses; ♦8♦9 keep the red five."""
    hand = _hand(["3C 3C 7D 8D 9H", "5H 6S 8D 9D 10D", "4C 6C QD KD AD", "5C 4H 10C JD 8H"])
    hand.play(0, parse_cards("3C 3C"))
    assert _judge(hand, "5H 6S") == Counter({"red_five.2": 1})
    assert _judge(hand, "8D 9D") == Counter()


def test_a_big_trump_spent_by_choice() -> None:
    hand = _hand(["BJ 3C 7D 8D 9H", "4C 6D 6C 7C 8C", "4H 9C QD KD AD", "6H 5C 10D JD 8H"])
    assert spent_big_trump(hand, 0, parse_cards("BJ"))
    assert not spent_big_trump(hand, 0, parse_cards("3C"))


def _stolen(bury_points: bool) -> Hand:
    """南通: the dealer (seat 0) bid 2♦2♦ and buried; the attacker East (seat 1) steals with the red-five pair and
    buries a kitty of 60 points (or of none)."""
    east = "5H 5H 10C 10C KC KC 10S KS 3C 3C 4C 4C 6C 6C 7C 7C"
    hand = new_hand("nantong", deal=full_deal({0: "2D 2D", 1: east}, seed=3), number=2, levels=(2, 2),
                    dealer_side=0, previous_dealer=0)
    hand.bid(0, cards("2D 2D"))
    hand.close()
    hand.bury(0, [c for c in hand.hands[0] if c.rank != 2][:8])
    hand.steal(1, cards("5H 5H"), "C")
    hand.bury(1, cards("10C 10C KC KC 10S KS 3C 3C" if bury_points else "3C 3C 4C 4C 6C 6C 7C 7C"))
    return hand


def _last_trick_won_by(hand: Hand, seat: int) -> Hand:
    """The hand as if played out, its last trick won by ``seat`` (only the winner is asked)."""
    hand.tricks.append(Trick(seat, (), seat, 0))
    return hand


def test_a_stolen_kitty_of_points_then_its_big_trumps_spent_at_once() -> None:
    hand = _last_trick_won_by(_stolen(bury_points=True), 0)
    assert judge_stolen_kitty(hand, [(1, 0)]) == Counter({"stolen_kitty_trumps": 1})
    assert judge_stolen_kitty(hand, [(1, 6)]) == Counter()  # later in the hand
    assert judge_stolen_kitty(hand, [(3, 0)]) == Counter()  # the partner's trump, not the stealer's
    assert judge_stolen_kitty(_last_trick_won_by(_stolen(bury_points=False), 0), [(1, 0)]) == Counter()  # no points
    assert judge_stolen_kitty(_last_trick_won_by(_stolen(bury_points=True), 3), [(1, 0)]) == Counter()  # kitty won


def test_the_expert_kinds_count_where_the_opponents_took_the_trick() -> None:
    pending = [(1, "points_early.2"), (2, "discard_points.3"), (3, "void_lead")]
    assert confirmed(pending, 0) == Counter({"points_early.2": 1, "void_lead": 1})
    assert confirmed(pending, 1) == Counter({"discard_points.3": 1})


def test_the_expert_kinds_are_tabled() -> None:
    lines = table({"xin": Counter({"hands": 2, "void_lead": 1, "points_early.2": 1})})
    expert = next(line for line in lines if line.startswith("expert"))
    assert expert.split()[1] == "1.000"
