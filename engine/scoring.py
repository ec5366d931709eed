"""Scoring pieces: trick points, the kitty multiplier, the level tables (RULES.md §2.5, 2.12, 2.14)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.cards import Card
from engine.combos import Shape, decompose
from engine.ruleset import Ruleset
from engine.trump import TrumpContext


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A signed change to the attackers' score p, with its reason."""

    reason: Literal["throw", "failed_steal", "red5_forced", "red5_kept"]
    seat: int
    points: int


def kitty_multiplier_in(ctx: TrumpContext, lead: Shape, winning_play: Sequence[Card]) -> int:
    """The kitty-capture multiplier m for the last trick (§2.12, A22).

    m = 2 × the cards of the largest lead component that the winning play
    matches (a 5-10-K counts as singles, its pair form as pairs), capped
    where the ruleset says (安徽: 8).
    """
    lead_sizes = sorted((c.size for c in lead.components), reverse=True)
    if list(winning_play) == list(lead.cards):
        matched = lead_sizes[0]
    else:
        win_sizes = sorted((c.size for c in decompose(ctx, winning_play)), reverse=True)
        best = win_sizes[0] if win_sizes else 1
        matched = next((s for s in lead_sizes if s <= best), 1)
    m = 2 * matched
    cap = ctx.ruleset.kitty_multiplier_cap
    return min(m, cap) if cap is not None else m


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """The level change of a hand, read from level table A or B."""

    dealer_keeps: bool
    """True if the dealer side keeps the deal (p < θ)."""
    levels: int
    """Levels the winning side rises (0 for a plain change of dealer side, 换庄)."""
    dealer_score: int
    """积分 of each player of the hand's dealer side."""
    attacker_score: int
    """积分 of each player of the hand's attacking side."""


def level_outcome(ruleset: Ruleset, attacker_points: int, threshold: int | None = None) -> LevelOutcome:
    """The level change and 积分 for the attackers' score p, in closed form (§2.14).

    p ≥ θ: the attackers take over and rise ⌊(p − θ)/10⌋ levels, 积分 ±(that + 1).
    p < θ: the dealer side rises ⌈(θ − p)/10⌉ levels (table B adds one for
    p ≤ 0, 大光), 积分 ± that.
    """
    theta = ruleset.threshold if threshold is None else threshold
    p = attacker_points
    if p >= theta:
        gain = (p - theta) // 10
        return LevelOutcome(False, gain, -(gain + 1), gain + 1)
    gain = -((p - theta) // 10)  # ceil((θ − p) / 10)
    if ruleset.level_table == "B" and p <= 0:
        gain += 1
    return LevelOutcome(True, gain, gain, -gain)


def trick_points(plays: Sequence[Sequence[Card]]) -> int:
    """Points of all cards in a trick."""
    return sum([c.points for play in plays for c in play])  # a list: cheaper than a generator for a few cards
