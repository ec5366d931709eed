"""A stall of the bot is not a timeout: a deadline that passed while the event loop was frozen gets a grace.

The bot's whole process stops for longer than a turn (here the event loop
is blocked, as SIGSTOP or a machine under water would stop it).  When it
runs again the turn has run out; but the person could not play meanwhile,
so the group is reminded and the turn gets the reminder's time more; only
then does the timeout come.
"""

from __future__ import annotations

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
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
        mark = server.calls.mark()
        time.sleep(deadline - time.time() + 3)  # the whole process stops: the deadline passes meanwhile
        await server.wait_for(lambda: announced(group, "ran out of time"), timeout=GRACE + 15,
                              what="the timeout after the grace")
        sent = [(c.at, c.params.get("text") or "") for c in server.calls.since(mark)
                if c.method == "sendMessage" and c.chat_id == group.id]
        reminders = [at for at, text in sent if "⏰" in text]
        timeouts = [at for at, text in sent if "ran out of time" in text]
        assert reminders and timeouts and reminders[-1] < timeouts[0], sent
        # The timeout waited for the grace after the reminder sent when the bot ran again.
        assert timeouts[0] - reminders[-1] >= GRACE - 1.0, sent
