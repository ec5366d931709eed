"""End-of-hand scoring: p, the level table, 上天入地, J到底 and escapes (RULES.md §2.12–2.16).

:func:`score_hand` turns a finished hand into a :class:`HandResult`;
:func:`score_escape` scores an abandoned one.  Level *movement* (must-play
levels, laps, the flag hand) belongs to :mod:`engine.match`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.bidding import BidRecord
from engine.cards import ACE, Card, card_points, format_cards
from engine.combos import five_ten_king
from engine.notices import Notice
from engine.ruleset import Ruleset
from engine.scoring import Adjustment, LevelOutcome, level_outcome
from engine.trump import TrumpContext

JACK = 11


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: the attackers' score p, its parts, the table outcome and 积分 per seat."""

    attacker_points: int
    """p: trick points + kitty bonus + adjustments."""
    trick_points: int
    kitty: tuple[Card, ...]
    kitty_multiplier: int
    """0 when the kitty was not captured."""
    adjustments: tuple[Adjustment, ...]
    threshold: int
    dealer_side: int | None
    outcome: LevelOutcome | None
    """The level table's verdict (None for an escape)."""
    scores: tuple[int, int, int, int]
    """积分 of each seat for this hand."""
    heaven_and_earth_side: int | None = None
    """The side rewarded by 上天入地, if it happened."""
    demoted_to: int | None = None
    """J到底: the dealer side's new level rank, if it happened."""
    levels_removed: int = 0
    escaped: int | None = None
    """The seat that escaped, for an abandoned hand."""
    notices: tuple[Notice, ...] = ()
    """The hand's public notices (failed throws, 逼红5/保红5) in the order they happened."""
    bids: tuple[BidRecord, ...] = ()
    """The public bid history (decision 17)."""

    @property
    def kitty_bonus(self) -> int:
        """Kitty points times the multiplier."""
        return card_points(self.kitty) * self.kitty_multiplier

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "attacker_points": self.attacker_points, "trick_points": self.trick_points,
            "kitty": format_cards(self.kitty), "kitty_multiplier": self.kitty_multiplier,
            "kitty_bonus": self.kitty_bonus,
            "adjustments": [{"reason": a.reason, "seat": a.seat, "points": a.points} for a in self.adjustments],
            "threshold": self.threshold, "dealer_side": self.dealer_side,
            "dealer_keeps": None if self.outcome is None else self.outcome.dealer_keeps,
            "levels": None if self.outcome is None else self.outcome.levels,
            "scores": list(self.scores), "heaven_and_earth_side": self.heaven_and_earth_side,
            "demoted_to": self.demoted_to, "levels_removed": self.levels_removed, "escaped": self.escaped,
            "notices": [n.to_dict() for n in self.notices], "bids": [b.to_dict() for b in self.bids],
        }


def _per_seat(dealer_side: int, dealer_score: int, attacker_score: int) -> tuple[int, int, int, int]:
    return tuple(dealer_score if seat % 2 == dealer_side else attacker_score for seat in range(4))  # type: ignore[return-value]


def contains_five_ten_king(ctx: TrumpContext, cards: Sequence[Card]) -> bool:
    """True if the cards include a same-suit 5, 10 and K."""
    return any(five_ten_king(ctx, list(trio)) is not None for trio in combinations(set(cards), 3))


