"""Figures for the bot as a whole: API calls per hand, and many tables at once.

The bot runs as in production (``python -m chaodipi_cli run``, its own
process, settings from the environment) against the fake Bot API server of
``tests/e2e`` on 127.0.0.1, which runs here with the simulated people.  Each
table has one person (who plays from what their hand message shows: Pass,
Don't steal, eight cards then Bury, Hint then Play) and three AI seats.  The
fake applies Telegram's flood limits (about 20 messages a minute in a group,
one a second in a chat, 30 a second overall).

Run from the repository root::

    PYTHONPATH=. python bench/bench_bot.py                 # everything (several minutes)
    PYTHONPATH=. python bench/bench_bot.py calls           # API calls per hand
    PYTHONPATH=. python bench/bench_bot.py tables 10 100   # N tables at once

Prints figures only; nothing asserts on time.  "Latency" is from a person's
press (the update queued at the fake server) to the bot's answerCallbackQuery
arriving there.  The bot's CPU and memory come from ``/proc/<pid>`` over the
measured window and ``resource.getrusage(RUSAGE_CHILDREN)`` for its whole
life; memory per table is the growth of the bot's resident set from idle to
N tables playing, divided by N.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot import callbacks  # noqa: E402
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits  # noqa: E402
from tests.e2e.fake_telegram.people import Group, MessageView, Person  # noqa: E402
from tests.e2e.fake_telegram.state import Message  # noqa: E402
from tests.e2e.scenario import hand_button, keyboard_version, lobby_button, offered_move  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
POLL = 0.05
"""How often a simulated person looks at their phone (seconds)."""


# --- the bot in its own process ----------------------------------------------------------------------

class BotProcess:
    """``chaodipi run`` against the fake server; CPU and memory read from /proc."""

    def __init__(self, server: FakeTelegram, folder: Path, *, ai_delay: float, group_interval: float) -> None:
        self.server = server
        self.folder = folder
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": server.token,
                    "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(folder / "bench.db"),
                    "CHAODIPI_AI_DELAY": str(ai_delay), "CHAODIPI_GROUP_INTERVAL": str(group_interval),
                    "CHAODIPI_LOG_LEVEL": "WARNING"}
        self.process: asyncio.subprocess.Process | None = None
        self.log = folder / "bot.log"

    async def start(self) -> None:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._children_cpu = children.ru_utime + children.ru_stime
        before = self.server.calls.count("deleteWebhook")
        with open(self.log, "ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "chaodipi_cli", "run", cwd=ROOT, env=self.env, stderr=log)
        await self.server.wait_for(lambda: self.server.calls.count("deleteWebhook") > before, 60, "the bot to poll")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu(self) -> float:
        """CPU seconds (user + system) used by the bot so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def rss(self) -> int:
        """Resident memory in bytes."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    async def stop(self) -> float:
        """Ctrl-C; the CPU seconds the process used in its whole life."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self.process.wait(), 120)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return after.ru_utime + after.ru_stime - self._children_cpu

    def _query(self, sql: str) -> float | None:
        db = sqlite3.connect(f"file:{self.folder / 'bench.db'}?mode=ro", uri=True, timeout=30)
        try:
            value = db.execute(sql).fetchone()[0]
            return None if value is None else float(value)
        finally:
            db.close()

    def moves(self) -> int:
        """Actions stored so far (every bid, pass, bury, steal and play), read from the bot's database."""
        return int(self._query("SELECT count(*) FROM events") or 0)

    def finished_hands(self) -> tuple[int, float]:
        """How many hands were scored, and their mean number of actions."""
        row = (self._query("SELECT count(*) FROM hand_results") or 0,
               self._query("SELECT avg(n) FROM (SELECT count(*) AS n FROM events "
                           "JOIN hand_results USING (hand_id) GROUP BY hand_id)") or 0.0)
        return int(row[0]), float(row[1])

    def problems(self) -> list[str]:
        """Warning and error lines the bot logged."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [line for line in text.splitlines() if " WARNING " in line or " ERROR " in line]


# --- a person who plays from what their phone shows ----------------------------------------------------

@dataclass
class Press:
    at: float
    latency: float
    op: str
    own: float = float("nan")
    """Press → the presser's hand message edited (inf: not within 10 s; nan: a lobby press)."""


