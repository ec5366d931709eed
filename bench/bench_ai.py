"""The strong AI against the frozen baseline, with decision times per phase for both strengths.

    python bench/bench_ai.py [--hands N] [--seed S] [--first-deal F] [--deals D] [--budget SECONDS]
                             [--jobs J] [--save FILE] [--against FILE] [--preset NAME ...]
    python bench/bench_ai.py --merge FILE ...

For each preset it plays N hands as ``python -m engine.selfplay --vs-baseline`` does
(each deal four times: the strong AI on either side, either side dealing)
and prints the strong side's hands won and mean 积分 per hand with 95%
intervals (the deal as the unit), the habit counts of the tally and of each side, and the seconds each strength
took per decision, by phase (p50 / p95 / max), both wall-clock and in this
process's CPU time: on a shared machine the wall-clock figures are an upper
bound, the CPU ones what one free core would take (the strong player's time
budget is measured in this process's CPU time by default, ``--clock cpu``, so
that a loaded machine does not cut its searches short; ``--clock wall``
measures it as the bot does; ``--budget 0`` lifts the time limit, so that
the search samples its full deals and a run repeats exactly).
With ``--jobs`` J > 1 each preset's deals are shared out among J worker
processes (the same hands as with one: the parts follow the seed's sequence);
on a shared machine the decision times then include the workers' contention.
``--save`` writes each deal's hands won and 积分 to a JSON file, and
``--against`` a file saved by an earlier version on the same hands and seed
prints the change deal by deal with 95 % intervals over deals (as
``bench/bench_heuristics.py`` does for the heuristics alone).  With the search
the two versions part ways sooner, so the paired interval is less narrow
than the heuristics' is, but still narrower than comparing two runs' totals;
under a time budget even the same code plays a deal differently from run to
run (a search cut a world earlier), which ``--budget 0`` removes.
``--first-deal`` F starts at the seed's deal F (hand 4F), so that a long
duel (the issue's 1,000 deals a preset) can be played in pieces, on several
machines or over several days, each saved with ``--save``; ``--merge`` then
reads the pieces (of one seed, any presets), checks that they join without a
gap or an overlap, and prints each preset's hands won and mean 积分 per hand
with 95 % intervals over the deals played so far.
It prints figures and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from typing import Any
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import DEFAULT_BUDGET, DEFAULT_DEALS, Player, casual_action, strong_player  # noqa: E402
from engine.hand import Action  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import Tally, duel, margin_line, sides_line  # noqa: E402
from engine.views import HandView  # noqa: E402

from bench_heuristics import Deals, report  # noqa: E402

Times = dict[str, list[float]]


def timed(player: Callable[[HandView, Ruleset, random.Random], Action], times: Times) -> Player:
    """``player``, recording the seconds of each decision under its phase."""
    def play(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
        started = time.perf_counter()
        cpu = time.process_time()
        action = player(view, ruleset, rng)
        times.setdefault(view.phase, []).append(time.perf_counter() - started)
        times.setdefault(view.phase + " cpu", []).append(time.process_time() - cpu)
        return action
    return play


def quantiles(values: list[float]) -> str:
    """p50 / p95 / max in milliseconds."""
    v = sorted(values)
    return f"p50 {1000 * v[len(v) // 2]:.1f} ms, p95 {1000 * v[int(len(v) * 0.95)]:.1f} ms, max {1000 * v[-1]:.1f} ms"


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
"""What the strong player's time budget is measured in."""


def play_part(name: str, first: int, hands: int, seed: int, deals: int,
              clock: str = "cpu", budget: float = DEFAULT_BUDGET) -> tuple[Tally, Times, Times]:
    """Hands ``first`` … ``first + hands - 1`` of a preset's duel, with both strengths' decision times."""
    strong_times: Times = {}
    casual_times: Times = {}
    strong = timed(strong_player(deals=deals, budget=budget if budget > 0 else math.inf, clock=CLOCKS[clock]),
                   strong_times)
    casual = timed(casual_action, casual_times)
    tally = duel(RULESETS[name], hands, seed, strong, casual, names=("strong", "baseline"), first=first)
    return tally, strong_times, casual_times


