"""Level moves told as they happened (decisions 13 and 17), checked over seeded self-play of every preset.

Matches start high (levels 9…A, every lap of 盐城) so that A, must-play
levels, laps and the flag hand come often.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.ai import casual_action
from engine.cards import ACE
from engine.levels import RANKS_PER_LAP, LevelMove, MoveReason, SideLevel
from engine.match import HandRecord, Match, MatchStart
from engine.ruleset import RULESETS
from engine.selfplay import actions

PRESETS = list(RULESETS)


def _records(preset: str, matches: int = 4, hands: int = 12) -> list[tuple[Match, HandRecord]]:
    r = RULESETS[preset]
    out: list[tuple[Match, HandRecord]] = []
    for i in range(matches):
        rng = random.Random(f"moves/{preset}/{i}")
        a = SideLevel(rng.randint(1, r.laps), rng.randint(9, ACE))
        b = SideLevel(rng.randint(1, r.laps), rng.randint(9, ACE))
        m = Match(r, 500 + i, MatchStart((a, b), rng.randrange(2), rng.randrange(4)))
        while not m.over and len(m.records) < hands:
            for action in actions(m.hand, [casual_action] * 4, rng):
                record = m.apply(action).record
                if record is not None:
                    out.append((m, record))
    return out


@pytest.fixture(scope="module", params=PRESETS)
def played(request: pytest.FixtureRequest) -> tuple[str, list[tuple[Match, HandRecord]]]:
    return request.param, _records(request.param)


def test_recorded_move_is_the_sides_levels_before_and_after(played) -> None:  # type: ignore[no-untyped-def]
    preset, records = played
    assert records
    for _m, rec in records:
        for side in (0, 1):
            move = rec.moves[side]
            assert move.side == side and move.before == rec.before[side] and move.after == rec.after[side]
            if move.reason is None:
                assert move.moved == move.table, (preset, move)
        result = rec.result
        if result is not None and result.outcome is not None and not rec.setup.flag \
                and result.heaven_and_earth_side is None:
            out = result.outcome
            winner = result.dealer_side if out.dealer_keeps else 1 - (result.dealer_side or 0)
            assert rec.moves[winner].table == out.levels
            assert rec.moves[1 - winner].table == 0


def test_a_level_move_never_passes_a(played) -> None:  # type: ignore[no-untyped-def]
    """Decision 13: no jump beyond A (盐城 laps 1–2 wrap); only winning as dealer at A passes it."""
    preset, records = played
    r = RULESETS[preset]
    last = r.laps * RANKS_PER_LAP - 1
    for m, rec in records:
        for move in rec.moves:
            assert move.after.index() <= last
            if move.reason is MoveReason.LAP_WRAP:
                assert r.laps > 1 and move.before.lap < r.laps and move.after.lap == move.before.lap + 1
            elif move.reason is not MoveReason.HEAVEN_AND_EARTH:
                assert move.after.lap == move.before.lap, (preset, move)
            if move.reason is MoveReason.PASSED_ACE:
                assert move.before.index() == last and move.after.index() == last
        if rec.winner_side is not None:
            reason = rec.moves[rec.winner_side].reason
            assert reason in (MoveReason.PASSED_ACE, MoveReason.FLAG_WON), (preset, rec.moves)
    assert any(move.reason is MoveReason.PASSED_ACE for _m, rec in records for move in rec.moves)


def test_level_move_round_trips_through_json(played) -> None:  # type: ignore[no-untyped-def]
    _preset, records = played
    for _m, rec in records:
        for move in rec.moves:
            assert LevelMove.from_dict(json.loads(json.dumps(move.to_dict()))) == move
