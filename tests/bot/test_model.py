"""bot/model.py: a table's settings as stored (round trip, defaults of old rows, values no longer known), the
keyboard's version strings (they live on in buttons already sent, so their form is pinned), and the thinking
line's edge."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.model import THINKING, TableSettings
from engine.cards import Card
from engine.hand import Action

from . import builders as T


def test_settings_survive_a_round_trip_through_storage() -> None:
    chosen = TableSettings(preset="yangzhou", hidden=True, pace="daily", on_timeout="escape", ai_strength="casual",
                           returns="now")
    assert chosen.to_dict() == {"preset": "yangzhou", "hidden": True, "pace": "daily", "on_timeout": "escape",
                                "ai_strength": "casual", "returns": "now"}
    assert TableSettings.from_dict(chosen.to_dict()) == chosen
    assert TableSettings.from_dict(TableSettings().to_dict()) == TableSettings()


def test_a_row_stored_before_a_setting_existed_gets_what_those_tables_played() -> None:
    assert TableSettings.from_dict({}) == TableSettings(preset="yancheng", hidden=None, pace="realtime",
                                                        on_timeout="ai", ai_strength="casual", returns="next")


@pytest.mark.parametrize("key, value, default", [
    ("preset", "atlantis", "yancheng"), ("pace", "warp", "realtime"), ("on_timeout", "explode", "ai"),
    ("ai_strength", "godlike", "casual"), ("returns", "never", "next"),
])
def test_a_value_no_longer_known_falls_back_to_the_default(key: str, value: str, default: str) -> None:
    stored = {**TableSettings(preset="nantong", pace="relaxed", on_timeout="escape", ai_strength="strong",
                              returns="now").to_dict(), key: value}
    attribute = {"ai_strength": "ai_strength"}.get(key, key)
    assert getattr(TableSettings.from_dict(stored), attribute) == default


def test_hidden_bidding_is_chosen_only_where_the_preset_lets_the_table_choose() -> None:
    assert TableSettings("yangzhou", hidden=True).ruleset().hidden_bidding is True
    assert TableSettings("yangzhou", hidden=False).ruleset().hidden_bidding is False
    assert TableSettings("yangzhou").ruleset() == TableSettings("yangzhou", hidden=None).ruleset()
    assert TableSettings("yancheng", hidden=False).ruleset().hidden_bidding is True  # 暗炒 is 盐城's own
    assert TableSettings("nantong", hidden=True).ruleset().hidden_bidding is False  # 明炒 is 南通's own


def test_keyboard_versions_keep_their_form() -> None:
    table = T.make_table("yancheng", 1)
    assert table.match is not None
    hand = table.match.hand
    assert hand.phase == "bidding"
    size = len(hand.hands[0])
    assert table.hand_version(0) == f"{table.match.deals}.{size}.d"
    assert table.version(0) == f"{table.match.deals}.{size}.d.0"
    hand.apply(Action("pass", 0))
    assert table.version(0) == f"{table.match.deals}.{size}.d.0p"  # passed in this round
    assert table.version(1) == f"{table.match.deals}.{len(hand.hands[1])}.d.0"
    table.match = None
    assert table.version(0) == "0" and table.hand_version(0) == "0"


def test_each_seat_has_its_own_selection_and_a_reader_gets_a_copy() -> None:
    table = T.make_table("yancheng", 1)
    table.presses.toggle(0, Card.parse("5H"), 0, held=2)
    assert table.selected(0) == Counter({Card.parse("5H"): 1}) and table.selected(1) == Counter()
    table.selected(0)[Card.parse("5H")] += 1  # a reader's copy: the table's selection is not changed by it
    assert table.selected(0) == Counter({Card.parse("5H"): 1})


def test_the_thinking_line_starts_at_the_mark_of_the_shown_turn() -> None:
    table = T.make_table("yancheng", 1)
    think = THINKING[table.settings.pace]
    assert not table.thinking(10_000.0)  # not shown yet: nobody has been thinking
    table.turn_shown = 1000.0
    assert not table.thinking(1000.0 + think - 0.001)
    assert table.thinking(1000.0 + think)  # exactly the mark: the line shows
    table.turn_shown = 0.5  # shown at any moment after the epoch counts
    assert table.thinking(0.5 + think)
