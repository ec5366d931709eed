"""bench/bench_league.py runs, on a small league (its figures are printed, never asserted)."""

from __future__ import annotations

import argparse
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_league import main  # noqa: E402

# A request the bench sends runs in a thread of its own: a refused one (a 5xx) raises there, and must fail the
# test, not only warn (every one of its requests was refused once, and the test passed).
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")


async def test_the_league_bench_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    await main(argparse.Namespace(hands=300, others=1, other_hands=100, repeat=1))
    out = capsys.readouterr().out
    assert "built: 300 hands in the group" in out
    for line in ("storage, the season's lines and partnerships", "table counted, picture kept",
                 "table and picture kept", "table counted, picture drawn"):
        assert line in out, line
    assert "PNG " in out and "1200×" in out


async def test_the_league_bench_prints_the_cost_of_a_league_and_the_other_tables_moves(
        capsys: pytest.CaptureFixture[str]) -> None:
    await main(argparse.Namespace(sizes=[300], others=1, other_hands=100, repeat=1, seconds=0.3))
    out = capsys.readouterr().out
    assert "300 hands in the group" in out
    for line in ("league page (cur): cold", "league page (all): cold", "league picture (all): cold",
                 "no league request:", "4 stretch=all page requests at a time, kept answers:",
                 "each after a hand ended (cold):", "the league reading on the main connection:"):
        assert line in out, line
