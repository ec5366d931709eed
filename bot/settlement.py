"""How a finished hand settled, as the table is told it: the deal, each side's level move, 安徽's end
bonus, the 积分 and where the match stands (decisions 13 and 17).

Worded from the engine's :class:`engine.match.HandRecord` and its
:class:`engine.levels.LevelMove`: a move is told as the engine recorded it,
with the reason it gave when the move is not the table's number; the 积分
are the record's, and only their parts are named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from bot.i18n import Translator
from bot.labels import flag_phrase, level_label, seat_label, side_label, signed
from engine.cards import Card
from engine.levels import LevelMove, MoveReason, SideLevel
from engine.match import HandRecord
from engine.special import JACK


def level_text(tr: Translator, level: SideLevel, laps: int) -> str:
    """「8」, 「8（第 2 圈）」 in 盐城, 「扛旗（无主）」 for a side owing the flag hand."""
    if level.at_flag:
        return flag_phrase(tr)
    text = level_label(level.rank)
    return text + tr(" (lap {lap})", lap=level.lap) if laps > 1 else text


def levels_phrase(tr: Translator, n: int) -> str:
    """「1 级」, 「3 级」."""
    return tr("1 level") if n == 1 else tr("{n} levels", n=n)


def _capture_name(tr: Translator, rank: int, winning: Sequence[Card] | None) -> str:
    """「对A」 / 「A」 / 「J」: the level cards that won the last trick (J到底, 池州's J/A)."""
    name = level_label(rank)
    if winning is not None and len(winning) == 2:
        return tr("pair of {rank}", rank=name)
    return name


def move_line(tr: Translator, record: HandRecord, move: LevelMove, laps: int,
              winning: Sequence[Card] | None = None) -> str | None:
    """One side's level move as the engine recorded it, with the reason when it is not the table's number.

    None when the side did not move and there is nothing to say about it (or the deal's line said it).
    ``winning`` is what won the hand's last trick (names the capture of a demotion).
    """
    side = side_label(tr, move.side)
    shown_laps = laps if move.before.lap != move.after.lap else 1  # 「Q（第 1 圈） → 3（第 2 圈）」 only across laps
    before, after = level_text(tr, move.before, shown_laps), level_text(tr, move.after, shown_laps)
    reason = move.reason
    values = {"side": side, "before": before, "after": after, "table": levels_phrase(tr, move.table)}
    if reason is None:
        if move.table == 0:
            return None
        return tr("{side} rise {table}: {before} → {after}", **values)
    if reason is MoveReason.MUST_PLAY:
        if move.moved > 0:
            return tr("{side}: the table gives {table}, but {after} must be played: stop at {after} ({before} → {after})",
                      **values)
        return tr("{side}: the table gives {table}, but {before} must be played: still at {before}", **values)
    if reason is MoveReason.STOPPED_AT_ACE and move.before.at_flag:
        return None  # a side that passed A earlier and takes the deal: 「已过 A，仍要扛旗」 (deal_line)
    if reason is MoveReason.STOPPED_AT_ACE and move.moved == 0:
        return tr("{side}: the table gives {table}, the climb ends at A: still at A", **values)
    if reason is MoveReason.STOPPED_AT_ACE:
        return tr("{side}: the table gives {table}, the climb ends at A: {before} → {after}", **values)
    if reason is MoveReason.LAP_WRAP:  # jumping across A is not 过A (decision 13): that is winning at A
        return tr("{side} rise {table}, across A into lap {lap}: {before} → {after}", lap=move.after.lap, **values)
    if reason is MoveReason.PASSED_ACE:  # the deal line has said 保庄: this names what passing A brings
        if move.after.at_flag:
            return tr("{side} won at A: past A, they owe the flag hand (扛旗)", **values)
        if record.winner_side == move.side:
            return tr("{side} won at A: past A, they win the match", **values)
        return tr("{side} won at A: past A", **values)
    if reason is MoveReason.DEMOTED and move.before.rank == JACK and record.setup.ruleset.j_to_bottom == "nantong":
        return tr("J到底 (a jack took the last trick): {side} go back to {after}", **values)
    if reason is MoveReason.DEMOTED:  # 池州's J/A rule is a kitty capture (抠底), not 南通's J到底
        return tr("{capture} captured the kitty: {side} go back to {after}",
                  capture=_capture_name(tr, move.before.rank, winning), **values)
    return None  # the flag hand, 上天入地, an escape, a redeal: told once for both sides (deal_line)


def deal_line(tr: Translator, record: HandRecord, laps: int) -> str:
    """Who keeps or takes the deal — or what the flag hand, 上天入地, an escape or a redeal did instead."""
    result = record.result
    reason = record.moves[0].reason
    if result is None or reason is MoveReason.REDEAL:
        return tr("Nobody bid: the cards are dealt again; no level moves.")
    if reason is MoveReason.ESCAPE:
        return tr("The hand is abandoned; no level moves.")
    dealer_side = result.dealer_side if result.dealer_side is not None else 0
    attackers = 1 - dealer_side
    if reason is MoveReason.FLAG_WON:
        return tr("{side} held the flag hand (扛旗) and win the match", side=side_label(tr, dealer_side))
    if reason is MoveReason.FLAG_FAILED:
        taker = record.moves[attackers].after
        if taker.at_flag:  # the takers passed A in an earlier hand: no level to play, a flag hand when they deal
            return tr("The flag hand failed: {side} take the deal; {side} have passed A and play the flag hand "
                      "(扛旗) when they deal", side=side_label(tr, attackers))
        return tr("The flag hand failed: {side} take the deal, still at {level}",
                  side=side_label(tr, attackers), level=level_text(tr, taker, laps))
    if reason is MoveReason.HEAVEN_AND_EARTH:
        winners = result.heaven_and_earth_side
        assert winners is not None
        return tr("Heaven and earth (上天入地): {winners} go to {top}, {losers} back to {bottom}",
                  winners=side_label(tr, winners), top=level_text(tr, record.moves[winners].after, laps),
                  losers=side_label(tr, 1 - winners), bottom=level_text(tr, record.moves[1 - winners].after, laps))
    outcome = result.outcome
    assert outcome is not None
    if outcome.dealer_keeps:
        return tr("{side} keep the deal (保庄)", side=side_label(tr, dealer_side))
    side = side_label(tr, attackers)
    if record.moves[attackers].before.at_flag:  # passed A in an earlier hand: no level to rise, the flag waits
        return tr("{side} take the deal (上台); having passed A, they still owe the flag hand (扛旗)", side=side)
    if outcome.levels == 0:
        return tr("{side} take the deal (上台) with {p} points: the dealer changes (换庄), no level gained",
                  side=side, p=result.attacker_points)
    return tr("{side} take the deal (上台)", side=side)


def end_bonus_line(tr: Translator, record: HandRecord, laps: int) -> str | None:
    """安徽's end bonus, the engine's amount by the losers' level: 「东西打 Q，按级别另扣 2 积分；南北每人 +2」."""
    winners = record.winner_side
    if winners is None or not any(record.bonus):
        return None
    losers = 1 - winners
    return tr("{losers} at {level} pay {amount} 积分 more each for their level; {winners} +{amount} each",
              losers=side_label(tr, losers), level=level_text(tr, record.after[losers], laps),
              amount=record.bonus[winners], winners=side_label(tr, winners))


def scores_line(tr: Translator, record: HandRecord) -> str:
    """Each seat's 积分 for the hand (安徽's end bonus included), and, for a takeover that rose, the parts
    of the winners' 积分: 「（上台 1 + 按表 3 级）」 — what the table gives for the deal and for the levels."""
    result = record.result
    assert result is not None
    scores = "  ".join(f"{seat_label(tr, s)} {signed(result.scores[s] + record.bonus[s])}" for s in range(4))
    line = tr("积分: {scores}", scores=scores)
    outcome = result.outcome
    if result.dealer_side is None:
        return line
    attackers = 1 - result.dealer_side
    if result.demoted_to is not None and record.setup.ruleset.j_to_bottom == "chizhou":
        # 池州's J/A capture: the capturers get the levels removed, plus the table's 积分 when they took over.
        by_table = result.scores[attackers] - result.levels_removed
        removed = levels_phrase(tr, result.levels_removed)
        if by_table:
            return line + tr(" ({removed} removed + {n} by the table)", removed=removed, n=by_table)
        return line + tr(" ({removed} removed)", removed=removed)
    if outcome is None or outcome.dealer_keeps or outcome.levels == 0:
        return line
    if result.heaven_and_earth_side is None and result.scores[attackers] == outcome.attacker_score:
        # Not for 上天入地 or 池州's J/A capture: their 积分 are not the table's.
        line += tr(" (上台 {base} + {levels} by the table)", base=outcome.attacker_score - outcome.levels,
                   levels=levels_phrase(tr, outcome.levels))
    return line


TOP_ROWS: Final[Mapping[bool, int]] = MappingProxyType({True: 10, False: 8})
"""The most levels the printed level tables give, by whether the dealer side keeps the deal: table B's
−10 to −5 row (table A's −20) gives the dealer side 10, both tables' 160–165 row the attackers 8.  Beyond
them the tables say only 「类推」 (and so on)."""


def extrapolation_line(tr: Translator, record: HandRecord) -> str | None:
    """The arithmetic of a jump beyond the printed rows (「类推」), which players will question:
    「p = −110：每少 10 分多升 1 级，共升 20 级」.  The total is the engine's."""
    result = record.result
    if result is None or result.outcome is None or record.setup.flag or result.heaven_and_earth_side is not None:
        return None
    outcome = result.outcome
    if outcome.levels <= TOP_ROWS[outcome.dealer_keeps]:
        return None
    values = {"p": signed(result.attacker_points) if result.attacker_points < 0 else result.attacker_points,
              "levels": levels_phrase(tr, outcome.levels)}
    if outcome.dealer_keeps:
        return tr("p = {p}: each 10 points fewer is one level more, {levels} in all", **values)
    return tr("p = {p}: each 10 points more is one level more, {levels} in all", **values)


def standing(tr: Translator, sides: tuple[SideLevel, SideLevel], laps: int) -> str:
    """Where the match stands: 「南北 打 7 · 东西 打 9（第 2 圈）」."""
    return "  ·  ".join(
        f"{side_label(tr, side)} " + (flag_phrase(tr) if sides[side].at_flag else
                                      tr("at {level}", level=level_text(tr, sides[side], laps)))
        for side in (0, 1)
    )
