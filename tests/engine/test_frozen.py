"""engine/frozen.py: a frozen dataclass built through its unfrozen twin is one like any other."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from engine.cards import parse_cards
from engine.frozen import builder
from engine.hand import Action, Event
from engine.views import BidView


def test_a_built_instance_is_the_frozen_class_equal_hashable_picklable_and_frozen() -> None:
    action = Action("play", 1, tuple(parse_cards("10H")))
    built = builder(Event)(3, action, {"trick": 2}, ())
    assert type(built) is Event and built == Event(3, action, {"trick": 2}, ())
    assert pickle.loads(pickle.dumps(built)) == built
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.seq = 4  # type: ignore[misc]
    bid = builder(BidView)(0, "declare", None, None, None, True)
    assert hash(bid) == hash(BidView(0, "declare", None, None, None, True))
    assert dataclasses.replace(bid, seat=2).seat == 2


def test_every_view_of_a_hand_is_a_frozen_handview_equal_to_one_built_by_its_constructor() -> None:
    """view_for builds its views through engine.frozen.builder: at every step of a hand, for every viewer."""
    import random

    from engine.ai import random_action
    from engine.hand import Hand, HandSetup
    from engine.ruleset import RULESETS
    from engine.selfplay import actions
    from engine.views import HandView, view_for

    hand = Hand(HandSetup(RULESETS["yancheng"], 3))
    for action in actions(hand, [random_action] * 4, random.Random(3)):
        for viewer in (None, 0, 1, 2, 3):
            view = view_for(hand, viewer)
            assert type(view) is HandView
            assert view == HandView(*(getattr(view, f.name) for f in dataclasses.fields(view)))
            with pytest.raises(dataclasses.FrozenInstanceError):
                view.viewer = viewer  # type: ignore[misc]
        hand.apply(action)


def test_a_splits_components_are_frozen_components_equal_to_ones_built_by_their_constructor() -> None:
    """decompose builds its components through engine.frozen.builder."""
    from engine.combos import Component, decompose
    from tests.engine._util import ctx

    for cards in ("5S", "3S 3S 4S 4S 9S KS KS AS", "2H 2H 5H 5H 6H"):
        comps = decompose(ctx("yancheng", "2", "S"), parse_cards(cards))
        for comp in comps:
            assert type(comp) is Component and comp == Component(comp.kind, comp.cards, comp.top)
            with pytest.raises(dataclasses.FrozenInstanceError):
                comp.top = 0  # type: ignore[misc]


def test_a_class_python_will_not_change_to_is_built_by_its_own_constructor() -> None:
    """Where the twin cannot become the class (a weak-reference slot here; a class compiled by mypyc, in the optional
    build, has a layout of its own), the builder is the class itself."""
    from engine.hand import Trick

    assert builder(Trick) is Trick
    assert builder(Event) is not Event
