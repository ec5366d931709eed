"""Micro-benchmark of the engine's hot entry points on realistic inputs.

Deals real hands with ``engine.deal(seed)``, builds leads (singles, pairs,
tractors, throws) and F1-style follows from them, and prints the median time
per call of ``is_legal_follow``, ``trick_winner`` and ``resolve_throw`` for a
few presets.  No assertions on time: run it and read the figures::

    python bench/bench_engine.py [--cases 400] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import deal, get_ruleset, is_legal_follow, resolve_throw, trick_winner  # noqa: E402
from engine.cards import Card, rank_name  # noqa: E402
from engine.combos import decompose  # noqa: E402
from engine.ruleset import Ruleset  # noqa: E402
from engine.trump import parse_level, trump_context  # noqa: E402

PRESETS = ("yancheng", "xin", "anhui")


def build_cases(ruleset: Ruleset, n: int, seed: int) -> tuple[list, list, list]:
    """(follow cases, tricks, throws) drawn from real deals."""
    rng = random.Random(seed)
    follows, tricks, throws = [], [], []
    while len(tricks) < n:
        hands, _ = deal(rng.randrange(10**9))
        level = rank_name(rng.randint(2, 14))
        trump = rng.choice(("S", "H", "D", "C", None))
        ctx = trump_context(ruleset, parse_level(level), trump)
        leader = hands[0]
        groups = sorted({ctx.group(c) for c in leader})
        group = rng.choice(groups)
        mine = [c for c in leader if ctx.group(c) == group]
        comps = decompose(ctx, mine)
        # Leads: mostly one component (single/pair/tractor), sometimes a small throw.
        k = 1 if rng.random() < 0.75 or len(comps) < 2 else rng.randint(2, min(3, len(comps)))
        lead = [c for comp in rng.sample(comps, k) for c in comp.cards]
        plays: list[list[Card]] = [lead]
        for hand in hands[1:]:
            same = [c for c in hand if ctx.group(c) == group]
            if len(same) >= len(lead):
                # Prefer pairs first, like a real player matching the lead's structure.
                play = sorted(same, key=lambda c: (-same.count(c), rng.random()))[: len(lead)]
            else:
                rest = [c for c in hand if ctx.group(c) != group]
                play = same + rng.sample(rest, len(lead) - len(same))
            plays.append(play)
            follows.append((level, trump, lead, hand, play))
        tricks.append((level, trump, plays))
        throw_comps = rng.sample(comps, min(len(comps), rng.randint(2, 4)))
        throw = [c for comp in throw_comps for c in comp.cards]
        throws.append((level, trump, throw, hands[1:]))
    return follows, tricks, throws


def median_us(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the mean µs per call."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400, help="tricks (and throws) per preset")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'preset':<10} {'is_legal_follow':>16} {'trick_winner':>13} {'resolve_throw':>14}   (median µs/call)")
    for name in PRESETS:
        ruleset = get_ruleset(name)
        follows, tricks, throws = build_cases(ruleset, args.cases, seed=2024)
        legal = sum(is_legal_follow(ruleset, lv, tr, lead, hand, play) for lv, tr, lead, hand, play in follows)

        def run_follow() -> None:
            for lv, tr, lead, hand, play in follows:
                is_legal_follow(ruleset, lv, tr, lead, hand, play)

        def run_tricks() -> None:
            for lv, tr, plays in tricks:
                trick_winner(ruleset, lv, tr, plays)

        def run_throws() -> None:
            for lv, tr, throw, others in throws:
                resolve_throw(ruleset, lv, tr, throw, others)

        run_follow(), run_tricks(), run_throws()   # warm the trump-context cache
        f = median_us(run_follow, len(follows), args.repeat)
        t = median_us(run_tricks, len(tricks), args.repeat)
        w = median_us(run_throws, len(throws), args.repeat)
        print(f"{name:<10} {f:>16.1f} {t:>13.1f} {w:>14.1f}   "
              f"({len(follows)} follows, {legal} legal; {len(tricks)} tricks; {len(throws)} throws)")


if __name__ == "__main__":
    main()
