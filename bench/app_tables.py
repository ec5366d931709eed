"""N tables of four people playing through the Mini App (its HTTP API and event stream), one bot: how fast the
next player sees their turn, and what the bot still asks of Telegram.  ``bench_webapp.py --tables N …`` runs it.

The bot runs as in production (``python -m bot.cli run`` in its own process, the web app on:
``CHAODIPI_PUBLIC_URL`` set, its HTTP server on a free port of 127.0.0.1) against the fake Bot API of
``tests/e2e`` with Telegram's limits (as ``bench_bot.py tables`` applies them).  Each table is a group of four
people: one sends /newgame, the three others sit with the group's buttons, all four open the Mini App (its event
stream, with a ticket, as the page does), and the first presses Start.  From then on every move goes through the
app: a person waits for a state of their stream that asks them to move, thinks (``--think``, uniform, default
4-11 s), and sends the move (Pass in the bidding, Don't steal, the hint's bury, the hint's play) as one POST.
While their app is open the bot sends them no hand message; the group's table message, the results and the
reveals still go through Telegram.

Figures over the window (once every table has played its first card):

* press → answer: a move's POST → its answer (the mover's own table redrawn), ms;
* turn lag: an accepted play → the next mover's stream shows a state asking them to play (same hand), ms;
  a miss (inf): none within 10 s though the hand went on;
* hands finished, plays a second; the bot's CPU; the fake's calls a second and 429s; Bot API calls per play
  by kind and reason (``tests/e2e/call_reasons.py``).

Everything but the bot (the fake Telegram, the HTTP clients and their streams) shares this process and the
machine's cores; the figures are the bot's under that load.
"""

from __future__ import annotations

import asyncio
import bisect
import random
import secrets
import socket
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from bench_bot import (
    BENCH_LIMITS,
    BID_CHANCE,
    BUSY,
    OPEN_WAIT,
    SHOWN_WAIT,
    BotProcess,
    _misses,
    _ms,
    table_message,
)

from engine.cards import Card
from tests.e2e.appkit import PUBLIC_URL, AppClient, Stream, init_data_for, stream
from tests.e2e.call_reasons import per_play, tally
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.fake_telegram.people import Group, MessageView, Person
from tests.e2e.scenario import lobby_button


class _Signalling(list):  # type: ignore[type-arg]
    """A stream's arrivals that wake the person reading them (no polling)."""

    def __init__(self, event: asyncio.Event) -> None:
        super().__init__()
        self.event = event

    def append(self, item: Any) -> None:
        super().append(item)
        self.event.set()


def asked(state: dict[str, Any]) -> str | None:
    """What a seat's state asks of its reader now: bid, steal, bury, play, or None (a bidder who passed is not
    asked again)."""
    move = state.get("mode")
    view = state.get("view") or {}
    if move == "bid" and state["seat"] in (view.get("passed") or ()):
        return None
    return move  # type: ignore[no-any-return]


def view_level(state: dict[str, Any]) -> object:
    return (state.get("view") or {}).get("level")


def _rank(card: str) -> int | None:
    """A card's rank (None for a joker)."""
    try:
        parsed = Card.parse(card)
    except ValueError:
        return None
    return parsed.rank if parsed.suit is not None else None


