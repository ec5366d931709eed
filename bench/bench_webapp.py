"""Figures for the web app: Bot API calls per 4-person hand (app vs keyboard), and press → update latency.

The real bot runs in this process with the web app on (``CHAODIPI_PUBLIC_URL``
set), against the fake Bot API of ``tests/e2e`` on 127.0.0.1 (no flood
limits, so nothing waits on Telegram's budget; the group message is edited
at most once a second).  Four people play the first hand of a match, the
deal of ``find_plan("yancheng", start=n)``: the plan's bid and steal, passes
otherwise, the hint's bury and plays.

* ``keyboard``: every move by the private inline keyboards (select, then the
  action button).
* ``app``: all four have the web app open from the lobby on (its event stream
  connected); every move is one POST.  The app closes after the hand, and the
  hand messages catch up then; that cost is counted.

Calls are counted from the Start press until the bot is idle after the result.
Latency (app): from a move's POST leaving the player to (a) its answer, the
player's own updated table, and (b) every one of the four streams showing
that change.  Run from the repository root::

    PYTHONPATH=. python bench/bench_webapp.py [hands]     # default 3 hands per mode
    PYTHONPATH=. python bench/bench_webapp.py --inputs    # odd input by category, and the answers
    PYTHONPATH=. python bench/bench_webapp.py --server 200
    PYTHONPATH=. python bench/bench_webapp.py --tables 10 50 100 --window 60   # N Mini App tables, one bot

``--tables``: N tables of four people playing through the Mini App, the bot
in its own process with Telegram's limits (``bench/app_tables.py`` says what
it prints): the next player's turn in their event stream, the answers, and
the Bot API calls per play by kind and reason that remain.

``--inputs`` sends every input of ``tests/e2e/odd_inputs.py`` (valid
``initData`` of a seated person; odd ids, JSON bodies, ``Authorization``
headers, stream tickets, broken HTTP) and prints, per category, how many
were tried and the statuses and reasons they got.  ``--server n``: one
person asks for ``n`` streams at once with the caps as shipped (how many
open, how many get 429); then, caps lifted for the measurement, ``n``
streams opened at once and dropped, with the process's resident memory and
open files before, while open and after (bot, fake Telegram and clients
share the process: each stream holds two sockets here); then ``n`` clients
that never finish their request headers, and when the server had closed
them all.

Prints figures only; nothing asserts on time.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.model import Table  # noqa: E402
from bot.webapp import streams as webapp_streams  # noqa: E402
from bot.webhook import HEADER_TIMEOUT  # noqa: E402
from tests.e2e.appkit import (  # noqa: E402
    AppClient,
    Stream,
    app_base,
    init_data_for,
    play_through_app,
    progress,
    stream,
    webapp_running,
)
from tests.e2e.botkit import tables  # noqa: E402
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits  # noqa: E402
from tests.e2e.fake_telegram.people import Person  # noqa: E402
from tests.e2e.odd_inputs import Answer, try_all  # noqa: E402
from tests.e2e.plans import find_plan  # noqa: E402
from tests.e2e.scenario import announced, fill_with_ai, play_hand, sit_from_group, start_match, wait_seated  # noqa: E402


async def one_hand(mode: str, start: int, folder: Path, latencies: dict[str, list[float]]) -> tuple[Counter[str], int]:
    """Play one hand; (calls by "group"/"private" and method, moves)."""
    server = FakeTelegram(limits=FloodLimits.unlimited())
    await server.start()
    try:
        people = [server.person(n, n.lower(), language_code="en", started=True) for n in ("Ann", "Ben", "Cat", "Dan")]
        group = server.group("bench", people)
        plan = find_plan("yancheng", bidders=1, start=start)
        async with webapp_running(server, folder / f"{mode}{start}.db", group_interval=1.0) as app, \
                aiohttp.ClientSession() as session:
            await people[0].command(group, "newgame", "yancheng")
            await server.wait_for(lambda: group.bot_messages(), what="the table message")
            await wait_seated(server, app, group, people[0])
            for seat in (1, 2, 3):
                await sit_from_group(server, people[seat], group, seat)
                await wait_seated(server, app, group, people[seat])
            table = tables(app).in_chat(group.id)
            assert table is not None
            clients = [AppClient(session, app_base(app), init_data_for(server, p)) for p in people]
            streams: list[Stream] = []
            if mode == "app":
                streams = [stream(c, table.id) for c in clients]
                for s in streams:
                    await s.__aenter__()
                await server.wait_for(lambda: all(s.states for s in streams), what="the streams")
            await server.wait_idle()
            mark = server.calls.mark()
            table = await start_match(server, app, people[0], group, plan.seed_index)
            assert table.match is not None
            hand = table.match.hand
            if mode == "app":
                async def measured(seat: int, answer: dict[str, object]) -> None:
                    sent = clients[seat].sent_at
                    latencies["answer"].append(time.perf_counter() - sent)
                    done = progress(answer["state"])  # type: ignore[arg-type]
                    await server.wait_for(lambda: all(s.arrivals and s.arrivals[-1][0] >= done for s in streams),
                                          what="every stream")
                    latencies["streams"].append(max(next(t for n, t in s.arrivals if n >= done) for s in streams)
                                                - sent)
                await play_through_app(table, clients, plan, after_move=measured)
                for s in streams:
                    await s.__aexit__(None, None, None)
            else:
                await play_hand(server, table, dict(enumerate(people)), plan)
            assert hand.over
            await server.wait_for(lambda: announced(group, "Hand 1 is over"), what="the result")
            publisher = tables(app).publisher
            assert publisher is not None
            await publisher.drain()  # the edits still waiting for their interval go now (the same in both modes)
            await server.wait_idle()
            counts: Counter[str] = Counter()
            for record in server.calls.since(mark):
                if record.method.lower() == "getupdates":
                    continue
                where = "group" if record.is_group else "private"
                counts[f"{where} {record.method}"] += 1
                counts[where] += 1
            return counts, len(hand.events)
    finally:
        await server.stop()


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def main(hands: int) -> None:
    print(f"python {sys.version.split()[0]}; {hands} hand(s) per mode, 4 people, 盐城")
    latencies: dict[str, list[float]] = {"answer": [], "streams": []}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("keyboard", "app"):
            totals: Counter[str] = Counter()
            moves = 0
            for n in range(hands):
                counts, events = await one_hand(mode, n * 7, Path(tmp), latencies)
                totals += counts
                moves += events
            per = {k: v / hands for k, v in totals.items()}
            detail = ", ".join(f"{k} {v:.1f}" for k, v in sorted(per.items()) if k not in ("group", "private"))
            print(f"{mode:8s}: {per.get('private', 0) + per.get('group', 0):6.1f} calls per hand "
                  f"(private {per.get('private', 0):.1f}, group {per.get('group', 0):.1f}); "
                  f"{moves / hands:.0f} moves per hand")
            print(f"          {detail}")
    for key, label in (("answer", "press → own answer"), ("streams", "press → all 4 streams updated")):
        values = [v * 1000 for v in latencies[key]]
        print(f"app latency, {label}: p50 {pct(values, .5):.1f} ms, p99 {pct(values, .99):.1f} ms, "
              f"max {max(values):.1f} ms, mean {statistics.mean(values):.1f} ms over {len(values)} moves")


async def playing_table(server: FakeTelegram, folder: Path) -> AsyncIterator[tuple[Any, Table, Person]]:
    """The bot with Ann seated and three AI seats, the match started."""
    ann = server.person("Ann", "ann", language_code="en", started=True)
    group = server.group("bench", [ann])
    async with webapp_running(server, folder / "server.db") as app:
        await ann.command(group, "newgame", "yancheng")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        await wait_seated(server, app, group, ann)
        await fill_with_ai(server, ann, group, 3)
        table = await start_match(server, app, ann, group)
        yield app, table, ann


async def inputs() -> None:
    """Every odd input, and the answers by category."""
    answers: list[Answer] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(limits=FloodLimits.unlimited()) as server:
            async with asynccontextmanager(playing_table)(server, Path(tmp)) as (app, table, ann), \
                    aiohttp.ClientSession() as session:
                await try_all(session, app_base(app), app.bot_data["http"].port, init_data_for(server, ann),
                              table.id, table.version(0), answers.append)
    by_category: dict[str, Counter[str]] = {}
    for answer in answers:
        by_category.setdefault(answer.category, Counter())[f"{answer.status} {answer.reason.splitlines()[0] if answer.reason else ''}".strip()] += 1
    print(f"{len(answers)} odd inputs, {sum(1 for a in answers if a.status >= 500 or a.status < 400)} not 4xx")
    for category, statuses in by_category.items():
        print(f"{category}: {sum(statuses.values())} tried")
        for status, n in statuses.most_common():
            print(f"    {n:4d} × {status}")


def resources_now() -> str:
    """This process's resident memory and open files."""
    rss = next(line.split()[1] for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return f"RSS {int(rss) / 1024:.1f} MB, {len(os.listdir('/proc/self/fd'))} open files"


async def server_figures(n: int) -> None:
    """The stream cap, the cost of ``n`` streams opened and dropped, and ``n`` clients slow with headers."""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(limits=FloodLimits.unlimited()) as server:
            async with asynccontextmanager(playing_table)(server, Path(tmp)) as (app, table, ann), \
                    aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
                routes = app.bot_data["webapp"]
                client = AppClient(session, app_base(app), init_data_for(server, ann))
                tried = [stream(client, table.id) for _ in range(n)]
                for events in tried:
                    await events.__aenter__()
                await server.wait_for(lambda: all(e.states or e.status not in (None, 200) for e in tried),
                                      timeout=120, what="every answer")
                answers = Counter("open" if e.states else str(e.status) for e in tried)
                for events in tried:
                    await events.__aexit__(None, None, None)
                print(f"{n} streams asked for at once by one person, caps as shipped "
                      f"({webapp_streams.PER_PERSON} a person, {webapp_streams.PER_TABLE} a table): "
                      + ", ".join(f"{count} × {status}" for status, count in sorted(answers.items())))
                await server.wait_for(lambda: routes.streams.open_count() == 0, timeout=60, what="the streams closed")

                webapp_streams.PER_PERSON = webapp_streams.PER_TABLE = n  # lifted to measure n streams
                await asyncio.sleep(HEADER_TIMEOUT + 1)  # the first part's idle keep-alive connections close
                for round_ in (1, 2, 3):
                    gc.collect()
                    print(f"round {round_}, before {n} streams: {resources_now()}")
                    opened = [stream(client, table.id) for _ in range(n)]
                    for events in opened:
                        await events.__aenter__()
                    await server.wait_for(lambda: all(e.frames for e in opened), timeout=120, what="every stream")
                    print(f"  {routes.streams.open_count()} streams open: {resources_now()}")
                    for events in opened:
                        await events.__aexit__(None, None, None)
                    opened.clear()  # no reference left: what is freed shows below
                    await server.wait_for(lambda: routes.streams.open_count() == 0, timeout=60,
                                          what="the streams closed")
                    gc.collect()
                    print(f"  dropped ({routes.streams.open_count()} open, {len(tables(app).apps)} seats counted "
                          f"open): {resources_now()}")

                port = app.bot_data["http"].port
                slow = []
                for _ in range(n):
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.write(b"GET /app/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    slow.append((reader, writer))
                started = time.perf_counter()
                print(f"{n} clients sending half their headers: {resources_now()}")
                closed = await asyncio.gather(*(asyncio.wait_for(r.read(), 60) for r, _w in slow), return_exceptions=True)
                took = time.perf_counter() - started
                for _r, writer in slow:
                    writer.close()
                await asyncio.sleep(1)  # the sockets' closing is done by the event loop
                print(f"  {sum(1 for c in closed if c == b'')} of {n} closed by the server within {took:.1f} s "
                      f"(header timeout {HEADER_TIMEOUT:.0f} s); {resources_now()}")


def tables_mode(argv: list[str]) -> None:
    """``--tables N [N …] [--window S] [--think MIN,MAX] [--opening K]``: N Mini App tables (bench/app_tables.py)."""
    from app_tables import app_tables

    def option(name: str, default: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else default
    at = argv.index("--tables") + 1
    sizes = []
    while at < len(argv) and argv[at].isdigit():
        sizes.append(int(argv[at]))
        at += 1
    low, high = (float(x) for x in option("--think", "4,11").split(","))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    for n in sizes or [10, 50, 100]:
        asyncio.run(app_tables(n, window=float(option("--window", "60")), think=(low, high),
                               at_once=int(option("--opening", "50"))))


if __name__ == "__main__":
    if "--tables" in sys.argv:
        tables_mode(sys.argv)
    elif "--inputs" in sys.argv:
        asyncio.run(inputs())
    elif "--server" in sys.argv:
        at = sys.argv.index("--server")
        asyncio.run(server_figures(int(sys.argv[at + 1]) if len(sys.argv) > at + 1 else 200))
    else:
        asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
