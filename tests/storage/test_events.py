"""The append-only event log and its sequence check."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

import storage
from storage import Database, HandClosed, NotFound, SequenceConflict, StorageError

from .conftest import start_game


async def test_events_come_back_in_order_exactly_as_appended(db: Database) -> None:
    game = await start_game(db)
    hand_id = game.hand.hand_id
    appended = [
        await storage.append_event(db, hand_id, 1, "deal", {}),
        await storage.append_event(db, hand_id, 2, "bid", {"seat": 1, "step": "H2", "hidden": True}),
        await storage.append_event(db, hand_id, 3, "pass", {"seat": 2, "note": "炒"}),
    ]
    loaded = await storage.load_events(db, hand_id)
    assert loaded == appended
    assert [(e.seq, e.kind) for e in loaded] == [(1, "deal"), (2, "bid"), (3, "pass")]
    assert loaded[2].payload == {"seat": 2, "note": "炒"}
    assert await storage.last_seq(db, hand_id) == 3
    assert [e.seq for e in await storage.load_events(db, hand_id, after_seq=1)] == [2, 3]


async def test_a_repeated_sequence_number_is_a_conflict(db: Database) -> None:
    game = await start_game(db)
    hand_id = game.hand.hand_id
    await storage.append_event(db, hand_id, 1, "deal", {})
    await storage.append_event(db, hand_id, 2, "bid", {"n": 1})
    with pytest.raises(SequenceConflict) as info:
        await storage.append_event(db, hand_id, 2, "bid", {"n": 2})
    error = info.value
    assert isinstance(error, StorageError)
    assert (error.hand_id, error.expected_seq, error.last_seq) == (hand_id, 2, 2)
    assert "moved on" in str(error) and "Reload" in str(error)
    # Nothing of the refused event was written.
    assert [e.payload for e in await storage.load_events(db, hand_id)] == [{}, {"n": 1}]


async def test_a_gap_in_the_sequence_is_a_conflict(db: Database) -> None:
    game = await start_game(db)
    with pytest.raises(SequenceConflict) as info:
        await storage.append_event(db, game.hand.hand_id, 2, "bid", {})
    assert info.value.last_seq == 0
    assert await storage.load_events(db, game.hand.hand_id) == []


async def test_sequence_numbers_are_per_hand(db: Database) -> None:
    one = await start_game(db, -1, (1, 2, 3, 4))
    two = await start_game(db, -2, (5, 6, 7, 8))
    await storage.append_event(db, one.hand.hand_id, 1, "deal", {})
    await storage.append_event(db, two.hand.hand_id, 1, "deal", {})
    await storage.append_event(db, two.hand.hand_id, 2, "bid", {})
    assert await storage.last_seq(db, one.hand.hand_id) == 1
    assert await storage.last_seq(db, two.hand.hand_id) == 2


async def test_unknown_and_closed_hands_take_no_events(db: Database) -> None:
    with pytest.raises(NotFound):
        await storage.append_event(db, 999, 1, "deal", {})
    game = await start_game(db)
    await storage.append_event(db, game.hand.hand_id, 1, "deal", {})
    await storage.update_hand(db, game.hand.hand_id, status="aborted")
    with pytest.raises(HandClosed):
        await storage.append_event(db, game.hand.hand_id, 2, "play", {})


async def test_events_cannot_be_rewritten(db: Database) -> None:
    game = await start_game(db)
    await storage.append_event(db, game.hand.hand_id, 1, "deal", {"n": 1})
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        async with db.transaction():
            await db.execute("UPDATE events SET payload = '{}' WHERE hand_id = ?", (game.hand.hand_id,))
    assert (await storage.load_events(db, game.hand.hand_id))[0].payload == {"n": 1}


async def test_bad_payloads_are_refused_before_writing(db: Database) -> None:
    game = await start_game(db)
    with pytest.raises(ValueError):
        await storage.append_event(db, game.hand.hand_id, 1, "deal", {"x": float("nan")})
    with pytest.raises(TypeError):
        await storage.append_event(db, game.hand.hand_id, 1, "deal", ["not", "a", "dict"])  # type: ignore[arg-type]
    assert await storage.last_seq(db, game.hand.hand_id) == 0


async def test_an_append_inside_a_rolled_back_transaction_is_undone(db: Database) -> None:
    game = await start_game(db)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await storage.append_event(db, game.hand.hand_id, 1, "deal", {})
            raise RuntimeError("render failed")
    assert await storage.last_seq(db, game.hand.hand_id) == 0
    await storage.append_event(db, game.hand.hand_id, 1, "deal", {})


async def test_two_connections_racing_for_the_same_move(db: Database) -> None:
    game = await start_game(db)
    hand_id = game.hand.hand_id
    await storage.append_event(db, hand_id, 1, "deal", {})
    other = await Database.open(db.path)
    try:
        for seq in range(2, 12):
            results = await asyncio.gather(
                storage.append_event(db, hand_id, seq, "play", {"by": "first"}),
                storage.append_event(other, hand_id, seq, "play", {"by": "second"}),
                return_exceptions=True,
            )
            won = [r for r in results if isinstance(r, storage.StoredEvent)]
            lost = [r for r in results if isinstance(r, BaseException)]
            assert len(won) == 1 and len(lost) == 1, results
            assert isinstance(lost[0], SequenceConflict)
            assert lost[0].last_seq == seq
        events = await storage.load_events(other, hand_id)
        assert [e.seq for e in events] == list(range(1, 12))
    finally:
        await other.close()


async def test_many_writers_that_reload_on_conflict_build_one_clean_log(db: Database) -> None:
    game = await start_game(db)
    hand_id = game.hand.hand_id
    writers = [db] + [await Database.open(db.path) for _ in range(3)]
    conflicts = 0

    async def play(writer: Database, name: int, moves: int) -> None:
        nonlocal conflicts
        done = 0
        while done < moves:
            seq = await storage.last_seq(writer, hand_id) + 1  # "reload"
            try:
                await storage.append_event(writer, hand_id, seq, "play", {"writer": name})
                done += 1
            except SequenceConflict:
                conflicts += 1
            await asyncio.sleep(0)

    try:
        await asyncio.gather(*(play(w, i, 15) for i, w in enumerate(writers)))
        events = await storage.load_events(db, hand_id)
        assert [e.seq for e in events] == list(range(1, 61))
        by_writer = [sum(1 for e in events if e.payload["writer"] == i) for i in range(4)]
        assert by_writer == [15, 15, 15, 15]
    finally:
        for writer in writers[1:]:
            await writer.close()


async def test_snapshots_cache_a_state_but_never_run_ahead_of_the_log(db: Database) -> None:
    game = await start_game(db)
    hand_id = game.hand.hand_id
    assert await storage.load_snapshot(db, hand_id) is None
    await storage.append_event(db, hand_id, 1, "deal", {})
    await storage.append_event(db, hand_id, 2, "bid", {})
    with pytest.raises(StorageError, match="ends at event 2"):
        await storage.save_snapshot(db, hand_id, 3, 1, {"phase": "bury"})
    await storage.save_snapshot(db, hand_id, 1, 1, {"phase": "bidding"})
    saved = await storage.save_snapshot(db, hand_id, 2, 1, {"phase": "bidding", "bids": 1})
    loaded = await storage.load_snapshot(db, hand_id)
    assert loaded is not None and loaded == saved
    assert (loaded.seq, loaded.version, loaded.state) == (2, 1, {"phase": "bidding", "bids": 1})


async def test_records_do_not_print_payloads_or_seeds(db: Database) -> None:
    game = await start_game(db, seed=123456789)
    event = await storage.append_event(db, game.hand.hand_id, 1, "deal", {"cards": "5H BJ BJ"})
    assert "5H" not in repr(event)
    assert "123456789" not in repr(game.hand)
