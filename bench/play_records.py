"""Self-play hands saved as JSON lines, in pieces, for the benchmarks that read finished hands.

    python bench/play_records.py DIR [--player strong|casual|heuristic] [--engine ROOT]
                                 [--preset NAME ...] [--pieces K] [--hands N] [--seed S]
                                 [--budget SECONDS] [--clock cpu|wall] [--deals D] [--cap SECONDS]
                                 [--candidates C]

Each piece is ``N`` hands of four-seat self-play of one preset
(``engine.selfplay.self_play``: whole matches, levels rising, flag hands
and must-play levels included), from the seed ``S·1000 + k`` for piece
``k``, written to ``DIR/PRESET-k.jsonl`` (one hand a line, the lines of
``python -m engine.selfplay --json``) when it ends, with the strong
player's CPU seconds per play in ``DIR/PRESET-k.times.json``.  Pieces go
round the presets, so that they advance together; a piece is claimed by
making ``PRESET-k.claim`` (several processes may share a directory), and
a directory is filled up over several runs (a piece already there is
skipped): stop it at any time and nothing finished is lost.

``--engine ROOT`` imports the ``engine`` package from another checkout,
e.g. a ``git worktree`` of the tag ``strong-2026-12-05`` (today's strong
player, frozen for comparisons without copying its code into the product):

    git worktree add --detach /work/wt-strong-old strong-2026-12-05
    python bench/play_records.py runs/old --engine /work/wt-strong-old

The strong player's budget is measured in this process's CPU time by
default (``--clock cpu``), so that a loaded machine does not cut its
searches short.  ``--deals`` and ``--cap`` set its deals a play and the
most seconds a play takes: with ``--budget``, the share a search gets from
the bot when others wait (``bot.thinking.search_work``: with eight tables
searching at once on one worker, 2 deals, a budget of 0.05 s and a cap of
0.15 s, counted on the wall clock).  ``bench/bench_blunders.py DIR`` judges
the hands.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--player", choices=("strong", "casual", "heuristic"), default="strong")
    parser.add_argument("--engine", default=os.path.join(HERE, ".."),
                        help="the checkout whose engine package plays (default: this one)")
    parser.add_argument("--preset", nargs="*", default=None, help="presets (default: all seven)")
    parser.add_argument("--pieces", type=int, default=20, help="pieces a preset")
    parser.add_argument("--hands", type=int, default=10, help="hands a piece")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--budget", type=float, default=None, help="the strong player's seconds a play")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--deals", type=int, default=None, help="the strong player's deals a play (default: the engine's)")
    parser.add_argument("--cap", type=float, default=None, help="the strong player's most seconds a play")
    parser.add_argument("--candidates", type=int, default=None, help="the plays the strong player's search compares")
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.engine))
    from engine.ai import DEFAULT_BUDGET, casual_action, heuristic_action, strong_player
    from engine.ruleset import RULESETS
    from engine.selfplay import self_play

    os.makedirs(args.directory, exist_ok=True)
    times: list[float] = []
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    if args.player == "strong":
        settings: dict[str, Any] = {"budget": budget, "clock": clock}
        if args.deals is not None:  # given only when asked: an older engine (--engine) may not take them
            settings["deals"] = args.deals
        if args.cap is not None:
            settings["cap"] = args.cap
        if args.candidates is not None:
            settings["candidates"] = args.candidates
        strong = strong_player(**settings)

        def player(view: Any, ruleset: Any, rng: Any) -> Any:
            started = time.process_time()
            action = strong(view, ruleset, rng)
            if view.phase == "playing":
                times.append(time.process_time() - started)
            return action
    elif args.player == "casual":
        player = casual_action
    else:
        def player(view: Any, ruleset: Any, rng: Any) -> Any:
            return heuristic_action(view, ruleset)
    presets = args.preset or list(RULESETS)
    print(f"{args.player} from {os.path.abspath(args.engine)}: {args.pieces} pieces of {args.hands} hands, "
          f"presets {' '.join(presets)}", flush=True)
    for k in range(args.pieces):
        for name in presets:
            path = os.path.join(args.directory, f"{name}-{k:03d}")
            if os.path.exists(path + ".jsonl"):
                continue
            try:
                os.mkdir(path + ".claim")
            except FileExistsError:
                continue
            try:
                lines: list[str] = []
                times.clear()
                started = time.process_time()
                self_play(RULESETS[name], args.hands, args.seed * 1000 + k,
                          lambda record: lines.append(json.dumps(record, ensure_ascii=False,
                                                                 separators=(",", ":"))), player)
                with open(path + ".times.json", "w", encoding="utf-8") as f:
                    json.dump(times, f)
                with open(path + ".tmp", "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                os.replace(path + ".tmp", path + ".jsonl")
                print(f"{name} piece {k}: {len(lines)} hands, {time.process_time() - started:.0f} s CPU",
                      flush=True)
            finally:
                os.rmdir(path + ".claim")


if __name__ == "__main__":
    main()
