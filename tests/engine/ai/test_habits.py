"""The five habits players named in issue 14: positions where an expert's play is clear.

Each test checks that the frozen baseline (the casual AI) makes the bad play
and the strong AI (「高手」) the good one, so that it fails without the fix:

1. it almost never steals (抄底);
2. it wins with 大王 where the red five also wins, and later has ♥5 forced out (逼红5);
   it throws ♥5 onto a partner's unbeatable trump 5-10-K where the rules leave the choice;
   it spends ♥5 at the end rather than keep it for the last card (保红5);
3. it buries badly and rarely makes a void (and, since issue 47, the strong player keeps points out of its kitty);
4. it does not defend the last trick (and the kitty) at the must-play level J;
5. it spends its top trump pair on 10 points early, and leads a J into an unseen K.
"""

from __future__ import annotations

import copy
from collections import Counter

from engine.ai import StrongPlayer, casual_action
from engine.ai.baseline.burying import choose_bury as baseline_bury
from engine.ai.burying import choose_bury
from engine.ai.memory import build_memory
from engine.cards import Card, parse_cards
from engine.hand import Hand, HandSetup
from engine.ruleset import RULESETS
from engine.trump import TRUMP, trump_context
from engine.views import BidView, HandView, view_for
from tests.engine.ai.finish import casual_until, finish_casually
from tests.engine.rig import mini_hand, play_tricks

STRONG = StrongPlayer(budget=float("inf"))
"""The strong player with a table's sampled deals and no time cap, so that no decision depends on the machine's load."""


def test_habit_1_an_attacker_steals_to_turn_the_dealers_trump_plain() -> None:
    """南通 (open bids), level 2: the dealer declared ♦ with 2♦2♦; attacker seat 1 holds 2♥2♥, 大王 and ten hearts.

    Stealing (抄底) with the heart pair (above ♦ on 南通's ladder) makes the
    dealer's long diamonds a plain suit and gives seat 1 the kitty: the game's own move, which the baseline
    leaves for a much stronger hand.
    """
    r = RULESETS["nantong"]
    hand = tuple(parse_cards("2H 2H AH KH QH 9H 8H 6H 4H 3H AC KC 9C 7C 4C KD 8D 6D 3D 10S 9S 6S 4S 3S BJ"))
    view = HandView(
        viewer=1, preset="nantong", number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump="D", trump_known=True, my_bid_trump=None, hand=hand, hand_sizes=(25, 25, 25, 25),
        bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),), flipped=(), kitty=None,
        kitty_holder=0, to_act=(1,), turn=1, passed=(), current=(), tricks=(), trick_points=0, adjustments=(),
        threshold=80, result=None, escaped=None,
    )
    assert casual_action(view, r).kind == "pass_steal"
    action = STRONG(view, r)
    assert action.kind == "steal" and Counter(action.cards) == Counter(parse_cards("2H 2H"))


def test_habit_1_the_dealers_partner_steals_over_the_dealers_kitty() -> None:
    """南通, level 2: the dealer (seat 0) declared ♦ and buried; the partner (seat 2) holds 2♥2♥ and a fair hand.

    Stealing over a partner's kitty gives the side a second look at the kitty
    and trump in the stealer's suit (the strong heuristics gained about half a
    point of hands won against the baseline stealing whenever they can there);
    the baseline keeps it for a much stronger hand.
    """
    r = RULESETS["nantong"]
    hand = tuple(parse_cards("2H 2H AH KH 9H 6H 3H AC QC 9C 7C 7C 5C 4C KD 8D 6D 3D 10S 9S 8S 6S 4S 3S JS"))
    view = HandView(
        viewer=2, preset="nantong", number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump="D", trump_known=True, my_bid_trump=None, hand=hand, hand_sizes=(25, 25, 25, 25),
        bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),), flipped=(), kitty=None,
        kitty_holder=0, to_act=(2,), turn=2, passed=(), current=(), tricks=(), trick_points=0, adjustments=(),
        threshold=80, result=None, escaped=None,
    )
    assert casual_action(view, r).kind == "pass_steal"
    action = STRONG(view, r)
    assert action.kind == "steal" and Counter(action.cards) == Counter(parse_cards("2H 2H"))


