"""The strong AI's search: which plays it compares (its worlds: tests/engine/test_ai_strong.py)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from engine.ai import StrongPlayer, _candidates, heuristic_action
from engine.ai.following import every_play
from engine.ai.leading import lead_candidates
from engine.ai.memory import build_memory, context
from engine.ai.rollout import forced_play
from engine.cards import Card, format_cards, parse_cards
from engine.combos import classify
from engine.follow import is_legal_follow, legal_follows
from engine.hand import Action, Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import actions
from engine.views import view_for
from tests.engine.ai.finish import finish_casually
from tests.engine.rig import mini_hand

STRONG = StrongPlayer(budget=float("inf"))
"""The strong player with a table's sampled deals and no time cap, so that no decision depends on the machine's load."""


def _heuristic_until(hand: Hand, count: int) -> Hand:
    """Play a hand with the strong heuristics on all four seats (no search) for ``count`` actions."""
    for i, action in enumerate(actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(1))):
        if i == count:
            break
        hand.apply(action)
    return hand


def _key(cards: list[Card] | tuple[Card, ...]) -> Counter[Card]:
    return Counter(cards)


def test_at_the_end_the_search_compares_leads_the_heuristic_does_not_propose() -> None:
    """池州 at level J, ♥ trump, three tricks left (a real deal, seed 2329, played by the heuristics until here).

    The dealer (seat 2) holds 小王 ♠J ♣J, its partner 大王 ♥10 ♠Q; attacker
    seat 1 holds ♥J ♦J ♣J.  The heuristic's one lead is 小王: it wins, the
    dealer's ♣J then falls to its partner's 大王, who must lead ♠Q, and seat
    1's ♥J ruffs it and takes the last trick, which in 池州 sends the dealer
    side back to 2 (−9).  Leading ♣J first, the partner's 大王 takes it and
    leads ♠Q, seat 1 wins that with ♣J and must lead ♥J into 小王: the dealer
    side keeps the last trick (+5).  With three cards left the search
    compares every lead and finds it.
    """
    hand = _heuristic_until(Hand(HandSetup(RULESETS["chizhou"], 2329, 2, (11, 11), 0, 0)), 61)
    assert [Counter(h) for h in hand.hands] == [Counter(parse_cards(h)) for h in
                                                ("BJ 10H QS", "JH JD JC", "SJ JS JC", "10H KS QS")]
    assert hand.turn == 2 and hand.dealer == 2 and hand.trump == "H" and not hand.current
    view = view_for(hand, 2)
    ctx = context(hand.ruleset, view.level, view.trump)
    leads = lead_candidates(build_memory(view, ctx), dealer_side=True, heaven_and_earth=True, limit=4)
    assert leads == [parse_cards("SJ")]
    strong = STRONG(view, hand.ruleset)
    assert strong.cards == tuple(parse_cards("JC"))
    heuristic = finish_casually(copy.deepcopy(hand), heuristic_action(view, hand.ruleset))
    searched = finish_casually(copy.deepcopy(hand), strong)
    assert heuristic.result is not None and heuristic.result.demoted_to == 2
    assert searched.result is not None and searched.result.demoted_to is None
    assert searched.result.scores[0] > heuristic.result.scores[0]


def test_every_play_at_the_end_lists_every_lead_and_every_legal_follow() -> None:
    """Leads: every single card, pair and tractor of the hand; follows: exactly the legal ones; all of them searched."""
    widened = 0
    for seed in (11, 12, 13):
        hand = Hand(HandSetup(RULESETS["yancheng"], seed, 2, (5, 5), 0, 0))
        for action in actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(1)):
            turn = hand.turn
            if hand.phase == "playing" and turn is not None and len(hand.hands[turn]) <= 5:
                view = view_for(hand, turn)
                ctx = context(hand.ruleset, view.level, view.trump)
                mem = build_memory(view, ctx)
                plays = every_play(mem, view.current, 50)
                candidates = _candidates(view, hand.ruleset, ctx, mem)
                if view.current:
                    legal = legal_follows(ctx, view.current[0][1], view.hand, 50)
                    assert (plays is None) == (legal is None)
                    if plays is not None and legal is not None:
                        assert sorted(map(_key, plays), key=str) == sorted(map(_key, legal), key=str)
                    assert all(is_legal_follow(ctx, view.current[0][1], view.hand, c) for c in candidates)
                else:
                    assert plays is not None
                    for card in set(view.hand):
                        assert [card] in plays
                    assert all(hand.can(Action("play", turn, tuple(c))) for c in candidates)
                if plays is not None and len(candidates) < 8:  # not cut short: every play is compared
                    for play in plays:
                        assert _key(play) in [_key(c) for c in candidates]
                widened += len(candidates) > 4
            hand.apply(action)
    assert widened  # some positions had more plays than the heuristic's four


def test_every_play_gives_up_beyond_the_limit() -> None:
    """A hand with many ways to play returns None rather than a partial list (the search then keeps the heuristic's)."""
    hand = Hand(HandSetup(RULESETS["yancheng"], 5, 2, (5, 5), 0, 0))
    for action in actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(1)):
        if hand.phase == "playing" and hand.turn is not None and not hand.current:
            view = view_for(hand, hand.turn)
            mem = build_memory(view, context(hand.ruleset, view.level, view.trump))
            assert every_play(mem, view.current, 8) is None  # 25 cards: far more than 8 leads
            break
        hand.apply(action)
    else:
        raise AssertionError("no lead reached")


