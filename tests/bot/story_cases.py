"""Finished hands of real matches, rigged so that each moment of decision 17 happens (not a test module).

Each builder drives an :class:`engine.match.Match` through :meth:`Match.apply`
with rigged deals (:mod:`tests.engine.rig`), so settlement, level moves and
notices are the engine's own, and returns the match, the hand's record and
the finished hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.ai import choose_action
from engine.cards import Card
from engine.hand import Action, Hand
from engine.match import HandRecord, Match, MatchStart
from engine.selfplay import actions
from tests.engine.rig import (
    action,
    cards,
    flag_plays,
    flag_tricks,
    full_deal,
    mini_deal,
    mini_setup_steps,
    p_hand_steps,
    play_tricks,
    rig,
)
from tests.engine.test_match import start

Deal = tuple[list[list[Card]], list[Card]]


@dataclass
class Case:
    """A finished hand and its match, with what it takes to play the match again through the bot."""

    match: Match
    record: HandRecord
    hand: Hand
    start: MatchStart
    deals: list[Deal]
    """The rigged deal of each hand of the match, in order."""
    actions: list[list[Action]]
    """Each hand's actions, in order."""


@dataclass
class Rigged:
    """A match being played with rigged deals, and what was dealt and played so far."""

    match: Match
    deals: list[Deal] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)


def _match(preset: str, side0: tuple[int, int] | int, side1: tuple[int, int] | int,
           dealer_side: int | None = None, previous_dealer: int | None = None) -> Rigged:
    return Rigged(start(preset, side0, side1, dealer_side, previous_dealer))


def _rig(rigged: Rigged, deal: Deal) -> Hand:
    """Rig the match's fresh hand, and remember the deal and the hand."""
    hand = rig(rigged.match.hand, [list(h) for h in deal[0]], list(deal[1]))
    rigged.deals.append(([list(h) for h in deal[0]], list(deal[1])))
    rigged.hands.append(hand)
    return hand


def _last(rigged: Rigged, hand: Hand) -> Case:
    match = rigged.match
    return Case(match, match.records[-1], hand, match.start, rigged.deals, [list(h.actions) for h in rigged.hands])


def _play_p(rigged: Rigged, p: int, dealer: int) -> Hand:
    """A two-trick hand scoring exactly p (:func:`tests.engine.rig.p_hand_steps`), through the match."""
    level = rigged.match.hand.level
    assert level is not None
    deal, steps = p_hand_steps(p, level=level, dealer=dealer)
    hand = _rig(rigged, deal)
    for step in steps:
        rigged.match.apply(action(step))
    assert hand.result is not None and hand.result.attacker_points == p
    return hand


def _p(rigged: Rigged, p: int, dealer: int) -> Case:
    return _last(rigged, _play_p(rigged, p, dealer))


def _flag(rigged: Rigged, *, fail: bool) -> Case:
    dealer = rigged.match.hand.dealer
    assert rigged.match.hand.setup.flag and dealer is not None
    hand = _rig(rigged, ([cards(x) for x in flag_plays(dealer, fail=fail)], []))
    play_tricks(hand, *flag_tricks(dealer, fail=fail), apply=rigged.match.apply)
    return _last(rigged, hand)


def must_play_j() -> Case:
    """南通: the dealer side at 10 holds with p = 50 (+3 by the table): J must be played, it stops at J."""
    return _p(_match("nantong", 10, 4, dealer_side=0, previous_dealer=0), 50, 0)


def stopped_at_a() -> Case:
    """南通: the dealer side at K is shut out (p = 0, +7 by table A… capped): A must be played, it stops at A."""
    return _p(_match("nantong", 13, 4, dealer_side=0, previous_dealer=0), 0, 0)


def climb_ends_at_a() -> Case:
    """扬州: the attackers at Q take over with +7: the climb ends at A (decision 13)."""
    return _p(_match("yangzhou", 7, 12, dealer_side=0, previous_dealer=0), 150, 0)


def lap_wrap() -> Case:
    """盐城: the dealer side at Q of lap 1 holds with +4: past A into lap 2."""
    return _p(_match("yancheng", (1, 12), (1, 5), dealer_side=0, previous_dealer=0), 40, 0)


def plain_rise() -> Case:
    """盐城: the attackers take over at 5 with p = 100 (+2)."""
    return _p(_match("yancheng", (1, 8), (1, 5), dealer_side=0, previous_dealer=0), 100, 0)


def flag_failed() -> Case:
    """扬州: the side past A fails the flag hand: the attackers take over at their own level, nobody rises."""
    m = _match("yangzhou", 14, 8, dealer_side=0, previous_dealer=0)
    _play_p(m, 30, 0)
    return _flag(m, fail=True)


def flag_won() -> Case:
    """扬州: the flag hand is held: the match is won."""
    m = _match("yangzhou", 14, 8, dealer_side=0, previous_dealer=0)
    _play_p(m, 30, 0)
    return _flag(m, fail=False)


