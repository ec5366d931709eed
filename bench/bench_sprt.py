"""Is the strong player stronger than today's? A sequential test (SPRT) of hands won, new against old.

    python bench/bench_sprt.py FILE [--old ROOT] [--seed S] [--shard I/N] [--budget SECONDS] [--max-deals D]
                               [--deals N] [--candidates C]
    python bench/bench_sprt.py --report FILE [FILE ...]

Deals go round the seven presets (deal d is preset d mod 7's deal d div 7
of the seed); each is played four times as ``engine.selfplay.duel`` plays
it, the new strong player on either side and either side dealing, the old
one (the tag ``strong-2026-12-05``, from a ``git worktree`` at ``--old``,
in its own process: ``bench/remote_player.py``) on the other seats.  Both
measure their 0.4 s budget in their own CPU time.  Each finished deal is
appended to FILE as a JSON line; a run picks up after the deals FILE holds,
so it can be stopped and resumed at any time, and ``--shard I/N`` plays
only deals d with d mod N = I (one process per shard, each with its file).

The test (as chess engines' test farms decide a change): H0, the new
player wins 50 % of hands, against H1, 55 %, with α = β = 0.05; the
log-likelihood ratio of the deals so far, in the normal approximation
with each deal's share of hands won as one observation (the four hands
of a deal share the cards, so they are not independent), is

    LLR = n (p1 − p0) (2 x̄ − p0 − p1) / (2 s²)

with x̄ and s² the mean and variance of the deals' shares (s² at least
0.02, and no decision before 28 deals, four of each preset).  H1 is accepted
once LLR ≥ ln((1 − β) / α) = 2.94, H0 once LLR ≤ ln(β / (1 − α)) = −2.94;
each run stops when either is reached (over all FILEs given to
``--join``).  ``--report`` prints the test and each preset's hands won and
mean 积分 per hand with 95 % intervals over deals, and the decision times.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from remote_player import RemotePlayer  # noqa: E402

from engine.ai import Player, strong_player  # noqa: E402
from engine.hand import Action, Hand  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import derived_seed, duel_setup, play_hand  # noqa: E402
from engine.views import HandView  # noqa: E402

P0, P1 = 0.50, 0.55
ALPHA = BETA = 0.05
UPPER = math.log((1 - BETA) / ALPHA)
LOWER = math.log(BETA / (1 - ALPHA))
PRESETS = list(RULESETS)


FIRST_DEALS = 28
"""Deals (four of each preset) before the test may decide: the variance of a few deals' shares is no estimate."""

LEAST_VARIANCE = 0.02
"""A floor under the shares' variance (a deal's share takes five values; its variance is about 0.05–0.08)."""


def llr(shares: Sequence[float], p0: float = P0, p1: float = P1) -> float:
    """The SPRT's log-likelihood ratio of H1 against H0 for per-deal shares of hands won (normal approximation)."""
    n = len(shares)
    if n < 2:
        return 0.0
    mean = sum(shares) / n
    var = max(sum((x - mean) ** 2 for x in shares) / n, LEAST_VARIANCE)
    return n * (p1 - p0) * (2 * mean - p0 - p1) / (2 * var)


def verdict(value: float, deals: int = FIRST_DEALS) -> str | None:
    """'H1' or 'H0' once the ratio crosses a bound (after :data:`FIRST_DEALS` deals), else None (go on)."""
    if deals < FIRST_DEALS:
        return None
    return "H1" if value >= UPPER else "H0" if value <= LOWER else None


def play_deal(deal: int, seed: int, new: Player, old: Player) -> dict[str, Any]:
    """The four hands of deal ``deal`` (preset ``deal % 7``), the new player on either side and either side dealing."""
    name = PRESETS[deal % len(PRESETS)]
    ruleset = RULESETS[name]
    k = deal // len(PRESETS)
    rng = random.Random(derived_seed(seed, "sprt", deal))
    won, score = [], []
    for i in range(4 * k, 4 * k + 4):
        new_side = i % 2
        players = [new if s % 2 == new_side else old for s in range(4)]
        hand = play_hand(Hand(duel_setup(ruleset, seed, i)), players, rng)
        assert hand.result is not None
        won.append(int(hand.result.scores[new_side] > 0))
        score.append(hand.result.scores[new_side])
    return {"deal": deal, "preset": name, "won": won, "score": score}


