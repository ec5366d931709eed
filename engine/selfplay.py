"""Self-play: whole hands with four AI seats, or the AI against a random legal player or the baseline.

Run ``python -m engine.selfplay --preset NAME --hands N --seed S [--json] [--vs-random | --vs-baseline]
[--strength casual|strong] [--deals D]``.

Plain self-play plays N full hands as they come in matches: a
:class:`engine.match.Match` deals hand after hand (levels rise, 盐城's laps
turn, 扛旗's flag hand comes, 安徽 pays its bonus), and when a match ends
the next one starts from a seed derived from S.  Redeals (hand 1 with no
bid) are counted but are not among the N hands.  That way the figures are
those of real play, flag hands and must-play levels included.

``--vs-random`` plays N independent hands instead, so that roles can be
balanced: each deal (from a seed derived from S, at a level drawn from
2…A) is played four times, with the AI on either side and either side
dealing, so the AI is the dealer side in half the hands and the attackers
in the other half, on both pairs of seats, with the same cards.  A hand is won by the side whose 积分
for it is positive (HandResult.scores); the AI's win rate is the share of
hands its side won.

``--vs-baseline`` plays the strong AI against the frozen baseline (today's
AI, the casual strength) the same way, and prints the strong side's share of
hands won and mean 积分 per hand, each with a 95% confidence interval.
``--strength`` picks the AI of plain self-play and of ``--vs-random``;
``--deals`` sets the strong player's determinizations per decision.

With ``--json`` each full hand is printed to stdout as one JSON object per
line, ``{"seed", "ruleset": {"name", "options"}, "setup", "players",
"events", "result"}``, and the summary goes to stderr; ``setup`` and the
actions in ``events`` replay the hand with
``Hand.replay(HandSetup.from_dict(setup), [Action.from_dict(e) for e in events])``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from engine.ai import Player, casual_action, random_action, strong_player
from engine.hand import Action, Hand, HandSetup
from engine.match import Match
from engine.ruleset import RULESETS, Ruleset, get_ruleset
from engine.trump import TRUMP
from engine.views import view_for

_BID_POLL_LIMIT = 400
"""Bidding polls before the clock closes the window (a guard: bids are bounded by the cards anyway)."""


def derived_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed that is a pure function of ``seed`` and ``parts``."""
    return random.Random("/".join(str(p) for p in ("selfplay", seed, *parts))).getrandbits(63)


def actions(hand: Hand, players: Sequence[Player], rng: random.Random) -> Iterator[Action]:
    """The players' actions for a hand, one at a time, until it is over.

    The caller applies each action before asking for the next.  In the
    bidding window the seats are asked in turn order (starting after the
    previous dealer, or at seat 0), skipping those who have passed since
    the last bid; a seat's answer is a bid or a pass.
    """
    ruleset = hand.ruleset
    prev = hand.setup.previous_dealer
    start = 0 if prev is None else (prev + 1) % 4
    asked = 0
    polls = 0
    while not hand.over:
        if hand.phase == "bidding":
            seat = (start + asked) % 4
            asked += 1
            if seat in hand.passed:
                continue
            polls += 1
            if polls > _BID_POLL_LIMIT:
                yield Action("close")
                continue
        else:
            turn = hand.turn
            assert turn is not None
            seat = turn
        yield players[seat](view_for(hand, seat), ruleset, rng)


def play_hand(hand: Hand, players: Sequence[Player], rng: random.Random) -> Hand:
    """Play a hand to its end with these players (seat order) and return it."""
    for action in actions(hand, players, rng):
        hand.apply(action)
    return hand