def score_hand(
    ctx: TrumpContext, *, dealer_side: int, threshold: int, trick_points: int, kitty: tuple[Card, ...],
    kitty_multiplier: int, adjustments: tuple[Adjustment, ...], last_winner: int,
    winning_play: Sequence[Card], levels: tuple[int, int], flag: bool = False,
) -> HandResult:
    """Score a finished hand (§2.12–2.14, A23–A24, A27).

    The flag hand has no kitty, so nothing that needs a kitty capture
    (上天入地, J到底) can happen in it.
    """
    r = ctx.ruleset
    p = trick_points + card_points(kitty) * kitty_multiplier + sum(a.points for a in adjustments)
    outcome = level_outcome(r, p, threshold)
    scores = _per_seat(dealer_side, outcome.dealer_score, outcome.attacker_score)
    attackers = 1 - dealer_side
    winner_side = last_winner % 2
    hae_side: int | None = None
    if flag:
        return HandResult(p, trick_points, kitty, kitty_multiplier, adjustments, threshold, dealer_side, outcome,
                          scores)
    if r.heaven_and_earth == "exact_either_side":
        ftk = five_ten_king(ctx, list(winning_play))
        if ftk is not None and ftk[2] == 1:
            hae_side = winner_side
    elif r.heaven_and_earth == "attackers_containing":
        if winner_side == attackers and contains_five_ten_king(ctx, winning_play):
            hae_side = attackers
    if hae_side is not None:
        normal = outcome.dealer_score if hae_side == dealer_side else outcome.attacker_score
        reward = max(r.heaven_and_earth_reward, normal)
        scores = tuple(reward if seat % 2 == hae_side else -reward for seat in range(4))  # type: ignore[assignment]
        return HandResult(p, trick_points, kitty, kitty_multiplier, adjustments, threshold, dealer_side,
                          outcome, scores, heaven_and_earth_side=hae_side)
    demoted = _j_to_bottom(r, ctx.level, winner_side == attackers, winning_play, p >= threshold)
    if demoted is not None:
        old = levels[dealer_side]
        removed = old - demoted
        if r.chizhou_fixed_nine and old == ACE and demoted == 2:
            removed = 9
        if r.j_to_bottom == "chizhou":
            gain = removed + (outcome.attacker_score if p >= threshold else 0)
            scores = _per_seat(dealer_side, -gain, gain)
        return HandResult(p, trick_points, kitty, kitty_multiplier, adjustments, threshold, dealer_side,
                          outcome, scores, demoted_to=demoted, levels_removed=removed)
    return HandResult(p, trick_points, kitty, kitty_multiplier, adjustments, threshold, dealer_side, outcome, scores)


def _j_to_bottom(r: Ruleset, level: int | None, attackers_won_last: bool, winning: Sequence[Card],
                 reached: bool) -> int | None:
    """J到底 (南通) and 池州's J/A rule: the dealer side's new level, or None."""
    if r.j_to_bottom == "none" or not attackers_won_last or level not in (JACK, ACE):
        return None
    if len(winning) not in (1, 2) or any(c.rank != level or c.is_joker for c in winning):
        return None
    pair = len(winning) == 2 and winning[0] is winning[1]
    if len(winning) == 2 and not pair:
        return None
    if r.j_to_bottom == "nantong":
        if not reached:
            return None
        if level == JACK:
            return 2
        return JACK if pair else None
    if level == JACK:
        return 2
    return 2 if pair else JACK


def score_escape(r: Ruleset, *, seat: int, dealer_side: int | None, threshold: int, attacker_points: int,
                 cards_played: bool, levels: tuple[int, int]) -> HandResult:
    """Score an escape (逃跑, §2.16, A26, A36): only the escaper loses 积分."""
    loss = escape_loss(r, seat=seat, dealer_side=dealer_side, threshold=threshold,
                       attacker_points=attacker_points, cards_played=cards_played, levels=levels)
    scores = tuple(-loss if s == seat else 0 for s in range(4))
    return HandResult(attacker_points, 0, (), 0, (), threshold, dealer_side, None,
                      scores, escaped=seat)  # type: ignore[arg-type]


def escape_loss(r: Ruleset, *, seat: int, dealer_side: int | None, threshold: int, attacker_points: int,
                cards_played: bool, levels: tuple[int, int]) -> int:
    """积分 the escaper loses.

    The 15 rule: nothing before the first card; exactly 15 if the escaper's
    side is winning at the current p; otherwise the larger of 15 and what the
    table would take from that side now.  安徽 (A36): 15, or 20 once either
    side has reached J, whenever the escape happens.
    """
    if r.escape == "anhui":
        return 20 if max(levels) >= JACK else 15
    if not cards_played or dealer_side is None:
        return 0
    attacker = seat % 2 != dealer_side
    attackers_ahead = attacker_points >= threshold
    if attackers_ahead == attacker:
        return 15
    outcome = level_outcome(r, attacker_points, threshold)
    table_loss = -(outcome.attacker_score if attacker else outcome.dealer_score)
    return max(15, table_loss)