@dataclass
class Player:
    server: FakeTelegram
    person: Person
    group: Group
    think: tuple[float, float]
    rng: random.Random
    presses: list[Press] = field(default_factory=list)
    refused: int = 0
    started_seq: int = 0
    """The call log's mark when this table's match started."""
    hands_done: list[int] = field(default_factory=list)
    """The call log's mark at each of this table's result announcements (filled by the caller)."""

    async def press(self, message: MessageView, data: str, op: str) -> bool:
        """Press a button; wait for the answer (and, on the hand keyboard, for one's message to change).

        True unless it was refused (an alert).
        """
        raw = self._hand_message()
        shown = (raw.message_id, len(raw.history)) if raw is not None else None
        pressed = await self.person.forge_callback(message, data)
        query = self.server.state.callback_queries[pressed.query_id]
        deadline = time.monotonic() + 60
        while not query.answered and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if not query.answered or query.answered_at is None:
            self.presses.append(Press(query.created_at, float("inf"), op))
            return False
        press = Press(query.created_at, query.answered_at - query.created_at, op)
        self.presses.append(press)
        if query.show_alert:
            self.refused += 1
        elif op != "lobby":
            seen_by = time.monotonic() + 10
            while time.monotonic() < seen_by:
                raw = self._hand_message()
                if raw is not None and (raw.message_id, len(raw.history)) != shown:
                    press.own = time.monotonic() - query.created_at
                    break
                await asyncio.sleep(0.01)
            else:
                press.own = float("inf")
        return not query.show_alert

    def _table_message(self) -> MessageView | None:
        found = self.group.bot_messages()
        return found[0] if found else None

    async def open_table(self) -> None:
        """/newgame, three AI seats, Start."""
        await self.person.command(self.group, "newgame")
        while (lobby := self._table_message()) is None or lobby_button(lobby, "ai") is None:
            await asyncio.sleep(POLL)
        add = lobby_button(lobby, "ai")
        assert add is not None and add.callback_data is not None
        for _ in range(3):
            await self.press(lobby, add.callback_data, "lobby")
        while True:
            message = self._table_message()
            start = lobby_button(message, "start") if message is not None else None
            if message is not None and start is not None and "(empty)" not in (message.text or ""):
                break
            await asyncio.sleep(POLL)
        assert start.callback_data is not None
        self.started_seq = self.server.calls.mark()
        await self.press(message, start.callback_data, "lobby")

    def _hand_message(self) -> Message | None:
        for message in reversed(self.server.state.messages[self.person.id].values()):
            if message.from_bot and not message.deleted and "H:" in str(message.reply_markup):
                return message
        return None

    async def play(self, stop: asyncio.Event) -> None:
        """Make every move the hand message offers, once per version, until ``stop``."""
        seen: tuple[int, int] | None = None
        acted: tuple[str, str] | None = None
        while not stop.is_set():
            await asyncio.sleep(POLL)
            raw = self._hand_message()
            if raw is None or (raw.message_id, len(raw.history)) == seen:
                continue
            message = MessageView.of(raw)
            move = offered_move(message)
            version = _version(message)
            if move is None or (move != "bid" and (version, move) == acted):
                seen = (raw.message_id, len(raw.history))
                continue
            low, high = self.think
            if high:
                await asyncio.sleep(self.rng.uniform(low, high))
            await self._move(message, move)
            raw = self._hand_message()
            seen = (raw.message_id, len(raw.history)) if raw is not None else None
            acted = (version, move)

    async def _move(self, message: MessageView, move: str) -> None:
        def data(op: str) -> str:
            button = hand_button(message, op)
            assert button is not None and button.callback_data is not None
            return button.callback_data

        if move == "bid":
            await self.press(message, data("pass"), "pass")
        elif move == "steal":
            await self.press(message, data("nosteal"), "nosteal")
        elif move == "play":
            if await self.press(message, data("hint"), "hint"):
                await self.press(message, data("play"), "play")
        elif move == "bury":
            cards = [b.callback_data for b in message.all_buttons() if ":sel:" in (b.callback_data or "")][-8:]
            for card in cards:
                assert card is not None
                await self.press(message, card, "sel")
            await self.press(message, data("bury"), "bury")


def _version(message: MessageView) -> str:
    return keyboard_version(message)


def moves_per_hand(deals: int = 40) -> float:
    """The mean number of actions in a hand of the default preset, from self-play of a few deals."""
    from engine.ai import choose_action
    from engine.hand import Action
    from engine.match import Match
    from engine.ruleset import get_ruleset
    from engine.views import view_for

    counts = []
    for n in range(deals):
        match = Match(get_ruleset("yancheng"), random.Random(n).getrandbits(62))
        hand, actions = match.hand, 0
        while match.hand is hand:
            seats = sorted(hand.to_act())
            seat = next(s for s in seats if hand.phase != "bidding" or s not in hand.passed)
            action = choose_action(view_for(hand, seat), hand.ruleset)
            match.apply(action if hand.can(action) else Action("pass", seat))
            actions += 1
        if hand.phase == "finished":
            counts.append(actions)
    return sum(counts) / len(counts)


