"""The engine's speed where the AI spends its time, in CPU seconds, for a given code tree.

    python bench/bench_speed.py [--tree DIR] [--random-hands N] [--casual-hands N] [--strong-hands N]
                                [--deals D] [--seed S] [--preset NAME ...] [--repeat R]
                                [--only random|casual|strong ...] [--profile random|casual|strong]

Three figures, each over every preset (or those named):

* **random legal**: whole hands of self-play (:func:`engine.selfplay.self_play`)
  by four random legal players, in hands per CPU second: the engine's own
  speed (every action checked and applied, a view built for each decision),
  and a checksum of the hands' tallies (points, levels, wins: equal from two
  trees, they played the same hands);
* **casual AI**: the same with four casual players;
* **strong search**: hands of the duel ``bench/bench_ai.py`` plays (the strong
  player against the frozen baseline, hands 0 … N-1 of the seed), the strong
  player with ``--deals`` sampled deals a play and no time budget, so the work
  is the same on any machine: the deals it sampled (sampled worlds) and the
  rollouts it played, each per CPU second, and a checksum of the strong side's
  actions (equal checksums from two trees: they played the same).

``--tree DIR`` measures the engine of another checkout (say ``/work/main``
for "before"): its directory goes first on the import path.  Run "before"
and "after" one after the other in the same session, on a shared machine
with ``--repeat`` (the fastest run is printed); CPU time (this process's own) barely moves when other
work shares the cores, wall-clock time does.  ``--profile`` runs one of the
three under :mod:`cProfile` instead and prints its top entries by own time.
It prints figures and asserts nothing.

A tree whose engine was compiled in place (``CHAODIPI_MYPYC=1 python
setup.py build_ext --inplace``, README "How many tables one bot hosts") is
measured compiled: the first line counts the engine's compiled modules.
The engine's sources alone are measured from a checkout without them (delete
the ``*.so`` files, or measure a pure checkout with ``--tree``).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import inspect
import math
import os
import platform
import pstats
import random
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--tree", default=HERE, help="the checkout whose engine is measured")
    parser.add_argument("--random-hands", type=int, default=200, help="random legal hands per preset")
    parser.add_argument("--casual-hands", type=int, default=60, help="casual AI hands per preset")
    parser.add_argument("--strong-hands", type=int, default=1, help="strong duel hands per preset")
    parser.add_argument("--deals", type=int, default=4, help="the strong player's sampled deals a play")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--preset", nargs="*", default=None, help="presets (default: all seven)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each figure; the fastest is printed")
    parser.add_argument("--only", nargs="*", choices=("random", "casual", "strong"), default=None,
                        help="these figures only")
    parser.add_argument("--profile", choices=("random", "casual", "strong"), default=None)
    parser.add_argument("--top", type=int, default=25, help="profile entries printed")
    return parser.parse_args(argv)


def selfplay_rate(presets: list[str], hands: int, seed: int, player: Any) -> tuple[int, float, str]:
    """Hands played, CPU seconds taken and a checksum of the tallies (their figures but the time),
    for ``hands`` hands of each preset with four ``player`` seats."""
    from engine.ruleset import RULESETS
    from engine.selfplay import self_play

    played = 0
    digest = hashlib.sha256()
    started = time.process_time()
    for name in presets:
        tally = self_play(RULESETS[name], hands, seed, player=player)
        played += tally.hands
        tally.seconds = 0.0
        digest.update(repr(tally).encode())
    return played, time.process_time() - started, digest.hexdigest()[:16]


def strong_rate(presets: list[str], hands: int, seed: int, deals: int) -> tuple[int, int, int, str, float]:
    """Deals sampled, rollouts, strong decisions, the strong side's actions' checksum, CPU seconds."""
    import engine.ai.search as search
    from engine.ai import casual_action, strong_player
    from engine.ruleset import RULESETS
    from engine.selfplay import duel

    counts = {"deals": 0, "rollouts": 0, "decisions": 0}
    digest = hashlib.sha256()
    sample, rollout = search.sample_world, search.rollout_value

    def sampled(*args: Any, **kwargs: Any) -> Any:
        world = sample(*args, **kwargs)
        counts["deals"] += world is not None
        return world

    def rolled(*args: Any, **kwargs: Any) -> Any:
        counts["rollouts"] += 1
        return rollout(*args, **kwargs)

    # The same search in every tree: four plays compared, as at 0823a46 (a tree since compiles to compare six).
    same = {"candidates": 4} if "candidates" in inspect.signature(strong_player).parameters else {}
    player = strong_player(deals=deals, budget=math.inf, **same)

    def strong(view: Any, ruleset: Any, rng: random.Random) -> Any:
        action = player(view, ruleset, rng)
        counts["decisions"] += 1
        digest.update(repr(action).encode())
        return action

    search.sample_world, search.rollout_value = sampled, rolled  # type: ignore[assignment]
    started = time.process_time()
    try:
        for name in presets:
            duel(RULESETS[name], hands, seed, strong, casual_action, names=("strong", "baseline"))
    finally:
        search.sample_world, search.rollout_value = sample, rollout  # type: ignore[assignment]
    cpu = time.process_time() - started
    return counts["deals"], counts["rollouts"], counts["decisions"], digest.hexdigest()[:16], cpu


def main(argv: list[str] | None = None) -> None:
    """Print the three figures (or one profile) for the tree."""
    args = parse(argv)
    tree = os.path.abspath(args.tree)
    sys.path.insert(0, tree)
    import engine
    from engine.ai import casual_action, random_action
    from engine.ruleset import RULESETS
    presets = args.preset or sorted(RULESETS)
    compiled = sum(not module.__file__.endswith(".py") for name, module in list(sys.modules.items())
                   if name.startswith("engine.") and module.__file__ is not None)
    print(f"engine from {os.path.dirname(os.path.abspath(engine.__file__))} ({compiled} modules loaded compiled); "
          f"python {platform.python_version()}; {len(presets)} presets, seed {args.seed}", flush=True)
    jobs = {
        "random": lambda: selfplay_rate(presets, args.random_hands, args.seed, random_action),
        "casual": lambda: selfplay_rate(presets, args.casual_hands, args.seed, casual_action),
        "strong": lambda: strong_rate(presets, args.strong_hands, args.seed, args.deals),
    }
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(jobs[args.profile])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
        return
    only = args.only or ["random", "casual", "strong"]
    for kind in ("random", "casual"):
        if kind in only:
            runs = [jobs[kind]() for _ in range(args.repeat)]
            hands, cpu, checksum = min(runs, key=lambda run: run[1])
            print(f"{kind + (' legal' if kind == 'random' else ' AI') + ':':<13} {hands} hands in {cpu:.2f} s CPU: "
                  f"{hands / cpu:.1f} hands per CPU second (tallies {checksum})", flush=True)
    if "strong" in only:
        found = [strong_rate(presets, args.strong_hands, args.seed, args.deals) for _ in range(args.repeat)]
        deals, rollouts, decisions, checksum, cpu = min(found, key=lambda run: run[4])
        print(f"strong:       {deals} deals, {rollouts} rollouts, {decisions} decisions in {cpu:.2f} s CPU: "
              f"{deals / cpu:.1f} deals and {rollouts / cpu:.1f} rollouts per CPU second (plays {checksum})",
              flush=True)


if __name__ == "__main__":
    main()
