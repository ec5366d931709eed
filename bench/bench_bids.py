"""What a bid or a steal is worth: each one played out in the true deal against passing.

    python bench/bench_bids.py [--hands N] [--seed S] [--self] [--preset NAME ...]

Plays the hands of ``python -m engine.selfplay --vs-baseline --deals 0``
(the strong heuristics against the frozen baseline, roles balanced), or
with ``--self`` the strong heuristics on all four seats (where attackers
steal often enough for the dealer side's answers to count).  At every
decision of the strong side in the bidding window or a steal round
where it could bid (or steal), it plays the hand out twice from there in the
true deal, once after a pass and once after its strongest bid (by
``hand_strength`` under the bid's trump), with both players' heuristics
continuing, and takes the difference in the seat's 积分.  The differences
are grouped by phase, by the seat's side (the dealer side, the attackers, or
the first hand of a match, before the dealer side is known), by whose bid
stands (none, the seat's own, its partner's, an opponent's; under hidden
bidding, whose bids were made), and by what the heuristics chose; each group
prints its mean with a 95 % interval.  A group where the heuristics bid but
the bid does worse than passing (or pass where it does better) points at a
threshold to change; judge the change itself with
``bench/bench_heuristics.py``, as this is judged with the heuristics
continuing, and the bid played is the strongest, not always the one chosen.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench_search import interval  # noqa: E402

from engine.ai import Player, casual_action, heuristic_action  # noqa: E402
from engine.ai.bidding import strength_for  # noqa: E402
from engine.hand import Action, Hand  # noqa: E402
from engine.legal_bids import bid_options  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions, duel_setup  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402

Key = tuple[str, str, str, str]
"""Phase, side, whose bid stands, what the heuristics chose."""


def played_out(hand: Hand, action: Action, seat: int, players: list[Player]) -> int:
    """The seat's 积分 when ``action`` is applied to a copy of the hand and the players finish it."""
    hand = copy.deepcopy(hand)
    hand.apply(action)
    for next_action in actions(hand, players, random.Random(1)):
        hand.apply(next_action)
    assert hand.result is not None
    return hand.result.scores[seat]


def _standing(view: HandView, ruleset: Ruleset, seat: int) -> str:
    """Whose bid stands, as the seat sees it (under hidden bidding: who has bid)."""
    if not view.bids:
        return "none"
    if not ruleset.hidden_bidding:
        last = view.bids[-1].seat
        return "own" if last == seat else ("partner" if last % 2 == seat % 2 else "opponent")
    others = {b.seat for b in view.bids if b.seat != seat}
    if not others:
        return "own"
    if all(s % 2 == seat % 2 for s in others):
        return "partner"
    return "opponent" if all(s % 2 != seat % 2 for s in others) else "both sides"


def values(preset: str, hands: int, seed: int, against_self: bool = False) -> dict[Key, list[int]]:
    """Per group, each decision's 积分 for the seat after its strongest bid minus after a pass."""
    ruleset = RULESETS[preset]
    out: dict[Key, list[int]] = defaultdict(list)
    for i in range(hands):
        strong_side = i % 2
        players: list[Player] = [heuristic_action if against_self or s % 2 == strong_side else casual_action
                                 for s in range(4)]
        hand = Hand(duel_setup(ruleset, seed, i))
        for action in actions(hand, players, random.Random(1)):
            seat = action.seat
            if (hand.phase in ("bidding", "stealing") and seat is not None
                    and (against_self or seat % 2 == strong_side)):
                view = view_for(hand, seat)
                steal = hand.phase == "stealing"
                options = bid_options(view, ruleset, steal=steal)
                if options:
                    best = max(options, key=lambda o: strength_for(ruleset, view.level, o.trump, view.hand))
                    bid = Action("steal" if steal else "bid", seat, best.cards, best.choice)
                    passed = Action("pass_steal" if steal else "pass", seat)
                    gain = played_out(hand, bid, seat, players) - played_out(hand, passed, seat, players)
                    if view.dealer_side is None:
                        side = "first hand"
                    else:
                        side = "dealer side" if view.dealer_side == seat % 2 else "attackers"
                    chose = "bid" if action.kind in ("bid", "steal") else "pass"
                    out[(hand.phase, side, _standing(view, ruleset, seat), chose)].append(gain)
            hand.apply(action)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per preset")
    parser.add_argument("--seed", type=int, default=61)
    parser.add_argument("--self", dest="against_self", action="store_true",
                        help="the strong heuristics on all four seats, not against the baseline")
    parser.add_argument("--preset", nargs="*", default=sorted(RULESETS))
    args = parser.parse_args()
    against = "themselves" if args.against_self else "the baseline"
    for preset in args.preset:
        print(f"{preset}: the strongest bid minus a pass, 积分 for the seat, {args.hands} hands against "
              f"{against}, seed {args.seed}")
        for (phase, side, standing, chose), gains in sorted(
                values(preset, args.hands, args.seed, args.against_self).items()):
            print(f"  {phase:<8} {side:<11} stands: {standing:<10} chose {chose:<4} "
                  f"{interval([float(g) for g in gains]):>17} over {len(gains)}")


if __name__ == "__main__":
    main()