def test_habit_1_the_dealer_side_takes_back_a_kitty_an_attacker_stole() -> None:
    """南通, level 2: the dealer declared ♦; attacker seat 1 stole with 2♥2♥ (trump ♥); the dealer's partner holds 2♠2♠.

    Stealing back makes the attackers' long hearts a plain suit again, puts
    trump in seat 2's eight spades (it holds two hearts) and gives the dealer
    side the kitty back.  The baseline keeps such a steal for a much stronger
    hand, as the strong heuristics did before (stealing back wherever a steal
    cannot fail gained them +0.035 积分 a hand against their old selves).
    """
    r = RULESETS["nantong"]
    hand = tuple(parse_cards("2S 2S AS KS 9S 7S 6S 4S AC 10C 8C 6C 3C KD JD 9D 7D 5D 4D 9H 3H 3D 10D 8D 6D"))
    view = HandView(
        viewer=2, preset="nantong", number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump="H", trump_known=True, my_bid_trump=None, hand=hand, hand_sizes=(25, 25, 25, 25),
        bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),
              BidView(1, "steal", tuple(parse_cards("2H 2H")), "H2", "H", False)), flipped=(), kitty=None,
        kitty_holder=1, to_act=(2,), turn=2, passed=(), current=(), tricks=(), trick_points=0, adjustments=(),
        threshold=80, result=None, escaped=None,
    )
    assert casual_action(view, r).kind == "pass_steal"
    action = STRONG(view, r)
    assert action.kind == "steal" and Counter(action.cards) == Counter(parse_cards("2S 2S"))


def test_habit_2_wins_with_the_red_five_not_the_big_joker() -> None:
    """盐城, ♠ trump: the dealer leads 小王; seat 3 (last) can win with 大王 or ♥5, and has no other trump.

    Both win the trick.  Keeping ♥5 alone among the trumps lets a trump pair
    lead force it out later (逼红5, −50 for the attackers); the big joker can be
    forced out for nothing.  Win with ♥5.
    """
    hand = mini_hand("yancheng", plays=["SJ 9S 9S AC", "3D 4D 8C 8D", "6S 4H 3H KC", "BJ 5H 6C 7C"],
                     kitty="2S 3C 4C 6D 7D 8H 9H JH", bid="2S", dealer=0, number=2, levels=(2, 2),
                     dealer_side=0, previous_dealer=0)
    play_tricks(hand, ["SJ", "3D", "6S"])
    view = view_for(hand, 3)
    assert casual_action(view, hand.ruleset).cards == tuple(parse_cards("BJ"))
    assert STRONG(view, hand.ruleset).cards == tuple(parse_cards("5H"))


def _after_the_other_red_five(plays: list[str]) -> Hand:
    """盐城, ♠ trump at level 2, the other 大王 in dealer 0's kitty: partner seat 2 wins trick 1 with the other ♥5, seat 0 trick 2."""
    hand = mini_hand("yancheng", plays=plays, kitty="BJ 2S 3C 4C 6S 7S 8H 9H", bid="2S", dealer=0, number=2,
                     levels=(2, 2), dealer_side=0, previous_dealer=0)
    play_tricks(hand, ["9S", "3S", "5H", "4S"], ["QC", "JC", "AC", "KC"])
    return hand


def test_habit_2_keeps_the_red_five_for_the_last_card_once_the_other_is_out() -> None:
    """盐城, ♠ trump: the other ♥5 fell in trick 1 and the other 大王 is in the dealer's kitty; the dealer leads ♥5 大王.

    Both stand, and the baseline throws them together.  Led one at a time,
    大王 first, the dealer wins the last-but-one trick and leads ♥5 alone
    at the end: 保红5, 50 points off the attackers' score.
    """
    hand = _after_the_other_red_five(["9S BJ 5H AC", "3S 4D 3D KC", "5H 6D 8D QC", "4S 7D 9D JC"])
    view = view_for(hand, 0)
    assert Counter(casual_action(view, hand.ruleset).cards) == Counter(parse_cards("5H BJ"))
    action = STRONG(view, hand.ruleset)
    assert action.cards == tuple(parse_cards("BJ"))
    ended = finish_casually(hand, action)
    assert [(a.reason, a.points) for a in ended.adjustments] == [("red5_kept", -50)]


def test_habit_2_does_not_throw_the_red_five_away_with_the_big_joker() -> None:
    """盐城, as above with three cards: ♥5 大王 ♦A, the other ♥5 fallen and the other 大王 in the dealer's kitty.

    ♥5 and 大王 stand together as a throw of sure trump winners, which the
    baseline leads (and the strong player did, before it kept the red five
    for the last card).  The strong player leads something else and keeps
    ♥5 in hand.
    """
    hand = _after_the_other_red_five(["9S BJ 5H AC AD", "3S 4D 3D KC 5C", "5H 6D 8D QC 6C", "4S 7D 9D JC 7C"])
    view = view_for(hand, 0)
    assert Counter(casual_action(view, hand.ruleset).cards) == Counter(parse_cards("5H BJ"))
    assert Card.parse("5H") not in STRONG(view, hand.ruleset).cards