@dataclass
class AppSitter:
    """A person who plays through the Mini App."""

    person: Person
    seat: int
    think: tuple[float, float]
    rng: random.Random
    client: AppClient | None = None
    events: Stream | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    shown: list[tuple[float, int]] = field(default_factory=list)
    """(perf_counter, hand number) of every state that newly asked this person to play a card."""
    plays: list[tuple[float, int]] = field(default_factory=list)
    """(perf_counter when the POST left, hand number) of every play the bot accepted."""
    answers: list[tuple[float, float]] = field(default_factory=list)
    """(when the POST left, seconds to its answer) of every move."""
    ends: Counter[str] = field(default_factory=Counter)
    """Streams the server ended, by the reason it gave (``away``: the person timed out, and came back)."""

    async def connect(self, session: aiohttp.ClientSession, base: str, server: FakeTelegram, table_id: int) -> None:
        self.client = AppClient(session, base, init_data_for(server, self.person))
        self.events = stream(self.client, table_id)
        self.events.arrivals = _Signalling(self.woken)
        await self.events.__aenter__()

    async def play(self, table_id: int) -> None:
        """Make every move the stream's states ask for, once per keyboard version, until cancelled."""
        assert self.client is not None and self.events is not None
        seen, acted, before, bid_in = 0, "", None, ""
        while True:
            self.woken.clear()
            task = self.events._task
            if self.events.ended or (task is not None and task.done()):  # the stream said why it ended: back (the page's 「我回来了」) and open it again
                reason = (self.events.left or {}).get("reason", "closed" if self.events.closed else "dropped")
                self.ends[reason] += 1
                if reason == "closed":
                    return
                if reason == "away":
                    await self.client.post(f"/app/api/tables/{table_id}/back", {"nonce": secrets.token_hex(8)})
                await self.events.__aexit__(None, None, None)
                self.events = stream(self.client, table_id)
                self.events.arrivals = _Signalling(self.woken)
                await self.events.__aenter__()
                seen, acted = 0, ""
                continue
            states = self.events.states
            if len(states) == seen:
                try:
                    async with asyncio.timeout(2.0):  # an ended stream sets nothing: looked at every 2 s
                        await self.woken.wait()
                except TimeoutError:
                    pass
                continue
            seen = len(states)
            state = states[-1]
            move = asked(state)
            number = (state.get("view") or {}).get("number", 0)
            if move == "play" and before != state["version"]:
                self.shown.append((self.events.arrivals[-1][1], number))
            before = state["version"] if move == "play" else None
            if move is None or state["version"] == acted:
                continue
            await asyncio.sleep(self.rng.uniform(*self.think))
            if self.events.states[-1]["version"] != state["version"]:
                seen = 0  # the question changed while thinking: look again
                continue
            acted = state["version"]
            cards: list[str] = []
            op = {"bid": "pass", "steal": "nosteal"}.get(move, move)
            if move == "bid" and bid_in != state["version"].split(".")[0]:
                # Once a deal, half the time, a level card is bid (the hand is dealt again if nobody bids).
                bid_in = state["version"].split(".")[0]
                level = [c for c in state.get("hand", []) if _rank(c) == view_level(state)]
                if level and self.rng.random() < BID_CHANCE:
                    op, cards = "bid", level[:1]
            if move in ("bury", "play"):
                status, body = await self.client.post(f"/app/api/tables/{table_id}/hint", {})
                cards = body.get("cards", []) if status == 200 and isinstance(body, dict) else []
            status, body = await self.client.act(table_id, op, cards, version=state["version"])
            sent = self.client.sent_at
            self.answers.append((sent, time.perf_counter() - sent))
            done = status == 200 and isinstance(body, dict) and body.get("ok")
            if not done:  # refused (between hands, say): the same question is looked at again after a thought
                acted, seen = "", 0
                bid_in = "" if move == "bid" else bid_in
            elif move == "play":
                self.plays.append((sent, number))


@dataclass
class AppTable:
    index: int
    group: Group
    sitters: list[AppSitter]
    table_id: int | None = None
    refusals: int = 0

    async def _lobby(self, op: str, arg: str = "") -> MessageView | None:
        def ready() -> MessageView | None:
            message = table_message(self.group)
            if message is None or lobby_button(message, op, arg) is None:
                return None
            return None if op == "start" and "(empty)" in (message.text or "") else message
        try:
            return await self.group.server.wait_for(ready, OPEN_WAIT, what=f"lobby {op}")  # type: ignore[no-any-return]
        except TimeoutError:
            return None

    async def open(self, session: aiohttp.ClientSession, base: str) -> bool:
        """/newgame, three sit with the group's buttons, all four open the app, Start (again a minute later
        while the bot says it is full)."""
        server = self.group.server
        first = self.sitters[0].person
        await first.command(self.group, "newgame")
        for sitter in self.sitters[1:]:
            lobby = await self._lobby("sit", str(sitter.seat))
            button = lobby_button(lobby, "sit", str(sitter.seat)) if lobby is not None else None
            if lobby is None or button is None:
                return False
            await (await sitter.person.press(lobby, lambda b, d=button.callback_data: b.callback_data == d)).answer(60)
        lobby = await self._lobby("start")
        start = lobby_button(lobby, "start") if lobby is not None else None
        if lobby is None or start is None or start.callback_data is None:
            return False
        self.table_id = int(start.callback_data.split(":")[1])
        for sitter in self.sitters:
            await sitter.connect(session, base, server, self.table_id)
        await server.wait_for(lambda: all(s.events is not None and s.events.states for s in self.sitters), 120,
                              what="every stream")
        while True:
            lobby = await self._lobby("start")
            if lobby is None:
                return False
            answer = await (await first.press(lobby, "▶️ Start")).answer(60)
            if not answer.show_alert or BUSY not in (answer.text or ""):
                break
            self.refusals += 1
            await asyncio.sleep(60)
        return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _lags(tables: list[AppTable], t0: float, t1: float) -> list[float]:
    """An accepted play in [t0, t1] → the next state asking someone at that table to play in the same hand."""
    out = []
    for table in tables:
        shown = sorted(x for s in table.sitters for x in s.shown)
        plays = sorted(p for s in table.sitters for p in s.plays)
        for at, hand in plays:
            if not t0 <= at <= t1:
                continue
            i = bisect.bisect_right(shown, (at, 1 << 30))
            nxt = next(((t, h) for t, h in shown[i:] if h >= hand), None)
            if nxt is not None and nxt[1] == hand and nxt[0] - at <= SHOWN_WAIT:
                out.append(nxt[0] - at)
            elif any(h == hand and a > at for a, h in plays):
                out.append(float("inf"))
    return out


