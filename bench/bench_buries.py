"""What players bury: how often a card of each kind in the burier's hand goes to the kitty.

    python bench/bench_buries.py [--hands N] [--seed S] [--preset NAME ...]

Plays the hands of ``python -m engine.selfplay --vs-baseline --deals 0``
(the strong heuristics against the frozen baseline, roles balanced) and, at
every bury, counts the cards of the burier's 33 by kind: big trumps (level
cards, jokers, the red five), other trumps, and plain aces, kings, queens,
jacks, tens, fives and low cards (2–9 but the 5), with the trump as it
stands when the bury is made.  It prints, per strength and side (the dealer
side, or attackers who took the kitty), the share of each kind that was
buried, and that share over the low cards'.  The search draws
a kitty it has not seen with these odds (``engine.ai.search.kitty_weights``):
rerun this after a change to either player's bury to keep them honest.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import Player, casual_action, strong_player  # noqa: E402
from engine.ai.memory import BIG_TRUMP, context  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.ruleset import RULESETS  # noqa: E402
from engine.selfplay import actions, derived_seed, duel_setup  # noqa: E402
from engine.trump import TRUMP, TrumpContext  # noqa: E402

KINDS = ("big trump", "trump", "A", "K", "Q", "J", "10", "5", "low")
_PLAIN = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "10", 5: "5"}


def kind(ctx: TrumpContext, card: Card) -> str:
    """The card's kind for these counts."""
    if ctx.group(card) == TRUMP:
        return "big trump" if ctx.order(card) >= BIG_TRUMP else "trump"
    return _PLAIN.get(card.rank, "low")


def count(preset: str, hands: int, seed: int) -> dict[str, tuple[Counter[str], Counter[str]]]:
    """Per strength and side (the dealer side, or attackers who took the kitty), the cards held at a bury and those buried, by kind."""
    ruleset = RULESETS[preset]
    strong: Player = strong_player(deals=0)
    out = {f"{strength}, {side}": (Counter[str](), Counter[str]())
           for strength in ("strong", "casual") for side in ("dealer side", "attackers")}
    rng = random.Random(derived_seed(seed, "rng"))
    for i in range(hands):
        ai_side = i % 2
        hand = Hand(duel_setup(ruleset, seed, i))
        players = [strong if s % 2 == ai_side else casual_action for s in range(4)]
        for action in actions(hand, players, rng):
            seat = action.seat
            if action.kind == "bury" and seat is not None:
                strength = "strong" if seat % 2 == ai_side else "casual"
                side = "dealer side" if hand.dealer_side == seat % 2 else "attackers"
                held, buried = out[f"{strength}, {side}"]
                ctx = context(ruleset, hand.level, hand.trump)
                held.update(kind(ctx, c) for c in hand.hands[seat])
                buried.update(kind(ctx, c) for c in action.cards)
            hand.apply(action)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per preset")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--preset", nargs="*", default=["yancheng", "chizhou"])
    args = parser.parse_args()
    for preset in args.preset:
        for strength, (held, buried) in count(preset, args.hands, args.seed).items():
            low = buried["low"] / max(held["low"], 1)
            print(f"{preset} {strength}: {sum(buried.values())} cards buried in {args.hands} hands")
            for k in KINDS:
                share = buried[k] / max(held[k], 1)
                print(f"  {k:<9} {buried[k]:5d} of {held[k]:5d} held, {share:6.1%}, "
                      f"{share / low if low else 0.0:.2f} of a low card's")


if __name__ == "__main__":
    main()