def passed_a_flag_owed() -> Case:
    """扬州: the dealer side wins at A: past A, it owes the flag hand."""
    return _p(_match("yangzhou", 14, 8, dealer_side=0, previous_dealer=0), 30, 0)


def flag_owed_takeover() -> Case:
    """扬州: 南北 passed A and failed the flag hand; attacking 东西's 8 they take 125 (+4 by the table), but a
    side past A has no level to rise: they take the deal still owing the flag hand."""
    m = _match("yangzhou", 14, 8, dealer_side=0, previous_dealer=0)
    _play_p(m, 30, 0)
    _flag(m, fail=True)
    return _p(m, 125, 1)


def change_of_dealer() -> Case:
    """盐城: the attackers take exactly 80: they take the deal (换庄) without rising."""
    return _p(_match("yancheng", (1, 8), (1, 5), dealer_side=0, previous_dealer=0), 80, 0)


def anhui_end_bonus() -> Case:
    """安徽: 南北 hold at A with p = 60 (2 积分 by table A) and win the match; 东西 at Q pay 2 more each."""
    return _p(_match("anhui", 14, 12, dealer_side=0, previous_dealer=0), 60, 0)


def _rigged(rigged: Rigged, plays: list[str], kitty: str, bid: str, tricks: list[list[str]]) -> Case:
    deal, steps = mini_setup_steps(plays, kitty, bid, 0)
    hand = _rig(rigged, deal)
    for step in steps:
        rigged.match.apply(action(step))
    play_tricks(hand, *tricks, apply=rigged.match.apply)
    return _last(rigged, hand)


def chizhou_ace_pair() -> Case:
    """池州: the dealer side at A; the attackers win the last trick with ♠A♠A: 对A抠底, back to 2."""
    return _rigged(_match("chizhou", 14, 7, dealer_side=0, previous_dealer=0),
                   ["3S 3S", "AS AS", "4S 4S", "6S 6S"], "AH KH KH 4H 6H 7H 8H 9H", "AH",
                   [["3S 3S", "AS AS", "4S 4S", "6S 6S"]])


def heaven_and_earth() -> Case:
    """盐城: the attackers win the last trick with 5-10-K: 上天入地, to lap 3 A; the dealer side back to 2."""
    plays = ["5C 10C KC", "5S 10S KS", "7D 8D 9D", "JD QD AD"]
    return _rigged(_match("yancheng", (2, 6), (2, 6)), plays, "6S 9H JH QH 4H 3H 7H 8H", "6S", [plays])


def red5_kept() -> Case:
    """盐城: the dealer (北) leads ♥5♥5 to the last trick: 保红5, attackers −100."""
    return _rigged(_match("yancheng", (1, 2), (1, 2)),
                   ["3S 5H 5H", "3C 4C 6C", "7C 8C 9C", "3D 4D 6D"], "2S 9H JH QH 4H 6H 7H 8H", "2S",
                   [["3S", "3C", "7C", "3D"], ["5H 5H", "4C 6C", "8C 9C", "4D 6D"]])


def red5_forced() -> Case:
    """盐城: 南's ♥5 (dealer side) is forced into a trick 东 wins: 逼红5, attackers +50."""
    return _rigged(_match("yancheng", (1, 2), (1, 2)),
                   ["3C 4D 6D", "AC 5H 9D", "6C 5H 7C", "8C 7D 8D"], "2S 9H JH QH 4H 6H 7H 8H", "2S",
                   [["3C", "AC", "6C", "8C"], ["5H", "5H", "7D", "4D"], ["9D", "7C", "8D", "6D"]])


def throw_failed(preset: str = "yancheng") -> Case:
    """北 (dealer) throws ♦A♦Q♦Q; 东's ♦K♦K beats the pair: only ♦Q♦Q is played, attackers +20."""
    return _rigged(_match(preset, 2, 2),
                   ["3S AD QD QD 3H", "KD KD AC QC 4H", "3D 4D KC 6H 7H", "6D 7D 8C 9C 8H"],
                   "2S 9H JH QH 4H 6H 7H 8H", "2S",
                   [["AD QD QD", "KD KD", "3D 4D", "6D 7D"], ["AC", "KC", "8C", "3H"], ["QC", "6H", "9C", "AD"],
                    ["4H", "7H", "8H", "3S"]])


def finish(rigged: Rigged, seed: int = 1) -> Case:
    """Play the current hand to its end with the AI."""
    rng = random.Random(seed)
    hand = rigged.match.hand
    for act in actions(hand, [choose_action] * 4, rng):
        rigged.match.apply(act)
    return _last(rigged, hand)


def _nonbid(hand: list[Card]) -> list[Card]:
    return [c for c in hand if c.rank != 2 and not c.is_joker][:8]