# --- plays the rules force ---------------------------------------------------------------

@pytest.mark.parametrize("preset", sorted(RULESETS))
def test_a_forced_play_is_the_one_legal_play_and_the_one_the_heuristics_make(preset: str) -> None:
    """Rollouts make a forced play without asking their player: it must be the only legal play, so nothing changes."""
    kinds: Counter[str] = Counter()
    for seed in range(3):
        hand = Hand(HandSetup(RULESETS[preset], seed, 2, (5, 5), 0, 0))
        for action in actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(seed)):
            if action.kind == "play":
                assert action.seat is not None
                forced = forced_play(hand, action.seat)
                cards = hand.hands[action.seat]
                if forced is not None:
                    assert _key(forced) == _key(action.cards)
                    if hand.current:
                        lead = hand.current[0][1]
                        assert legal_follows(hand.ctx, lead, cards, 1) is not None
                        shape = classify(hand.ctx, lead)
                        assert shape is not None
                        held = sum(hand.ctx.group(c) == shape.group for c in cards)
                        kinds["last" if len(cards) == len(lead) else "suit" if held == len(lead)
                              else "copies" if len(lead) == 1 else "one pair"] += 1
                    else:
                        kinds["lone lead"] += 1
            hand.apply(action)
    assert kinds["last"] and kinds["suit"] and kinds["lone lead"], kinds
    if RULESETS[preset].pairs_must_follow:
        assert kinds["one pair"], kinds


def test_a_five_ten_king_with_the_red_five_asks_for_its_suit_not_for_trumps() -> None:
    """♥5♥10♥K is a hearts lead though ♥5 is a trump in 盐城: three trumps held do not make the follow forced."""
    hand = mini_hand("yancheng", plays=["5H 10H KH 6C 7C 8C", "3H 4H 2S AS BJ 9C", "6H 7H 8H 9H JH QH",
                                        "3D 4D 6D 7D 8D 9D"],
                     kitty="2S 3C 4C 3S 4S 6S 7S 8S", bid="2S", dealer=0)
    hand.apply(Action("play", 0, tuple(parse_cards("5H 10H KH"))))
    assert forced_play(hand, 1) is None
    assert legal_follows(hand.ctx, hand.current[0][1], hand.hands[1], 1) is None  # 3H 4H and any third card
    hand.apply(Action("play", 1, tuple(parse_cards("3H 4H 9C"))))
    forced = forced_play(hand, 2)
    assert forced is None  # six hearts: a choice of three
    hand.apply(Action("play", 2, tuple(parse_cards("6H 7H 8H"))))
    assert forced_play(hand, 3) is None  # no hearts: any three cards


@pytest.mark.parametrize(("preset", "forced"), [("yancheng", "QD QD"), ("chizhou", None)])
def test_a_pair_is_forced_by_the_groups_one_pair_only_where_pairs_must_follow(preset: str, forced: str | None) -> None:
    """4D 4D led: QD QD is the one follow where pairs must follow (盐城), one of many where they need not (池州)."""
    hand = mini_hand(preset, plays=["4D 4D 6C 7C", "QD QD 3D AH", "6D 7D 8D 9D", "3C 4C 8C 9C"],
                     kitty="2S 3H 4H 3S 4S 6S 7S 8S", bid="2S", dealer=0)
    hand.apply(Action("play", 0, tuple(parse_cards("4D 4D"))))
    got = forced_play(hand, 1)
    assert (got and format_cards(got)) == forced
    follows = legal_follows(hand.ctx, hand.current[0][1], hand.hands[1], 1)
    assert (follows is not None) == (forced is not None)


