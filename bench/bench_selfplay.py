"""Full self-play hands per second for each preset, in one process.

    python bench/bench_selfplay.py [--hands N] [--seed S] [--repeat R] [--random] [--preset NAME ...]

Each hand is played by four casual AI seats (with ``--random``, four random
legal players: the engine's own speed, almost nothing spent deciding) through the engine (every action
checked and applied, views built for each decision), as
``python -m engine.selfplay`` plays them.  The best of R runs is reported,
since a shared machine only ever makes a run slower; hands per CPU second
(this process's own time) is printed beside it, as it barely moves when
other work shares the cores.  It prints figures and asserts nothing about
time.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import casual_action, random_action  # noqa: E402
from engine.ruleset import RULESETS  # noqa: E402
from engine.selfplay import self_play  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per preset and run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per preset; the best is reported")
    parser.add_argument("--preset", nargs="*", default=list(RULESETS))
    parser.add_argument("--random", action="store_true", help="four random legal players instead of the AI")
    args = parser.parse_args()
    player = random_action if args.random else casual_action
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; "
          f"{args.hands} hands per run, best of {args.repeat}, {'random legal' if args.random else 'casual AI'} seats")
    print(f"{'preset':<10} {'hands/s':>8} {'ms/hand':>8} {'cpu h/s':>8}  runs (hands/s)")
    for name in args.preset:
        rates = []
        cpu_rates = []
        for run in range(args.repeat):
            cpu = time.process_time()
            tally = self_play(RULESETS[name], args.hands, args.seed + run, player=player)
            cpu_rates.append(tally.hands / (time.process_time() - cpu))
            rates.append(tally.hands / tally.seconds)
        best = max(rates)
        print(f"{name:<10} {best:8.1f} {1000 / best:8.2f} {max(cpu_rates):8.1f}  "
              + " ".join(f"{r:.1f}" for r in rates))

if __name__ == "__main__":
    main()
