"""Where the strong heuristics' choice loses, judged in the true deal against the baseline, by kind of decision.

    python bench/bench_alternatives.py [--hands N] [--seed S] [--preset NAME ...] [--least K]

Positions come from the strong heuristics (no search) playing the frozen
baseline, roles alternating by hand: every decision of the strong side with
a choice.  Each alternative is played out in the *true* deal, the strong
side continuing with its heuristics and the other side with the baseline,
and compared with the heuristic's own choice (a one-step deviation, paired
on the same cards).  Follows are grouped by the seat's place in the trick,
who is winning it, whether a later opponent could beat it, the points on
the table and the kind of play chosen (feed, secure win, win, discard);
their alternatives are the cheapest discard, the best feed, the cheapest
win, the cheapest secure win and the dearest win.  Leads are grouped by
side, hand length and the chosen lead's score; the alternative is the
next-best scored lead.  It prints, for every group with at least K
positions, the mean gain of each alternative with a 95 % interval (largest
totals first).

A one-step deviation that gains here need not gain as a rule: many groups
are compared, so the top ones are flattered, and a rule changes the rest of
the hand too.  Check a change with ``bench/bench_heuristics.py``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.ai import casual_action, heuristic_action  # noqa: E402
from engine.ai.following import beatable, follow_candidates, winning_follows  # noqa: E402
from engine.ai.leading import _lead_options  # noqa: E402
from engine.ai.memory import build_memory, context, points_of, same_side  # noqa: E402
from engine.ai.prices import discard_cost, distinct, feed_cost, play_cost  # noqa: E402
from engine.ai.search import rollout_value, world_hand  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.combos import classify  # noqa: E402
from engine.hand import Action, Hand, HandSetup  # noqa: E402
from engine.hints import cheapest_follow  # noqa: E402
from engine.ruleset import RULESETS, Ruleset  # noqa: E402
from engine.selfplay import actions, derived_seed  # noqa: E402
from engine.tricks import trick_winner_in  # noqa: E402
from engine.trump import TRUMP  # noqa: E402
from engine.views import HandView, view_for  # noqa: E402

Gains = dict[tuple[str, str], list[float]]


def _policy(strong_side: int) -> Callable[[HandView, Ruleset], Action]:
    def play(view: HandView, ruleset: Ruleset) -> Action:
        if view.viewer is not None and view.viewer % 2 == strong_side:
            return heuristic_action(view, ruleset)
        return casual_action(view, ruleset)
    return play


def _follow_options(view: HandView, ruleset: Ruleset) -> tuple[str, dict[str, list[Card]]]:
    """The follow's group and its labelled plays, the heuristic's choice first."""
    assert view.viewer is not None
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    seat = view.viewer
    hand = list(mem.hand)
    counts = Counter(hand)
    lead = list(view.current[0][1])
    shape = classify(ctx, lead)
    assert shape is not None
    plays = [list(c) for _s, c in view.current]
    seats = [s for s, _c in view.current]
    later = [(seats[0] + k) % 4 for k in range(len(plays) + 1, 4)]
    later_opponents = [s for s in later if not same_side(s, seat)]
    winner = trick_winner_in(ctx, plays)
    options = {"choice": follow_candidates(mem, view.current, 1)[0],
               "discard": cheapest_follow(ctx, lead, hand, discard_cost(ctx, counts)),
               "feed": cheapest_follow(ctx, lead, hand, feed_cost(ctx, counts))}
    wins = winning_follows(mem, shape, lead, hand, plays)
    secure = [w for w in wins if not beatable(mem, shape, plays + [w], len(plays), later_opponents)]
    if wins:
        options["win"] = min(wins, key=lambda w: play_cost(ctx, w))
        options["dearest win"] = max(wins, key=lambda w: play_cost(ctx, w))
    if secure:
        options["secure win"] = min(secure, key=lambda w: play_cost(ctx, w))
    same = [k for k in ("feed", "secure win", "win", "discard") if k in options and _key(options[k]) == _key(
        options["choice"])]
    group = (f"follow, {len(plays) + 1}{'nd' if len(plays) == 1 else 'th' if len(plays) == 3 else 'rd'} seat, "
             f"{'partner' if same_side(seats[winner], seat) else 'opponent'} winning, "
             f"{'beatable' if beatable(mem, shape, plays, winner, later_opponents) else 'sure'}, "
             f"{'10+' if sum(points_of(p) for p in plays) >= 10 else 'under 10'} points, "
             f"chose {same[0] if same else 'other'}")
    return group, options


def _lead_options_labelled(view: HandView, ruleset: Ruleset) -> tuple[str, dict[str, list[Card]]]:
    """The lead's group (side, stage, the choice's score and kind) and the choice with the next-best lead."""
    assert view.viewer is not None
    ctx = context(ruleset, view.level, view.trump)
    mem = build_memory(view, ctx)
    dealer_side = view.dealer_side == view.viewer % 2
    scored = sorted(_lead_options(mem, dealer_side=dealer_side, heaven_and_earth=ruleset.heaven_and_earth != "none"),
                    key=lambda o: -o[0])
    leads = distinct([cards for _s, cards in scored])
    score = scored[0][0]
    first = leads[0]
    kind = f"{'trump' if ctx.group(first[0]) == TRUMP else 'plain'} {len(first)}"
    group = (f"lead, {'dealer side' if dealer_side else 'attackers'}, {'late' if len(view.hand) <= 8 else 'early'}, "
             f"score {score:.0f}, {kind}")
    options = {"choice": first}
    if len(leads) > 1:
        options["next lead"] = leads[1]
    return group, options


def _key(cards: list[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.sort_key))


def gains(preset: str, hands: int, seed: int) -> Gains:
    """Each alternative's gain over the heuristic's choice, by group, in ``hands`` hands of a preset."""
    ruleset = RULESETS[preset]
    out: Gains = defaultdict(list)
    for i in range(hands):
        level = random.Random(derived_seed(seed, "level", i)).randint(2, 14)
        setup = HandSetup(ruleset, derived_seed(seed, "hand", i), number=2, levels=(level, level),
                          dealer_side=i % 2, previous_dealer=i % 2)
        hand = Hand(setup)
        strong_side = (i // 2) % 2
        policy = _policy(strong_side)
        players = [lambda v, r, _g: policy(v, r)] * 4
        for action in actions(hand, players, random.Random(1)):
            turn = hand.turn
            if hand.phase == "playing" and turn is not None and turn % 2 == strong_side:
                view = view_for(hand, turn)
                group, options = (_follow_options if view.current else _lead_options_labelled)(view, ruleset)
                ctx = context(ruleset, view.level, view.trump)
                values: dict[tuple[Card, ...], float] = {}
                for cards in options.values():
                    if _key(cards) not in values:
                        sim = world_hand(view, ruleset, ctx, hand.hands, hand.kitty)
                        sim.apply(Action("play", turn, tuple(cards)))
                        values[_key(cards)] = rollout_value(sim, turn, policy)
                base = values[_key(options["choice"])]
                for label, cards in options.items():
                    if label != "choice" and _key(cards) != _key(options["choice"]):
                        out[(group, label)].append(values[_key(cards)] - base)
            hand.apply(action)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=60, help="hands per preset")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--preset", nargs="*", default=list(RULESETS))
    parser.add_argument("--least", type=int, default=20, help="positions a group needs to be printed")
    args = parser.parse_args()
    found: Gains = defaultdict(list)
    for preset in args.preset:
        for key, values in gains(preset, args.hands, args.seed).items():
            found[key] += values
    print(f"{args.hands} hands per preset, seed {args.seed}: gain of each alternative over the heuristic's choice "
          f"(积分 plus the search's point term, 95 % intervals over positions)")
    for (group, label), xs in sorted(found.items(), key=lambda kv: -sum(kv[1])):
        n = len(xs)
        if n < args.least:
            continue
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(n - 1, 1))
        print(f"{mean:+.3f} ± {1.96 * sd / math.sqrt(n):.3f} ({n:4d}) {group} -> {label}")


if __name__ == "__main__":
    main()
