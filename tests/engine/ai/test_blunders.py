"""The clear-cut blunders of issue 47, in positions from real deals: today's 高手 played them, the new one does not.

Each play position comes from a deal played by the frozen baseline until
there (``casual_until``), where the strong player of the tag
``strong-2026-12-05`` made the blunder (``tests/bench/test_old_player.py``
asks it again where that worktree exists).  Here the blunder is shown to
be among the plays today's search compares (``_candidates``, unchanged),
dropped before the search (``prune_follows``), and not played.  The bury
and the steal are the heuristics' own: the bury as it was is the one
:func:`choose_bury` makes without the dealer side's guards.
"""

from __future__ import annotations

from collections import Counter

import pytest

import engine.ai.burying as burying
from engine.ai import StrongPlayer, _candidates
from engine.ai.bidding import choose_steal, strength_for
from engine.ai.dominance import prune_follows, prune_leads
from engine.ai.memory import build_memory, context
from engine.cards import Card, parse_cards
from engine.hand import Hand, HandSetup
from engine.legal_bids import bid_options
from engine.ruleset import RULESETS
from engine.trump import trump_context
from engine.views import BidView, HandView, view_for
from tests.engine.ai.finish import casual_until
from tests.engine.rig import mini_hand

STRONG = StrongPlayer(budget=float("inf"))
"""The strong player with a table's sampled deals and no time cap, so that no decision depends on the machine's load."""

POSITIONS = {
    # name: (preset, seed, level, events, seat, hand, current trick, today's play, the new play)
    "gift_on_an_ace": ("yancheng", 16, 5, 34, 0, "5H SJ KS QS 10S AH KH KH 10H 7H 2H 2H QD JD 10D 3D 2D",
                       [(1, "AD"), (2, "QD"), (3, "KD")], "10D", "2D"),
    "gift_under_a_ruff": ("yancheng", 10, 5, 24, 1, "5H SJ 9S 8S 4S AH QH 8H KC QC 9C 6C 3C KD QD 10D 3D",
                          [(2, "AD"), (3, "7D"), (0, "10S")], "10D", "3D"),
    "trick_let_go": ("nantong", 35, 11, 45, 3, "AS 9S 9H AD", [(0, "QS"), (1, "QH"), (2, "KH")], "9S", "AS"),
    "red_five_on_the_partners_trick": ("yancheng", 15, 5, 61, 0, "5H 5C AC QH 9H 6H 6H AD",
                                       [(1, "4C"), (2, "AC"), (3, "6C")], "5H", "AC"),
    "big_joker_on_the_partners_trick": ("yancheng", 26, 5, 68, 0, "BJ 5D 5S KD",
                                        [(1, "JH"), (2, "JD"), (3, "9D")], "BJ", "KD"),
}
"""Real deals played by the baseline until a last player's blunder by today's 高手, and the new player's play."""


