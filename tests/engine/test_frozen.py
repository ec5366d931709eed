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