@dataclass
class Tally:
    """Figures over many hands."""

    hands: int = 0
    redeals: int = 0
    matches_finished: int = 0
    finished_match_hands: int = 0
    """Hands (redeals not counted) of the matches that finished."""
    dealer_holds: int = 0
    p_total: int = 0
    level_changes: int = 0
    levels_gained: int = 0
    kitty_captures: int = 0
    kitty_bonus: int = 0
    heaven_and_earth: int = 0
    j_to_bottom: int = 0
    flag_hands: int = 0
    failed_throws: int = 0
    failed_steals: int = 0
    red5_forced: int = 0
    red5_kept: int = 0
    steals: int = 0
    bury_voids: int = 0
    """Final buries that emptied a plain suit the burier held."""
    must_play_hands: int = 0
    """Hands played at a must-play level (J or A)."""
    last_lost_at_must_play: int = 0
    """Of those, hands whose last trick the dealer side lost."""
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    ai_wins: int = 0
    ai_score: int = 0
    ai_wins_as_dealer: int = 0
    ai_dealer_hands: int = 0
    deal_wins: list[int] = field(default_factory=list)
    """Of a duel: the AI side's hands won per deal (its four plays)."""
    deal_scores: list[int] = field(default_factory=list)
    """Of a duel: the AI side's 积分 summed over each deal's four plays."""
    side_steals: list[int] = field(default_factory=lambda: [0, 0])
    """Of a duel: steals by the AI side, and by the other side."""
    side_red5_forced: list[int] = field(default_factory=lambda: [0, 0])
    """Of a duel: red fives of the AI side forced out (逼红5), and of the other side."""
    side_must_play: list[int] = field(default_factory=lambda: [0, 0])
    """Of a duel: hands at J/A with the AI side dealing, and with the other side dealing."""
    side_last_lost: list[int] = field(default_factory=lambda: [0, 0])
    """Of those, hands whose last trick the dealing side lost."""
    seconds: float = 0.0

    def add(self, hand: Hand) -> None:
        """Count one finished hand."""
        result = hand.result
        assert result is not None and result.outcome is not None
        self.hands += 1
        self.dealer_holds += result.outcome.dealer_keeps
        self.p_total += result.attacker_points
        self.levels_gained += result.outcome.levels
        if result.kitty_multiplier:
            self.kitty_captures += 1
            self.kitty_bonus += result.kitty_bonus
        self.heaven_and_earth += result.heaven_and_earth_side is not None
        self.j_to_bottom += result.demoted_to is not None
        self.flag_hands += hand.setup.flag
        for adj in result.adjustments:
            self.failed_throws += adj.reason == "throw"
            self.failed_steals += adj.reason == "failed_steal"
            self.red5_forced += adj.reason == "red5_forced"
            self.red5_kept += adj.reason == "red5_kept"
        self.steals += sum(1 for b in hand.bids if b.kind == "steal")
        self.bury_voids += _bury_made_void(hand)
        if hand.level in (11, 14) and not hand.setup.flag and hand.tricks:
            self.must_play_hands += 1
            self.last_lost_at_must_play += hand.tricks[-1].winner % 2 != hand.dealer_side
        for seat in range(4):
            self.scores[seat] += result.scores[seat]

    def merge(self, other: Tally) -> None:
        """Add another tally's counts (a part of the same duel or self-play, played elsewhere) to this one."""
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if name in ("deal_wins", "deal_scores"):
                mine.extend(value)
            elif isinstance(value, list):
                setattr(self, name, [a + b for a, b in zip(mine, value)])
            else:
                setattr(self, name, mine + value)

    def summary(self, title: str) -> str:
        """A human-readable summary."""
        n = max(self.hands, 1)
        per_match = self.finished_match_hands / self.matches_finished if self.matches_finished else 0.0
        rate = self.hands / self.seconds if self.seconds else 0.0
        lines = [
            title,
            f"  hands {self.hands}, redeals {self.redeals}, matches finished {self.matches_finished} "
            f"({per_match:.1f} hands per finished match), flag hands {self.flag_hands}",
            f"  dealer side held {self.dealer_holds / n:.1%}; mean p {self.p_total / n:.1f}; "
            f"levels gained per hand {self.levels_gained / n:.2f}; hands that moved a level {self.level_changes}",
            f"  kitty captures {self.kitty_captures} (bonus {self.kitty_bonus}); 上天入地 {self.heaven_and_earth}; "
            f"J到底 {self.j_to_bottom}; failed throws {self.failed_throws}; steals {self.steals} "
            f"(failed {self.failed_steals}); 逼红5 {self.red5_forced}; 保红5 {self.red5_kept}",
            f"  per hand: steals {self.steals / n:.3f}, 逼红5 {self.red5_forced / n:.3f}; "
            f"buries that made a void {self.bury_voids} ({self.bury_voids / n:.1%}); "
            f"last trick lost by the dealer side at J/A {self.last_lost_at_must_play} of {self.must_play_hands}",
            f"  积分 per seat {self.scores}",
            f"  {rate:.1f} hands per second ({self.seconds:.2f} s)",
        ]
        return "\n".join(lines)


