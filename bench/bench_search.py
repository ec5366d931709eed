"""How well the strong player's search chooses, judged in the true deal, and how fast its rollouts run.

    python bench/bench_search.py [--hands N] [--seed S] [--every K] [--worlds 4,16,48] [--win-weights 1,4]
                                 [--preset NAME ...]

Positions come from self-play of the strong heuristics (no search) on every
seat: every K-th play with two or more candidates.  Each candidate is played
out in the *true* deal by the rollout player (the heuristics, as in the
search), which gives what the play was worth there.  The search's own
estimate plays each candidate out in sampled worlds (fixed counts, no time
budget); for each world count W it prints the mean gain per decision of the
candidate the search picks over the heuristic's choice, in 积分 plus the
search's point term, with a 95 % interval over positions, the share of
decisions the search changes, and the "oracle" gain of the best candidate in
the true deal (a bound no player that sees only its view reaches), each also
in hands won (a hand counts +1 won, −1 lost, 0 drawn at 0 积分, so a decision
turning a lost hand into a won one gains 2).  ``--win-weights`` judges, at
the largest world count, a search that adds that many 积分 for a world its
side wins (and takes them for one it loses), i.e. one that plays more for
the hand than for the margin, also paired against the plain mean's pick
on the same positions (the narrower interval).  Comparing two versions of
the sampler or the candidates on the same seed pairs the positions.  It
also prints rollouts per CPU second.

A paired, per-decision measure: far less noisy than whole hands against the
baseline (``bench/bench_ai.py``), but it judges the search with the
heuristics continuing, not the strong player's play as a whole.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import _candidates, _rollout_policy, _view_seed, heuristic_action  # noqa: E402
from engine.ai.memory import build_memory, context  # noqa: E402
from engine.ai.search import rollout_value, sample_world, world_hand  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.hand import Action, Hand, HandSetup  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions, derived_seed  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402

Outcome = tuple[float, int]
"""A play-out's value as the search counts it (积分 plus its point term) and its 积分 for the seat."""

Position = tuple[HandView, Ruleset, list[list[Card]], list[Outcome]]
"""A view, its ruleset, the search's candidates and each one's outcome in the true deal."""


def positions(preset: str, hands: int, seed: int, every: int) -> list[Position]:
    """Every ``every``-th decision with a choice in ``hands`` hands of heuristic self-play."""
    ruleset = RULESETS[preset]
    out: list[Position] = []
    seen = 0
    for i in range(hands):
        level = random.Random(derived_seed(seed, "level", i)).randint(2, 14)
        setup = HandSetup(ruleset, derived_seed(seed, "hand", i), number=2, levels=(level, level),
                          dealer_side=i % 2, previous_dealer=i % 2)
        hand = Hand(setup)
        heuristic = [lambda v, r, _g: heuristic_action(v, r)] * 4
        for action in actions(hand, heuristic, random.Random(1)):
            turn = hand.turn
            if hand.phase == "playing" and turn is not None:
                view = view_for(hand, turn)
                ctx = context(ruleset, view.level, view.trump)
                cands = _candidates(view, ruleset, ctx, build_memory(view, ctx))
                if len(cands) > 1:
                    seen += 1
                    if seen % every == 0:
                        values = [_value(world_hand(view, ruleset, ctx, hand.hands, hand.kitty), turn, c)
                                  for c in cands]
                        out.append((view, ruleset, cands, values))
            hand.apply(action)
    return out


def _value(sim: Hand, seat: int, play: Sequence[Card]) -> Outcome:
    sim.apply(Action("play", seat, tuple(play)))
    value = rollout_value(sim, seat, _rollout_policy)
    assert sim.result is not None
    return value, sim.result.scores[seat]


def _won(outcome: Outcome) -> int:
    """+1 for a hand won, -1 for one lost, 0 for a draw."""
    return (outcome[1] > 0) - (outcome[1] < 0)


def world_values(pos: Position, worlds: int) -> list[list[Outcome]]:
    """Each candidate's value in each of ``worlds`` sampled worlds (the search's own sampling and seed)."""
    view, ruleset, cands, _values = pos
    assert view.viewer is not None
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    rng = random.Random(_view_seed(view))
    rows: list[list[Outcome]] = []
    for _ in range(worlds):
        world = sample_world(view, mem, rng)
        if world is not None:
            rows.append([_value(world_hand(view, ruleset, ctx, *world), view.viewer, c) for c in cands])
    return rows


def pick(rows: list[list[Outcome]], n: int, win_weight: float = 0.0) -> int:
    """The search's choice: the best mean, the first (the heuristic's) on ties."""
    totals = [sum(r[i][0] + win_weight * _won(r[i]) for r in rows) for i in range(n)]
    return max(range(n), key=lambda i: (totals[i], -i))


def interval(xs: list[float]) -> str:
    """Mean ± 95 % half-width."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(n - 1, 1))
    return f"{mean:+.4f} ± {1.96 * sd / math.sqrt(n):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=8, help="hands per preset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=3, help="keep every K-th decision with a choice")
    parser.add_argument("--worlds", default="4,16,48", help="world counts to judge the search at")
    parser.add_argument("--win-weights", default="", help="积分 a search would add for a world won (e.g. 1,4)")
    parser.add_argument("--preset", nargs="*", default=sorted(RULESETS))
    args = parser.parse_args()
    counts = sorted(int(w) for w in args.worlds.split(","))
    found: list[Position] = []
    for preset in args.preset:
        found += positions(preset, args.hands, args.seed, args.every)
    started = time.process_time()
    rows = [world_values(p, counts[-1]) for p in found]
    cpu = time.process_time() - started
    rollouts = sum(len(r) * len(p[2]) for r, p in zip(rows, found))
    print(f"{len(found)} positions from {args.hands} hands per preset (seed {args.seed}); "
          f"{rollouts} rollouts, {rollouts / cpu:.0f} per CPU second")
    best = [max(range(len(p[3])), key=lambda i: p[3][i][0]) for p in found]
    print(f"oracle (best candidate in the true deal): {_gains(best, found)}")
    for w in counts:
        picks = [pick(r[:w], len(p[2])) for r, p in zip(rows, found)]
        print(f"{w:3d} worlds: gain over the heuristic's choice {_gains(picks, found)} per decision, "
              f"changed {sum(1 for i in picks if i) / len(picks):.0%}")
    plain = [pick(r, len(p[2])) for r, p in zip(rows, found)]
    for weight in (float(x) for x in args.win_weights.split(",") if x):
        picks = [pick(r, len(p[2]), weight) for r, p in zip(rows, found)]
        print(f"{counts[-1]:3d} worlds, {weight:g} 积分 a world won: {_gains(picks, found)} per decision, "
              f"changed {sum(1 for i in picks if i) / len(picks):.0%}; against the plain mean "
              f"{_gains(picks, found, plain)} ({sum(1 for a, b in zip(picks, plain) if a != b)} picks differ)")


def _gains(picks: list[int], found: list[Position], base: list[int] | None = None) -> str:
    """The picks' gain in the true deal over the heuristic's choice (or over ``base``'s picks): in value, then in hands won."""
    ref = base if base is not None else [0] * len(found)
    value = [p[3][i][0] - p[3][j][0] for i, j, p in zip(picks, ref, found)]
    won = [float(_won(p[3][i]) - _won(p[3][j])) for i, j, p in zip(picks, ref, found)]
    return f"{interval(value)}, hands won {interval(won)}"


if __name__ == "__main__":
    main()