def position(name: str) -> Hand:
    """The hand at a named position (the deal replayed by the baseline), checked against the card notation."""
    preset, seed, level, events, seat, cards, current, _old, _new = POSITIONS[name]
    hand = casual_until(Hand(HandSetup(RULESETS[preset], seed, 2, (level, level), seed % 2, seed % 2)), events)
    assert hand.turn == seat and Counter(hand.hands[seat]) == Counter(parse_cards(cards))
    assert [(s, Counter(c)) for s, c in hand.current] == [(s, Counter(parse_cards(c))) for s, c in current]
    return hand


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_todays_blunder_is_dropped_and_not_played(name: str) -> None:
    """盐城 at level 5 and 南通 at level J, the last player of a trick:

    * gift_on_an_ace: an attacker's ♦A holds the trick, the other attacker
      threw ♦K; the dealer side threw ♦10 on it (20 points), holding ♦2;
    * gift_under_a_ruff: the dealer ruffed ♦A with ♠10; the attacker threw
      ♦10 under it, holding ♦3;
    * trick_let_go: ♠Q wins 10 points (♥K thrown on it); the last player
      played ♠9, holding ♠A (the issue's ♣10 under ♣Q holding ♣A);
    * red_five_on_the_partners_trick: the partner's trump ♣A holds the
      trick; the red five went on it (in 盐城, where a red five kept is
      worth 50), where ♣A would do;
    * big_joker_on_the_partners_trick: the partner's ♦J holds the trick;
      大王 went on it, holding ♦K.
    """
    _preset, _seed, _level, _events, seat, _cards, _current, old, new = POSITIONS[name]
    hand = position(name)
    view = view_for(hand, seat)
    ctx = context(hand.ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    today = [Counter(c) for c in _candidates(view, hand.ruleset, ctx, mem)]
    assert Counter(parse_cards(old)) in today
    kept = [Counter(c) for c in prune_follows(mem, view.current, _candidates(view, hand.ruleset, ctx, mem))]
    assert Counter(parse_cards(old)) not in kept
    assert Counter(STRONG(view, hand.ruleset).cards) == Counter(parse_cards(new))


def test_the_dealer_side_keeps_its_aces_and_points_out_of_the_kitty(monkeypatch: pytest.MonkeyPatch) -> None:
    """扬州 at level J, ♦ trump (a real hand of today's 高手 in self-play): eight trumps and seven hearts with both ♥A.

    Today's player emptied hearts, both aces with them: a steal would have
    handed them to an attacker (the issue's 扬州 seed 21 hand 3: ♥A, ♥J♥J and
    ♥Q buried, stolen, and thrown back for 55 points).  The new one keeps the
    aces and buries low cards; neither buries points.
    """
    ctx = trump_context(RULESETS["yangzhou"], 11, "D")
    hand = parse_cards("5H SJ JD QD 10D 7D 6D 4D AS 10S 10S 8S 7S 6S 5S 4S 3S 3S AH AH 9H 8H 7H 6H 2H "
                       "KC 9C 9C 6C 6C 5C 5C 2C")
    new = burying.choose_bury(ctx, hand)
    monkeypatch.setattr(burying, "_POINTS_GUARD", 0.0)  # today's bury: no guard on points and aces
    monkeypatch.setattr(burying, "_ACE_GUARD", 0.0)
    assert Counter(burying.choose_bury(ctx, hand)) == Counter(parse_cards("AH AH 9H 8H 7H 6H 2H 2C"))
    assert Card.parse("AH") not in new and not any(c.points for c in new)


def test_with_few_low_plain_cards_the_dealer_side_buries_low_trumps_before_its_aces() -> None:
    """新炒地皮 at level J, ♣ trump (self-play of the strong player, seed 47, ``xin`` piece 3, hand 5): twenty trumps.

    Its plain cards without points were exactly eight, both aces among
    them, and it buried them all (2♠ 3♠ 4♦ 4♦ 6♠ 6♠ ♠A ♦A): trumps went only
    when no plain card was left.  Now its lowest single trumps go before
    an ace or a point card; its jokers, level cards and pairs stay.
    """
    ctx = trump_context(RULESETS["xin"], 11, "C")
    hand = parse_cards("4D 4D 10D KD AD 10H 2S 3S 5S 6S 6S KS AS 3C 3C 4C 4C 5C 6C 7C 7C 8C 9C 10C 10C QC QC "
                       "KC AC JC SJ BJ BJ")
    bury = burying.choose_bury(ctx, hand)
    assert Counter(bury) == Counter(parse_cards("2S 3S 4D 4D 6S 6S 6C 8C"))
    assert not any(c.rank == 14 or c.points for c in bury)


def test_jokers_and_red_fives_stay_while_anything_else_can_go() -> None:
    """盐城, ♠ trump: jokers, red fives and trump points, and plain cards that are all aces and points.

    The six aces go first, then the two cheapest plain point cards; not a
    joker, a red five or a trump with points.
    """
    ctx = trump_context(RULESETS["yancheng"], 3, "S")
    hand = parse_cards("SJ SJ BJ BJ 5H 5H 5S 5S 10S 10S KS AH AH AD AD AC AC 10H 10H KH KH "
                       "5D 5D 10D 10D KD KD 5C 5C 10C 10C KC KC")
    bury = burying.choose_bury(ctx, hand)
    assert all(ctx.group(c) != "T" for c in bury)
    assert Counter(c for c in bury if c.rank == 14) == Counter(parse_cards("AH AH AD AD AC AC"))


def test_no_steal_of_the_partners_kitty_under_its_own_trump() -> None:
    """南通 (open bids), level 2: the dealer declared ♦ with 2♦2♦ and buried; its partner holds both red fives and
    eleven diamonds (the issue's 南通 and 扬州 seed 21 hand 1).

    The red-five pair may name any trump, and the partner's hand is best
    under ♦: stealing would keep the trump and show both red fives for
    nothing.  Today's player stole whenever a steal could not fail.
    """
    r = RULESETS["nantong"]
    cards = tuple(parse_cards("5H 5H AD KD QD JD 10D 9D 8D 7D 6D 4D 3D AC QC 9C 7C 4C KS 8S 6S 3S KH 9H 6H"))
    view = HandView(
        viewer=2, preset="nantong", number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump="D", trump_known=True, my_bid_trump=None, hand=cards, hand_sizes=(25, 25, 25, 25),
        bids=(BidView(0, "declare", tuple(parse_cards("2D 2D")), "D2", "D", False),), flipped=(), kitty=None,
        kitty_holder=0, to_act=(2,), turn=2, passed=(1,), current=(), tricks=(), trick_points=0, adjustments=(),
        threshold=80, result=None, escaped=None,
    )
    options = bid_options(view, r, steal=True)
    today = max(options, key=lambda o: strength_for(r, view.level, o.trump, view.hand))
    assert today.cards == tuple(parse_cards("5H 5H")) and today.trump == "D"
    assert choose_steal(view, r) is None


# --- the expert's kinds (issue 56): points at risk, the red five, leads into a void -------------------------

def _rigged(plays: list[str], tricks: list[list[str]]) -> Hand:
    """盐城 at level 2, ♠ trump (the dealer, seat 0, bid 2♠, which lies in the kitty), short hands, tricks played."""
    hand = mini_hand("yancheng", plays=plays, kitty="2S 3S 4S 6S 7S 8S 9S JS", bid="2S", dealer=0, number=2,
                     levels=(2, 2), dealer_side=0, previous_dealer=0)
    for trick in tricks:
        seat = hand.turn
        assert seat is not None
        for i, cards in enumerate(trick):
            hand.play((seat + i) % 4, parse_cards(cards))
    return hand


def _pruned(hand: Hand, candidates: list[str]) -> list[Counter[Card]]:
    seat = hand.turn
    assert seat is not None
    view = view_for(hand, seat)
    mem = build_memory(view, context(hand.ruleset, view.level, view.trump))
    plays = [parse_cards(c) for c in candidates]
    kept = prune_follows(mem, view.current, plays) if view.current else prune_leads(mem, plays)
    return [Counter(p) for p in kept]


def test_a_win_put_at_risk_with_points_where_a_lighter_one_wins_as_well_is_dropped() -> None:
    """Second to an opponent's ♣3, the partner last: ♣10 and ♣J both win the trick as it stands, ♣J without points.
    Third after the opponent's ♣9 took the partner's ♣3 (nobody of the seat's side to come, an opponent last): the
    same (issue 56: the expert's ``points_early``, where the trick was the opponents' unless this seat won it)."""
    hands = ["3C 3D 7D 8D 9H", "10C JC 6D 6H 7H", "4C 6C QD KD AD", "5C 3H 10D JD 8H"]
    assert _pruned(_rigged(hands, [["3C"]]), ["10C", "JC"]) == [Counter(parse_cards("JC"))]
    third = ["3C 3D 7D 8D 9H", "9C 6D 6H 7H 3H", "10C JC QD KD AD", "5C 4H 10D JD 8H"]
    assert _pruned(_rigged(third, [["3C", "9C"]]), ["10C", "JC"]) == [Counter(parse_cards("JC"))]


def test_points_thrown_second_onto_the_opponents_lead_are_dropped_for_a_cheap_discard() -> None:
    """Void in clubs, second to the opponents' ♣3, the partner last: ♥10 thrown on is the opponents' unless the
    partner beats both of them; ♥3 goes instead, and the ruff ♠Q stays for the search (the expert's
    ``discard_points``)."""
    void = ["3C 3D 7D 8D 9H", "10H 3H QS 6D 7H", "4C 6C QD KD AD", "5C 4H 10D JD 8H"]
    kept = _pruned(_rigged(void, [["3C"]]), ["10H", "QS"])
    assert Counter(parse_cards("10H")) not in kept and Counter(parse_cards("QS")) in kept
    assert all(not any(c.points for c in play) for play in kept)


def test_a_feed_to_the_partner_is_dropped_where_the_last_opponent_may_follow_higher() -> None:
    """Third to the partner's ♣Q (the opponent under it played ♣4): ♣K and ♣A are unseen, so the last opponent
    may simply follow higher; ♣10 fed on it goes, ♣3 instead.  On the partner's ♣A, which only a ruff beats (the
    last opponent showed a void in clubs), the feed stays for the search to weigh."""
    hands = ["QC 3D 7D 8D 9H", "4C 6D 6H 7H 3H", "10C 3C QD KD AD", "5C 4H 10D JD 8H"]
    assert _pruned(_rigged(hands, [["QC", "4C"]]), ["10C", "3C"]) == [Counter(parse_cards("3C"))]
    ruff_only = ["3C 10C 9C 7D 8D", "8H 6D 6H 7H 3H", "KC AC QD KD AD", "4C 5C 10D JD 4H"]
    hand = _rigged(ruff_only, [["3C", "8H", "KC", "4C"], ["AC", "5C"]])
    assert hand.turn == 0
    assert Counter(parse_cards("10C")) in _pruned(hand, ["10C", "9C"])


def test_the_red_five_spent_on_a_trick_it_cannot_win_is_dropped_where_nothing_else_would_drop_it() -> None:
    """Second to the opponents' ♥5 (the red five, first played wins a tie): the other ♥5 cannot win it and is worth
    no more points than ♠5, which goes instead (盐城 keeps a red five for 50)."""
    hand = _rigged(["5H 3D 7D 8D 9H", "5H 5S 6D 7H 3H", "4C 6C QD KD AD", "5C 4H 10D JD 8H"], [["5H"]])
    assert _pruned(hand, ["5H", "5S"]) == [Counter(parse_cards("5S"))]


def test_the_red_five_spent_for_nothing_is_dropped() -> None:
    """Void in clubs under a ♣3♣3 lead: ♥5 with ♠6 is no ruff and loses; ♦8♦9 keep the red five."""
    hand = _rigged(["3C 3C 7D 8D 9H", "5H 6S 8D 9D 10D", "4C 6C QD KD AD", "5C 4H 10C JD 8H"], [["3C 3C"]])
    assert Counter(parse_cards("5H 6S")) not in _pruned(hand, ["5H 6S", "8D 9D"])


def test_points_led_into_a_shown_void_are_dropped() -> None:
    """East threw a diamond on the first ♥ trick: ♥10 is not led into its void; ♣3 is, or the lowest pointless card."""
    hand = _rigged(["AH 10H 3C 7D 8D", "4D 6D 6C 7C 8C", "4H 9C QD KD AD", "6H 5C 10D JD 8H"],
                   [["AH", "4D", "4H", "6H"]])
    assert hand.turn == 0
    assert _pruned(hand, ["10H", "3C"]) == [Counter(parse_cards("3C"))]
    assert _pruned(hand, ["10H"]) == [Counter(parse_cards("3C"))]
