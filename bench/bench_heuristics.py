"""The strong heuristics (no search) against the frozen baseline, paired deal by deal with an earlier run.

    python bench/bench_heuristics.py [--hands N] [--seed S] [--save FILE] [--against FILE] [--preset NAME ...]

Plays ``python -m engine.selfplay --vs-baseline --deals 0`` (each deal four
times: the strong heuristics on either side, either side dealing; they make
every bid, steal, bury and play, and they are the search's rollout player)
and prints each preset's hands won and mean 积分 per hand.  ``--save``
writes each deal's figures to a JSON file; ``--against`` a file saved by an
earlier version on the same hands and seed prints the difference deal by
deal, with 95 % intervals over deals.  Both players are deterministic, so a
deal plays out the same in both versions until the change first matters:
the paired interval is far narrower than either run's own (on 2,000 hands a
preset about ± 0.2 points of hands won pooled, against ± 1.5 a preset
unpaired), which makes it the measure for a change to the heuristics.  It
judges the heuristics alone, not the search built on them
(``bench/bench_ai.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import casual_action, strong_player  # noqa: E402
from engine.ruleset import RULESETS  # noqa: E402
from engine.selfplay import duel  # noqa: E402

Deals = dict[str, dict[str, list[int]]]
"""Per preset, each deal's hands won (``"won"``, 0–4) and 积分 summed over its four hands (``"score"``)."""


def play(presets: list[str], hands: int, seed: int) -> Deals:
    """Each preset's duel of the strong heuristics against the baseline, deal by deal."""
    out: Deals = {}
    for name in presets:
        tally = duel(RULESETS[name], hands, seed, strong_player(deals=0), casual_action,
                     names=("strong", "baseline"))
        out[name] = {"won": list(tally.deal_wins), "score": list(tally.deal_scores)}
    return out


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and 95 % half-width."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(n - 1, 1))
    return mean, 1.96 * sd / math.sqrt(n)


def report(now: Deals, before: Deals | None) -> list[str]:
    """A line per preset (and pooled, with an earlier run): hands won, 积分 per hand, the paired differences."""
    lines = []
    won_diffs: list[float] = []
    score_diffs: list[float] = []
    for name, deals in now.items():
        won = 100 * sum(deals["won"]) / (4 * len(deals["won"]))
        score = sum(deals["score"]) / (4 * len(deals["score"]))
        line = f"{name:<10} won {won:5.1f} %, {score:+.3f} 积分 per hand"
        old = before.get(name) if before else None
        if old is not None:
            if len(old["won"]) != len(deals["won"]):
                raise SystemExit(f"{name}: the earlier run played {len(old['won'])} deals, this one {len(deals['won'])}")
            dw = [25.0 * (b - a) for a, b in zip(old["won"], deals["won"])]
            ds = [(b - a) / 4 for a, b in zip(old["score"], deals["score"])]
            won_diffs += dw
            score_diffs += ds
            (mw, hw), (ms, hs) = interval(dw), interval(ds)
            line += f"; change {mw:+.2f} ± {hw:.2f} points of hands won, {ms:+.3f} ± {hs:.3f} 积分 per hand"
        lines.append(line)
    if won_diffs:
        (mw, hw), (ms, hs) = interval(won_diffs), interval(score_diffs)
        lines.append(f"pooled change {mw:+.2f} ± {hw:.2f} points of hands won, {ms:+.3f} ± {hs:.3f} 积分 per hand "
                     f"({len(won_diffs)} deals)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per preset (a multiple of 4)")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--save", help="write each deal's figures to this JSON file")
    parser.add_argument("--against", help="a file saved by an earlier version (same hands and seed)")
    parser.add_argument("--preset", nargs="*", default=list(RULESETS))
    args = parser.parse_args()
    before: Deals | None = None
    if args.against:
        with open(args.against, encoding="utf-8") as f:
            before = json.load(f)
    now = play(args.preset, args.hands, args.seed)
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(now, f)
    print(f"strong heuristics (no search) against the baseline, {args.hands} hands per preset, seed {args.seed}")
    for line in report(now, before):
        print(line)


if __name__ == "__main__":
    main()
