"""The strong AI against the frozen baseline, with decision times per phase for both strengths.

    python bench/bench_ai.py [--hands N] [--seed S] [--first-deal F] [--deals D] [--budget SECONDS]
                             [--jobs J] [--save FILE] [--against FILE] [--preset NAME ...]
    python bench/bench_ai.py --pieces DIR [--until DEALS] [--hands N] [--seed S] ...
    python bench/bench_ai.py --merge PATH ... [--seed S --save FILE]

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
machines or over several days, each saved with ``--save``.  ``--pieces DIR``
does that bookkeeping: it plays the pieces of ``--hands`` hands that DIR
lacks, preset after preset, until each preset has ``--until`` deals, and
saves each in DIR as it ends (start it once per core: the processes share
the pieces out; stop it any time, and it goes on where it stopped).
``--merge`` reads pieces (files or directories, of one seed, any presets),
joins them up to the first gap (a piece still being played), checks that
they agree where they overlap, and prints each preset's hands won and mean
积分 per hand with 95 % intervals over the deals joined so far; with ``--save`` it writes them joined, as one
piece.
It prints figures and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench_heuristics import Deals, report  # noqa: E402

from engine.ai import DEFAULT_BUDGET, DEFAULT_DEALS, Player, casual_action, strong_player  # noqa: E402
from engine.hand import Action  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import Tally, duel, margin_line, sides_line  # noqa: E402
from engine.views import HandView  # noqa: E402

Times = dict[str, list[float]]
Saved = dict[str, dict[str, Any]]
"""A saved piece: per preset, each deal's hands won and 积分 (``won``, ``score``), its ``seed`` and ``first_deal``."""


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


def merge(pieces: list[Saved]) -> tuple[dict[str, Tally], dict[str, list[int]]]:
    """Each preset's deals from saved pieces of one seed, joined in order of their first deal.

    A piece may repeat deals already joined (a file of joined pieces saved
    with ``--merge … --save``, next to the pieces it holds) if it has the
    same figures for them.  Joining stops at a gap (a piece still being
    played, or lost): the second result lists, per preset, the first deals
    of the pieces left out.  Raises :class:`SystemExit` if the pieces mix
    seeds or disagree on a deal.
    """
    seeds = {piece["seed"] for saved in pieces for piece in saved.values()}
    if len(seeds) > 1:
        raise SystemExit(f"the pieces mix seeds {sorted(seeds)}")
    by_preset: dict[str, list[dict[str, Any]]] = {}
    for saved in pieces:
        for name, piece in saved.items():
            by_preset.setdefault(name, []).append(piece)
    tallies: dict[str, Tally] = {}
    left_out: dict[str, list[int]] = {}
    for name, preset_pieces in by_preset.items():
        tally = Tally()
        for piece in sorted(preset_pieces, key=lambda p: p["first_deal"]):
            first, joined = piece["first_deal"], len(tally.deal_wins)
            if first > joined or name in left_out:
                left_out.setdefault(name, []).append(first)
                continue
            n = min(joined - first, len(piece["won"]))  # deals joined already
            if (piece["won"][:n], piece["score"][:n]) != (tally.deal_wins[first:first + n],
                                                          tally.deal_scores[first:first + n]):
                raise SystemExit(f"{name}: two pieces disagree on deals from {first} (the same deals played twice)")
            tally.deal_wins += piece["won"][n:]
            tally.deal_scores += piece["score"][n:]
        tally.hands = 4 * len(tally.deal_wins)
        tally.ai_wins = sum(tally.deal_wins)
        tally.ai_score = sum(tally.deal_scores)
        tallies[name] = tally
    return tallies, left_out


def load(paths: list[str]) -> list[Saved]:
    """Saved pieces: each path a file, or a directory whose ``*.json`` files are read."""
    files: list[str] = []
    for path in paths:
        files += sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    pieces = []
    for name in files:
        with open(name, encoding="utf-8") as f:
            pieces.append(json.load(f))
    return pieces


def print_merged(paths: list[str], seed: int, save: str | None) -> None:
    """The joined figures of saved pieces (see :func:`merge`), a line per preset; saved as one piece if asked."""
    tallies, left_out = merge(load(paths))
    for name, tally in tallies.items():
        print(margin_line(tally, name))
        if name in left_out:
            print(f"  {name}: the pieces from deal {left_out[name][0]} wait for deal {len(tally.deal_wins)} "
                  "(being played, or lost: --pieces plays it again)")
    if len(tallies) > 1:
        every = Tally()
        for tally in tallies.values():
            every.merge(tally)
        print(margin_line(every, "all presets"))
    if save:
        with open(save, "w", encoding="utf-8") as f:
            json.dump({name: {"won": t.deal_wins, "score": t.deal_scores, "seed": seed, "first_deal": 0}
                       for name, t in tallies.items()}, f)


