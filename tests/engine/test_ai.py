"""The casual AI (the frozen baseline): always legal, blind to hidden cards, sensible, and better than random."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import Player, casual_action, random_action
from engine.ai.burying import choose_bury
from engine.bidding import needs_choice, read_step
from engine.cards import BIG_JOKER, RED_FIVE, SMALL_JOKER, SUITS, Card, parse_cards
from engine.combos import classify
from engine.errors import IllegalActionError
from engine.hand import Action, Hand, HandSetup
from engine.legal_bids import accepted_bid, bid_card_sets
from engine.match import Match
from engine.ruleset import RULESETS, Ruleset
from engine.selfplay import actions, main, vs_random
from engine.tricks import trick_winner_in
from engine.trump import TrumpContext, trump_context
from engine.views import BidView, HandView, view_for

PRESETS = sorted(RULESETS)
AI: Player = casual_action


def _drive(hand: Hand, players: Sequence[Player], rng: random.Random) -> Hand:
    """Play a hand out, checking that the engine accepts every action before applying it."""
    for action in actions(hand, players, rng):
        assert hand.can(action), (hand.ruleset.name, hand.phase, action)
        hand.apply(action)
    return hand


# --- legality ------------------------------------------------------------------------------

@settings(max_examples=2 * len(PRESETS), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), match_seed=st.integers(0, 2**32 - 1),
       choices=st.randoms(use_true_random=True))
def test_ai_is_legal_through_matches(preset: str, match_seed: int, choices: random.Random) -> None:
    """Four AI seats play hands of a match (hand 1's bidding, later hands, level moves) without a refusal."""
    ruleset = RULESETS[preset]
    match = Match(ruleset, match_seed)
    for _ in range(6):
        hand = match.hand
        for action in actions(hand, [AI] * 4, choices):
            assert hand.can(action), (preset, hand.phase, action)
            match.apply(action)
        if match.over:
            break


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), level=st.integers(2, 14),
       dealer_side=st.sampled_from([None, 0, 1]), mix=st.integers(0, 15))
def test_ai_is_legal_among_random_players(preset: str, seed: int, level: int, dealer_side: int | None,
                                          mix: int) -> None:
    """AI seats stay legal whatever random seats do (odd bids, steals, failed throws, any level)."""
    ruleset = RULESETS[preset]
    levels = (level, level)
    setup = HandSetup(ruleset, seed, 1 if dealer_side is None else 2, levels, dealer_side,
                      None if dealer_side is None else dealer_side)
    players: list[Player] = [AI if mix >> s & 1 else random_action for s in range(4)]
    hand = _drive(Hand(setup), players, random.Random(seed))
    assert hand.over


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(["yangzhou", "yangzhong"]), seed=st.integers(0, 2**32 - 1),
       dealer=st.integers(0, 3), choices=st.randoms(use_true_random=True))
def test_ai_is_legal_in_the_flag_hand(preset: str, seed: int, dealer: int, choices: random.Random) -> None:
    """The flag hand (扛旗): no bidding, no kitty, no-trump with only R5 and jokers as trumps."""
    setup = HandSetup(RULESETS[preset], seed, 5, (14, 9), dealer % 2, dealer, flag=True, flag_dealer=dealer)
    hand = _drive(Hand(setup), [AI] * 4, choices)
    assert hand.phase == "finished"


