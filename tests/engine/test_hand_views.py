"""Per-seat and group views in scenarios (DESIGN: hidden information lives in the engine; RULES.md
decision 5, §2.6.6, A11).  The property tests check every step of self-play; these pin the lifecycle.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import json
import random
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from engine.ai import random_action
from engine.cards import Card, format_cards
from engine.hand import Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import actions
from engine.views import HandView, view_for
from tests.engine.rig import (
    all_pass_bidding,
    cards,
    full_deal,
    mini_hand,
    mini_setup_steps,
    new_hand,
    play_tricks,
    rig,
    run,
)


def _nonbid(cs, level: int = 2):
    return [c for c in cs if not c.is_joker and c.rank != level and str(c) != "5H"][:8]


def test_open_bids_are_public_at_once() -> None:
    h = new_hand("nantong", deal=full_deal({0: "2D", 1: "2S 2S"}))
    h.bid(0, cards("2D"))
    h.bid(1, cards("2S 2S"))
    for viewer in (None, 0, 1, 2, 3):
        v = view_for(h, viewer)
        assert [(b.seat, b.kind, b.cards, b.trump, b.hidden) for b in v.bids] == [
            (0, "declare", tuple(cards("2D")), "D", False), (1, "override", tuple(cards("2S 2S")), "S", False)]
        assert {c for b in v.bids for c in b.cards or ()} <= set(v.visible_cards())


def test_hidden_bids_tell_the_others_only_declare_override_or_steal() -> None:
    """Under 暗炒 another seat's bid shows as a declaration (the first bid), an override, or a steal: no cards,
    step or trump, and not a look-back or reinforce (that would tell that the bidder holds both copies)."""
    h = new_hand("yancheng", deal=full_deal({0: "2C 2C", 1: "2H 2H", 3: "BJ BJ"}, seed=6))
    h.bid(0, cards("2C"))
    h.bid(1, cards("2H 2H"))
    h.bid(0, cards("2C 2C"))  # 0's second 2♣ after an override: a look-back, which the others see as an override
    assert [b.kind for b in h.bids] == ["declare", "override", "look_back"]
    seen_by_2 = [(b.seat, b.kind, b.cards, b.step, b.trump, b.hidden) for b in view_for(h, 2).bids]
    assert seen_by_2 == [(0, "declare", None, None, None, True), (1, "override", None, None, None, True),
                         (0, "override", None, None, None, True)]
    assert [(b.kind, b.trump, b.hidden) for b in view_for(h, 0).bids] == [
        ("declare", "C", False), ("override", None, True), ("look_back", "C", False)]


def test_kitty_lifecycle() -> None:
    """The kitty: nobody sees it in the deal; its burier after burying; everyone once the hand is over."""
    plays = ["3D", "6D", "7C", "8C"]
    kitty = "2S KH KH 10H 4H 6H 7H 8H"
    h = new_hand("nantong")
    deal, steps = mini_setup_steps(plays, kitty, "2S", 0)
    rig(h, *deal)
    assert all(view_for(h, v).kitty is None for v in (None, 0, 1, 2, 3))
    run(h, steps[:2])  # bid, close: the dealer picked it up (it is in their hand now)
    assert all(view_for(h, v).kitty is None for v in (None, 1, 2, 3))
    run(h, steps[2:])
    assert Counter(view_for(h, 0).kitty or ()) == Counter(cards(kitty))
    assert all(view_for(h, v).kitty is None for v in (None, 1, 2, 3))
    play_tricks(h, plays)
    assert h.phase == "finished"
    for v in (None, 0, 1, 2, 3):
        assert Counter(view_for(h, v).kitty or ()) == Counter(cards(kitty))


def test_the_burier_sees_which_cards_came_from_the_kitty() -> None:
    """While burying (and only then, and only the burier) the view names the 8 cards taken from the kitty."""
    plays = ["3D", "6D", "7C", "8C"]
    kitty = "2S KH KH 10H 4H 6H 7H 8H"
    h = new_hand("nantong")
    deal, steps = mini_setup_steps(plays, kitty, "2S", 0)
    rig(h, *deal)
    assert all(view_for(h, v).picked_up == () for v in (None, 0, 1, 2, 3))
    run(h, steps[:2])  # bid, close: the dealer took the kitty and buries
    assert h.phase == "burying"
    dealt_kitty = deal[1]  # what was dealt to the kitty (the test buries other cards)
    assert Counter(view_for(h, 0).picked_up) == Counter(dealt_kitty)
    assert Counter(view_for(h, 0).picked_up) <= Counter(view_for(h, 0).hand)
    assert all(view_for(h, v).picked_up == () for v in (None, 1, 2, 3))
    run(h, steps[2:])
    assert all(view_for(h, v).picked_up == () for v in (None, 0, 1, 2, 3))


def test_a_seat_whose_kitty_is_stolen_still_knows_what_it_buried() -> None:
    """The 8 cards a seat buried stay in its view once another seat steals them, with who took the kitty since."""
    h = new_hand("nantong", deal=full_deal({0: "2D 2D SJ SJ", 1: "2S 2S 2H", 2: "2C 2C", 3: "BJ BJ 2H"}, seed=7))
    h.bid(0, cards("2D 2D"))
    h.close()
    dealer_buried = _nonbid(h.hands[0])
    h.bury(0, dealer_buried)
    assert all(view_for(h, v).passed_kitty == () for v in (None, 0, 1, 2, 3))
    h.pass_steal(1)
    h.steal(2, cards("2C 2C"))  # seat 2 takes the dealer's kitty and buries
    seen = view_for(h, 0)
    assert Counter(seen.passed_kitty) == Counter(dealer_buried) and seen.kitty_takers == (2,)
    assert set(dealer_buried) <= set(seen.visible_cards())
    assert all(view_for(h, v).passed_kitty == () for v in (None, 1, 2, 3))
    second = _nonbid(h.hands[2])
    h.bury(2, second)
    h.pass_steal(3)
    h.steal(0, cards("SJ SJ"))  # the dealer steals back: what it knows now is seat 2's kitty, in its hand
    assert view_for(h, 0).passed_kitty == ()
    assert Counter(view_for(h, 2).passed_kitty) == Counter(second) and view_for(h, 2).kitty_takers == (0,)
    h.bury(0, _nonbid(h.hands[0]))
    for s in (1, 2, 3):
        h.pass_steal(s)
    assert h.phase == "playing"
    assert Counter(view_for(h, 2).passed_kitty) == Counter(second) and view_for(h, 2).kitty_takers == (0,)
    assert all(view_for(h, v).passed_kitty == () and view_for(h, v).kitty_takers == () for v in (None, 0, 1, 3))
    assert json.loads(json.dumps(view_for(h, 2).to_dict()))["kitty_takers"] == [0]


def test_spectator_never_holds_a_hand_and_seats_see_only_their_own() -> None:
    h = new_hand("yangzhou", seed=5)
    spectator = view_for(h, None)
    assert spectator.hand == () and spectator.hand_sizes == (25, 25, 25, 25)
    data = json.dumps(spectator.to_dict())
    assert '"hand": ""' in data
    for seat in range(4):
        assert list(view_for(h, seat).hand) == h.hands[seat]


def test_hidden_bidding_dealer_buries_without_knowing_trump() -> None:
    """A11 i: under 暗炒 the dealer buries without knowing the trump; it is public after the steal rounds."""
    h = new_hand("yancheng", deal=full_deal({0: "2C 2C", 1: "2H 2H"}, seed=6))
    h.bid(0, cards("2C 2C"))
    h.bid(1, cards("2H 2H"))
    h.close()
    assert h.dealer == 1
    for viewer in (None, 0, 1, 2, 3):
        v = view_for(h, viewer)
        assert v.trump is None and not v.trump_known
    assert view_for(h, 0).my_bid_trump == "C" and view_for(h, 1).my_bid_trump == "H"
    assert view_for(h, 2).my_bid_trump is None
    assert view_for(h, None).dealer == 1 and view_for(h, None).kitty_holder == 1  # the taker is public
    h.bury(1, _nonbid(h.hands[1]))
    for s in (2, 3, 0):
        h.pass_steal(s)
    for viewer in (None, 0, 1, 2, 3):
        v = view_for(h, viewer)
        assert v.trump == "H" and v.trump_known
        assert all(not b.hidden for b in v.bids)


def test_anhui_trump_hidden_until_no_one_steals_any_more() -> None:
    """安徽: 主牌花色不公布，直到无人再反主、无人再抄底牌."""
    h = new_hand("anhui", deal=full_deal({0: "2S 2S", 2: "BJ BJ"}, seed=7))
    h.bid(0, cards("2S 2S"))
    h.close()
    h.bury(0, _nonbid(h.hands[0]))
    h.pass_steal(1)
    h.steal(2, cards("BJ BJ"))
    assert view_for(h, None).trump is None and view_for(h, 0).trump is None
    assert view_for(h, None).bids[1].cards is None and view_for(h, None).bids[1].kind == "steal"
    h.bury(2, _nonbid(h.hands[2]))
    for s in (3, 0, 1):
        h.pass_steal(s)
    assert view_for(h, None).trump is None and view_for(h, None).trump_known  # no-trump, now public


def test_who_attacks_is_known_once_the_dealer_side_is() -> None:
    h = new_hand("nantong", deal=full_deal({1: "2D 2D"}, seed=7))
    assert not any(view_for(h, None).is_attacker(s) for s in range(4))
    h.bid(1, cards("2D 2D"))
    h.close()
    assert [view_for(h, v).is_attacker(s) for v in (None, 2) for s in range(4)] == [True, False, True, False] * 2


def test_flag_hand_view() -> None:
    h = new_hand("yangzhou", number=4, levels=(14, 6), dealer_side=1, previous_dealer=1, flag=True, flag_dealer=3)
    v = view_for(h, None)
    assert v.flag and v.phase == "playing" and v.level is None and v.trump is None and v.trump_known
    assert v.hand_sizes == (27, 27, 27, 27) and v.kitty is None and v.turn == 3 and v.dealer == 3
    assert v.threshold == 100


def test_failed_throw_shows_the_forced_component_in_the_trick() -> None:
    plays = ["3S AD QD QD 3H", "KD KD AC QC 4H", "3D 4D KC 6H 7H", "6D 7D 8C 9C 8H"]
    h = mini_hand("yancheng", plays=plays, kitty="2S 9H JH QH 4H 6H 7H 8H", bid="2S", dealer=0)
    h.play(0, cards("AD QD QD"))  # a failed throw: the trick holds ♦QQ (A21: the rest returns to the hand)
    v = view_for(h, None)
    assert v.current == ((0, tuple(cards("QD QD"))),)
    assert cards("AD")[0] in view_for(h, 0).hand


def test_each_field_of_a_view_holds_what_its_name_says() -> None:
    """view_for builds a HandView positionally (for speed): every field, at every step of a hand, is the hand's
    own figure of that name, so two fields swapped would show."""
    for preset, seed in (("yancheng", 3), ("xin", 4), ("nantong", 5)):
        hand = Hand(HandSetup(RULESETS[preset], seed))
        for action in actions(hand, [random_action] * 4, random.Random(seed)):
            for viewer in (None, 0, 1, 2, 3):
                v = view_for(hand, viewer)
                assert (v.viewer, v.preset, v.number, v.phase, v.flag, v.level, v.levels) == (
                    viewer, hand.ruleset.name, hand.setup.number, hand.phase, hand.setup.flag, hand.level,
                    hand.setup.levels)
                assert (v.dealer, v.dealer_side, v.kitty_holder, v.turn, v.escaped, v.flip_decider) == (
                    hand.dealer, hand.dealer_side, hand.burier, hand.turn, hand.escaped, hand.flip_decider)
                assert (v.trick_points, v.threshold, v.result, v.trump_known) == (
                    hand.trick_points, hand.threshold, hand.result, hand.trump_decided)
                assert v.to_act == tuple(sorted(hand.to_act()))
                assert v.hand_sizes == tuple(len(h) for h in hand.hands)
                assert v.hand == (tuple(hand.hands[viewer]) if viewer is not None else ())
                assert (v.current, v.tricks, v.adjustments, v.notices) == (
                    tuple(hand.current), tuple(hand.tricks), tuple(hand.adjustments), tuple(hand.notices))
                assert v.flipped == tuple(c for _s, c in hand.flipped)
                assert v.flipped_by == tuple(s for s, _c in hand.flipped)
                assert v.bid_history == hand.bid_history
                assert v.passed == (tuple(sorted(hand.passed)) if hand.phase == "bidding" else ())
            hand.apply(action)


def test_a_redealt_hand_shows_nobody_its_kitty() -> None:
    """Hand 1 with no bid is dealt again: its kitty was never played for, and stays hidden."""
    h = new_hand("yancheng", seed=11)
    run(h, all_pass_bidding())
    assert h.phase == "redeal" and h.over
    assert all(view_for(h, v).kitty is None for v in (None, 0, 1, 2, 3))
    assert view_for(h, None).to_act == () and view_for(h, None).turn is None


def test_the_kitty_passed_on_twice_names_both_takers() -> None:
    """A seat whose buried kitty two others took in turn sees both of them among the takers."""
    h = new_hand("nantong", deal=full_deal({0: "2D 2D", 2: "2C 2C", 3: "BJ BJ"}, seed=7))
    h.bid(0, cards("2D 2D"))
    h.close()
    dealer_buried = _nonbid(h.hands[0])
    h.bury(0, dealer_buried)
    h.pass_steal(1)
    h.steal(2, cards("2C 2C"))
    h.bury(2, _nonbid(h.hands[2]))
    h.steal(3, cards("BJ BJ"))
    seen = view_for(h, 0)
    assert Counter(seen.passed_kitty) == Counter(dealer_buried) and seen.kitty_takers == (2, 3)


def test_a_flip_an_escape_and_a_result_reach_the_view() -> None:
    """The fields that a random hand seldom fills: who flipped the deciding card, who escaped, the result."""
    h = new_hand("anhui", deal=full_deal({"kitty": "3C 9D 2H 4S 7S 8S 9S JS"}, seed=5))
    run(h, all_pass_bidding())
    assert h.flip_decider == 2
    assert all(view_for(h, v).flip_decider == 2 for v in (None, 0, 1, 2, 3))
    h.bury(h.dealer, h.hands[h.dealer][:8])
    h.escape(1)
    assert h.phase == "abandoned"
    for v in (None, 0, 1, 2, 3):
        view = view_for(h, v)
        assert view.escaped == 1 and view.result is h.result and view.result is not None
        assert view.to_act == () and view.turn is None


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The types of a record's fields as its source writes them (``typing.get_type_hints``, but a record of a
    compiled module keeps only the runtime classes, ``tuple`` for ``tuple[Card, ...]``)."""
    module = sys.modules[cls.__module__]
    assert module.__file__ is not None
    source = Path(module.__file__).with_name(cls.__module__.rpartition(".")[2] + ".py").read_text(encoding="utf-8")
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return {item.target.id: eval(ast.unparse(item.annotation), vars(module))  # noqa: S307 (the engine's source)
            for item in node.body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)}


