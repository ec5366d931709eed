"""What a busy host does to the strong player's searches: deals sampled and seconds a play, a core shared k ways.

    python bench/bench_load.py [--shares 1,3] [--every 9] [--preset NAME ...]

A core shared k ways is simulated without loading the machine: the
player's clock runs k times this process's CPU time, so a search's budget
and cap pass k times sooner than its work.  Positions are every
``--every``-th play of heuristic self-play (seeds 1 and 2 a preset).  For
each share it plays every position with the budget counted in time alone
(``StrongPlayer(cap=None)``, before issue 56) and counted in work (the
default cap), and prints the deals sampled a searched play (mean, median,
fewest) and the seconds a play took on that clock (p50, p95, max).  It
prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import engine.ai.search as search  # noqa: E402
from engine.ai import DEFAULT_CAP, StrongPlayer, heuristic_action  # noqa: E402
from engine.hand import Hand, HandSetup  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402


def positions(presets: list[str], every: int) -> list[tuple[HandView, Ruleset]]:
    """Every ``every``-th play of heuristic self-play, seeds 1 and 2 of each preset."""
    out: list[tuple[HandView, Ruleset]] = []
    heuristic = [lambda v, r, _g: heuristic_action(v, r)] * 4
    for preset in presets:
        for seed in (1, 2):
            hand = Hand(HandSetup(RULESETS[preset], seed, 2, (5, 5), 0, 0))
            for k, action in enumerate(actions(hand, heuristic, random.Random(seed))):
                if hand.phase == "playing" and hand.turn is not None and k % every == 0:
                    out.append((view_for(hand, hand.turn), hand.ruleset))
                hand.apply(action)
    return out


def searched(found: list[tuple[HandView, Ruleset]], share: float,
             cap: float | None) -> tuple[list[int], list[float]]:
    """Deals each searched play sampled, and the seconds every play took, on a clock ``share`` times the CPU's."""
    clock: Callable[[], float] = lambda: share * time.process_time()  # noqa: E731
    player = StrongPlayer(clock=clock, cap=cap)
    sampled = [0]
    real = search.sample_world

    def counting(*args: Any) -> Any:
        world = real(*args)
        sampled[0] += world is not None
        return world

    deals: list[int] = []
    seconds: list[float] = []
    search.sample_world = counting  # type: ignore[assignment]
    try:
        for view, ruleset in found:
            sampled[0] = 0
            started = clock()
            player(view, ruleset)
            seconds.append(clock() - started)
            if sampled[0]:
                deals.append(sampled[0])
    finally:
        search.sample_world = real  # type: ignore[assignment]
    return deals, sorted(seconds)


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--shares", default="1,3", help="ways a core is shared (the clock's speed-up)")
    parser.add_argument("--every", type=int, default=9)
    parser.add_argument("--preset", nargs="*", default=["yancheng", "xin", "nantong", "anhui"])
    args = parser.parse_args()
    found = positions(args.preset, args.every)
    for share in (float(s) for s in args.shares.split(",")):
        for label, cap in (("time budget", None), ("work budget", DEFAULT_CAP)):
            deals, secs = searched(found, share, cap)
            print(f"core shared {share:g} ways, {label}: {len(deals)} searched plays of {len(found)}; deals a play "
                  f"mean {statistics.mean(deals):.1f}, median {statistics.median(deals):g}, fewest {min(deals)}; "
                  f"seconds a play p50 {secs[len(secs) // 2]:.2f}, p95 {secs[int(len(secs) * 0.95)]:.2f}, "
                  f"max {secs[-1]:.2f}", flush=True)


if __name__ == "__main__":
    main()