def _held(directory: str, seed: int) -> dict[str, set[int]]:
    """Per preset, the deals of a seed that the directory's files hold."""
    out: dict[str, set[int]] = {}
    for saved in load([directory]):
        for name, piece in saved.items():
            if piece["seed"] == seed:
                out.setdefault(name, set()).update(range(piece["first_deal"], piece["first_deal"] + len(piece["won"])))
    return out


def play_pieces(directory: str, presets: list[str], seed: int, piece_deals: int, until: int,
                play: Callable[[str, int], Saved]) -> int:
    """Play the pieces of ``piece_deals`` deals missing from ``directory``, until each preset has ``until`` deals.

    The pieces go piece by piece across the presets, so that they advance
    together.  Each is claimed by making ``NAME.claim`` in the directory (so
    that several processes may share it: each plays other pieces), played by
    ``play(preset, first_deal)`` and saved as ``NAME.json``.  A piece whose
    deals the directory's files hold already (by any name) is skipped; the
    directory is read again before each claim, as other processes add
    pieces.  Returns how many pieces this process played.
    """
    played = 0
    held = _held(directory, seed)
    for first_deal in range(0, until, piece_deals):
        for name in presets:
            wanted = set(range(first_deal, min(first_deal + piece_deals, until)))
            if wanted <= held.get(name, set()):
                continue
            held = _held(directory, seed)
            if wanted <= held.get(name, set()):
                continue
            path = os.path.join(directory, f"{name}-{seed}-{first_deal:04d}")
            try:
                os.mkdir(path + ".claim")
            except FileExistsError:
                continue
            try:
                saved = play(name, first_deal)
                with open(path + ".tmp", "w", encoding="utf-8") as f:
                    json.dump(saved, f)
                os.replace(path + ".tmp", path + ".json")
                played += 1
            finally:
                os.rmdir(path + ".claim")
    return played


def play_preset(name: str, hands: int, first_deal: int, args: argparse.Namespace,
                pool: ProcessPoolExecutor | None) -> dict[str, Any]:
    """Play and print one preset's duel of ``hands`` hands from ``first_deal``; its saved figures."""
    started = time.perf_counter()
    if pool is None:
        results = [play_part(name, 4 * first_deal, hands, args.seed, args.deals, args.clock, args.budget)]
    else:
        futures = [pool.submit(play_part, name, first, count, args.seed, args.deals, args.clock, args.budget)
                   for first, count in parts(hands, args.jobs, first_deal)]
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
    print(tally.summary(f"{name}: strong against the baseline, seed {args.seed}, from deal {first_deal}"))
    print("  " + margin_line(tally, name))
    print("  " + sides_line(tally))
    print(f"  {tally.hands / seconds:.2f} hands per second (half the seats strong)")
    for label, times in (("strong", strong_times), ("casual", casual_times)):
        for phase in ("bidding", "burying", "stealing", "playing"):
            for clock in (phase, phase + " cpu"):
                if times.get(clock):
                    print(f"  {label} {clock:<12} {len(times[clock]):>6} decisions: {quantiles(times[clock])}")
    sys.stdout.flush()
    return {"won": list(tally.deal_wins), "score": list(tally.deal_scores), "seed": args.seed,
            "first_deal": first_deal}


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
    parser.add_argument("--merge", nargs="+", metavar="PATH",
                        help="print the joined figures of pieces (files, or directories of them) of one seed, "
                             "saved as one piece with --save; play nothing")
    parser.add_argument("--pieces", metavar="DIR",
                        help="play the pieces of --hands hands missing from DIR, until --until deals a preset")
    parser.add_argument("--until", type=int, default=1000, help="with --pieces: deals a preset")
    args = parser.parse_args()
    if args.merge:
        print_merged(args.merge, args.seed, args.save)
        return
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; "
          f"{args.hands} hands per preset, strong player with {args.deals} deals per play, "
          + (f"its budget {args.budget:g} s in {args.clock} time" if args.budget > 0 else "no time budget"),
          flush=True)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    if args.pieces:
        if args.hands % 4:
            raise SystemExit("--pieces plays whole deals: --hands must be a multiple of 4")
        played = play_pieces(args.pieces, args.preset, args.seed, args.hands // 4, args.until,
                             lambda name, first: {name: play_preset(name, args.hands, first, args, pool)})
        print(f"{played} pieces played; the directory's figures:")
        print_merged([args.pieces], args.seed, None)
        return
    before: Deals | None = None
    if args.against:
        with open(args.against, encoding="utf-8") as f:
            before = json.load(f)
    now: Saved = {name: play_preset(name, args.hands, args.first_deal, args, pool) for name in args.preset}
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(now, f)
    if before is not None:
        print(f"against {args.against}:")
        for line in report(now, before):
            print("  " + line)


if __name__ == "__main__":
    main()
