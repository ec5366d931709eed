"""A short run of ``bench/bench_chaos.py``: people in three groups doing, at random, whatever their clients let
them (commands with odd arguments, old and forged buttons, settings, escapes, mutes, removals, topics closed,
the Mini App, clocks running out) across a restart, and the bot never logging an error, never answering
"Something went wrong", always settling and staying healthy.  The bench runs hundreds of steps a seed; this
is its smoke test, one seed of the seeds the bench ran clean."""

from __future__ import annotations

import pytest

from bench.bench_chaos import chaos_run


@pytest.mark.parametrize("seed", [12])
async def test_a_short_run_of_chaos_finds_nothing(seed: int) -> None:
    chaos, _warnings = await chaos_run(seed, 100, restarts=1)
    assert chaos.findings == []
    assert chaos.done["(nothing)"] < chaos.steps  # it did something
    assert chaos.hands  # a match was started
