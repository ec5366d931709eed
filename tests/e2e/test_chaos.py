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


async def test_a_stop_while_a_poll_is_answered_confirms_the_updates_fetched() -> None:
    """Seed 14 of the bench restarts the bot just as a long poll's answer arrives (httpx logs its 200 in the
    millisecond the stop begins): the library cancels that poll without awaiting it and at once sends the getUpdates that confirms
    the updates fetched.  With a single connection for getUpdates the cancelled poll still held it, so that
    call failed after the pool's timeout: an ERROR with a traceback and the fault "Telegram is unreachable",
    for nothing an operator could do."""
    chaos, _warnings = await chaos_run(14, 400, restarts=3, stop_after=64)
    assert chaos.done["restart"] == 1
    assert chaos.findings == []
