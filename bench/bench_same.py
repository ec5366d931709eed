"""Does a change play the same? Checksums of the strong player's plays and of its every rollout's value.

    python bench/bench_same.py [--preset NAME ...] [--hands N] [--first F] [--seed S] [--deals D]

For each preset it plays hands ``F`` … ``F + N - 1`` of the duel
``bench/bench_ai.py`` plays (the strong player against the frozen baseline,
roles balanced), the strong player with ``--deals`` sampled worlds a play
and no time budget, so that nothing depends on the machine's load.  It
prints a checksum of the strong side's actions, one of every rollout's
value in the order the search asked for them, and the CPU seconds taken.

Run it before and after a change meant only to make the engine or the
rollouts faster: equal checksums show that the change plays the same (a
long duel measured in pieces, ``bench_ai.py --pieces``, may then go on
with it), and the CPU seconds what it saved (on a shared machine they
swing by a third; an instruction count, e.g. ``valgrind --tool=cachegrind
--cache-sim=no python bench/bench_same.py --hands 1``, does not).  It
prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import engine.ai.search as search  # noqa: E402
from engine.ai import DEFAULT_DEALS, casual_action, strong_player  # noqa: E402
from engine.hand import Action  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import duel  # noqa: E402
from engine.views import HandView  # noqa: E402


@contextmanager
def rollouts_hashed(into: Any) -> Iterator[None]:
    """Feed every rollout's value to the hash ``into`` while the block runs."""
    original = search.rollout_value

    def hashed(*args: Any, **kwargs: Any) -> float:
        value = original(*args, **kwargs)
        into.update(repr(value).encode())
        return value

    search.rollout_value = hashed
    try:
        yield
    finally:
        search.rollout_value = original


def checksums(preset: str, hands: int, first: int, seed: int, deals: int) -> tuple[str, str, int, float]:
    """The strong side's plays' checksum, the rollouts' checksum, the strong decisions and the CPU seconds."""
    plays = hashlib.sha256()
    values = hashlib.sha256()
    player = strong_player(deals=deals, budget=math.inf)
    decisions = 0

    def strong(view: HandView, ruleset: Ruleset, rng: random.Random) -> Action:
        nonlocal decisions
        action = player(view, ruleset, rng)
        decisions += 1
        plays.update(repr(action).encode())
        return action

    started = time.process_time()
    with rollouts_hashed(values):
        duel(RULESETS[preset], hands, seed, strong, casual_action, names=("strong", "baseline"), first=first)
    return plays.hexdigest()[:16], values.hexdigest()[:16], decisions, time.process_time() - started


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", nargs="+", default=sorted(RULESETS), choices=sorted(RULESETS))
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="the first hand (a multiple of 4)")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    args = parser.parse_args()
    for preset in args.preset:
        played, rolled, decisions, cpu = checksums(preset, args.hands, args.first, args.seed, args.deals)
        print(f"{preset}: plays {played}, rollouts {rolled} ({decisions} strong decisions, {cpu:.2f} s CPU)",
              flush=True)


if __name__ == "__main__":
    main()