def _kinds(lines: list[str]) -> str:
    """The kinds of logged problems, most common first: " (12× edit failed …)"."""
    if not lines:
        return ""
    kinds = Counter(" ".join(line.split(" ", 3)[-1].split()[:4]) for line in lines)
    return " (" + "; ".join(f"{n}× {kind} …" for kind, n in kinds.most_common(3)) + ")"


def _rejections(server: FakeTelegram, since: float = 0.0, until: float = float("inf")) -> str:
    """429 answers by chat type and method."""
    found = Counter(f"{r.chat_type} {r.method}" for r in server.calls.records
                    if r.status == 429 and since <= r.at <= until)
    return ", ".join(f"{n} {what}" for what, n in found.most_common())


def results(server: FakeTelegram, group: Group) -> list[int]:
    """Call-log marks of the group's result announcements ("Hand n is over")."""
    return [r.seq for r in server.calls.records
            if r.chat_id == group.id and r.ok and r.method == "sendMessage"
            and "is over" in str(r.params.get("text", ""))[:40]]


# --- figures -------------------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _setup(server: FakeTelegram, n: int, think: tuple[float, float], seed: int,
                 stop: asyncio.Event) -> tuple[list[Player], list[asyncio.Task[None]]]:
    """Open N tables at once; each person starts playing as soon as their match starts
    (a person who waited would time out, and the AI would play for them)."""
    players = []
    for i in range(n):
        person = server.person(f"P{i}", f"p{i}", language_code="en", started=True)
        group = server.group(f"Table {i}", [person])
        players.append(Player(server, person, group, think, random.Random(seed + i)))
    tasks: list[asyncio.Task[None]] = []

    async def open_one(player: Player) -> None:
        await player.open_table()
        tasks.append(asyncio.create_task(player.play(stop)))
    await asyncio.gather(*(open_one(p) for p in players))
    return players, tasks