def _plain(value: Any, hint: Any) -> Any:
    """The JSON form a view promises for a value of type ``hint``: cards in notation, tuples as lists, records
    with their own ``to_dict`` in that form, other records as a dict of their fields under their own names."""
    if value is None:
        return None
    if get_origin(hint) in (Union, types.UnionType):
        hint = next(a for a in get_args(hint) if a is not type(None))
    args = get_args(hint)
    if get_origin(hint) is tuple:
        if args == (Card, ...):
            return format_cards(value)
        if len(args) == 2 and args[1] is Ellipsis:
            return [_plain(v, args[0]) for v in value]
        return [_plain(v, a) for v, a in zip(value, args, strict=True)]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if dataclasses.is_dataclass(value):
        hints = _hints(type(value))
        return {f.name: _plain(getattr(value, f.name), hints[f.name]) for f in dataclasses.fields(value)}
    return value


def _cards_in(value: Any) -> set[Card]:
    """Every card anywhere in a value (records, tuples), whichever field holds it."""
    if isinstance(value, Card):
        return {value}
    if isinstance(value, tuple):
        return set().union(*(_cards_in(v) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(_cards_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return set()


def test_the_json_form_and_the_visible_cards_cover_every_field() -> None:
    """At every step of whole hands (hidden bidding, steals, the end) and for every viewer: ``to_dict`` holds
    each field under its name in its plain form, and ``visible_cards`` (what the leak tests read) names every
    card the view holds in any field."""
    hints = _hints(HandView)
    for preset, seed in (("yancheng", 3), ("nantong", 5), ("anhui", 2)):
        hand = Hand(HandSetup(RULESETS[preset], seed))

        def check() -> None:
            for viewer in (None, 0, 1, 2, 3):
                v = view_for(hand, viewer)
                expected = {f.name: _plain(getattr(v, f.name), hints[f.name]) for f in dataclasses.fields(v)}
                assert v.to_dict() == expected
                assert json.loads(json.dumps(v.to_dict())) == expected
                assert set(v.visible_cards()) == _cards_in(v)

        for action in actions(hand, [random_action] * 4, random.Random(seed)):
            check()
            hand.apply(action)
        assert hand.over
        check()