def parts(hands: int, jobs: int, first_deal: int = 0) -> list[tuple[int, int]]:
    """(first hand, count) of each part, from deal ``first_deal``: whole deals of four hands, shared out evenly."""
    deals = -(-hands // 4)
    per = -(-deals // jobs)
    out = []
    for deal in range(0, deals, per):
        first = 4 * deal
        out.append((4 * first_deal + first, min(4 * per, hands - first)))
    return out


def merge(pieces: list[dict[str, dict[str, Any]]]) -> dict[str, Tally]:
    """Each preset's deals from saved pieces of one seed, joined in order of their first deal.

    Raises :class:`SystemExit` if the pieces mix seeds, overlap or leave a gap.
    """
    seeds = {piece["seed"] for saved in pieces for piece in saved.values()}
    if len(seeds) > 1:
        raise SystemExit(f"the pieces mix seeds {sorted(seeds)}")
    by_preset: dict[str, list[dict[str, Any]]] = {}
    for saved in pieces:
        for name, piece in saved.items():
            by_preset.setdefault(name, []).append(piece)
    tallies: dict[str, Tally] = {}
    for name, preset_pieces in by_preset.items():
        tally = Tally()
        for piece in sorted(preset_pieces, key=lambda p: p["first_deal"]):
            if piece["first_deal"] != len(tally.deal_wins):
                raise SystemExit(f"{name}: a piece starts at deal {piece['first_deal']}, "
                                 f"the pieces before it end at deal {len(tally.deal_wins)}")
            tally.deal_wins += piece["won"]
            tally.deal_scores += piece["score"]
        tally.hands = 4 * len(tally.deal_wins)
        tally.ai_wins = sum(tally.deal_wins)
        tally.ai_score = sum(tally.deal_scores)
        tallies[name] = tally
    return tallies


def print_merged(files: list[str]) -> None:
    """The merged figures of saved pieces (see :func:`merge`), a line per preset."""
    pieces = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            pieces.append(json.load(f))
    for name, tally in merge(pieces).items():
        print(margin_line(tally, name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100, help="hands per preset (a multiple of 4 balances roles)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first-deal", type=int, default=0, help="start at this deal of the seed (hand 4F)")
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS, help="the strong player's sampled deals")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1: play in this process)")
    parser.add_argument("--preset", nargs="*", default=list(RULESETS))
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="what the search's time budget is measured in (cpu: independent of the load)")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                        help="seconds a searched play may take (0: no limit, so that a run repeats exactly)")
    parser.add_argument("--save", help="write each deal's figures to this JSON file")
    parser.add_argument("--against", help="a file saved by an earlier run of this bench (same hands and seed)")
    parser.add_argument("--merge", nargs="+", metavar="FILE",
                        help="print the figures of pieces saved by runs of one seed, and play nothing")
    args = parser.parse_args()
    if args.merge:
        print_merged(args.merge)
        return
    before: Deals | None = None
    if args.against:
        with open(args.against, encoding="utf-8") as f:
            before = json.load(f)
    now: Deals = {}
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; "
          f"{args.hands} hands per preset, strong player with {args.deals} deals per play, "
          + (f"its budget {args.budget:g} s in {args.clock} time" if args.budget > 0 else "no time budget"),
          flush=True)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    for name in args.preset:
        started = time.perf_counter()
        if pool is None:
            results = [play_part(name, 4 * args.first_deal, args.hands, args.seed, args.deals, args.clock,
                                 args.budget)]
        else:
            futures = [pool.submit(play_part, name, first, count, args.seed, args.deals, args.clock, args.budget)
                       for first, count in parts(args.hands, args.jobs, args.first_deal)]
            results = [f.result() for f in futures]
        seconds = time.perf_counter() - started
        tally = Tally()
        strong_times: Times = {}
        casual_times: Times = {}
        for part, part_strong, part_casual in results:
            tally.merge(part)
            for mine, theirs in ((strong_times, part_strong), (casual_times, part_casual)):
                for key, values in theirs.items():
                    mine.setdefault(key, []).extend(values)
        now[name] = {"won": list(tally.deal_wins), "score": list(tally.deal_scores),
                     "seed": args.seed, "first_deal": args.first_deal}
        print(tally.summary(f"{name}: strong against the baseline, seed {args.seed}"))
        print("  " + margin_line(tally, name))
        print("  " + sides_line(tally))
        print(f"  {tally.hands / seconds:.2f} hands per second (half the seats strong)")
        for label, times in (("strong", strong_times), ("casual", casual_times)):
            for phase in ("bidding", "burying", "stealing", "playing"):
                for clock in (phase, phase + " cpu"):
                    if times.get(clock):
                        print(f"  {label} {clock:<12} {len(times[clock]):>6} decisions: {quantiles(times[clock])}")
        sys.stdout.flush()
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(now, f)
    if before is not None:
        print(f"against {args.against}:")
        for line in report(now, before):
            print("  " + line)


if __name__ == "__main__":
    main()