async def calls_per_hand(label: str, *, tables: int, hands: int, ai_delay: float, think: tuple[float, float],
                         timeout: float) -> None:
    """API calls per hand for one table, split into group and private chats."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram() as server:
            bot = BotProcess(server, Path(folder), ai_delay=ai_delay, group_interval=3.5)
            await bot.start()
            stop = asyncio.Event()
            players, tasks = await _setup(server, tables, think, 1, stop)
            started = time.monotonic()
            while time.monotonic() - started < timeout:
                if all(len(results(server, p.group)) >= hands for p in players):
                    break
                await asyncio.sleep(0.5)
            stop.set()
            await asyncio.gather(*tasks)
            await bot.stop()
            done = 0
            split: Counter[str] = Counter()
            for p in players:
                marks = results(server, p.group)[:hands]
                if len(marks) < hands:
                    continue
                done += hands
                for r in server.calls.records:
                    if not p.started_seq < r.seq <= marks[-1] or r.method == "getUpdates":
                        continue
                    if r.chat_id == p.group.id:
                        split["group answers" if r.method == "answerCallbackQuery" else "group"] += 1
                    elif r.chat_id == p.person.id:
                        split["private answers" if r.method == "answerCallbackQuery" else "private"] += 1
            elapsed = time.monotonic() - started
            if not done:
                print(f"{label}: no table finished {hands} hand(s) in {elapsed:.0f} s")
                return
            per = {k: v / done for k, v in split.items()}
            print(f"{label}: {done} hands on {tables} tables in {elapsed:.0f} s; per hand: "
                  f"group {per.get('group', 0):.1f} messages+edits, private {per.get('private', 0):.1f} "
                  f"messages+edits, {per.get('private answers', 0) + per.get('group answers', 0):.1f} "
                  f"button answers; 429s: {_rejections(server) or 'none'}")


async def many_tables(n: int, *, window: float, ai_delay: float, think: tuple[float, float]) -> None:
    """N tables playing at once: latency of presses, hands per minute, the bot's memory and CPU."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram() as server:
            bot = BotProcess(server, Path(folder), ai_delay=ai_delay, group_interval=3.5)
            await bot.start()
            await asyncio.sleep(1.0)
            rss_idle = bot.rss()
            setup_started = time.monotonic()
            stop = asyncio.Event()
            players, tasks = await _setup(server, n, think, n, stop)
            setup = time.monotonic() - setup_started
            await asyncio.sleep(5.0)  # every table has dealt and is playing
            cpu0, me0, t0 = bot.cpu(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            hands0, moves0 = sum(len(results(server, p.group)) for p in players), bot.moves()
            await asyncio.sleep(window)
            cpu1, me1, t1 = bot.cpu(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            hands1, moves1 = sum(len(results(server, p.group)) for p in players), bot.moves()
            rss = bot.rss()
            stop.set()
            await asyncio.gather(*tasks)
            life_cpu = await bot.stop()
            finished, mean = bot.finished_hands()
            per_hand = mean if finished >= 20 else moves_per_hand()
            own = [p.own for pl in players for p in pl.presses if t0 <= p.at <= t1 and p.own == p.own]
            own_seen = [x for x in own if x != float("inf")]
            lat = [p.latency for pl in players for p in pl.presses if t0 <= p.at <= t1]
            lost = sum(1 for x in lat if x == float("inf"))
            finite = [x for x in lat if x != float("inf")]
            span = t1 - t0
            print(f"N={n}: setup {setup:.0f} s; window {span:.0f} s: {len(lat)} presses "
                  f"({len(lat) / span:.1f}/s), latency p50 {1000 * pct(finite, 0.5):.0f} ms, "
                  f"p95 {1000 * pct(finite, 0.95):.0f} ms, p99 {1000 * pct(finite, 0.99):.0f} ms, "
                  f"max {1000 * max(finite, default=float('nan')):.0f} ms, unanswered {lost}")
            print(f"      press → own message edited: p50 {1000 * pct(own_seen, 0.5):.0f} ms, "
                  f"p95 {1000 * pct(own_seen, 0.95):.0f} ms, p99 {1000 * pct(own_seen, 0.99):.0f} ms, "
                  f"not within 10 s {len(own) - len(own_seen)} of {len(own)}")
            print(f"      {(moves1 - moves0) * 60 / span:.0f} moves/min = {(moves1 - moves0) * 60 / span / per_hand:.1f} "
                  f"hands/min (a hand is {per_hand:.0f} moves); hands finished in the window: {hands1 - hands0}")
            print(f"      bot CPU {cpu1 - cpu0:.1f} s in {span:.0f} s = {(cpu1 - cpu0) / span:.2f} cores; "
                  f"whole life {life_cpu:.1f} s; RSS idle {rss_idle / 2**20:.0f} MiB, "
                  f"with {n} tables {rss / 2**20:.0f} MiB = {(rss - rss_idle) / n / 1024:.0f} KiB/table; "
                  f"driver+fake CPU {(me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime):.1f} s; "
                  f"bot warnings {len(bot.problems())}{_kinds(bot.problems())}")
            window_calls = [r for r in server.calls.records if t0 <= r.at <= t1 and r.method != "getUpdates"]
            to_chats = [r for r in window_calls if r.method != "answerCallbackQuery"]
            print(f"      API calls in the window: {len(to_chats) / span:.1f}/s to chats (sends, edits, deletes: "
                  f"PTB's AIORateLimiter allows 30/s), {(len(window_calls) - len(to_chats)) / span:.1f}/s button answers; "
                  f"429s in the window: {_rejections(server, t0, t1) or 'none'}; while opening the tables: "
                  f"{_rejections(server, 0, t0) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="?", choices=("all", "calls", "tables"), default="all")
    parser.add_argument("sizes", nargs="*", type=int, help="table counts for 'tables' (default 10 100 500)")
    parser.add_argument("--window", type=float, default=60.0, help="seconds measured with N tables (default 60)")
    parser.add_argument("--ai-delay", type=float, default=0.8, help="AI seconds per move with N tables (default 0.8)")
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                        help="a person's thinking time per move with N tables (default 0.5 1.5 s)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    if args.what in ("all", "calls"):
        asyncio.run(calls_per_hand("AI as fast as they can (AI delay 0, no thinking)", tables=4, hands=3,
                                   ai_delay=0.0, think=(0.0, 0.0), timeout=300))
        asyncio.run(calls_per_hand("human pace (AI delay 0.8 s, a person thinks 1-3 s)", tables=4, hands=1,
                                   ai_delay=0.8, think=(1.0, 3.0), timeout=600))
    if args.what in ("all", "tables"):
        for n in args.sizes or [10, 100, 500]:
            asyncio.run(many_tables(n, window=args.window, ai_delay=args.ai_delay, think=tuple(args.think)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
