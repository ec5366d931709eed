"""After a long Telegram outage the bot polls again within a second or two, not up to 30 s later.

python-telegram-bot's polling loop waits longer after each failed
``getUpdates`` (1, 1.5, 2.25 … up to 30 s) unless the failure is a timeout.
After an outage of a minute or more the bot would then sit out most of 30 s
while Telegram is back, every press of every table unanswered meanwhile
(``bench/bench_faults.py`` measured 25 s after 120 and 300 s outages).  The
bot's polling request turns an unreachable Telegram into a pause of a second
and a timeout, which the loop retries at once.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from .botkit import bot_running, tables
from .fake_telegram import FakeTelegram, FloodLimits

OUTAGE = 15.0
"""Seconds of 502 answers before the outage ends (at the next failed poll): the library's back-off has
reached 7.6 s by then, and would wait 11.4 s after that poll."""


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_bot_polls_again_within_seconds_of_the_end_of_a_long_outage(fake_telegram: FakeTelegram,
                                                                              tmp_path: Path) -> None:
    server = fake_telegram
    async with bot_running(server, tmp_path / "t.db") as app:
        await server.set_outage("502")
        await server.wait_for(lambda: "telegram" in tables(app).faults.open, timeout=10, what="the outage noticed")
        await asyncio.sleep(OUTAGE)
        # Telegram comes back just after a poll failed: the worst moment for a growing back-off.
        fault = tables(app).faults.open["telegram"]
        failures = fault.failures
        await server.wait_for(lambda: fault.failures > failures, timeout=30, what="the next failed poll")
        mark = server.calls.mark()
        ended = time.monotonic()
        await server.set_outage(None)
        poll = await server.wait_for_call("getUpdates", after=mark, timeout=40)
        assert poll.at - ended < 2.5, f"the bot polled again {poll.at - ended:.1f} s after Telegram was back"