def test_habit_2_wins_with_the_big_joker_once_the_other_red_five_is_out() -> None:
    """盐城, ♠ trump: an attacker ruffed with the other ♥5 and leads ♠10; the dealer, last, can win with 大王 or ♥5.

    The counterpart of winning with ♥5 while the other one is out (which,
    led first, would take a lone ♥5 and cost 50): with it gone, ♥5 kept
    to the end wins the last trick whatever is led, and 保红5 besides.
    """
    hand = mini_hand("yancheng", plays=["AC BJ 5H 9S", "5H 10S 4D 3D", "QC 3S 6D 8D", "JC 4S 7D 9D"],
                     kitty="BJ 2S 3C 4C 6S 7S 8H 9H", bid="2S", dealer=0, number=2, levels=(2, 2),
                     dealer_side=0, previous_dealer=0)
    play_tricks(hand, ["AC", "5H", "QC", "JC"], ["10S", "3S", "4S"])
    assert STRONG(view_for(hand, 0), hand.ruleset).cards == tuple(parse_cards("BJ"))


def test_habit_3_bury_empties_a_short_suit_but_keeps_points_out_of_the_kitty() -> None:
    """33 cards with ♥ trump and 14 trumps: ♦Q ♦Q ♦4 is a short suit, and burying it makes a void the trumps ruff.

    The baseline keeps the queen pair and buries low cards of the long
    suits; the strong player empties diamonds.  With ♦10 ♦3 ♦4 instead,
    issue 14 had it bury the ♦10 too; issue 47 keeps points out of the
    dealer side's kitty altogether (its kitty was captured with points in
    one hand of five, the baseline's almost never), so the ♦10 stays.
    """
    ctx = trump_context(RULESETS["yancheng"], 9, "H")
    rest = "AS JS 10S 10S 5S 3S 4S 6S 7S 8S BJ SJ 5H 9H 9H 9C 2H 3H 4H 6H 7H 8H KH KH AH AC KC 3C 4C QC "
    hand = parse_cards(rest + "QD QD 4D")
    assert len(hand) == 33
    assert not {c for c in baseline_bury(ctx, hand) if c.suit == "D"} >= set(parse_cards("QD 4D"))
    strong = choose_bury(ctx, hand)
    assert Counter(c for c in strong if c.suit == "D") == Counter(parse_cards("QD QD 4D"))
    assert not any(ctx.group(c) == TRUMP for c in strong)
    stranded = choose_bury(ctx, parse_cards(rest + "10D 3D 4D"))
    assert {c for c in stranded if c.suit == "D"} == set(parse_cards("3D 4D")) and not any(c.points for c in stranded)


def test_habit_2_keeps_the_red_five_off_a_partners_sure_trump_five_ten_king() -> None:
    """扬中 at level 2, ♠ trump (a real deal, seed 187, played by the baseline until here): the first trick.

    The dealer leads the trump 5-10-K ♠5 ♠10 ♠K, which nothing can beat; its
    partner (seat 2) must follow with three trumps and holds ♠9 ♠Q, the level
    cards ♥2 ♦2, both jokers and ♥5.  扬中 does not force the highest trumps
    onto a 5-10-K, so the choice is free: the baseline feeds ♥5 for its 5
    points, spending the hand's top card (and its 保红5); an expert plays a
    level card and keeps the red five.
    """
    hand = casual_until(Hand(HandSetup(RULESETS["yangzhong"], 187, 2, (2, 2), 0, 0)), 11)
    assert hand.trump == "S" and not hand.ruleset.ftk_forces_highest
    assert [(s, Counter(c)) for s, c in hand.current] == [(0, Counter(parse_cards("5S 10S KS"))),
                                                          (1, Counter(parse_cards("7S 8S 9S")))]
    assert Counter(hand.hands[2]) >= Counter(parse_cards("9S QS 2H 2D BJ SJ 5H"))
    view = view_for(hand, 2)
    red_five = Card.parse("5H")
    assert red_five in casual_action(view, hand.ruleset).cards
    assert red_five not in STRONG(view, hand.ruleset).cards


def test_habit_4_at_level_j_the_dealer_side_keeps_its_jacks_for_the_last_trick() -> None:
    """池州 at level J, ♥ trump, four cards left (a real deal, seed 1008, played by the baseline until here).

    Seat 0 (the dealer's partner) holds ♦5 ♠9 ♦J ♥J; the attackers still hold
    ♣J ♠J ♣J.  Seat 1 led ♣Q, the dealer ♣10, seat 3 threw ♦K: 20 points.
    Ruffing with ♦J takes them, but leaves ♥J alone to guard the last trick,
    and an attackers' J taking the last trick sends the dealer side back to 2
    (池州's J rule).  Keep both jacks: let the 20 points go.
    """
    hand = casual_until(Hand(HandSetup(RULESETS["chizhou"], 1008, 2, (11, 11), 0, 0)), 65)
    assert [Counter(h) for h in hand.hands] == [Counter(parse_cards(h)) for h in
                                                ("5D 9S JD JH", "9C JC JS", "JD 5H KH", "AD JC 5D")]
    assert [(s, Counter(c)) for s, c in hand.current] == [(1, Counter(parse_cards("QC"))),
                                                          (2, Counter(parse_cards("10C"))),
                                                          (3, Counter(parse_cards("KD")))]
    assert hand.trump == "H" and hand.dealer == 2
    view = view_for(hand, 0)
    casual = casual_action(view, hand.ruleset)
    strong = STRONG(view, hand.ruleset)
    assert casual.cards == tuple(parse_cards("JD"))
    assert not any(c.rank == 11 for c in strong.cards)
    # Played out by the baseline from here: the jack spent costs the level; the jacks kept hold the last trick.
    lost = finish_casually(copy.deepcopy(hand), casual)
    kept = finish_casually(copy.deepcopy(hand), strong)
    assert lost.result is not None and lost.result.demoted_to == 2
    assert kept.result is not None and kept.result.demoted_to is None and kept.tricks[-1].winner % 2 == 0


