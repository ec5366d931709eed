"""bench/bench_ai.py's pieces: a long duel played from several first deals, over several runs, and joined."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_ai import load, merge, parts, play_pieces  # noqa: E402

from engine.ai import casual_action, heuristic_action  # noqa: E402
from engine.ruleset import RULESETS  # noqa: E402
from engine.selfplay import duel, margin_line  # noqa: E402


def _piece(name: str, first_deal: int, deals: int, seed: int = 7) -> dict[str, dict[str, Any]]:
    """What ``bench_ai --first-deal F --save`` writes for one preset (with the cheap heuristic player)."""
    tally = duel(RULESETS[name], 4 * deals, seed, heuristic_action, casual_action, first=4 * first_deal)
    return {name: {"won": tally.deal_wins, "score": tally.deal_scores, "seed": seed, "first_deal": first_deal}}


def test_pieces_joined_in_any_order_give_the_whole_duel() -> None:
    whole = duel(RULESETS["xin"], 20, 7, heuristic_action, casual_action)
    merged = merge([_piece("xin", 3, 2), _piece("xin", 0, 3)])[0]["xin"]
    assert merged.deal_wins == whole.deal_wins and merged.deal_scores == whole.deal_scores
    assert margin_line(merged, "xin") == margin_line(whole, "xin")
    # A joined file next to the pieces it holds adds nothing twice.
    joined = {"xin": {"won": merged.deal_wins, "score": merged.deal_scores, "seed": 7, "first_deal": 0}}
    again = merge([joined, _piece("xin", 3, 2), _piece("xin", 0, 3)])[0]["xin"]
    assert again.deal_wins == whole.deal_wins and again.hands == 20


def test_joining_stops_at_a_gap() -> None:
    """A piece after a gap (one still being played) waits: the figures are those of the deals up to it."""
    tallies, left_out = merge([_piece("xin", 0, 3), _piece("xin", 4, 1), _piece("xin", 5, 1), _piece("anhui", 0, 1)])
    assert tallies["xin"].deal_wins == _piece("xin", 0, 3)["xin"]["won"] and tallies["xin"].hands == 12
    assert left_out == {"xin": [4, 5]} and tallies["anhui"].hands == 4


def test_pieces_that_disagree_or_mix_seeds_are_refused() -> None:
    twice = _piece("xin", 2, 1)
    twice["xin"]["score"][0] += 1
    with pytest.raises(SystemExit, match="disagree on deals from 2"):
        merge([_piece("xin", 0, 3), twice])
    with pytest.raises(SystemExit, match="mix seeds"):
        merge([_piece("xin", 0, 1), _piece("xin", 1, 1, seed=8)])


def test_parts_start_at_the_first_deal() -> None:
    assert parts(40, 2, first_deal=10) == [(40, 20), (60, 20)]
    assert parts(40, 1, first_deal=3) == [(12, 40)]


def _fake(calls: list[tuple[str, int]]) -> Any:
    def play(name: str, first: int) -> dict[str, dict[str, Any]]:
        calls.append((name, first))
        return {name: {"won": [2] * 5, "score": [first] * 5, "seed": 9, "first_deal": first}}
    return play


def test_pieces_advance_the_presets_together_and_go_on_where_they_stopped(tmp_path: Path) -> None:
    (tmp_path / "joined.json").write_text(json.dumps(
        {"xin": {"won": [1] * 10, "score": [0] * 10, "seed": 9, "first_deal": 0}}))
    (tmp_path / "anhui-9-0005.claim").mkdir()  # another process is playing it
    calls: list[tuple[str, int]] = []
    assert play_pieces(str(tmp_path), ["xin", "anhui"], 9, 5, 15, _fake(calls)) == 3
    assert calls == [("anhui", 0), ("xin", 10), ("anhui", 10)]
    assert play_pieces(str(tmp_path), ["xin", "anhui"], 9, 5, 15, _fake(calls)) == 0
    # Another process saves deals 20-24 under another name while this one plays 15-19: they are not played again.
    fake = _fake(calls)

    def play_while_another_saves(name: str, first: int) -> dict[str, dict[str, Any]]:
        (tmp_path / "by-hand.json").write_text(json.dumps(
            {"xin": {"won": [1] * 5, "score": [10] * 5, "seed": 9, "first_deal": 20}}))
        return fake(name, first)

    calls_before = len(calls)
    assert play_pieces(str(tmp_path), ["xin"], 9, 5, 25, play_while_another_saves) == 1
    assert calls[calls_before:] == [("xin", 15)]
    (tmp_path / "anhui-9-0005.claim").rmdir()  # that process stopped before saving it
    assert play_pieces(str(tmp_path), ["xin", "anhui"], 9, 5, 15, _fake(calls)) == 1
    assert calls[-1] == ("anhui", 5)
    assert not list(tmp_path.glob("*.claim")) and not list(tmp_path.glob("*.tmp"))
    tallies, left_out = merge(load([str(tmp_path)]))
    assert not left_out
    assert {name: t.hands for name, t in tallies.items()} == {"xin": 100, "anhui": 60}
    assert tallies["anhui"].deal_scores == [0] * 5 + [5] * 5 + [10] * 5
