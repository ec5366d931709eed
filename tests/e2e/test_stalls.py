"""A stall of the bot is not a timeout: a deadline that passed while the event loop was frozen gets a grace.

The bot's whole process stops for longer than a turn (here the event loop
is blocked, as SIGSTOP or a machine under water would stop it).  When it
runs again the turn has run out; but the person could not play meanwhile,
so the group is reminded and the turn gets the reminder's time more; only
then does the timeout come.  The test proves it by state and order: the
timeout is of a later deadline than the one that passed, and comes after the
reminder went out.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from bot.model import PACES, Pace
from bot.tables import turns

from .botkit import bot_running
from .fake_telegram import FakeTelegram, FloodLimits
from .scenario import announced, choose_setting, fill_with_ai, play_until, start_match, wait_seated

GRACE = 4.0


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_deadlines_that_passed_during_a_freeze_get_a_grace_period(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Frozen", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await fill_with_ai(server, ann, group, 3)
        await choose_setting(server, ann, group, "strength", "casual")
        table = await start_match(server, app, ann, group, seed_index=3)
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0
                         and len(h.tricks) >= 1)
        # From her next turn on, a turn is 6 s, reminded 4 s before its end.
        monkeypatch.setitem(PACES, "realtime", Pace(turn=6, bidding=6, reminder=GRACE))
        monkeypatch.setattr(turns, "STALL", 1.0)
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0
                         and table.deadline is not None and table.deadline - time.time() > 5)
        deadline = table.deadline
        assert deadline is not None
        # When the timer times the turn out: the deadline it ran out at, and the calls made so far.
        timed_out: list[tuple[float | None, int]] = []
        time_out = turns.time_out

        async def recorded_time_out(house, table):  # type: ignore[no-untyped-def]
            timed_out.append((table.deadline, server.calls.mark()))
            await time_out(house, table)
        monkeypatch.setattr(turns, "time_out", recorded_time_out)
        mark = server.calls.mark()
        caplog.set_level(logging.WARNING, logger="bot.tables.turns")
        time.sleep(deadline - time.time() + 3)  # the whole process stops: the deadline passes meanwhile
        await server.wait_for(lambda: announced(group, "ran out of time"), timeout=GRACE + 15,
                              what="the timeout after the grace")
        sent = [(c.seq, c.params.get("text") or "") for c in server.calls.since(mark)
                if c.method == "sendMessage" and c.chat_id == group.id]
        reminders = [seq for seq, text in sent if "⏰" in text]
        timeouts = [seq for seq, text in sent if "ran out of time" in text]
        assert reminders and timeouts and reminders[-1] < timeouts[0], sent
        # Not the deadline that passed in the freeze timed her out, but the grace given when the bot ran again,
        # and only after the reminder that gave it was on Telegram.
        assert len(timed_out) == 1, timed_out
        ran_out_at, calls_then = timed_out[0]
        assert ran_out_at is not None and ran_out_at > deadline, (ran_out_at, deadline)
        assert reminders[-1] <= calls_then, (reminders, calls_then)
        assert "while the bot stalled" in caplog.text  # the grace's reason, not a clock started again
