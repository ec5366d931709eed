"""Where the strong heuristics decide differently from the baseline, and what each difference is worth.

    python bench/bench_differences.py [--hands N] [--seed S] [--depth K] [--preset NAME ...]

The hands of a duel (``python -m engine.selfplay --vs-baseline --deals 0``:
each deal four times, the strong heuristics on either side, either side
dealing).  At every decision of the strong side after the bidding window,
the baseline's choice from the same view is asked too; where the two
differ, the hand is played out both ways in the true deal (the strong side
continuing with its heuristics, the other side with the baseline) and the
difference is the strong choice's worth: 积分 for the strong side, and hands
won.  Differences are grouped by kind of decision (bury, steal, lead or
follow; the side; for plays the stage of the hand and the shape of both
choices), with 95 % intervals over decisions.

Unlike the best alternative in hindsight (``bench/bench_alternatives.py``),
the baseline's choice is not picked by its outcome, so a group's mean is not
flattered: a group well below zero is a rule of the strong heuristics that
loses to the baseline's.  The 2 December 2026 run (seed 51, 400 hands a
preset) showed the heuristics' edge coming from steals and buries, and the
plays of the two almost always the same.  Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import sys
from collections import defaultdict
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import Player, casual_action, heuristic_action  # noqa: E402
from engine.ai.memory import context  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.hand import Action, Hand  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions, derived_seed, duel_setup  # noqa: E402
from engine.trump import TRUMP  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402

Difference = tuple[str, int, int]
"""A kind of decision, and the strong choice's worth over the baseline's: 积分, and hands won (-1, 0 or 1)."""


def differences(ruleset: Ruleset, hands: int, seed: int) -> list[Difference]:
    """Every decision of the strong side that differs from the baseline's, in a duel's first ``hands`` hands."""
    out: list[Difference] = []
    rng = random.Random(derived_seed(seed, "rng"))
    for i in range(hands):
        strong_side = i % 2
        players: list[Player] = [heuristic_action if s % 2 == strong_side else casual_action for s in range(4)]
        hand = Hand(duel_setup(ruleset, seed, i))
        for action in actions(hand, players, rng):
            seat = hand.turn
            if hand.phase != "bidding" and seat is not None and seat % 2 == strong_side:
                view = view_for(hand, seat)
                other = casual_action(view, ruleset, rng)
                if other != action and hand.can(other):
                    mine = _played_out(hand, action, players)
                    theirs = _played_out(hand, other, players)
                    out.append((_kind(hand, view, action, other), mine[seat] - theirs[seat],
                                (mine[seat] > 0) - (theirs[seat] > 0)))
            hand.apply(action)
    return out


def _played_out(hand: Hand, action: Action, players: Sequence[Player]) -> tuple[int, ...]:
    """The four seats' 积分 when ``action`` is taken in a copy of ``hand`` and the players play on."""
    sim = copy.deepcopy(hand)
    sim.apply(action)
    while not sim.over:
        turn = sim.turn
        assert turn is not None
        sim.apply(players[turn](view_for(sim, turn), sim.ruleset, random.Random(0)))
    assert sim.result is not None
    return tuple(sim.result.scores)


def _kind(hand: Hand, view: HandView, mine: Action, theirs: Action) -> str:
    """``phase:side`` for a bury or steal; ``lead|follow:side:stage:mine/theirs`` for a play."""
    assert view.viewer is not None
    side = "dealer side" if hand.dealer_side == view.viewer % 2 else "attackers"
    if hand.phase != "playing":
        return f"{hand.phase}:{side}:{mine.kind}/{theirs.kind}"
    ctx = context(hand.ruleset, view.level, view.trump)
    size = len(view.hand)
    stage = "early" if size > 16 else "middle" if size > 8 else "late" if size > 4 else "end"

    def shape(cards: Sequence[Card]) -> str:
        trumps = sum(ctx.group(c) == TRUMP for c in cards)
        kind = "trump" if trumps == len(cards) else "plain" if not trumps else "mixed"
        return f"{len(cards)} {kind}{' with points' if any(c.points for c in cards) else ''}"

    return f"{'follow' if view.current else 'lead'}:{side}:{stage}:{shape(mine.cards)}/{shape(theirs.cards)}"


def interval(xs: Sequence[int]) -> str:
    """Mean ± 95 % half-width."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(n - 1, 1))
    return f"{mean:+.3f} ± {1.96 * sd / math.sqrt(n):.3f}"


def report(found: list[Difference], depth: int, least: int) -> list[str]:
    """A line per group of the first ``depth`` parts of the kind (with ``least`` decisions or more), worst first."""
    groups: dict[str, list[Difference]] = defaultdict(list)
    for d in found:
        groups[":".join(d[0].split(":")[:depth])].append(d)
    lines = []
    for key in sorted(groups, key=lambda k: sum(d[1] for d in groups[k])):
        rows = groups[key]
        if len(rows) >= least:
            lines.append(f"{key:<60} {len(rows):>5} decisions, 积分 {interval([d[1] for d in rows])} "
                         f"(total {sum(d[1] for d in rows):+d}), hands won {interval([d[2] for d in rows])}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per preset (a multiple of 4 balances roles)")
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--depth", type=int, default=3, help="parts of the kind to group by (1: phase or lead/follow)")
    parser.add_argument("--least", type=int, default=20, help="smallest group printed")
    parser.add_argument("--preset", nargs="*", default=sorted(RULESETS))
    args = parser.parse_args()
    found: list[Difference] = []
    for name in args.preset:
        found += differences(RULESETS[name], args.hands, args.seed)
    print(f"strong heuristics against the baseline, {args.hands} hands per preset ({', '.join(args.preset)}), "
          f"seed {args.seed}: each different decision played out both ways in the true deal")
    print(f"all: {len(found)} decisions, 积分 {interval([d[1] for d in found])}, "
          f"hands won {interval([d[2] for d in found])}")
    for depth in sorted({1, args.depth}):
        print("\n".join(report(found, depth, args.least)))


if __name__ == "__main__":
    main()