def read(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The deals saved in these files (missing files hold none)."""
    out = []
    for path in paths:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out += [json.loads(line) for line in f if line.strip()]
    return out


def _half(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return float("nan")
    mean = sum(values) / n
    return 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def report(deals: list[dict[str, Any]]) -> list[str]:
    """The test's standing and each preset's figures."""
    deals = [d for d in deals if "won" in d]
    shares = [sum(d["won"]) / len(d["won"]) for d in deals]
    value = llr(shares)
    hands = sum(len(d["won"]) for d in deals)
    scores = [sum(d["score"]) / len(d["score"]) for d in deals]
    lines = [f"{len(deals)} deals, {hands} hands: new won {sum(sum(d['won']) for d in deals)} "
             f"({sum(shares) / max(len(shares), 1):.1%} ± {_half(shares):.1%}), "
             f"mean 积分 {sum(scores) / max(len(scores), 1):+.2f} ± {_half(scores):.2f}; "
             f"LLR {value:.2f} (bounds {LOWER:.2f}, {UPPER:.2f}): {verdict(value, len(deals)) or 'going on'}"]
    for name in PRESETS:
        mine = [d for d in deals if d["preset"] == name]
        if not mine:
            continue
        s = [sum(d["won"]) / 4 for d in mine]
        m = [sum(d["score"]) / 4 for d in mine]
        lines.append(f"  {name:<10} {4 * len(mine):>5} hands: won {sum(s) / len(s):6.1%} ± {_half(s):.1%}, "
                     f"mean 积分 {sum(m) / len(m):+.2f} ± {_half(m):.2f}")
    times = sorted(t for d in deals for t in d.get("new_cpu", []))
    old = sorted(t for d in deals for t in d.get("old_cpu", []))
    for who, values in (("new", times), ("old", old)):
        if values:
            lines.append(f"  {who} strong, plays ({len(values)}), CPU: "
                         f"p50 {1000 * values[len(values) // 2]:.0f} ms, "
                         f"p95 {1000 * values[int(0.95 * len(values))]:.0f} ms, max {1000 * values[-1]:.0f} ms")
    return lines


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--report", nargs="+", metavar="FILE")
    parser.add_argument("--join", nargs="*", default=[], help="other shards' files, counted in the test")
    parser.add_argument("--old", default="/work/wt-strong-old", help="a worktree of the tag strong-2026-12-05")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--shard", default="0/1")
    parser.add_argument("--budget", type=float, default=None, help="both players' seconds a play (default 0.4)")
    parser.add_argument("--max-deals", type=int, default=10_000)
    parser.add_argument("--deals", type=int, default=None,
                        help="the new player's sampled deals a play (default: the engine's), to spend the CPU a "
                             "faster engine saves (equal CPU)")
    parser.add_argument("--candidates", type=int, default=None,
                        help="the plays the new player's search compares at most (default: the engine's)")
    args = parser.parse_args()
    if args.report:
        for line in report(read(args.report)):
            print(line)
        return
    if not args.file:
        parser.error("give the file to play into, or --report")
    shard, shards = (int(x) for x in args.shard.split("/"))
    new_times: list[float] = []
    settings = {key: value for key, value in (("budget", args.budget), ("deals", args.deals),
                                                          ("candidates", args.candidates)) if value is not None}
    strong = strong_player(**settings, clock=time.process_time)  # type: ignore[arg-type]

    def new(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
        started = time.process_time()
        action = strong(view, ruleset, rng)
        if view.phase == "playing":
            new_times.append(time.process_time() - started)
        return action

    old = RemotePlayer(args.old, budget=args.budget)
    done = {d["deal"] for d in read([args.file, *args.join])}  # a deal another shard played already counts
    try:
        for deal in range(shard, args.max_deals, shards):
            if deal in done:
                continue
            shares = [sum(d["won"]) / 4 for d in read([args.file, *args.join])]
            standing = verdict(llr(shares), len(shares))
            if standing:
                print(f"decided: {standing}", flush=True)
                break
            new_times.clear()
            old.times.clear()
            record = play_deal(deal, args.seed, new, old)
            record["new_cpu"] = [round(t, 4) for t in new_times]
            record["old_cpu"] = [round(t, 4) for phase, t in old.times if phase == "playing"]
            with open(args.file, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
            print(report(read([args.file, *args.join]))[0], flush=True)
    finally:
        old.close()


if __name__ == "__main__":
    main()
