"""What ``Match.apply`` returns: a typed :class:`engine.match.Applied`, and actions dispatched by their kind."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.hand import Action
from engine.match import Applied, Match
from engine.ruleset import RULESETS


def test_an_action_inside_a_hand_gives_its_event_and_no_record() -> None:
    match = Match(RULESETS["yancheng"], 5)
    applied = match.apply(Action("pass", 0))
    assert isinstance(applied, Applied)
    assert applied.event.seq == 1 and applied.event.action == Action("pass", 0)
    assert applied.record is None and applied.notices == ()


def test_the_action_that_ends_a_hand_gives_its_record() -> None:
    match = Match(RULESETS["yancheng"], 5)
    hand = match.hand
    applied = match.apply(Action("escape", 2))
    assert applied.record is not None and applied.record.result is not None
    assert applied.record.result.escaped == 2 and applied.record.setup == hand.setup
    assert applied.event.info == {"escaped": 2}
    assert match.hand is not hand  # the next hand is dealt


def test_an_unknown_kind_is_refused_not_looked_up() -> None:
    match = Match(RULESETS["yancheng"], 5)
    with pytest.raises(IllegalActionError) as refused:
        match.apply(Action("check_bid", 0))  # type: ignore[arg-type]
    assert refused.value.code == "bad_action"
    assert not match.hand.can(Action("_do_close", 0))  # type: ignore[arg-type]
    assert match.hand.events == []
