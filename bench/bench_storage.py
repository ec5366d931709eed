"""Storage figures: events appended per second, and start-up time for many tables.

Run from the repository root:  PYTHONPATH=. python bench/bench_storage.py
Prints figures only; nothing here asserts on time.  Uses a temporary folder
(on the same file system as the system's temp dir), so the numbers depend
on that disk.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

import storage
from storage import Database

RULESET = {"name": "yancheng"}


def _payload(rng: random.Random, seq: int) -> dict[str, object]:
    """About the size of a real play event: a seat, a few cards, a trick number."""
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    cards = [rng.choice(ranks) + rng.choice("SHDC") for _ in range(rng.choice((1, 1, 2, 4)))]
    return {"seat": seq % 4, "cards": cards, "trick": seq // 4}


async def _game(db: Database, index: int) -> int:
    chat_id = -(10_000 + index)
    await storage.upsert_chat(db, chat_id, f"bench {index}")
    base = 4 * index + 1
    for user_id in range(base, base + 4):
        await storage.upsert_user(db, user_id, f"p{user_id}")
    table = await storage.create_table(db, chat_id, creator_id=base)
    for seat in range(4):
        await storage.set_seat(db, table.table_id, seat, user_id=base + seat)
    await storage.update_table(db, table.table_id, status="playing", turn_deadline=time.time() + 86400)
    match = await storage.create_match(db, table.table_id, preset="yancheng", ruleset=RULESET)
    hand = await storage.create_hand(db, match.match_id, seed=index, ruleset=RULESET)
    return hand.hand_id


async def one_table(folder: Path, events: int) -> float:
    """Events per second on one hand, one transaction per event (as the bot writes)."""
    rng = random.Random(1)
    async with await Database.open(folder / "one.db") as db:
        hand_id = await _game(db, 0)
        start = time.perf_counter()
        for seq in range(1, events + 1):
            await storage.append_event(db, hand_id, seq, "play", _payload(rng, seq))
        return events / (time.perf_counter() - start)


async def interleaved(folder: Path, tables: int, per_table: int, concurrent: bool) -> float:
    """Events per second over many hands: round-robin in one task, or one task per table."""
    rng = random.Random(2)
    async with await Database.open(folder / f"many-{concurrent}.db") as db:
        hands = [await _game(db, i) for i in range(tables)]
        start = time.perf_counter()
        if concurrent:
            async def play(hand_id: int) -> None:
                for seq in range(1, per_table + 1):
                    await storage.append_event(db, hand_id, seq, "play", _payload(rng, seq))

            await asyncio.gather(*(play(h) for h in hands))
        else:
            for seq in range(1, per_table + 1):
                for hand_id in hands:
                    await storage.append_event(db, hand_id, seq, "play", _payload(rng, seq))
        return tables * per_table / (time.perf_counter() - start)


async def startup(folder: Path, tables: int, per_hand: int) -> tuple[float, float, int]:
    """Seconds to open the database and load every active table, then to also replay them."""
    rng = random.Random(3)
    path = folder / "startup.db"
    async with await Database.open(path) as db:
        hands = [await _game(db, i) for i in range(tables)]
        # The logs are bulk-written: this measures loading, not appending.
        now = time.time()
        async with db.transaction():
            await db.executemany(
                "INSERT INTO events (hand_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                (
                    (h, seq, "play", storage.records.to_json(_payload(rng, seq)), now)
                    for h in hands
                    for seq in range(1, per_hand + 1)
                ),
            )
    start = time.perf_counter()
    db = await Database.open(path)
    loaded = await storage.load_active_tables(db)
    load_s = time.perf_counter() - start
    replayed = [storage.replay(a, lambda hand, events: len(events)) for a in loaded]
    total_s = time.perf_counter() - start
    await db.close()
    assert len(loaded) == tables and sum(r or 0 for r in replayed) == tables * per_hand
    return load_s, total_s, tables * per_hand


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=5000, help="events for the one-table run")
    parser.add_argument("--per-table", type=int, default=50, help="events per table, 100 tables")
    parser.add_argument("--startup-tables", type=int, default=1000)
    parser.add_argument("--events-per-hand", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chaodipi-bench-") as name:
        folder = Path(name)
        rate = await one_table(folder, args.events)
        print(f"one table:                      {rate:8.0f} events/s  ({args.events} events, one commit each)")
        rate = await interleaved(folder, 100, args.per_table, concurrent=False)
        print(f"100 tables, interleaved:        {rate:8.0f} events/s  ({100 * args.per_table} events, round-robin)")
        rate = await interleaved(folder, 100, args.per_table, concurrent=True)
        print(f"100 tables, 100 tasks at once:  {rate:8.0f} events/s  ({100 * args.per_table} events)")
        load_s, total_s, events = await startup(folder, args.startup_tables, args.events_per_hand)
        print(
            f"start-up, {args.startup_tables} active tables:    {load_s:8.3f} s to open and load "
            f"({events} events), {total_s:.3f} s with a trivial replay"
        )


if __name__ == "__main__":
    asyncio.run(main())