async def app_tables(n: int, *, window: float, think: tuple[float, float], at_once: int) -> None:
    """N Mini App tables of four at human pace: press → answer, the next player's turn, and the Bot API's part."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram(limits=BENCH_LIMITS) as server, \
                aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                      timeout=aiohttp.ClientTimeout(total=None)) as session:  # as EventSource
            port = _free_port()
            bot = BotProcess(server, Path(folder), ai_delay=0.8, group_interval=3.5)
            bot.env.update(CHAODIPI_PUBLIC_URL=PUBLIC_URL, CHAODIPI_WEBHOOK_LISTEN="127.0.0.1",
                           CHAODIPI_WEBHOOK_PORT=str(port))
            await bot.start()
            base = f"http://127.0.0.1:{port}"
            tables = []
            for i in range(n):
                people = [server.person(f"A{i}{'NESW'[s]}", f"a{i}_{s}", language_code="en", started=True)
                          for s in range(4)]
                tables.append(AppTable(i, server.group(f"App {i}", people),
                                       [AppSitter(p, s, think, random.Random(i * 4 + s)) for s, p in enumerate(people)]))
            gate = asyncio.Semaphore(at_once)
            tasks: list[asyncio.Task[None]] = []
            started = time.monotonic()
            failed = 0

            async def open_one(table: AppTable) -> None:
                nonlocal failed
                async with gate:
                    if not await table.open(session, base):
                        failed += 1
                        return
                assert table.table_id is not None
                tasks.extend(asyncio.create_task(s.play(table.table_id)) for s in table.sitters)
            await asyncio.gather(*(open_one(t) for t in tables))
            opened = time.monotonic() - started
            deadline = time.monotonic() + 300
            while (waiting := sum(1 for t in tables if t.table_id is not None
                                  and not any(s.plays for s in t.sitters))) and time.monotonic() < deadline:
                await asyncio.sleep(1.0)
            setup = time.monotonic() - started
            cpu0, t0, m0 = bot.cpu(), time.perf_counter(), time.monotonic()
            await asyncio.sleep(window)
            cpu1, t1, m1 = bot.cpu(), time.perf_counter(), time.monotonic()
            await asyncio.sleep(SHOWN_WAIT)  # what the window's plays asked for is shown
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for table in tables:
                for sitter in table.sitters:
                    if sitter.events is not None:
                        await sitter.events.__aexit__(None, None, None)
            answers = [d for t in tables for s in t.sitters for at, d in s.answers if t0 <= at <= t1]
            lags = _lags(tables, t0, t1)
            plays = sum(1 for t in tables for s in t.sitters for at, _ in s.plays if t0 <= at <= t1)
            calls = [r for r in server.calls.records if m0 <= r.at <= m1 and r.method != "getUpdates"]
            refused = Counter(r.chat_type for r in calls if r.status == 429)
            hands = bot.rows("SELECT count(*) FROM hand_results")
            ends = sum((s.ends for t in tables for s in t.sitters), Counter[str]())
            timeouts = sum(1 for r in calls if r.chat_type != "private" and r.method == "sendMessage"
                           and "ran out of time" in str(r.params.get("text", "")))
            await bot.stop()
            span = t1 - t0
            print(f"N={n} Mini App tables: opening took {opened:.0f} s ({failed} failed), until all played cards "
                  f"{setup:.0f} s ({waiting} had not); {sum(t.refusals for t in tables)} Start presses told the bot "
                  f"was full; window {span:.0f} s; think {think[0]:g}-{think[1]:g} s")
            print("                          p50 ms  p95 ms  p99 ms      n  misses")
            for label, values in (("press → answer", answers), ("turn lag (next mover)", lags)):
                print(f"  {label:<22}{_ms(values)}  {_misses(values):>6}")
            print(f"  {plays / span:.1f} plays/s, hands finished in all {int(hands[0][0])}; bot CPU "
                  f"{(cpu1 - cpu0) / span:.2f} cores; fake server {len(calls) / span:.1f} calls/s; 429s: "
                  f"{', '.join(f'{v} {k}' for k, v in refused.most_common()) or 'none'}")
            print(f"  streams the server ended (by reason, over the whole run): "
                  f"{', '.join(f'{v} {k}' for k, v in ends.most_common()) or 'none'}; "
                  f"timeouts announced in the window: {timeouts}")
            for line in per_play(tally(calls, server.state), plays):
                print("  " + line)
