"""bench/bench_ai.py's pieces: a long duel played from several first deals and merged."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_ai import merge, parts  # noqa: E402
from engine.ai import casual_action, heuristic_action  # noqa: E402
from engine.ruleset import RULESETS  # noqa: E402
from engine.selfplay import duel, margin_line  # noqa: E402


def _piece(name: str, first_deal: int, deals: int, seed: int = 7) -> dict[str, dict[str, Any]]:
    """What ``bench_ai --first-deal F --save`` writes for one preset (with the cheap heuristic player)."""
    tally = duel(RULESETS[name], 4 * deals, seed, heuristic_action, casual_action, first=4 * first_deal)
    return {name: {"won": tally.deal_wins, "score": tally.deal_scores, "seed": seed, "first_deal": first_deal}}


def test_pieces_merged_in_any_order_give_the_whole_duel() -> None:
    whole = duel(RULESETS["xin"], 20, 7, heuristic_action, casual_action)
    merged = merge([_piece("xin", 3, 2), _piece("xin", 0, 3)])["xin"]
    assert merged.deal_wins == whole.deal_wins and merged.deal_scores == whole.deal_scores
    assert margin_line(merged, "xin") == margin_line(whole, "xin")


def test_pieces_that_overlap_leave_a_gap_or_mix_seeds_are_refused() -> None:
    with pytest.raises(SystemExit, match="starts at deal 2"):
        merge([_piece("xin", 0, 3), _piece("xin", 2, 1)])
    with pytest.raises(SystemExit, match="starts at deal 4"):
        merge([_piece("xin", 0, 3), _piece("xin", 4, 1)])
    with pytest.raises(SystemExit, match="mix seeds"):
        merge([_piece("xin", 0, 1), _piece("xin", 1, 1, seed=8)])


def test_parts_start_at_the_first_deal() -> None:
    assert parts(40, 2, first_deal=10) == [(40, 20), (60, 20)]
    assert parts(40, 1, first_deal=3) == [(12, 40)]
