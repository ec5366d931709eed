"""What the end of a trick and the end of a hand settle: red fives forced out or kept, and the hand's score.

One source for :class:`engine.hand.Hand` (which also tells these as
notices) and for the search's light rollouts (:mod:`engine.ai.rollout`,
which only score them).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.combos import classify
from engine.ruleset import Ruleset
from engine.scoring import Adjustment, kitty_multiplier_in
from engine.special import HandResult, score_hand
from engine.trump import TrumpContext


def red_fives_forced_out(ruleset: Ruleset, pending: Sequence[tuple[int, int]], winner: int,
                         dealer_side: int) -> list[tuple[Adjustment, int]]:
    """逼红5 at the end of a trick: for each (seat, red fives) of ``pending`` forced out of a seat whose side lost
    it, the change to p and the red fives."""
    out: list[tuple[Adjustment, int]] = []
    for seat, count in pending:
        if seat % 2 != winner % 2:
            amount = ruleset.red5_bonus * count
            out.append((Adjustment("red5_forced", seat, -amount if seat % 2 != dealer_side else amount), count))
    return out


def red_fives_kept(ctx: TrumpContext, lead_seat: int, lead_cards: Sequence[Card], dealer_side: int) -> Adjustment | None:
    """保红5: the last trick led with red fives alone earns the leader's side the bonus for each; else None."""
    bonus = ctx.ruleset.red5_bonus
    if bonus and lead_cards and all(ctx.is_red_five(c) for c in lead_cards):
        amount = bonus * len(lead_cards)
        return Adjustment("red5_kept", lead_seat, amount if lead_seat % 2 != dealer_side else -amount)
    return None


def score_last_trick(ctx: TrumpContext, plays: Sequence[tuple[int, Sequence[Card]]], winner: int, *,
                     dealer_side: int, threshold: int, trick_points: int, kitty: Sequence[Card],
                     adjustments: Sequence[Adjustment], levels: tuple[int, int], flag: bool) -> HandResult:
    """The hand's result once its last trick (``plays``, won by ``winner``) is played: the kitty's multiplier
    where the attackers took the last trick, then :func:`engine.special.score_hand`.

    ``adjustments`` are all of the hand's (保红5 of this trick included).
    """
    winning = dict(plays)[winner]
    multiplier = 0
    if winner % 2 != dealer_side and kitty:
        lead = classify(ctx, plays[0][1])
        assert lead is not None
        multiplier = kitty_multiplier_in(ctx, lead, winning)
    return score_hand(
        ctx, dealer_side=dealer_side, threshold=threshold, trick_points=trick_points, kitty=tuple(kitty),
        kitty_multiplier=multiplier, adjustments=tuple(adjustments), last_winner=winner, winning_play=winning,
        levels=levels, flag=flag,
    )
