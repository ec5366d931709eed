"""Start-up: loading active tables and replaying their logs gives back the saved state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import storage
from storage import ActiveTable, CorruptLog, Database, HandRecord, StoredEvent

from .conftest import start_game


@dataclass(frozen=True)
class Tally:
    """A stand-in for the engine's hand state: enough to tell two histories apart."""

    seed: int
    moves: int = 0
    total: int = 0
    kinds: tuple[str, ...] = ()


def step(state: Tally, kind: str, payload: Mapping[str, object]) -> Tally:
    amount = payload.get("n", 0)
    assert isinstance(amount, int)
    return replace(state, moves=state.moves + 1, total=state.total * 3 + amount, kinds=(*state.kinds, kind))


def tally_replay(hand: HandRecord, events: Sequence[StoredEvent]) -> Tally:
    state = Tally(hand.seed)
    for event in events:
        state = step(state, event.kind, event.payload)
    return state


async def test_replaying_loaded_tables_gives_exactly_the_saved_state(db_path: Path) -> None:
    saved: dict[int, Tally] = {}
    db = await Database.open(db_path)
    games = []
    seating = []
    for i in range(5):
        players = (10 * i + 1, 10 * i + 2, None, 10 * i + 4)
        seating.append([(seat, user, user is None) for seat, user in enumerate(players)])
        games.append(await start_game(db, -(i + 1), players, seed=1000 + i))
    # Interleave the tables, as a day of moves in five groups would.
    for move in range(1, 31):
        for i, game in enumerate(games):
            if move > 6 * (i + 1):
                continue  # tables at different points of their hands
            kind = "play" if move % 3 else "bid"
            payload = {"n": move * (i + 1), "seat": move % 4}
            state = saved.get(game.table.table_id, Tally(game.hand.seed))
            saved[game.table.table_id] = step(state, kind, payload)
            await storage.append_event(db, game.hand.hand_id, move, kind, payload)
    await storage.save_snapshot(db, games[0].hand.hand_id, 6, 1, {"moves": 6})
    deadline = await storage.update_table(db, games[1].table.table_id, turn_deadline=2e9, message_id=5)
    await db.close()

    db = await Database.open(db_path)  # a restart
    try:
        loaded = await storage.load_active_tables(db)
        assert [a.table.table_id for a in loaded] == [g.table.table_id for g in games]
        for active, game, seats in zip(loaded, games, seating):
            assert active.match == game.match
            assert active.hand == game.hand
            assert [(s.seat, s.user_id, s.is_ai) for s in active.seats] == seats
            assert storage.replay(active, tally_replay) == saved[game.table.table_id]
        assert loaded[1].table == deadline
        assert loaded[0].snapshot is not None and loaded[0].snapshot.state == {"moves": 6}
        assert loaded[2].snapshot is None
        assert await storage.load_active_table(db, games[3].table.table_id) == loaded[3]
    finally:
        await db.close()


async def test_only_active_tables_and_their_current_hand_are_loaded(db: Database) -> None:
    finished = await start_game(db, -1, (1, 2, 3, 4))
    await storage.update_table(db, finished.table.table_id, status="finished")
    stopped = await start_game(db, -2, (5, 6, 7, 8))
    await storage.update_table(db, stopped.table.table_id, status="stopped")

    await storage.upsert_chat(db, -3, "seating")
    seating = await storage.create_table(db, -3)

    between = await start_game(db, -4, (11, 12, 13, 14))
    await storage.append_event(db, between.hand.hand_id, 1, "deal", {})
    await storage.record_hand_result(
        db, between.hand.hand_id, attacker_points=80, dealer_side=0, winner_side=1,
        level_changes=(0, 1), scores=(-1, 1, -1, 1),
    )

    next_hand = await start_game(db, -5, (21, 22, 23, 24))
    await storage.append_event(db, next_hand.hand.hand_id, 1, "deal", {"n": 1})
    await storage.update_hand(db, next_hand.hand.hand_id, status="finished")
    newer = await storage.create_hand(db, next_hand.match.match_id, seed=5, ruleset={})
    await storage.append_event(db, newer.hand_id, 1, "deal", {"n": 2})

    loaded = {a.table.table_id: a for a in await storage.load_active_tables(db)}
    assert set(loaded) == {seating.table_id, between.table.table_id, next_hand.table.table_id}
    assert loaded[seating.table_id] == ActiveTable(seating)
    assert storage.replay(loaded[seating.table_id], tally_replay) is None
    assert loaded[between.table.table_id].hand is None
    assert loaded[between.table.table_id].events == ()
    assert loaded[next_hand.table.table_id].hand == newer
    assert [e.payload for e in loaded[next_hand.table.table_id].events] == [{"n": 2}]
    assert await storage.load_active_table(db, finished.table.table_id) is None


def test_replay_refuses_a_broken_log() -> None:
    hand = HandRecord(1, 1, 1, 0, {}, "active", None, {}, 0.0, 0.0)
    table = storage.TableRecord(1, -1, "playing", None, {}, None, None, None, 0.0, 0.0)
    gap = (StoredEvent(1, 1, "deal", {}, 0.0), StoredEvent(1, 3, "bid", {}, 0.0))
    with pytest.raises(CorruptLog, match="position 2"):
        storage.replay(ActiveTable(table, hand=hand, events=gap), tally_replay)
    foreign = (StoredEvent(2, 1, "deal", {}, 0.0),)
    with pytest.raises(CorruptLog):
        storage.replay(ActiveTable(table, hand=hand, events=foreign), tally_replay)
