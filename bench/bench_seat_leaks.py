"""Figures for issues 11 and 43: seats changing hands at random moments; private chats and app streams scanned.

Runs ``tests/e2e/seat_changes.seat_change_run`` (the real bot against the
fake Bot API on 127.0.0.1, with its web app; two people and two AI seats per
table; at a random moment of each hand a person leaves, leaves right after
their own move, times out or blocks the bot and later comes back, or the bot
restarts; people open and close the web app at random and move in it while
it is open) over seeded runs until at least ``--hands`` hands were dealt,
then prints the hands, seat changes, restarts, message versions, popups,
streams and stream frames scanned, and the leaks found.

    PYTHONPATH=. python bench/bench_seat_leaks.py --hands 200 [--strength casual]

Prints figures only; the CI-sized version is ``tests/e2e/test_seat_changes.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from collections import Counter
from pathlib import Path

from tests.e2e.fake_telegram import FakeTelegram, FloodLimits
from tests.e2e.seat_changes import seat_change_run


async def main(hands: int, per_run: int, seed: int, strength: str) -> int:
    """Run until ``hands`` hands were played; the number of leaks found."""
    totals = {"hands": 0, "runs": 0, "failed runs": 0, "seat changes": 0, "restarts": 0, "versions scanned": 0,
              "popups scanned": 0, "streams": 0, "frames scanned": 0, "leaks": 0}
    phases: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder:
        while totals["hands"] < hands:
            run = totals["runs"]
            totals["runs"] += 1
            try:
                async with FakeTelegram(limits=FloodLimits.unlimited()) as server:
                    figures = await seat_change_run(server, Path(folder) / f"run{run}.db", random.Random(seed + run),
                                                    hands=per_run, strength=strength)
            except (TimeoutError, AssertionError) as exc:  # the driver gave up (a loaded machine): count it
                totals["failed runs"] += 1
                print(f"run {run}: the driver gave up: {str(exc).splitlines()[0]}", flush=True)
                continue
            totals["hands"] += figures.hands
            totals["seat changes"] += figures.seat_changes
            totals["restarts"] += figures.restarts
            totals["versions scanned"] += figures.scanned
            totals["popups scanned"] += figures.popups
            totals["streams"] += figures.streams
            totals["frames scanned"] += figures.frames
            totals["leaks"] += len(figures.leaks)
            phases.update(figures.phases)
            for leak in figures.leaks[:3]:
                print("LEAK", leak)
            print(f"run {run}: {figures.hands} hands, {figures.seat_changes} seat changes, "
                  f"{figures.restarts} restarts, {figures.scanned} versions, {figures.streams} streams, "
                  f"{figures.frames} frames, {len(figures.leaks)} leaks", flush=True)
    print(" · ".join(f"{key}: {value}" for key, value in totals.items()))
    print("seat changes and restarts by phase:", ", ".join(f"{k} {v}" for k, v in sorted(phases.items())))
    return totals["leaks"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--per-run", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--strength", choices=("strong", "casual"), default="strong",
                        help="the AI seats' strength (casual plays at once: many more hands an hour)")
    args = parser.parse_args()
    raise SystemExit(1 if asyncio.run(main(args.hands, args.per_run, args.seed, args.strength)) else 0)
