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

With ``--sizes 1000,20000,100000``, for a group of each size instead (issue 52: the league costs the same at
100 hands and at 100,000, and one person's league requests do not slow another table):

* the league page's answer (``stretch=cur`` and ``all``) and the picture, cold (the group's answers forgotten,
  as when a hand has just ended: counted, sampled, encoded or drawn) and kept, and the answer's size;
* another table's moves (an event appended and the table read back, one every 20 ms for ``--seconds``), with
  no league request, then while four ``stretch=all`` page requests at a time are served over loopback (from
  another thread's event loop, as from a phone) with their answers kept, then cold before every request (a
  hand ending before each: the worst case), then the same with the league reading on the main connection
  instead of its read-only second one (as before issue 52).

``PYTHONPATH=. python bench/bench_league.py --sizes 1000,20000,100000 --repeat 5 --seconds 5``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import threading
import time
import types
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

import storage
from bot.budget import PersonBudget
from bot.i18n import translator
from bot.league.board import ALL_TIME, CURRENT, League, leaderboard
from bot.league.chart import png_size
from bot.league.members import Members
from bot.league.pictures import Stretch
from bot.webapp.initdata import sign
from bot.webapp.league import LeagueRoutes, page_data

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


TOKEN = "123456:bench-token"
"""The bot token the bench's league pages are signed for."""


def percentiles(values: list[float]) -> str:
    """「median 1.2 · p95 3.4 · max 5.6 ms (n)」."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered):.1f} · p95 {p95:.1f} · max {ordered[-1]:.1f} ms ({len(ordered)})"


async def other_table(db: storage.Database) -> int:
    """Another group with a table being played (its hand's id): whose moves are timed."""
    chat_id, users = -3000, [9000, 9001, 9002, 9003]
    await storage.upsert_chat(db, chat_id, "Another group")
    for user in users:
        await storage.upsert_user(db, user, f"other{user}")
    table = await storage.create_table(db, chat_id, creator_id=users[0])
    for seat, user in enumerate(users):
        await storage.set_seat(db, table.table_id, seat, user_id=user)
    await storage.update_table(db, table.table_id, status="playing")
    match = await storage.create_match(db, table.table_id, preset="yancheng", ruleset={"name": "yancheng"})
    return (await storage.create_hand(db, match.match_id, seed=1, ruleset={"name": "yancheng"})).hand_id


async def moves(db: storage.Database, hand_id: int, seconds: float) -> list[float]:
    """Moves at the other table, one every 20 ms for ``seconds``: each what a move stores and reads (the
    event appended in its transaction, the table read back), timed from the moment it was due."""
    latencies: list[float] = []
    table = await db.fetchone("SELECT table_id FROM matches JOIN hands USING (match_id) WHERE hand_id = ?",
                              (hand_id,))
    assert table is not None
    seq = await storage.last_seq(db, hand_id)
    ends = time.perf_counter() + seconds
    due = time.perf_counter()
    while due < ends:
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        seq += 1
        await storage.append_event(db, hand_id, seq, "play", {"seat": seq % 4, "cards": ["AH", "AH"], "n": seq})
        await storage.get_table(db, int(table[0]))
        latencies.append((time.perf_counter() - due) * 1000)
        due += 0.02
    return latencies


def requesters(url: str, auth: str, stop: threading.Event, sizes: list[int]) -> None:
    """Four league page requests at a time, again and again until ``stop``, from their own thread and event loop
    (as from a phone: the bot's loop serves them and does not run them)."""
    async def one(session: aiohttp.ClientSession) -> None:
        while not stop.is_set():
            async with session.get(url, headers={"Authorization": f"tma {auth}"}) as response:
                body = await response.read()
                assert response.status == 200, (response.status, body[:200])
                sizes.append(len(body))

    async def four() -> None:
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(one(session) for _ in range(4)))

    asyncio.run(four())


