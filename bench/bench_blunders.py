"""Clear-cut blunders per hand, by preset, in saved self-play hands (issue 47's table).

    python bench/bench_blunders.py DIR [DIR ...] [--preset NAME ...] [--jobs J]

Each DIR holds hands saved by ``bench/play_records.py`` (JSON lines of
``python -m engine.selfplay --json``).  Every follow is judged against
every legal alternative (``bench/blunders.py`` defines the kinds), and
every steal and final bury; the figures are printed per hand, per preset
and over all presets, with the blunders of the last player summed (the
issue's goal: at most 0.05 a hand) and those of the second and third
player where the trick's outcome was certain, and the expert's kinds of
issue 56 (points played early, points discarded, points led into a void,
the red five wasted, a stolen kitty's trumps spent at once).  It prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from blunders import EXPERT_KINDS, judge_hand  # noqa: E402

EXPERT = (*EXPERT_KINDS, "void_lead", "stolen_kitty_trumps")
"""The expert's kinds (issue 56), summed as ``expert``."""

ROWS = (
    ("gift.4", "last player: a cheap follow would have given ≥ 10 fewer points"),
    ("lost.4", "last player: a ≥ 10-point trick lost that a follow without joker/red five wins"),
    ("joker.4", "last player: a joker or red five spent on the partner's sure trick"),
    ("steal_partner_same", "a steal of the partner's kitty keeping the same trump"),
    ("blunders", "the four kinds in all (the goal: at most 0.05)"),
    ("gift.3", "third player, outcome certain: a cheap follow ≥ 10 points cheaper"),
    ("gift.2", "second player, outcome certain: a cheap follow ≥ 10 points cheaper"),
    ("lost.3", "third player: a ≥ 10-point trick lost that a sure winning follow takes"),
    ("lost.2", "second player: a ≥ 10-point trick lost that a sure winning follow takes"),
    ("joker.3", "third player: a joker or red five on the partner's sure trick"),
    ("expert", "the expert's kinds below in all (issue 56)"),
    ("points_early.2", "second player: ≥ 10 points where a cheap follow 10 fewer does the same job"),
    ("points_early.3", "third player: ≥ 10 points where a cheap follow 10 fewer does the same job"),
    ("discard_points.2", "second player, short: ≥ 10 points thrown where a ruff or a cheap discard was legal"),
    ("discard_points.3", "third player, short: ≥ 10 points thrown where a ruff or a cheap discard was legal"),
    ("discard_points.4", "last player, short: ≥ 10 points thrown where a ruff (with a joker/red five) won"),
    ("void_lead", "a lead of ≥ 10 points into a group an opponent showed void in"),
    ("red_five.2", "second player: the red five played where it does not win, not forced"),
    ("red_five.3", "third player: the red five played where it does not win, not forced"),
    ("red_five.4", "last player: the red five played where it does not win, not forced"),
    ("stolen_kitty_trumps", "a stolen kitty of ≥ 40 points, then a big trump spent in the first 4 tricks"),
    ("given.4", "last player, opponents win: points beyond the least-points losing follow"),
    ("over_partner.4", "last player: a higher trump over the partner already winning"),
    ("steals", "steals"),
    ("steal_partner", "steals of the partner's kitty"),
    ("buried_points", "points the dealer side buried (not for a void the hand used)"),
    ("buried_points_for_void", "… for a void the hand then ruffed in"),
    ("buried_aces", "aces the dealer side buried (not for a used void)"),
    ("buried_aces_for_void", "… for a void the hand then ruffed in"),
    ("buried_points_with_8_low", "points buried holding 8 pointless plain cards (not for a used void)"),
    ("captured", "the dealer side's kitty captured with points"),
    ("capture_bonus", "bonus points it gave"),
    ("captured_own", "an attacker's stolen kitty captured back with points"),
    ("capture_bonus_own", "bonus points it gave"),
    ("unjudged", "follows with too many legal alternatives to judge"),
)
"""The printed figures, per hand, in this order (``blunders`` is summed from the first four, ``expert`` from
the kinds of :data:`EXPERT`)."""

RATES = (("dealer_last_lost", "dealer_kitty", "dealer side lost the last trick while holding the kitty"),)


def judge_file(path: str) -> tuple[str, Counter[str]]:
    """The preset of a file of saved hands (its name up to the first '-') and its hands' summed figures."""
    total: Counter[str] = Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                total += judge_hand(json.loads(line))
    return os.path.basename(path).split("-")[0], total


def table(by_preset: dict[str, Counter[str]]) -> list[str]:
    """The figures per hand, a column per preset and one for all."""
    names = list(by_preset)
    columns = [*names, "all"]
    every = sum(by_preset.values(), Counter())
    counts = {**by_preset, "all": every}
    for c in counts.values():
        c["blunders"] = c["gift.4"] + c["lost.4"] + c["joker.4"] + c["steal_partner_same"]
        c["expert"] = sum(n for key, n in c.items() if key.split(".")[0] in EXPERT)
    lines = [f"{'per hand':<34}" + "".join(f"{n[:9]:>10}" for n in columns),
             f"{'hands':<34}" + "".join(f"{counts[n]['hands']:>10}" for n in columns)]
    for key, text in ROWS:
        lines.append(f"{key:<34}" + "".join(f"{counts[n][key] / max(counts[n]['hands'], 1):>10.3f}"
                                          for n in columns) + f"   {text}")
    for key, base, text in RATES:
        lines.append(f"{key:<34}" + "".join(f"{counts[n][key] / max(counts[n][base], 1):>10.1%}"
                                          for n in columns) + f"   {text}")
    return lines


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="+")
    parser.add_argument("--preset", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    for directory in args.directory:
        files = sorted(glob.glob(os.path.join(directory, "*.jsonl")))
        if args.preset:
            files = [f for f in files if os.path.basename(f).split("-")[0] in args.preset]
        with ProcessPoolExecutor(args.jobs) as pool:
            judged = list(pool.map(judge_file, files))
        by_preset: dict[str, Counter[str]] = {}
        for name, counts in judged:
            by_preset[name] = by_preset.get(name, Counter()) + counts
        print(f"{directory}: {len(files)} files")
        for line in table(by_preset):
            print("  " + line)


if __name__ == "__main__":
    main()
