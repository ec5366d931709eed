"""How long a group's league takes to answer: /leaderboard on a group with 10,000 scored hands.

Builds a database (in a temporary folder) holding one big group (``--hands``,
10,000 by default: twelve people at one table after another, matches of
about fifteen hands, an AI seat now and then, a costly escape every fifty
hands, over a year) and some other groups beside it (``--others`` groups of
``--other-hands`` hands each), then times, each the median of ``--repeat``
runs after one warm-up:

* the storage queries of /leaderboard (the current season's lines and
  partnerships, and all time's);
* the whole /leaderboard answer as the bot builds it (:func:`bot.league.board.leaderboard`:
  the season, the queries, the ranking, the caption and the buttons) with its
  picture already drawn (it is sent by its ``file_id``);
* the same with the table kept too, as it is between two hands (and right
  after a hand, once the background drawing of a group that looks at its
  league is done);
* the same with nothing kept: the table counted and the picture drawn, for the
  season and for all time, and the PNG's size and dimensions.

Run: ``PYTHONPATH=. python bench/bench_league.py`` (``--hands 2000`` for a quick look).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import storage
from bot.league.board import ALL_TIME, CURRENT, League, leaderboard
from bot.league.chart import png_size

DAY = 86400.0
NOW = 1_795_900_000.0  # 2026-11-29 in Shanghai, late in a month: its season holds four weeks of hands


async def fill_group(db: storage.Database, chat_id: int, hands: int, people: int, rng: random.Random,
                     *, first_user: int) -> None:
    """A group whose hands ended evenly over the year before :data:`NOW`, written by direct inserts in one
    transaction (100,000 hands in seconds): finished matches of 10 to 20 hands, four of the people at each."""
    await storage.upsert_chat(db, chat_id, f"Group {chat_id}")
    users = list(range(first_user, first_user + people))
    for user in users:
        await storage.upsert_user(db, user, f"玩家{user - first_user + 1}")
    table = await storage.create_table(db, chat_id, creator_id=users[0])
    start = NOW - 365 * DAY
    step = 365 * DAY / hands
    last = await db.fetchone("SELECT COALESCE(MAX(match_id), 0), (SELECT COALESCE(MAX(hand_id), 0) FROM hands) "
                             "FROM matches")
    assert last is not None
    match_id, hand_id = int(last[0]), int(last[1])
    matches: list[tuple[object, ...]] = []
    hand_rows: list[tuple[object, ...]] = []
    results: list[tuple[object, ...]] = []
    seats: list[tuple[object, ...]] = []
    number = length = 0
    sitting = rng.sample(users, 4)
    for index in range(hands):
        at = start + index * step
        if number >= length:
            match_id += 1
            number, length = 0, rng.randint(10, 20)
            sitting = rng.sample(users, 4)
            matches.append((match_id, table.table_id, at, at, rng.randint(0, 1)))
        number += 1
        hand_id += 1
        hand_rows.append((hand_id, match_id, number, at, at))
        escaped = rng.randrange(4) if index % 50 == 49 else None
        winner = rng.randint(0, 1) if escaped is None else 1 - escaped % 2
        levels = rng.randint(1, 3)
        notices = [{"kind": "red5_forced", "seat": rng.randrange(4), "trick": 3, "cards": "5H", "points": 50}
                   ] if index % 9 == 0 else []
        # As big as the engine's record of a real hand: the bid history, the kitty, the adjustments.
        special = json.dumps({"escaped": escaped, "notices": notices, "kitty": "3S 3D 4S 4H 4D 6H 7H 7D",
                              "bids": [{"seat": s, "kind": "declare", "cards": "2C", "stood": True}
                                       for s in range(4)] * 2,
                              "adjustments": [{"reason": "kitty", "seat": 1, "points": 20}],
                              "scores": [levels, -levels, levels, -levels], "threshold": 80})
        results.append((hand_id, rng.randint(0, 1), winner, special, at, chat_id))
        ai = rng.randrange(4) if index % 13 == 0 else None
        for seat in range(4):
            score = levels if seat % 2 == winner else -levels
            if escaped is not None:
                outcome = "lost" if seat == escaped else None
                score = -3 if seat == escaped else 0
            else:
                outcome = None if seat == ai else ("won" if seat % 2 == winner else "lost")
            seats.append((hand_id, seat, None if seat == ai else sitting[seat], int(seat == ai), score, outcome))
    async with db.transaction():
        await db.executemany(
            """INSERT INTO matches (match_id, table_id, preset, ruleset, created_at, updated_at, status, winner_side)
               VALUES (?, ?, 'yancheng', '{}', ?, ?, 'finished', ?)""", matches)
        await db.executemany(
            """INSERT INTO hands (hand_id, match_id, number, seed, ruleset, status, created_at, updated_at)
               VALUES (?, ?, ?, 1, '{}', 'finished', ?, ?)""", hand_rows)
        await db.executemany(
            """INSERT INTO hand_results (hand_id, attacker_points, dealer_side, winner_side, special, created_at,
                                        chat_id) VALUES (?, 40, ?, ?, ?, ?, ?)""", results)
        await db.executemany(
            "INSERT INTO hand_result_seats (hand_id, seat, user_id, is_ai, score, outcome) VALUES (?, ?, ?, ?, ?, ?)",
            seats)


async def median_ms(work: Callable[[], Awaitable[Any]], repeat: int) -> float:
    """The median wall time of ``work`` in milliseconds, after one warm-up run."""
    await work()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(48)
    with tempfile.TemporaryDirectory() as folder:
        db = await storage.open_database(Path(folder) / "league.db")
        try:
            started = time.perf_counter()
            big = -1001
            await fill_group(db, big, args.hands, 12, rng, first_user=1000)
            for other in range(args.others):
                await fill_group(db, -2000 - other, args.other_hands, 8, rng, first_user=5000 + 100 * other)
            print(f"built: {args.hands} hands in the group, {args.others} × {args.other_hands} elsewhere "
                  f"({time.perf_counter() - started:.1f} s)")
            season = await storage.current_season(db, big, NOW)
            counted = await storage.counted_hands(db, big, since=season.starts_at, until=season.ends_at)
            print(f"current season {season.name}: {counted} hands")

            async def season_queries() -> None:
                await storage.league_lines(db, big, since=season.starts_at, until=season.ends_at)
                await storage.partnership_lines(db, big, since=season.starts_at, until=season.ends_at)

            async def all_time_queries() -> None:
                await storage.league_lines(db, big)
                await storage.partnership_lines(db, big)

            print(f"storage, the season's lines and partnerships: {await median_ms(season_queries, args.repeat):.1f} ms")
            print(f"storage, all time's lines and partnerships:   {await median_ms(all_time_queries, args.repeat):.1f} ms")
            for scope in (CURRENT, ALL_TIME):
                league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: NOW)
                answer = await leaderboard(league, big, "zh", scope)  # counts the table and draws the picture
                assert answer is not None and answer.photo is not None
                picture = answer.photo

                async def counted(scope: str = scope) -> None:
                    # The table counted afresh, the picture kept (sent by its file_id): the answer's own work.
                    fresh = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: NOW)
                    stretch = await fresh.stretch(big, scope)
                    assert stretch is not None
                    fresh.cache.store(big, stretch, "zh", picture, "file-id")
                    result = await leaderboard(fresh, big, "zh", scope)
                    assert result is not None and result.file_id == "file-id"

                async def kept(scope: str = scope) -> None:
                    result = await leaderboard(league, big, "zh", scope)
                    assert result is not None and result.photo is not None

                async def drawn(scope: str = scope) -> None:
                    await leaderboard(League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: NOW),
                                      big, "zh", scope)

                print(f"/leaderboard ({scope}), table counted, picture kept:   "
                      f"{await median_ms(counted, args.repeat):.1f} ms")
                print(f"/leaderboard ({scope}), table and picture kept:        "
                      f"{await median_ms(kept, args.repeat):.1f} ms")
                ms = await median_ms(drawn, max(3, args.repeat // 10))
                width, height = png_size(picture)
                print(f"/leaderboard ({scope}), table counted, picture drawn: {ms:.0f} ms; "
                      f"PNG {len(picture) / 1024:.0f} KB, {width}×{height}")
        finally:
            await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--others", type=int, default=5)
    parser.add_argument("--other-hands", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=30)
    asyncio.run(main(parser.parse_args()))