def test_habit_5_keeps_the_top_trump_pair_for_more_than_ten_points() -> None:
    """盐城 at level A, ♣ trump (a real deal, seed 1260, played by the baseline until here): trick 10, 11 cards left.

    The dealer's partner (seat 2) led ♥4♥4 and seat 3 played ♥Q♥10: 10
    points on the table.  The dealer (seat 0) has no plain heart and holds
    ♣A♣A, a pair of level cards, beside both jokers.  Its partner's pair may
    be beaten by an unseen heart pair; the baseline makes sure of the 10
    points by ruffing with ♣A♣A, its second-best pair, spent for 10 points;
    an expert keeps it for the pulls and the last trick that decide the
    kitty, and discards.  (Seat 1 holds one heart, so the partner's pair
    holds the trick anyway.)  Played out by the baseline from here, keeping
    the pair scores better for the dealer side.
    """
    hand = casual_until(Hand(HandSetup(RULESETS["yancheng"], 1260, 2, (14, 14), 0, 0)), 47)
    assert hand.trump == "C" and hand.dealer == 0 and hand.turn == 0 and len(hand.tricks) == 9
    assert [(s, Counter(c)) for s, c in hand.current] == [(2, Counter(parse_cards("4H 4H"))),
                                                          (3, Counter(parse_cards("QH 10H")))]
    assert Counter(hand.hands[0]) == Counter(parse_cards("JS 5H 5D 6D 4C 9C KC AC AC SJ BJ"))
    view = view_for(hand, 0)
    casual = casual_action(view, hand.ruleset)
    strong = STRONG(view, hand.ruleset)
    assert Counter(casual.cards) == Counter(parse_cards("AC AC"))
    assert Card.parse("AC") not in strong.cards and not any(c.is_joker for c in strong.cards)
    spent = finish_casually(copy.deepcopy(hand), casual)
    kept = finish_casually(copy.deepcopy(hand), strong)
    assert spent.result is not None and kept.result is not None
    assert kept.result.scores[0] > spent.result.scores[0]


def test_habit_5_does_not_lead_a_jack_into_an_unseen_king() -> None:
    """盐城 at level 3, ♣ trump (a real deal, seed 1029, played by the baseline until here): trick 10, 12 cards left.

    The dealer (seat 2) is to lead with ♦10 ♦J ♦Q ♦Q ♦K, ♥10 ♥J ♥3, ♠5, ♣5 ♣K and ♦3.
    One ♦K is unseen (seat 1 holds it).  The baseline leads ♦J, its lowest
    pointless diamond, and seat 1's ♦K takes the trick and its 10 points:
    a J led into a K gives the attackers the lead and the king.  The
    strong player leads no jack; played out by the baseline from here, the
    attackers do not win that trick.
    """
    hand = casual_until(Hand(HandSetup(RULESETS["yancheng"], 1029, 2, (3, 3), 0, 0)), 46)
    assert hand.trump == "C" and hand.dealer == 2 and hand.turn == 2 and not hand.current and len(hand.tricks) == 9
    assert Counter(hand.hands[2]) == Counter(parse_cards("10D JD QD QD KD 10H JH 3H 5S 5C KC 3D"))
    assert Card.parse("KD") in hand.hands[1]
    view = view_for(hand, 2)
    assert build_memory(view, hand.ctx).unseen[Card.parse("KD")] == 1  # the dealer cannot tell where it is
    casual = casual_action(view, hand.ruleset)
    strong = STRONG(view, hand.ruleset)
    assert casual.cards == tuple(parse_cards("JD"))
    assert not any(c.rank == 11 for c in strong.cards)
    lost = finish_casually(copy.deepcopy(hand), casual)
    kept = finish_casually(copy.deepcopy(hand), strong)
    assert lost.tricks[9].winner == 1 and Card.parse("KD") in dict(lost.tricks[9].plays)[1]
    assert kept.tricks[9].winner % 2 == 0
