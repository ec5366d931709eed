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

Prints figures only; nothing asserts on time.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.appkit import AppClient, Stream, app_base, init_data_for, play_through_app, stream, webapp_running  # noqa: E402
from tests.e2e.botkit import tables  # noqa: E402
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits  # noqa: E402
from tests.e2e.plans import find_plan  # noqa: E402
from tests.e2e.scenario import announced, play_hand, sit_from_group, start_match, wait_seated  # noqa: E402


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
                    rev = answer["state"]["rev"]  # type: ignore[index]
                    await server.wait_for(lambda: all(s.arrivals and s.arrivals[-1][0] >= rev for s in streams),
                                          what="every stream")
                    latencies["streams"].append(max(next(t for r, t in s.arrivals if r >= rev) for s in streams) - sent)
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


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