def test_a_single_is_forced_when_the_group_holds_only_both_copies_of_one_card() -> None:
    hand = mini_hand("yancheng", plays=["6D 6C 7C", "QD QD AH", "7D 8D 9D", "3C 4C 8C"],
                     kitty="2S 3H 4H 3S 4S 6S 7S 8S", bid="2S", dealer=0)
    hand.apply(Action("play", 0, tuple(parse_cards("6D"))))
    assert forced_play(hand, 1) == tuple(parse_cards("QD"))
    hand.apply(Action("play", 1, tuple(parse_cards("QD"))))
    assert forced_play(hand, 2) is None  # three diamonds, three choices


def test_a_hands_value_counts_every_five_points_and_the_win() -> None:
    """The level table's 10-point steps smoothed: 5 points always count half a 积分, crossing θ counts most."""
    from engine.ai.search import WIN_WEIGHT, hand_value
    from engine.scoring import level_outcome
    from engine.special import HandResult

    ruleset = RULESETS["yancheng"]

    def value(p: int, seat: int) -> float:
        outcome = level_outcome(ruleset, p)
        scores = (outcome.dealer_score, outcome.attacker_score) * 2
        return hand_value(HandResult(p, p, (), 0, (), 80, 0, outcome, scores), seat)  # type: ignore[arg-type]

    attackers = [value(p, 1) for p in range(-10, 125, 5)]
    steps = [b - a for a, b in zip(attackers, attackers[1:])]
    assert all(step == 0.5 for i, step in enumerate(steps) if i not in (2, 17))
    assert steps[17] == 1.5 + 2 * WIN_WEIGHT  # 75 → 80: the takeover and the win
    assert steps[2] == 1.5  # 0 → 5: table B's 大光 level at p ≤ 0
    assert all(value(p, 0) == -value(p, 1) for p in range(-10, 125, 5))


def test_a_search_stops_when_its_leader_is_clear() -> None:
    from engine.ai.search import _ahead

    assert _ahead([3.0, 2.0, 4.0, 3.0], [1.0, 1.0, 2.0, 1.0]) > 2
    assert abs(_ahead([3.0, 1.0, 4.0, 0.0], [2.0, 2.0, 2.0, 2.0])) < 1
    assert _ahead([1.0, 1.0], [1.0, 1.0]) == float("inf")  # the same everywhere: nothing to learn


def test_a_search_compares_as_many_of_the_heuristics_plays_as_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """``candidates`` bounds the plays a search compares; with one, the strong player plays the heuristic's choice."""
    import engine.ai

    hand = Hand(HandSetup(RULESETS["yancheng"], 7, 0, (2, 2), 0, 0))
    for action in actions(hand, [lambda v, r, _g: heuristic_action(v, r)] * 4, random.Random(1)):
        if hand.phase == "playing" and not hand.current:
            break
        hand.apply(action)
    turn = hand.turn
    assert turn is not None and len(hand.hands[turn]) == 25
    view = view_for(hand, turn)
    ctx = context(hand.ruleset, view.level, view.trump)
    leads = lead_candidates(build_memory(view, ctx), dealer_side=view.dealer_side == turn % 2,
                            heaven_and_earth=True, limit=8)
    assert len(leads) >= 6
    compared: list[int] = []
    real = engine.ai.best_play

    def counting(view, ruleset, mem, candidates, *args, **kwargs):  # type: ignore[no-untyped-def]
        compared.append(len(candidates))
        return real(view, ruleset, mem, candidates, *args, **kwargs)

    monkeypatch.setattr(engine.ai, "best_play", counting)
    for limit in (4, 6):
        StrongPlayer(deals=2, budget=float("inf"), candidates=limit)(view, hand.ruleset)
    assert compared == [4, 6]
    alone = StrongPlayer(budget=float("inf"), candidates=1)(view, hand.ruleset)
    assert compared == [4, 6] and alone == heuristic_action(view, hand.ruleset)
