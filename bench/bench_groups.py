"""Figures for a group that removes the bot mid-hand (issue 54): calls to it afterwards, task failures.

For each way the bot learns of it (the ``my_chat_member`` update, or only a
403 on its next call there), the real bot plays two tables against the fake
Telegram: one person and three casual AI seats in each of two groups.
Mid-hand one group removes the bot; then, for ``--window`` seconds (60 by
default), the other table keeps playing hands (to its match's end, then the
bot idles out the window).  Printed: the calls made to
the lost group after the removal (by method and answer) and when the last
one went, the supervised tasks that failed in the window, whether ``/health``
stayed ok, and the update kinds the bot asks Telegram for.

    PYTHONPATH=. python bench/bench_groups.py [--window 60]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from pathlib import Path

from bot.updates import UPDATE_KINDS
from tests.e2e.botkit import bot_running, tables
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits
from tests.e2e.scenario import hint_and_do, play_hand
from tests.e2e.test_groups_as_they_are import settled, table_of_one, told_privately


async def one_run(told: bool, window: float) -> str:
    """One removal; the figures as a line."""
    async with FakeTelegram(limits=FloodLimits.unlimited()) as server:
        alice = server.person("Alice", "alice", started=True)
        bob = server.person("Bob", "bob", started=True)
        mallory = server.person("Mallory", "mallory", started=True)
        lost = server.group("Lost group", [alice, mallory], creator=mallory)
        other = server.group("Other group", [bob])
        with tempfile.TemporaryDirectory() as tmp:
            async with bot_running(server, Path(tmp) / "b.db") as app:
                table = await table_of_one(server, app, alice, lost, 3)
                kept = await table_of_one(server, app, bob, other, 4)
                await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
                await settled(server, app)
                failed_before = tables(app).tasks.summary()["failed"]
                mark, removed_at = server.calls.mark(), server.clock()
                lost.remove_bot(by=mallory, tell=told)
                if not told:
                    await hint_and_do(server, alice, table, 0)
                await server.wait_for(lambda: told_privately(alice, "Lost group"), what="Alice told")
                started, hands = time.monotonic(), 0
                while time.monotonic() - started < window and kept.match is not None and not kept.match.over:
                    await play_hand(server, kept, {0: bob})
                    hands += 1
                # The rest of the window with the bot running: whatever kept failing would fail again now.
                await asyncio.sleep(max(0.0, window - (time.monotonic() - started)))
                await settled(server, app)
                after = [r for r in server.calls.since(mark) if r.chat_id == lost.id]
                last = max((r.at for r in after), default=removed_at) - removed_at
                kinds = Counter(f"{r.method} {r.status}" for r in after)
                failed = tables(app).tasks.summary()["failed"] - failed_before
                ok = app.bot_data["health"].status()["ok"]
                return (f"{'my_chat_member' if told else 'only a 403    '}: {len(after)} call(s) to the lost group "
                        f"after removal {dict(kinds)}, the last {last:.2f} s after it; task failures in the "
                        f"{time.monotonic() - started:.0f} s after: {failed}; /health ok: {ok}; the other table "
                        f"played {hands} hand(s) meanwhile")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--window", type=float, default=60.0, help="seconds the other table plays on")
    args = parser.parse_args()
    for told in (True, False):
        print(await one_run(told, args.window), flush=True)
    print("update kinds asked for:", [str(kind) for kind in UPDATE_KINDS])


if __name__ == "__main__":
    asyncio.run(main())