def _bury_made_void(hand: Hand) -> bool:
    """Did the final bury empty a plain suit the burier held (told from the finished hand)?"""
    burier = hand.burier
    if burier is None or not hand.kitty or hand.phase != "finished":
        return False
    ctx = hand.ctx
    played = [c for t in hand.tricks for s, cards in t.plays if s == burier for c in cards]
    held: set[str] = {ctx.group(c) for c in played + list(hand.kitty)}
    kept: set[str] = {ctx.group(c) for c in played}
    return any(g != TRUMP for g in held - kept)


def hand_record(hand: Hand, players: Sequence[str]) -> dict[str, Any]:
    """The JSON line for a finished hand."""
    assert hand.result is not None
    return {
        "seed": hand.setup.seed,
        "ruleset": {"name": hand.ruleset.name, "options": hand.ruleset.to_dict()},
        "setup": hand.setup.to_dict(),
        "players": list(players),
        "events": [e.to_dict() for e in hand.events],
        "result": hand.result.to_dict(),
    }


Emit = Callable[[dict[str, Any]], None]


def self_play(ruleset: Ruleset, hands: int, seed: int, emit: Emit | None = None,
              player: Player = casual_action) -> Tally:
    """Play ``hands`` full hands of matches with four seats of ``player`` (by default the casual AI)."""
    tally = Tally()
    players: list[Player] = [player] * 4
    rng = random.Random(derived_seed(seed, "rng"))
    match_index = 0
    match = Match(ruleset, derived_seed(seed, "match", match_index))
    started = time.perf_counter()
    spent_emitting = 0.0
    while tally.hands < hands:
        hand = match.hand
        record = None
        for action in actions(hand, players, rng):
            applied = match.apply(action)
            if applied.record is not None:
                record = applied.record
        assert record is not None
        if hand.phase == "redeal":
            tally.redeals += 1
        else:
            tally.add(hand)
            tally.level_changes += record.before != record.after
            if emit is not None:
                t = time.perf_counter()
                emit(hand_record(hand, ["ai"] * 4))
                spent_emitting += time.perf_counter() - t
        if match.over:
            tally.matches_finished += 1
            tally.finished_match_hands += match.hands_played
            match_index += 1
            match = Match(ruleset, derived_seed(seed, "match", match_index))
    tally.seconds = time.perf_counter() - started - spent_emitting
    return tally


