"""Loading an active table replays its log through the real engine to exactly the saved state."""

from __future__ import annotations

import random

import pytest

import storage
from engine.ai import choose_action
from engine.hand import Action
from engine.match import Match
from engine.ruleset import RULESETS, Ruleset
from engine.views import view_for
from storage import Database

from .conftest import start_game


def _next_action(match: Match, rng: random.Random) -> Action:
    hand = match.hand
    seat = hand.awaiting()[0]
    action = choose_action(view_for(hand, seat), hand.ruleset, rng)
    return action if hand.can(action) else Action("pass", seat)


@pytest.mark.parametrize("preset", ["yancheng", "nantong", "anhui"])
async def test_a_stored_log_replays_to_the_saved_state(db: Database, preset: str) -> None:
    ruleset = RULESETS[preset]
    rng = random.Random(5)
    match = Match(ruleset, 2024)
    game = await start_game(db)
    await storage.update_match(db, game.match.match_id, extra={"checkpoint": match.checkpoint})
    hand_id = game.hand.hand_id
    moves = 0
    # Play on through hand boundaries, storing what the bot stores, and stop mid-hand.
    while moves < 260:
        action = _next_action(match, rng)
        await storage.append_event(db, hand_id, len(match.hand.events) + 1, action.kind, action.to_dict())
        record = match.apply(action).record
        moves += 1
        if record is not None:
            await storage.update_hand(db, hand_id, status="aborted")
            await storage.update_match(db, game.match.match_id, extra={"checkpoint": match.checkpoint})
            hand_id = (await storage.create_hand(db, game.match.match_id, seed=match.hand.setup.seed,
                                                 ruleset=ruleset.to_dict())).hand_id
    active = await storage.load_active_table(db, game.table.table_id)
    assert active is not None and active.match is not None and active.hand is not None
    assert active.hand.hand_id == hand_id
    rebuilt = Match.resume(Ruleset.from_dict(ruleset.to_dict()), active.match.extra["checkpoint"],
                           [Action.from_dict(e.payload) for e in active.events])
    assert rebuilt.hand.fingerprint() == match.hand.fingerprint()
    assert rebuilt.sides == match.sides and rebuilt.scores == match.scores
    assert len(active.events) == len(match.hand.events)