def test_bid_mirror_agrees_with_the_engine() -> None:
    """accepted_bid says yes exactly when the engine would accept the bid or steal."""
    rng = random.Random(5)
    checked = 0
    for preset in PRESETS:
        ruleset = RULESETS[preset]
        for seed in range(6):
            hand = Hand(HandSetup(ruleset, seed, 1 if seed % 2 else 3, (2, 2) if seed % 2 else (7, 7),
                                  None if seed % 2 else seed % 4 // 2, None if seed % 2 else 0))
            for action in actions(hand, [random_action] * 4, rng):
                if hand.phase in ("bidding", "stealing"):
                    steal = hand.phase == "stealing"
                    seats = range(4) if not steal else [hand.turn]
                    for seat in seats:
                        assert seat is not None
                        view = view_for(hand, seat)
                        for cards in bid_card_sets(ruleset, view.level, view.hand):
                            step = read_step(ruleset, view.level, cards)
                            assert step is not None
                            choices = (*SUITS, None) if needs_choice(ruleset, step) else (None,)
                            for choice in choices:
                                mine = accepted_bid(view, ruleset, cards, choice, steal=steal) is not None
                                asked = Action("steal" if steal else "bid", seat, cards, choice)
                                assert mine == hand.can(asked), (preset, cards, choice)
                                checked += 1
                if hand.phase == "playing":
                    break
                hand.apply(action)
    assert checked > 100


def _steal_view(hand: str, bids: list[BidView]) -> HandView:
    """盐城 (hidden bidding), level 2: seat 3 to steal after seat 0 buried."""
    cards = tuple(parse_cards(hand))
    return HandView(
        viewer=3, preset="yancheng", number=2, phase="stealing", flag=False, level=2, levels=(2, 2), dealer=0,
        dealer_side=0, trump=None, trump_known=False, my_bid_trump=None, hand=cards, hand_sizes=(25, 25, 25, 25),
        bids=tuple(bids), flipped=(), kitty=None, kitty_holder=0, to_act=(3,), turn=3, passed=(), current=(),
        tricks=(), trick_points=0, adjustments=(), threshold=80, result=None, escaped=None,
    )


def test_hidden_steals_only_when_they_cannot_fail() -> None:
    """Under 暗炒 a steal below an earlier hidden bid costs 80: steal only with a step nobody else can match."""
    r = RULESETS["yancheng"]
    strong = "5H 5H BJ SJ 2S 2H 2C AS AS KS KS QS JS 10S 9S 8S 7S 6S 4S 3S 3H 4H 6D 7D 8C"
    hidden = BidView(0, "declare", None, None, None, True)
    action = casual_action(_steal_view(strong, [hidden]), r)
    assert action.kind == "steal" and Counter(action.cards) == Counter(parse_cards("5H 5H"))
    # Seat 0 bid again after seat 1 did: that may be a look-back, which outranks the red-five pair.
    over = BidView(1, "override", None, None, None, True)
    again = BidView(0, "override", None, None, None, True)
    assert casual_action(_steal_view(strong, [hidden, over, again]), r).kind == "pass_steal"
    assert casual_action(_steal_view(strong, [hidden, over]), r).kind == "steal"
    # Without the red fives, someone may have bid them: a big-joker pair is not safe.
    no_red_fives = strong.replace("5H 5H", "BJ 5C")
    assert casual_action(_steal_view(no_red_fives, [hidden]), r).kind == "pass_steal"


# --- hidden information --------------------------------------------------------------------

@settings(max_examples=9, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(["yancheng", "xin", "anhui"]), seed=st.integers(0, 2**32 - 1),
       choices=st.randoms(use_true_random=True))
def test_ai_is_blind_to_hidden_cards(preset: str, seed: int, choices: random.Random) -> None:
    """Rearranging the cards the seat cannot see changes neither its view nor its action."""
    ruleset = RULESETS[preset]
    hand = Hand(HandSetup(ruleset, seed, 2, (6, 6), 1, 1))
    steps = 0
    for action in actions(hand, [AI] * 4, choices):
        steps += 1
        if hand.phase == "playing" and steps % 7 == 0:
            seat = hand.turn
            assert seat is not None
            before = view_for(hand, seat)
            chosen = casual_action(before, ruleset)
            _shuffle_hidden(hand, seat, choices)
            after = view_for(hand, seat)
            assert after == before
            assert casual_action(after, ruleset) == chosen
            action = chosen
        hand.apply(action)


def _shuffle_hidden(hand: Hand, seat: int, rng: random.Random) -> None:
    """Deal the other seats' cards (and an unseen kitty) afresh, keeping every count."""
    others = [s for s in range(4) if s != seat]
    kitty_hidden = hand.burier != seat
    pool = [c for s in others for c in hand.hands[s]] + (list(hand.kitty) if kitty_hidden else [])
    rng.shuffle(pool)
    for s in others:
        n = len(hand.hands[s])
        hand.hands[s], pool = pool[:n], pool[n:]
    if kitty_hidden:
        hand.kitty = pool


def test_a_seat_with_nothing_to_do_is_refused() -> None:
    hand = Hand(HandSetup(RULESETS["nantong"], 4, 2, (3, 3), 0, 0))
    for action in actions(hand, [AI] * 4, random.Random(0)):
        if hand.phase == "playing":
            break
        hand.apply(action)
    turn = hand.turn
    assert turn is not None
    with pytest.raises(IllegalActionError):
        casual_action(view_for(hand, (turn + 1) % 4), hand.ruleset)
    with pytest.raises(IllegalActionError):
        casual_action(view_for(hand, None), hand.ruleset)
    assert casual_action(view_for(hand, turn), hand.ruleset).seat == turn


# --- burying -------------------------------------------------------------------------------

def test_bury_keeps_jokers_and_red_fives() -> None:
    """Across many real 33-card hands, the AI never buries a joker or a red five when it has 8 other cards."""
    rng = random.Random(3)
    seen = 0
    for preset in ("yancheng", "nantong", "xin", "anhui"):
        ruleset = RULESETS[preset]
        for seed in range(15):
            hand = Hand(HandSetup(ruleset, seed, 2, (3, 3), seed % 2, seed % 2))
            for action in actions(hand, [AI] * 4, rng):
                if action.kind == "bury":
                    assert action.seat is not None
                    held = hand.hands[action.seat]
                    ctx = hand.ctx
                    special = [c for c in held if c.is_joker or ctx.is_red_five(c)]
                    if len(held) - len(special) >= 8:
                        assert not any(c.is_joker or ctx.is_red_five(c) for c in action.cards)
                        seen += 1
                if hand.phase == "playing":
                    break
                hand.apply(action)
    assert seen >= 40


def test_bury_prefers_low_pointless_cards_and_voids_a_short_suit() -> None:
    ctx = trump_context(RULESETS["yancheng"], 2, "S")
    hand = parse_cards(
        "BJ SJ 5H 5H 2S 2H 2D AS KS QS JS 10S 9S 8S "    # trumps (R5 pair, jokers, level cards, spades)
        "AH KH QH 10H 9H 9H 7H "                         # hearts
        "3C 4C 7C "                                      # a short club suit with no points
        "AD KD 10D 5D 8D 6D 6D 4D 3D"                    # diamonds
    )
    assert len(hand) == 33
    buried = choose_bury(ctx, hand)
    assert len(buried) == 8
    assert not any(c.is_joker or ctx.is_red_five(c) or ctx.is_trump(c) for c in buried)
    assert sum(c.points for c in buried) == 0
    assert {c for c in buried if c.suit == "C"} == set(parse_cards("3C 4C 7C"))  # clubs emptied


def test_an_attacker_who_took_the_kitty_buries_point_cards_the_dealer_side_keeps() -> None:
    """The kitty's points score only for the attackers (won with the last trick): the dealer side keeps them out, an attacker puts them in."""
    ctx = trump_context(RULESETS["nantong"], 2, "S")
    hand = parse_cards(
        "BJ SJ 5H 5H 2S 2H 2D AS KS QS JS 10S 9S 8S "
        "AH KH QH 10H 9H 9H 7H "
        "3C 4C 7C "
        "AD KD 10D 5D 8D 6D 6D 4D 3D"
    )
    dealer = choose_bury(ctx, hand)
    attacker = choose_bury(ctx, hand, attacker=True)
    assert sum(c.points for c in dealer) == 0
    assert sum(c.points for c in attacker) >= 25
    assert not any(ctx.is_trump(c) for c in attacker)
    assert {c for c in attacker if c.suit == "C"} == set(parse_cards("3C 4C 7C"))  # the void still made


def test_the_strong_heuristics_bury_as_their_side_stands() -> None:
    """``heuristic_action`` buries as an attacker exactly when the burier is not on the dealer side."""
    from dataclasses import replace

    from engine.ai import heuristic_action
    from engine.ai.memory import context

    for seed in range(40):
        hand = Hand(HandSetup(RULESETS["nantong"], seed, 2, (5, 5), 0, 0))
        while hand.phase == "bidding":
            for seat in range(4):
                if hand.phase == "bidding" and seat not in hand.passed:
                    hand.apply(casual_action(view_for(hand, seat), hand.ruleset))
        if hand.phase != "burying":
            continue
        seat = hand.turn
        assert seat is not None
        view = view_for(hand, seat)
        ctx = context(hand.ruleset, view.level, view.trump)
        buried = {}
        for side in (0, 1):
            action = heuristic_action(replace(view, dealer_side=side), hand.ruleset)
            buried[side] = Counter(action.cards)
            assert buried[side] == Counter(choose_bury(ctx, view.hand, attacker=side != seat % 2))
        if buried[0] != buried[1]:
            return
    raise AssertionError("no deal where the side changed the bury")


# --- play: crafted scenarios --------------------------------------------------------------

def _view(ruleset: Ruleset, *, seat: int, hand: str, current: list[tuple[int, str]], level: int = 2,
          trump: str | None = "S", dealer_side: int = 0) -> HandView:
    """A play-phase view for crafted scenarios (no finished tricks yet)."""
    cards = tuple(parse_cards(hand))
    cur = tuple((s, tuple(parse_cards(c))) for s, c in current)
    played = {s: len(c) for s, c in cur}
    sizes = (*(len(cards) - played.get(s, 0) for s in range(4)),)
    return HandView(
        viewer=seat, preset=ruleset.name, number=2, phase="playing", flag=False, level=level,
        levels=(level, level), dealer=dealer_side, dealer_side=dealer_side, trump=trump, trump_known=True,
        my_bid_trump=None, hand=cards, hand_sizes=sizes, bids=(), flipped=(), kitty=None,  # type: ignore[arg-type]
        kitty_holder=dealer_side, to_act=(seat,), turn=seat, passed=(), current=cur, tricks=(), trick_points=0,
        adjustments=(), threshold=80, result=None, escaped=None,
    )


def view_ctx(view: HandView, r: Ruleset) -> TrumpContext:
    return trump_context(r, view.level, view.trump)


def test_gives_points_to_a_partner_sure_to_win() -> None:
    """Last to play, partner winning: play a point card of the led suit."""
    r = RULESETS["yancheng"]
    view = _view(r, seat=3, hand="KC 10C 6C 3C 4H 7H 9D JD QS 3S", current=[(0, "4C"), (1, "AC"), (2, "7C")])
    action = casual_action(view, r)
    assert action.kind == "play" and len(action.cards) == 1
    assert action.cards[0].suit == "C" and action.cards[0].points == 10


def test_gives_points_when_void_and_partner_holds_the_top_card() -> None:
    """Third to play, partner's ♣A cannot be beaten (no higher club exists); discard a point card."""
    r = RULESETS["yancheng"]
    view = _view(r, seat=2, hand="KD 10H 3D 4H 7H 9D JD 3S 4S", current=[(3, "6C"), (0, "AC")], dealer_side=1)
    action = casual_action(view, r)
    assert action.cards[0].points == 10 and not view_ctx(view, r).is_trump(action.cards[0])


def test_ruffs_a_point_rich_trick_when_void() -> None:
    """Last to play, void in clubs, opponents winning 25 points: ruff with a low trump."""
    r = RULESETS["yancheng"]
    view = _view(r, seat=3, hand="3S 4S QS 2H BJ 4H 7H 9D JD 6D",
                 current=[(0, "KC"), (1, "5C"), (2, "10C")])
    action = casual_action(view, r)
    ctx = view_ctx(view, r)
    card = action.cards[0]
    assert ctx.is_trump(card) and ctx.order(card) < 20  # no big trump wasted
    plays = [list(c) for _s, c in view.current] + [list(action.cards)]
    assert trick_winner_in(ctx, plays) == 3


def test_does_not_waste_big_trumps_on_an_empty_trick() -> None:
    """Void in clubs, only big trumps to ruff with, and no points on the table: discard instead."""
    r = RULESETS["yancheng"]
    view = _view(r, seat=3, hand="BJ SJ 2H 4H 7H 9D JD 6D", current=[(0, "AC"), (1, "3C"), (2, "4C")])
    action = casual_action(view, r)
    ctx = view_ctx(view, r)
    assert not ctx.is_trump(action.cards[0]) and action.cards[0].points == 0


def test_leads_a_safe_throw_and_never_an_unsafe_one() -> None:
    """♣A + ♣KK is a safe throw when the other ♣A is unseen (no ♣AA can exist); ♣KK + ♣Q is not."""
    r = RULESETS["xin"]
    ctx = trump_context(r, 2, "S")
    view = _view(r, seat=0, hand="AC KC KC 3H 4H 6H 9D 8D", current=[])
    assert Counter(casual_action(view, r).cards) == Counter(parse_cards("AC KC KC"))
    view = _view(r, seat=0, hand="KC KC QC 3H 4H 6H 9D 8D", current=[])
    shape = classify(ctx, casual_action(view, r).cards)
    assert shape is not None and shape.kind != "throw"


# --- strength -----------------------------------------------------------------------------

def test_beats_the_random_player() -> None:
    """A test that can fail: the AI wins at least 60% of 200 hands against random (yancheng), and 60% of 80 elsewhere."""
    tally = vs_random(RULESETS["yancheng"], 200, 1)
    assert tally.hands == 200
    assert tally.ai_wins / tally.hands >= 0.6
    for preset in ("xin", "anhui"):
        tally = vs_random(RULESETS[preset], 80, 2)
        assert tally.ai_wins / tally.hands >= 0.6, preset


def test_ai_throws_never_fail_and_hidden_steals_never_fail() -> None:
    for preset in ("yancheng", "chizhou"):
        records = _json_run(["--preset", preset, "--hands", "60", "--seed", "4", "--json", "--vs-random"])
        for line in records:
            ai_seats = {s for s, who in enumerate(line["players"]) if who == "ai"}
            for adj in line["result"]["adjustments"]:
                if adj["reason"] in ("throw", "failed_steal"):
                    assert adj["seat"] not in ai_seats, (preset, adj)


# --- self-play command ---------------------------------------------------------------------

def _json_run(argv: list[str]) -> list[dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out=out, err=err) == 0
    assert "hands per second" in err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("preset,extra", [("yangzhou", []), ("anhui", []), ("yancheng", ["--vs-random"])])
def test_selfplay_json_replays(preset: str, extra: list[str]) -> None:
    records = _json_run(["--preset", preset, "--hands", "6", "--seed", "3", "--json", *extra])
    assert len(records) == 6
    for line in records:
        assert set(line) >= {"seed", "ruleset", "events", "result"}
        ruleset = line["ruleset"]
        assert isinstance(ruleset, dict) and ruleset["name"] == preset and "options" in ruleset
        setup = HandSetup.from_dict(line["setup"])
        assert setup.seed == line["seed"]
        events = line["events"]
        assert isinstance(events, list)
        hand = Hand.replay(setup, [Action.from_dict(e) for e in events])
        assert hand.result is not None and hand.result.to_dict() == line["result"]


def test_selfplay_summary() -> None:
    out = io.StringIO()
    assert main(["--preset", "盐城", "--hands", "3", "--seed", "1"], out=out, err=io.StringIO()) == 0
    text = out.getvalue()
    assert "yancheng" in text and "hands 3" in text and "hands per second" in text
    out = io.StringIO()
    assert main(["--preset", "nantong", "--hands", "8", "--seed", "1", "--vs-random"], out=out) == 0
    assert "AI won" in out.getvalue() and "of 8 hands (nantong)" in out.getvalue()


def test_bid_card_sets_cover_level_cards_and_special_pairs() -> None:
    r = RULESETS["yancheng"]
    hand = parse_cards("5H 5H BJ BJ SJ 7S 7S 7D 3C")
    sets = {tuple(str(c) for c in s) for s in bid_card_sets(r, 7, hand)}
    assert ("5H", "5H") in sets and ("BJ", "BJ") in sets and ("7S",) in sets and ("7S", "7S") in sets
    assert ("7D",) in sets and ("SJ",) not in sets
    assert Card(BIG_JOKER) is parse_cards("BJ")[0] and Card(SMALL_JOKER).is_joker and RED_FIVE.suit == "H"


_PADDED_RUN = """
import sys
class Pad:
    __slots__ = ("a", "b", "c", "d", "e")
pad = [Pad() for _ in range(int(sys.argv[1]))]  # moves the interned cards to other addresses
from engine.selfplay import main
main(sys.argv[2:])
"""


def test_selfplay_is_the_same_in_every_process() -> None:
    """Same seed, same hands: no decision may hang on set order (cards hash by address) or string hashing."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outputs = set()
    for pad, hash_seed in ((0, "1"), (1, "2")):
        env = dict(os.environ, PYTHONPATH=root, PYTHONHASHSEED=hash_seed)
        for extra in ([], ["--vs-random"]):
            argv = [str(pad), "--preset", "anhui", "--hands", "4", "--seed", "2", "--json", *extra]
            run = subprocess.run([sys.executable, "-c", _PADDED_RUN, *argv], capture_output=True, text=True,
                                 env=env, check=True)
            outputs.add((tuple(extra), run.stdout))
    assert len(outputs) == 2
