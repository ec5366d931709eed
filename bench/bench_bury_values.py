"""What a bury is worth: the strong heuristics' bury against other ways to bury, played out in the true deal.

    python bench/bench_bury_values.py [--hands N] [--seed S] [--preset NAME ...] [--ways NAME ...]

Plays the hands of ``python -m engine.selfplay --vs-baseline --deals 0``
(the strong heuristics against the frozen baseline, roles balanced).  At
every bury of the strong side it plays the hand out from there in the true
deal once after each way of burying below, both players' heuristics
continuing, and prints each way's 积分 for the burier and whether its side
won the hand, minus those after the strong heuristics' own bury
(``engine.ai.burying.choose_bury``), grouped by the burier's side (the
dealer side, or attackers who stole the kitty) and by whether the trump was
known at the bury.  The ways are chosen without looking at the outcome, so
unlike the best bury in hindsight none is flattered; a way that beats
today's points at a setting to change, to be judged by whole hands with
``bench/bench_heuristics.py``.

The ways: the frozen baseline's bury; ``choose_bury`` with its void bonus
(``_VOID_BONUS``) halved or raised by half; with the exposure of a short
suit's point cards (``_EXPOSURE``) left out or doubled; with the weight of
a point card (``_BURIED_POINTS``: the dealer side's dislike of burying one,
an attacker's liking) left out, halved, doubled, tripled or turned around
(x-1, x-2, x-3).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench_bids import played_out  # noqa: E402
from bench_search import interval  # noqa: E402

from engine.ai import Player, burying, casual_action, heuristic_action  # noqa: E402
from engine.hand import Action, Hand  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions, duel_setup  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402


@contextmanager
def _settings(void: float = 1.0, exposure: float = 1.0, points: float = 1.0) -> Iterator[None]:
    """``choose_bury``'s void bonus, exposure and weight of point cards scaled, for the calls made inside."""
    saved = burying._VOID_BONUS, burying._EXPOSURE, burying._BURIED_POINTS
    burying._VOID_BONUS = tuple(v * void for v in saved[0])  # type: ignore[assignment]
    burying._EXPOSURE = tuple(e * exposure for e in saved[1])  # type: ignore[assignment]
    burying._BURIED_POINTS = tuple(w * points for w in saved[2])  # type: ignore[assignment]
    try:
        yield
    finally:
        burying._VOID_BONUS, burying._EXPOSURE, burying._BURIED_POINTS = saved


Way = Callable[[HandView, Ruleset], Action]


def _scaled(void: float = 1.0, exposure: float = 1.0, points: float = 1.0) -> Way:
    def bury(view: HandView, ruleset: Ruleset) -> Action:
        with _settings(void, exposure, points):
            return heuristic_action(view, ruleset)
    return bury


WAYS: dict[str, Way] = {
    "baseline": lambda view, ruleset: casual_action(view, ruleset, random.Random(1)),
    "void x0.5": _scaled(void=0.5),
    "void x1.5": _scaled(void=1.5),
    "no exposure": _scaled(exposure=0.0),
    "exposure x2": _scaled(exposure=2.0),
    "points x0": _scaled(points=0.0),
    "points x2": _scaled(points=2.0),
    "points x-1": _scaled(points=-1.0),
    "points x-2": _scaled(points=-2.0),
    "points x-3": _scaled(points=-3.0),
    "points x3": _scaled(points=3.0),
    "points x0.5": _scaled(points=0.5),
}


def values(preset: str, hands: int, seed: int,
           ways: list[str]) -> dict[tuple[str, str, str], list[tuple[int, int]]]:
    """Per (way, side, trump known), each bury's 积分 for the burier, and whether its side won the hand (0 or 1),
    after that way minus after today's."""
    ruleset = RULESETS[preset]
    out: dict[tuple[str, str, str], list[tuple[int, int]]] = defaultdict(list)
    for i in range(hands):
        strong_side = i % 2
        players: list[Player] = [heuristic_action if s % 2 == strong_side else casual_action for s in range(4)]
        hand = Hand(duel_setup(ruleset, seed, i))
        for action in actions(hand, players, random.Random(1)):
            seat = action.seat
            if action.kind == "bury" and seat is not None and seat % 2 == strong_side:
                view = view_for(hand, seat)
                side = "dealer side" if view.dealer_side == seat % 2 else "attackers"
                known = "trump known" if view.trump_known else "trump hidden"
                today = played_out(hand, action, seat, players)
                won_today = today > 0
                for name in ways:
                    other = WAYS[name](view, ruleset)
                    same = sorted(other.cards) == sorted(action.cards)
                    score = today if same else played_out(hand, other, seat, players)
                    out[(name, side, known)].append((score - today, int(score > 0) - int(won_today)))
            hand.apply(action)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per preset")
    parser.add_argument("--seed", type=int, default=71)
    parser.add_argument("--preset", nargs="*", default=sorted(RULESETS))
    parser.add_argument("--ways", nargs="*", default=list(WAYS), choices=list(WAYS))
    args = parser.parse_args()
    for preset in args.preset:
        print(f"{preset}: each way's bury minus the strong heuristics', 积分 for the burier, "
              f"{args.hands} hands against the baseline, seed {args.seed}")
        for (name, side, known), gains in sorted(values(preset, args.hands, args.seed, args.ways).items()):
            changed = sum(1 for g, _w in gains if g != 0)
            print(f"  {name:<12} {side:<11} {known:<12} {interval([float(g) for g, _w in gains]):>17} 积分, "
                  f"{interval([100.0 * w for _g, w in gains]):>17} points of hands won "
                  f"over {len(gains)} ({changed} outcomes changed)")


if __name__ == "__main__":
    main()