def failed_steals() -> Rigged:
    """盐城 (暗炒): 北 declares ♥2♥2; 东 steals with ♦2♦2 and 南 with ♣2♣2, both lower: two failed steals.

    The steal rounds have just ended; :func:`finish` plays the rest.
    """
    rigged = _match("yancheng", (1, 2), (1, 2))
    m = rigged.match
    hand = _rig(rigged, full_deal({0: "2H 2H", 1: "2D 2D", 2: "2C 2C", 3: "SJ SJ"}, seed=9))
    m.apply(Action("bid", 0, tuple(cards("2H 2H"))))
    m.apply(Action("close"))
    m.apply(Action("bury", 0, tuple(_nonbid(hand.hands[0]))))
    m.apply(Action("steal", 1, tuple(cards("2D 2D"))))
    m.apply(Action("bury", 1, tuple(_nonbid(hand.hands[1]))))
    m.apply(Action("steal", 2, tuple(cards("2C 2C"))))
    m.apply(Action("bury", 2, tuple(_nonbid(hand.hands[2]))))
    for seat in (3, 0, 1):
        m.apply(Action("pass_steal", seat))
    return rigged


def scripted(preset: str, deal: Deal, steps: list[tuple[object, ...]], side0: tuple[int, int] | int = 2,
             side1: tuple[int, int] | int = 2, dealer_side: int | None = None,
             previous_dealer: int | None = None) -> Case:
    """A rigged first hand: the steps (``("bury_kitty",)`` buries the 8 cards the burier just picked up),
    then the AI plays it to the end."""
    rigged = _match(preset, side0, side1, dealer_side, previous_dealer)
    hand = _rig(rigged, deal)
    for step in steps:
        if step[0] == "bury_kitty":
            seat = hand.burier
            assert seat is not None
            rigged.match.apply(Action("bury", seat, tuple(hand.hands[seat][-8:])))
        else:
            rigged.match.apply(action(step))
    return finish(rigged)


LOW_KITTY = "3H 4H 6H 7H 8H 9H 3S 4S"


def failed_steal() -> Case:
    """盐城 (暗炒), four-card hands: 北 declares ♥2♥2; 东 (♦2♦2) and 南 (♣2♣2) steal lower: both fail."""
    deal = mini_deal(["2H 2H 5S 6S", "2D 2D 5C 6C", "2C 2C 5D 6D", "7S 8S 7C 8C"], LOW_KITTY)
    return scripted("yancheng", deal, [
        ("bid", 0, "2H 2H"), ("close",), ("bury_kitty",), ("steal", 1, "2D 2D"), ("bury_kitty",),
        ("steal", 2, "2C 2C"), ("bury_kitty",), ("pass_steal", 3), ("pass_steal", 0), ("pass_steal", 1)])


def open_bids() -> Case:
    """南通 (明炒): 北 declares ♠2, 西 overrides with 大王对, 北 looks back with ♠2♠2 (回头望)."""
    deal = mini_deal(["2S 2S 5H 6H", "5C 6C 7C 8C", "5D 6D 7D 8D", "BJ BJ 9C 10C"], LOW_KITTY)
    return scripted("nantong", deal, [("bid", 0, "2S"), ("bid", 3, "BJ BJ"), ("bid", 0, "2S 2S"), ("close",),
                                      ("bury_kitty",)])


PASSES: list[tuple[object, ...]] = [("pass", 0), ("pass", 1), ("pass", 2), ("pass", 3), ("bury_kitty",)]


def flip_open() -> Case:
    """扬州 (明炒), a later hand at 6: nobody can bid; the kitty is turned up to its first level card, ♠6."""
    deal = mini_deal(["3S 4S 7H 8H", "9S 10S 9H 10H", "3D 4D 7C 8C", "9D 10D 9C 10C"], "3C 7D 6S 4C JH QH KH AH")
    return scripted("yangzhou", deal, PASSES, 4, 6, dealer_side=1, previous_dealer=1)


def flip_hidden() -> Case:
    """安徽 (暗炒), hand 1: nobody can bid; each in turn turns a kitty card until a level card, ♠2."""
    deal = mini_deal(["3S 4S 7H 8H", "9S 10S 9H 10H", "3D 4D 7C 8C", "9D 10D 9C 10C"], "3C 7D 2S 4C JH QH KH AH")
    return scripted("anhui", deal, PASSES)


def flip_joker() -> Case:
    """新炒地皮, a later hand at 6: nobody can bid; the kitty's first card, 小王, is turned: no trump, and the
    attackers take the deal at 60 in this hand."""
    deal = mini_deal(["3S 4S 7H 8H", "9S 10S 9H 10H", "3D 4D 7C 8C", "9D 10D 9C 10C"], "SJ 7D 6S 4C JH QH KH AH")
    return scripted("xin", deal, PASSES, 4, 6, dealer_side=1, previous_dealer=1)