async def costs(db: storage.Database, reader: storage.Database, big: int, player: int, hand_id: int,
                args: argparse.Namespace) -> None:
    """The league page and picture, cold and kept; another table's moves with and without four league page
    requests at a time running."""
    tr = translator("zh")
    league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: NOW, reader=reader)
    for key in (CURRENT, ALL_TIME):
        stretch = await league.stretch(big, key)
        assert stretch is not None
        body = b""

        async def page(cold: bool, stretch: Stretch = stretch) -> None:
            nonlocal body
            if cold:
                league.cache.hand_ended(big)
            body = await league.page(tr, big, stretch, lambda board, data: json.dumps(
                {"ok": True, "chart": page_data(data)}, ensure_ascii=False).encode())

        async def picture(cold: bool, key: str = key) -> None:
            if cold:
                league.cache.hand_ended(big)
            answer = await leaderboard(league, big, "zh", key)
            assert answer is not None and answer.photo is not None

        cold_page = await median_ms(lambda: page(True), args.repeat)
        kept_page = await median_ms(lambda: page(False), args.repeat)
        print(f"league page ({key}): cold {cold_page:.1f} ms, kept {kept_page:.3f} ms; answer {len(body) / 1024:.0f} KB")
        cold_picture = await median_ms(lambda: picture(True), max(2, args.repeat // 10))
        kept_picture = await median_ms(lambda: picture(False), args.repeat)
        print(f"league picture ({key}): cold (counted and drawn) {cold_picture:.0f} ms, kept {kept_picture:.3f} ms")
    print(f"another table's moves (one every 20 ms for {args.seconds:.0f} s), while:")
    print(f"  no league request:                                        {percentiles(await moves(db, hand_id, args.seconds))}")
    for label, on_reader, cold in (("4 stretch=all page requests at a time, kept answers", True, False),
                                   ("4 stretch=all requests, each after a hand ended (cold)", True, True),
                                   ("the same, cold, the league reading on the main connection", False, True)):
        league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: NOW,
                        reader=reader if on_reader else None)
        served = await serve_pages(league, big if cold else None)
        stop, sizes = threading.Event(), []
        url = f"http://127.0.0.1:{served.port}/app/api/league/{big}?stretch=all"
        thread = threading.Thread(target=requesters, args=(url, sign(TOKEN, {"id": player, "first_name": "p"}),
                                                           stop, sizes))
        thread.start()
        try:
            while not sizes and thread.is_alive():  # the first answer (counted cold) is in
                await asyncio.sleep(0.01)
            latencies = await moves(db, hand_id, args.seconds)
        finally:
            stop.set()
            await asyncio.to_thread(thread.join)
            await served.close()
        print(f"  {label + ':':<58}{percentiles(latencies)}; {len(sizes)} answered")


class Served:
    """The league page's API on a loopback port (:class:`bot.webapp.league.LeagueRoutes`, as the bot serves it)."""

    def __init__(self, runner: web.AppRunner, port: int) -> None:
        self.runner, self.port = runner, port

    async def close(self) -> None:
        await self.runner.cleanup()


async def serve_pages(league: League, cold_chat: int | None) -> Served:
    """Serve ``league``'s pages (every request past the budget: it is the league's own cost that is timed); with
    ``cold_chat``, that group's answers are forgotten before each request, as if a hand had just ended."""
    class Everyone:  # Telegram's getChatMember, as for a group whose players are all still in it
        async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
            return types.SimpleNamespace(status="member")

    bot_data = {"league": league, "config": types.SimpleNamespace(token=TOKEN, webapp_max_age=86400.0),
                "league_budget": PersonBudget((10 ** 9, 1.0)),
                "members": Members(Everyone(), league.reader)}  # type: ignore[arg-type]

    @web.middleware
    async def cold(request: web.Request, handler: Any) -> web.StreamResponse:
        if cold_chat is not None:
            league.cache.hand_ended(cold_chat)
        response: web.StreamResponse = await handler(request)
        return response

    app = web.Application(middlewares=[cold])
    LeagueRoutes(types.SimpleNamespace(bot_data=bot_data)).install(app)  # type: ignore[arg-type]
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return Served(runner, int(port))


async def sizes_main(args: argparse.Namespace) -> None:
    """For each size: a temporary database with a group of that many hands (and the other groups), then
    :func:`costs`."""
    for hands in args.sizes:
        rng = random.Random(48)
        with tempfile.TemporaryDirectory() as folder:
            db = await storage.open_database(Path(folder) / "league.db")
            reader = await storage.open_reader(Path(folder) / "league.db")
            try:
                started = time.perf_counter()
                big = -1001
                await fill_group(db, big, hands, 12, rng, first_user=1000)
                for other in range(args.others):
                    await fill_group(db, -2000 - other, args.other_hands, 8, rng, first_user=5000 + 100 * other)
                hand_id = await other_table(db)
                print(f"\n== {hands:,} hands in the group, {args.others} × {args.other_hands:,} elsewhere "
                      f"(built in {time.perf_counter() - started:.1f} s)")
                await costs(db, reader, big, 1000, hand_id, args)
            finally:
                await reader.close()
                await db.close()


async def main(args: argparse.Namespace) -> None:
    if getattr(args, "sizes", None):
        await sizes_main(args)
        return
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
    parser.add_argument("--sizes", type=lambda text: [int(n) for n in text.split(",")], default=None,
                        help="e.g. 1000,20000,100000: the league page's and picture's cost, cold and kept, and another "
                             "table's moves with and without four league requests, for a group of each size")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the moves are timed, each time")
    asyncio.run(main(parser.parse_args()))