def duel_dealer_side(i: int) -> int:
    """The dealing side of a duel's hand ``i`` (the AI's side is ``i % 2``)."""
    return (i // 2) % 2


def duel_setup(ruleset: Ruleset, seed: int, i: int) -> HandSetup:
    """Hand ``i`` of a duel: deal ``i // 4`` of the seed (its cards and level), dealt by :func:`duel_dealer_side`."""
    level = random.Random(derived_seed(seed, "level", i // 4)).randint(2, 14)
    dealer_side = duel_dealer_side(i)
    return HandSetup(ruleset, derived_seed(seed, "hand", i // 4), number=2, levels=(level, level),
                     dealer_side=dealer_side, previous_dealer=dealer_side)


def duel(ruleset: Ruleset, hands: int, seed: int, player: Player, opponent: Player,
         emit: Emit | None = None, names: tuple[str, str] = ("ai", "random"), first: int = 0) -> Tally:
    """Play ``hands`` independent hands, ``player`` against ``opponent``, roles balanced (see the module doc).

    The tally's ``ai_wins`` counts the hands ``player``'s side won.  The
    hands are those numbered from ``first`` (a multiple of 4) of the seed's
    sequence, so that a long duel can be played in parts (the AI players
    ignore the shared random generator, so the parts play the same hands).
    """
    if first % 4:
        raise ValueError("a duel's part starts at a deal: first must be a multiple of 4")
    tally = Tally()
    rng = random.Random(derived_seed(seed, "rng"))
    started = time.perf_counter()
    spent_emitting = 0.0
    for i in range(first, first + hands):
        ai_side, dealer_side = i % 2, duel_dealer_side(i)
        setup = duel_setup(ruleset, seed, i)
        players: list[Player] = [player if s % 2 == ai_side else opponent for s in range(4)]
        hand = play_hand(Hand(setup), players, rng)
        assert hand.result is not None
        tally.add(hand)
        won = hand.result.scores[ai_side] > 0
        tally.ai_wins += won
        tally.ai_score += hand.result.scores[ai_side]
        if dealer_side == ai_side:
            tally.ai_dealer_hands += 1
            tally.ai_wins_as_dealer += won
        _count_sides(tally, hand, ai_side, won, new_deal=i % 4 == 0)
        if emit is not None:
            t = time.perf_counter()
            emit(hand_record(hand, [names[0] if s % 2 == ai_side else names[1] for s in range(4)]))
            spent_emitting += time.perf_counter() - t
    tally.seconds = time.perf_counter() - started - spent_emitting
    return tally


def _count_sides(tally: Tally, hand: Hand, ai_side: int, won: bool, new_deal: bool) -> None:
    """A duel's figures per deal and per side (index 0 the AI side, 1 the other)."""
    result = hand.result
    assert result is not None
    if new_deal:
        tally.deal_wins.append(0)
        tally.deal_scores.append(0)
    tally.deal_wins[-1] += won
    tally.deal_scores[-1] += result.scores[ai_side]
    for bid in hand.bids:
        if bid.kind == "steal":
            tally.side_steals[bid.seat % 2 != ai_side] += 1
    for adj in result.adjustments:
        if adj.reason == "red5_forced":
            tally.side_red5_forced[adj.seat % 2 != ai_side] += 1
    if hand.level in (11, 14) and not hand.setup.flag and hand.tricks:
        dealing = hand.dealer_side != ai_side
        tally.side_must_play[dealing] += 1
        tally.side_last_lost[dealing] += hand.tricks[-1].winner % 2 != hand.dealer_side


def vs_random(ruleset: Ruleset, hands: int, seed: int, emit: Emit | None = None,
              player: Player = casual_action) -> Tally:
    """An AI (by default the casual one) against the random legal player: :func:`duel`, names ``"ai"``, ``"random"``."""
    return duel(ruleset, hands, seed, player, random_action, emit)


def vs_baseline(ruleset: Ruleset, hands: int, seed: int, emit: Emit | None = None,
                player: Player | None = None) -> Tally:
    """The strong AI (or ``player``) against the frozen baseline: :func:`duel`, names ``"strong"``, ``"baseline"``."""
    return duel(ruleset, hands, seed, player or strong_player(), casual_action, emit, ("strong", "baseline"))


def margin_line(tally: Tally, preset: str) -> str:
    """The strong side's hands won and mean 积分 per hand against the baseline, with 95% intervals.

    Normal approximations with the deal as the unit: a deal's four plays
    (the same cards, roles swapped) are not independent, as the strong side
    wins more often where the baseline, in the mirrored seats, loses, so the
    spread is taken between deals (a cluster estimate), which is both honest
    and narrower than counting the plays as independent hands.
    """
    n = max(tally.hands, 1)
    won = tally.ai_wins / n
    mean = tally.ai_score / n
    won_half = _cluster_half(tally.deal_wins, won, tally.hands)
    mean_half = _cluster_half(tally.deal_scores, mean, tally.hands)
    return (f"strong AI won {won:.1%} ± {won_half:.1%} of {tally.hands} hands ({preset}) against the baseline; "
            f"mean 积分 per hand {mean:+.3f} ± {mean_half:.3f} (95% intervals over {len(tally.deal_wins)} deals)")


def _cluster_half(sums: Sequence[int], mean: float, hands: int) -> float:
    """Half the 95% interval of a per-hand mean from per-deal sums (four hands a deal, the last maybe fewer)."""
    deals = len(sums)
    if deals < 2:
        return float("nan")
    sizes = [4] * (deals - 1) + [hands - 4 * (deals - 1)]
    spread = sum((total - mean * size) ** 2 for total, size in zip(sums, sizes))
    return 1.96 * math.sqrt(deals / (deals - 1) * spread) / hands


def sides_line(tally: Tally) -> str:
    """A duel's habit counts for each side: steals, red fives forced out, last tricks lost at J/A as dealer side."""
    n = max(tally.hands, 1)
    parts = []
    for i, who in enumerate(("strong", "baseline")):
        parts.append(f"{who} side: steals {tally.side_steals[i] / n:.3f} per hand, "
                     f"its red five forced out (逼红5) {tally.side_red5_forced[i]}, "
                     f"last trick lost dealing at J/A {tally.side_last_lost[i]} of {tally.side_must_play[i]}")
    return "; ".join(parts)


def win_rate_line(tally: Tally, preset: str) -> str:
    """The AI's win rate as one sentence, with the definition."""
    n = max(tally.hands, 1)
    dealer = max(tally.ai_dealer_hands, 1)
    attack = max(tally.hands - tally.ai_dealer_hands, 1)
    return (f"AI won {tally.ai_wins / n:.1%} of {tally.hands} hands ({preset}) against the random player "
            f"(a hand is won by the side with positive 积分): "
            f"{tally.ai_wins_as_dealer / dealer:.1%} as dealer side, "
            f"{(tally.ai_wins - tally.ai_wins_as_dealer) / attack:.1%} as attackers")


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = argparse.ArgumentParser(prog="python -m engine.selfplay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="yancheng",
                        help=f"a preset name or alias ({', '.join(RULESETS)}), or 'all'")
    parser.add_argument("--hands", type=int, default=100, help="full hands to play (per preset)")
    parser.add_argument("--seed", type=int, default=0, help="the seed every deal derives from")
    parser.add_argument("--json", action="store_true", help="print each hand as a JSON line (summary to stderr)")
    parser.add_argument("--vs-random", action="store_true",
                        help="AI against the random legal player, roles balanced; print the AI's win rate")
    parser.add_argument("--vs-baseline", action="store_true",
                        help="strong AI against the frozen baseline, roles balanced; print its margin")
    parser.add_argument("--strength", choices=("casual", "strong"), default="casual",
                        help="the AI of plain self-play and --vs-random")
    parser.add_argument("--deals", type=int, default=None,
                        help="the strong player's determinizations per decision (its default if omitted)")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    names = list(RULESETS) if args.preset == "all" else [get_ruleset(args.preset).name]
    report = err if args.json else out

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    strong = strong_player() if args.deals is None else strong_player(deals=args.deals)
    player = strong if args.strength == "strong" else casual_action
    for name in names:
        ruleset = RULESETS[name]
        sink = emit if args.json else None
        if args.vs_baseline:
            tally = vs_baseline(ruleset, args.hands, args.seed, sink, strong)
            print(tally.summary(f"{name}: strong AI (one side) against the baseline (the other), seed {args.seed}"),
                  file=report)
            print("  " + margin_line(tally, name), file=report)
            print("  " + sides_line(tally), file=report)
        elif args.vs_random:
            tally = vs_random(ruleset, args.hands, args.seed, sink, player)
            print(tally.summary(f"{name}: {args.strength} AI (one side) against random (the other), "
                                f"seed {args.seed}"), file=report)
            print("  " + win_rate_line(tally, name), file=report)
        else:
            tally = self_play(ruleset, args.hands, args.seed, sink, player)
            print(tally.summary(f"{name}: four {args.strength} AI seats, seed {args.seed}"), file=report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
