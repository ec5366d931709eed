"""Figures for the bot as a whole: API calls per hand, N tables of four people, an hour's soak.

The bot runs as in production (``python -m bot.cli run``, its own
process, settings from the environment, defaults: AI delay 0.8 s, group
interval 3.5 s, 4 s between hands) against the fake Bot API server of
``tests/e2e`` on 127.0.0.1, which runs in this process with the simulated
people.  Everything shares the machine's cores: the figures are the bot's
under that load, not on a machine of its own.

Run from the repository root::

    PYTHONPATH=. python bench/bench_bot.py calls                     # API calls per hand (one person + 3 AI)
    PYTHONPATH=. python bench/bench_bot.py tables 10 100 --window 60 # N tables of four people at once
    PYTHONPATH=. python bench/bench_bot.py soak 100 --minutes 60     # N tables for an hour, a line a minute
    PYTHONPATH=. python bench/bench_bot.py solo 1 10 30 --window 120 # N tables of one person and three AI seats
    PYTHONPATH=. python bench/bench_bot.py                           # calls, then tables 10 100 300 1000

Options: ``--window`` seconds measured (default 120), ``--think MIN,MAX``
a person's thinking time per move (uniform, default 4,11: about 70 moves
make an unloaded hand 8-9 minutes, the issue's human pace), ``--opening``
tables being opened at once (default 50), ``--setup-limit`` seconds the
opening may take (default 1800; tables not open by then are left out and
counted as failed), ``--ai-delay``, ``--minutes``, and for ``soak``
``--tracemalloc FRAMES``: the bot traces its memory (several times slower)
and the soak ends by printing the places whose memory grew most between a
snapshot a quarter in and the last (the way to find what a creeping RSS is).

``tables`` and ``soak``: each table is a group of four people.  One sends
/newgame, the three others sit with the group's buttons, the first presses
Start (again a minute later while the bot answers that it is full).  Each person is one asyncio task that sleeps until the fake server
reports a call of the bot in their private chat (no polling), looks at
their hand message, thinks, looks again and makes the move it offers: bids
one level card now and then (hand 1 is dealt again if nobody bids) or
passes, Don't steal, Hint then Bury, and the one-tap ▶ play.  A refused
press or a stale message only means looking again.  The fake applies
Telegram's limits as issue 13 reads them: one message a second in a chat
(a burst of 3), 20 a minute in a group, 30 a second overall counting sends
and edits (private edits count in the overall window:
``FloodLimits(edits_count_overall=True)``).  The opening of the tables
(``--opening`` at a time) and each table's bidding, burying and stealing
are not measured (their time is printed): the window starts once every
table has played its first card, the phase a hand spends most time in.

What ``tables`` prints, per N (p50/p95/p99 in ms; "inf" where more than
1 %, 5 % … of the samples are misses; times from the fake server's clock):

* press → answer: a hand-button press (the update queued) → the bot's
  answerCallbackQuery; a miss: none within 20 s (Telegram's client gives
  up sooner, the fake refuses answers after 15 s).
* press → own message: a press the bot did not refuse → the next edit
  (or new message) of the bot in the presser's private chat, which is what
  the person sees change; a miss: none within 10 s.  The issue's capacity
  is the largest N whose p99 here is under 1 s.
* turn lag: a play the bot accepted → the first hand message at that table
  that newly offers a play in the same hand (the next mover sees it is
  their turn); a miss: none within 10 s although the hand went on.
* group lag (trick): the bot storing the play that wins trick k (its
  event's ``created_at`` in the database) → the first version of a group
  message showing trick k+1 under way, a later hand, or the hand's result;
  a miss: none within 10 s.  A group gets at most 20 messages a minute and
  the bot paces its table message (3.5 s), so seconds here are by design.
* hands finished in the window (and their mean time from deal to result),
  plays and presses per second over all tables.
* the bot's CPU (cores, and ms of CPU per second per table) from
  ``/proc/<pid>/stat``; RSS idle and with N tables, and RSS growth / N
  per table; OS threads and fds; asyncio tasks and timers (callbacks
  scheduled on the loop) read by a thread the bench adds to the bot
  process (see ``SAMPLER``; the bot itself is unchanged).
* the fake server's call rate over all chats (sends, edits, button
  answers, other; getUpdates left out) and the 429s by chat type, in the
  window and while opening.
* calls per play (a card played, at any table, in the window), by kind
  (send, edit, answer, pin, delete, other) and by reason (next mover, own
  press, waiting player, group line, turn line, clock, table message, nudge,
  result, new hand, other), each reason with its kinds: read from what each
  call did to its chat (``tests/e2e/call_reasons.py``), the bot untagged.

``soak`` prints a line a minute for the minute that ended 10 s before
(so its presses had time to be shown): RSS, threads, fds, asyncio tasks,
timers, PTB job-queue jobs (-1: the bot has no job queue), hands finished,
presses, press → own message p99 and misses, 429s, bot cores; then the
RSS slope in MiB/hour (least squares after the first quarter).  It drops
the fake's old records as it goes so the simulator's memory stays flat.

``solo``: N tables of one person and three AI seats (the strong AI, a new
table's default), the usual way to play alone, where the AI's searches of
every table share the bot's search workers.  It prints the seconds from a
person's play to their next turn in the same hand (p50/p95/p99; three AI
moves or so, each after the AI delay; a miss: the turn never came), the
seconds from a play to an AI seat's next play of the same hand (the AI delay,
the search, and any wait for a worker), hands
finished, AI plays a second, and the cores of the bot and of its search
worker(s).

``calls``: one person and three AI seats per table (the person polls; four
tables only), API calls per hand split into group and private chats.

Prints figures only; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import ctypes
import functools
import json
import os
import random
import re
import resource
import signal
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot import callbacks  # noqa: E402
from bot.thinking import PR_SET_PDEATHSIG  # noqa: E402
from engine.cards import Card, rank_value  # noqa: E402
from tests.e2e.call_reasons import per_play, tally  # noqa: E402
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits  # noqa: E402
from tests.e2e.fake_telegram.people import Group, MessageView, Person  # noqa: E402
from tests.e2e.fake_telegram.state import CallbackQuery, Message  # noqa: E402
from tests.e2e.scenario import hand_button, keyboard_version, lobby_button, offered_move  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")

SAMPLER = """
import asyncio, gc, json, os, sys, threading, time, tracemalloc
from collections import Counter
from bot import cli as chaodipi_cli

CENSUS_EVERY = 10
FRAMES = int(os.environ.get("CHAODIPI_BENCH_TRACEMALLOC", "0"))
if FRAMES:
    tracemalloc.start(FRAMES)

def sample(path, every):
    loop = app = None
    taken = 0
    while True:
        time.sleep(every)
        if loop is None:  # found once: the loop run_polling runs, and the Application
            for o in gc.get_objects():
                if isinstance(o, asyncio.AbstractEventLoop) and o.is_running():
                    loop = o
                elif type(o).__name__ == "Application" and hasattr(o, "job_queue"):
                    app = o
        if loop is None:
            continue
        queue = getattr(app, "job_queue", None)
        figures = {"tasks": len(asyncio.all_tasks(loop)), "timers": len(loop._scheduled),
                   "jobs": len(queue.jobs()) if queue is not None else -1, "blocks": sys.getallocatedblocks()}
        taken += 1
        if taken % CENSUS_EVERY == 0:  # the most numerous kinds of objects the collector tracks
            kinds = Counter(type(o).__qualname__ for o in gc.get_objects())
            figures["census"] = dict(kinds.most_common(60))
            if FRAMES:  # where Python's memory is, by line: compared by the soak at its end
                tracemalloc.take_snapshot().dump(f"{path}.{taken // CENSUS_EVERY}.snapshot")
        with open(path, "a") as out:
            out.write(json.dumps(figures) + "\\n")

threading.Thread(target=sample, args=(sys.argv[1], float(sys.argv[2])), daemon=True).start()
sys.exit(chaodipi_cli.main(["run"]))
"""
"""``python -c SAMPLER samples.jsonl SECONDS``: the bot as ``chaodipi run`` runs it, plus a thread that
appends its asyncio task count, its timer count (callbacks scheduled on the loop), PTB's job-queue
jobs (-1: no job queue) and Python's allocated memory blocks to a file every SECONDS, and every
tenth time a census of the objects the garbage collector tracks, by type (what a leak is made of), and
with CHAODIPI_BENCH_TRACEMALLOC=FRAMES a tracemalloc snapshot.  A leak of tasks or timers shows there; the bot is
not changed for it (reading the loop from another thread is approximate, which is fine for a trend)."""
POLL = 0.05
"""How often a simulated person looks at their phone (seconds)."""


# --- the bot in its own process ----------------------------------------------------------------------

def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) a live process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def table_message(group: Group) -> MessageView | None:
    """The group's table message: the bot's first message there still shown (the lobby, then the table)."""
    found = group.bot_messages()
    return found[0] if found else None


def _end_with_the_bench() -> None:
    """Runs in the bot's process before it starts: on Linux the kernel kills it when the bench ends, however
    the bench ends (a bench stopped with Ctrl-C or killed left its bot running, flushing to a fake Telegram
    that was gone)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class BotProcess:
    """``chaodipi run`` against the fake server; CPU and memory read from /proc."""

    def __init__(self, server: FakeTelegram, folder: Path, *, ai_delay: float, group_interval: float,
                 sample_every: float | None = None) -> None:
        self.server = server
        self.folder = folder
        self.samples = folder / "samples.jsonl" if sample_every else None
        """Where the bot's own figures (asyncio tasks, timers) go, once every ``sample_every`` s."""
        self.sample_every = sample_every
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
            command = (["-c", SAMPLER, str(self.samples), str(self.sample_every)] if self.samples is not None
                       else ["-m", "bot.cli", "run"])
            self.process = await asyncio.create_subprocess_exec(sys.executable, *command, cwd=ROOT, env=self.env,
                                                                stderr=log, preexec_fn=_end_with_the_bench)
        await self.server.wait_for(lambda: self.server.calls.count("deleteWebhook") > before, 60, "the bot to poll")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu(self) -> float:
        """CPU seconds (user + system) used by the bot so far."""
        return _cpu_seconds(self.pid)

    def cpu_of_workers(self) -> float:
        """CPU seconds used so far by the bot's live child processes (the strong AI's search worker)."""
        total = 0.0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                try:
                    total += _cpu_seconds(int(child))
                except FileNotFoundError:
                    continue
        return total

    def rss(self) -> int:
        """Resident memory in bytes."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def threads_and_fds(self) -> tuple[int, int]:
        """OS threads and open file descriptors of the bot."""
        threads = 0
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                threads = int(line.split()[1])
        return threads, len(os.listdir(f"/proc/{self.pid}/fd"))

    def sample(self) -> dict[str, Any]:
        """The bot's latest self-report: asyncio tasks, timers (scheduled callbacks), PTB jobs, Python's
        allocated blocks ({} if none)."""
        if self.samples is None or not self.samples.exists():
            return {}
        lines = self.samples.read_text().splitlines()
        return json.loads(lines[-1]) if lines else {}

    def censuses(self) -> list[dict[str, int]]:
        """The bot's object censuses so far (objects the collector tracks, by type), oldest first."""
        if self.samples is None or not self.samples.exists():
            return []
        return [c for line in self.samples.read_text().splitlines() if (c := json.loads(line).get("census"))]

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

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows of a query on the bot's database (read-only)."""
        db = sqlite3.connect(f"file:{self.folder / 'bench.db'}?mode=ro", uri=True, timeout=30)
        try:
            return list(db.execute(sql).fetchall())
        finally:
            db.close()

    def problems(self) -> list[str]:
        """Warning and error lines the bot logged."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [line for line in text.splitlines() if " WARNING " in line or " ERROR " in line]


# --- a person who plays from what their phone shows ----------------------------------------------------

@dataclass
class Press:
    at: float
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
    turns: list[tuple[int, float]] = field(default_factory=list)
    """(hand, time) whenever the hand message newly offered a play: this person's turn had come."""
    plays: list[tuple[int, float]] = field(default_factory=list)
    """(hand, time pressed) of each play the bot accepted."""
    hands: list[tuple[int, float]] = field(default_factory=list)
    """(hand, time) whenever the hand message first showed a new hand number."""

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
            self.presses.append(Press(query.created_at, op))
            return False
        press = Press(query.created_at, op)
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


    async def open_table(self) -> None:
        """/newgame, three AI seats, Start."""
        await self.person.command(self.group, "newgame")
        while (lobby := table_message(self.group)) is None or lobby_button(lobby, "ai") is None:
            await asyncio.sleep(POLL)
        add = lobby_button(lobby, "ai")
        assert add is not None and add.callback_data is not None
        for _ in range(3):
            await self.press(lobby, add.callback_data, "lobby")
        while True:
            message = table_message(self.group)
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
            number = _hand_number(message.text)
            if not self.hands or self.hands[-1][0] != number:
                self.hands.append((number, time.monotonic()))
            if move is None or (move != "bid" and (version, move) == acted):
                seen = (raw.message_id, len(raw.history))
                continue
            if move == "play":
                self.turns.append((number, time.monotonic()))
            low, high = self.think
            if high:
                await asyncio.sleep(self.rng.uniform(low, high))
            await self._move(message, move)
            # Look at the message as it is now: a play that wins a trick is answered by one edit that
            # already offers the next lead (the same version and move as before means nothing new).
            seen = None
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
            if await self.press(message, data("hint"), "hint") and await self.press(message, data("play"), "play"):
                self.plays.append((_hand_number(message.text), self.presses[-1].at))
        elif move == "bury":
            cards = [b.callback_data for b in message.all_buttons() if ":sel:" in (b.callback_data or "")][-8:]
            for card in cards:
                assert card is not None
                await self.press(message, card, "sel")
            await self.press(message, data("bury"), "bury")


def _version(message: MessageView) -> str:
    return keyboard_version(message)


def _kinds(lines: list[str]) -> str:
    """The kinds of logged problems, most common first: " (12× edit failed …)"."""
    if not lines:
        return ""
    kinds = Counter(" ".join([w for w in line.split(" ", 3)[-1].split() if "=" not in w][:6]) for line in lines)
    return " (" + "; ".join(f"{n}× {kind} …" for kind, n in kinds.most_common(3)) + ")"


def _examples(lines: list[str], most: int = 3) -> list[str]:
    """The first logged line of each of the most common kinds of problem (the bot never logs a card)."""
    first: dict[str, str] = {}
    for line in lines:
        first.setdefault(" ".join([w for w in line.split(" ", 3)[-1].split() if "=" not in w][:6]), line[:300])
    return list(first.values())[:most]


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


# --- one person and three AI seats a table ----------------------------------------------------------------

SOLO_SETTLE = 30.0
"""Seconds before the end of the window after which a play's wait is not counted (it may end after the window)."""


def _solo_waits(players: list[Player], t0: float, t1: float) -> list[float]:
    """For each play in [t0, t1 - SOLO_SETTLE]: seconds until the person's turn came again in the same hand
    (inf: it never came); a hand's last play (a later hand was shown) is left out."""
    waits = []
    for p in players:
        for hand, at in p.plays:
            if not t0 <= at <= t1 - SOLO_SETTLE:
                continue
            same = [t for h, t in p.turns if t > at and h == hand]
            if same:
                waits.append(same[0] - at)
            elif not any(h != hand and t > at for h, t in p.hands):
                waits.append(float("inf"))  # no later turn, and no next hand either
    return waits


async def solo_tables(n: int, *, window: float, ai_delay: float, think: tuple[float, float]) -> None:
    """N tables of one person and three AI seats at the tables' default strength (strong): how long a person
    waits for their turn while the AI seats of every table search at once."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram(limits=BENCH_LIMITS) as server:
            bot = BotProcess(server, Path(folder), ai_delay=ai_delay, group_interval=3.5)
            await bot.start()
            stop = asyncio.Event()
            opened = time.monotonic()
            players, tasks = await _setup(server, n, think, 1, stop)
            while not all(p.plays for p in players) and time.monotonic() - opened < OPEN_WAIT:
                await asyncio.sleep(1.0)
            setup = time.monotonic() - opened
            cpu0, workers0, t0, wall0 = bot.cpu(), bot.cpu_of_workers(), time.monotonic(), time.time()
            await asyncio.sleep(window)
            cpu1, workers1, t1, wall1 = bot.cpu(), bot.cpu_of_workers(), time.monotonic(), time.time()
            stop.set()
            await asyncio.gather(*tasks)
            waits = _solo_waits(players, t0, t1)
            hands = bot.rows(f"SELECT count(*) FROM hand_results WHERE created_at BETWEEN {wall0} AND {wall1}")
            events = bot.rows("SELECT hand_id, kind, json_extract(payload, '$.seat'), created_at FROM events "
                              f"WHERE created_at BETWEEN {wall0} AND {wall1} ORDER BY hand_id, seq")
            await bot.stop()
            span = t1 - t0
            people = sum(1 for p in players for _h, at in p.plays if t0 <= at <= t1)
            # An AI seat's play after another play of its hand: the AI delay, its thinking and any wait for a worker.
            gaps = [b[3] - a[3] for a, b in zip(events, events[1:])
                    if a[0] == b[0] and a[1] == b[1] == "play" and b[2] != 0]
            print(f"N={n} tables of one person and three AI seats (strong); all playing after {setup:.0f} s; "
                  f"window {span:.0f} s; think {think[0]:g}-{think[1]:g} s, AI delay {ai_delay:g} s")
            print("                                   p50 s   p95 s   p99 s      n  misses")
            print(f"  a person's play → their next turn{_seconds(waits)}  {_misses(waits):>6}")
            print(f"  a play → the next AI play       {_seconds(gaps)}")
            plays = sum(1 for e in events if e[1] == "play")
            print(f"  hands finished {int(hands[0][0])}; AI plays {(plays - people) / span:.1f}/s, "
                  f"people's plays {people / span:.2f}/s; bot CPU {(cpu1 - cpu0) / span:.2f} cores, "
                  f"its AI worker {(workers1 - workers0) / span:.2f} cores; bot warnings {len(bot.problems())}"
                  f"{_kinds(bot.problems())}")


# --- four people at a table, each woken by a change in their own chat ------------------------------------

HAND_NUMBER = re.compile(r"\bhand (\d+)\b")
"""The hand number in a hand message ("… · hand 3 · you sit E") or the group's table message header."""
LEVEL = re.compile(r"\blevel (\w+)\b")
TRICK = re.compile(r"\bTrick (\d+):")
HAND_OVER = re.compile(r"\bHand (\d+) is over\b")
BID_CHANCE = 0.5
"""A person holding a level card bids it once a hand with this chance (else passes): hand 1 is dealt
again when nobody bids, so someone must."""
ANSWER_WAIT = 20.0
"""A press not answered by then counts as unanswered (Telegram's client gives up after some seconds)."""
SHOWN_WAIT = 10.0
"""Press → own message (and play → next mover's turn, trick → group) later than this counts as a miss (inf)."""
OPEN_WAIT = 900.0
"""How long one table's opening may take (the group's 20 messages a minute, the overall 30 a second)."""
PLAYING_WAIT = 300.0
"""How long, after the last table opened, every table may take to play its first card."""
DEFAULT_THINK = (4.0, 11.0)
"""A person's thinking time per move, uniform in seconds: about 70 moves make an unloaded hand of four
people 8-9 minutes, the issue's human pace (a 盐城 hand took 8.5 minutes)."""


def _hand_number(text: str | None) -> int:
    found = HAND_NUMBER.search(text or "")
    return int(found.group(1)) if found else 0


def _is_hand_message(message: Message) -> bool:
    """A bot message carrying a hand keyboard (its card buttons come first)."""
    if not message.from_bot or message.deleted:
        return False
    for row in message.buttons:
        for button in row:
            return str(button.get("callback_data", "")).startswith("H:")
    return False


def _offers_play(markup: dict[str, object] | None) -> str | None:
    """The keyboard version of a Play / ▶ button in a stored keyboard, if it offers one."""
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    for row in rows if isinstance(rows, list) else ():
        for button in row:
            data = callbacks.decode(button.get("callback_data"))
            if data is not None and data.kind == "H" and data.op in ("go", "play"):
                return data.version
    return None


@dataclass
class Pressed:
    """One press of a hand button, for the figures."""

    query: CallbackQuery
    op: str
    hand: int
    """The hand number on the pressed message."""
    table: int


class Sitter:
    """A person at a four-person table who acts on what their private hand message shows.

    They sleep until the fake server says their chat changed (no polling), look,
    think (``think``: uniform seconds), look again and make the move offered:
    a bid of one level card now and then or a pass, Don't steal, Hint then
    Bury, and the one-tap ▶ play.  A refused press (an alert) or a stale
    message only means looking again.
    """

    def __init__(self, server: FakeTelegram, person: Person, table: FourTable, seat: int,
                 think: tuple[float, float], rng: random.Random) -> None:
        self.server = server
        self.person = person
        self.table = table
        self.seat = seat
        self.think = think
        self.rng = rng
        self.bid_in = ""
        """The deal in which this person last considered bidding (once a deal)."""

    async def until(self, chat_id: int, predicate: Callable[[], T | None], timeout: float) -> T | None:
        """Wait until ``predicate()`` is truthy, re-checking after each call of the bot in ``chat_id``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self.server.chat_changed(chat_id)  # before the check, so no change is missed
            value = predicate()
            if value:
                return value
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                async with asyncio.timeout(left):
                    await changed.wait()
            except TimeoutError:
                return predicate() or None

    def hand_message(self) -> Message | None:
        """The newest hand message in the private chat."""
        for message in reversed(self.server.state.messages[self.person.id].values()):
            if _is_hand_message(message):
                return message
        return None

    async def press(self, message: MessageView, data: str, op: str) -> CallbackQuery | None:
        """Press a button and wait for the answer; None if the message was gone."""
        try:
            pressed = await self.person.forge_callback(message, data)
        except RuntimeError:  # deleted meanwhile: nothing left to press
            return None
        query = self.server.state.callback_queries[pressed.query_id]
        if op != "lobby":
            self.table.presses.append(Pressed(query, op, _hand_number(message.text), self.table.index))
        await self.until(message.chat_id, lambda: query.answered, ANSWER_WAIT)
        return query

    async def press_op(self, message: MessageView, op: str) -> bool:
        """Press the hand button doing ``op``; True if it was answered without an alert."""
        button = hand_button(message, op)
        if button is None or button.callback_data is None:
            return False
        query = await self.press(message, button.callback_data, op)
        done = query is not None and query.answered and not query.show_alert
        if done and op in ("go", "play") and self.table.playing_since is None:
            self.table.playing_since = time.monotonic()
        return done

    async def play(self) -> None:
        """Make every move the hand message offers, once per keyboard version, until cancelled."""
        seen: object = None  # the message version last looked at
        acted: tuple[str, str] | None = None  # the keyboard version and move last answered
        while True:
            changed = self.server.chat_changed(self.person.id)
            raw = self.hand_message()
            if raw is None or raw.history[-1] is seen:
                await changed.wait()
                continue
            seen = raw.history[-1]
            view = MessageView.of(raw)
            move = offered_move(view)
            if move is None or (keyboard_version(view), move) == acted:
                continue
            low, high = self.think
            await asyncio.sleep(self.rng.uniform(low, high))
            raw = self.hand_message()
            view = MessageView.of(raw) if raw is not None else view
            if raw is None or offered_move(view) != move:
                seen = None  # the question changed while thinking: look again
                continue
            acted = (keyboard_version(view), move)
            if not await self.move(view, move):
                acted = None

    async def move(self, view: MessageView, move: str) -> bool:
        """Make ``move`` on this message; False if the same question should be looked at again."""
        if move == "bid":
            deal = keyboard_version(view).split(".")[0]  # a redeal keeps the hand's number, not its deal
            if self.bid_in != deal:
                self.bid_in = deal
                card = _level_card(view)
                if card is not None and self.rng.random() < BID_CHANCE:
                    await self.bid(view, card)
                    return False  # pass when asked again (a higher bid, or this one refused)
            await self.press_op(view, "pass")
        elif move == "steal":
            await self.press_op(view, "nosteal")
        elif move == "bury":
            if await self.press_op(view, "hint"):
                shown = await self.until(self.person.id, lambda: self._selected(8, "bury"), SHOWN_WAIT)
                if shown is not None:
                    await self.press_op(shown, "bury")
        elif hand_button(view, "go") is not None:
            await self.press_op(view, "go")
        elif await self.press_op(view, "hint"):  # no one-tap button (e.g. a selection was left): Hint, Play
            shown = await self.until(self.person.id, lambda: self._selected(1, "play"), SHOWN_WAIT)
            if shown is not None:
                await self.press_op(shown, "play")
        return True

    async def bid(self, view: MessageView, card: str) -> None:
        """Tap one level card, then Bid (or the first trump choice, where the keyboard asks for one)."""
        query = await self.press(view, card, "sel")
        if query is None or query.show_alert:
            return
        shown = await self.until(self.person.id, lambda: self._selected(1, "bid"), SHOWN_WAIT)
        if shown is not None:
            await self.press_op(shown, "bid" if hand_button(shown, "trump") is None else "trump")

    def _selected(self, at_least: int, op: str) -> MessageView | None:
        """The hand message once it shows ``at_least`` selected cards and an ``op`` button."""
        raw = self.hand_message()
        if raw is None:
            return None
        view = MessageView.of(raw)
        marked = sum(b.text.startswith("✓") for b in view.all_buttons())
        return view if marked >= at_least and hand_button(view, op) is not None else None


def _level_card(view: MessageView) -> str | None:
    """The callback data of a level card's button in the hand (the cards one can bid with), if any."""
    level = LEVEL.search(view.text or "")
    if level is None:
        return None
    try:
        rank = rank_value(level.group(1))
    except ValueError:
        return None
    for button in view.all_buttons():
        data = callbacks.decode(button.callback_data)
        if data is not None and data.kind == "H" and data.op == "sel":
            card = Card.parse(data.arg[:-1])
            if card.rank == rank and card.suit is not None:
                return button.callback_data
    return None


@dataclass
class FourTable:
    """A group with four people who open a table, sit, start and play."""

    index: int
    group: Group
    sitters: list[Sitter] = field(default_factory=list)
    presses: list[Pressed] = field(default_factory=list)
    opened: bool = False
    """Its people play (the opening was not given up)."""
    playing_since: float | None = None
    """When the table's first card was played (bidding, burying and stealing are over)."""
    refusals: int = 0
    """Start presses the bot refused because it was far behind Telegram's limits (pressed again a minute later)."""


    def _lobby(self, op: str, arg: str = "") -> MessageView | None:
        message = table_message(self.group)
        if message is None or lobby_button(message, op, arg) is None:
            return None
        if op == "start" and "(empty)" in (message.text or ""):
            return None
        return message

    async def open(self) -> bool:
        """/newgame, three people take their seats with the group's buttons, Start; True once all four
        have their hand message."""
        first = self.sitters[0]
        await first.person.command(self.group, "newgame")
        for sitter in self.sitters[1:]:
            seat = str(sitter.seat)
            lobby = await first.until(self.group.id, functools.partial(self._lobby, "sit", seat), OPEN_WAIT)
            button = lobby_button(lobby, "sit", seat) if lobby is not None else None
            if lobby is None or button is None or button.callback_data is None:
                return False
            query = await sitter.press(lobby, button.callback_data, "lobby")
            if query is not None and query.answer_url:  # never here (everyone pressed Start before)
                await sitter.person.open_link(query.answer_url)
        while True:
            lobby = await first.until(self.group.id, lambda: self._lobby("start"), OPEN_WAIT)
            button = lobby_button(lobby, "start") if lobby is not None else None
            if lobby is None or button is None or button.callback_data is None:
                return False
            query = await first.press(lobby, button.callback_data, "lobby")
            if query is None or not query.show_alert or BUSY not in (query.answer_text or ""):
                break
            self.refusals += 1  # the bot is full: as it asks, Start again in a minute
            await asyncio.sleep(60)
        for sitter in self.sitters:
            if await sitter.until(sitter.person.id, sitter.hand_message, OPEN_WAIT) is None:
                return False
        return True


T = TypeVar("T")

BUSY = "as many tables as Telegram lets me"
"""In the answer to a Start the bot refuses while it is far behind Telegram's limits (English)."""


@dataclass
class Crowd:
    """N four-person tables against one fake server: opened a few at a time, then playing."""

    server: FakeTelegram
    tables: list[FourTable]
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    failed: int = 0
    """Tables that could not be opened within ``OPEN_WAIT``."""

    @classmethod
    def seat(cls, server: FakeTelegram, n: int, think: tuple[float, float], seed: int) -> Crowd:
        """N groups of four people (all English, all having pressed Start in their private chat)."""
        tables = []
        for i in range(n):
            people = [server.person(f"P{i}{'NESW'[s]}", f"p{i}_{s}", language_code="en", started=True)
                      for s in range(4)]
            table = FourTable(i, server.group(f"Table {i}", people))
            table.sitters = [Sitter(server, p, table, s, think, random.Random(seed * 7919 + i * 4 + s))
                             for s, p in enumerate(people)]
            tables.append(table)
        return cls(server, tables)

    async def open(self, at_once: int, limit: float) -> None:
        """Open every table, ``at_once`` openings in flight; each table plays as soon as it started
        (a person who waited would time out, and the AI would play for them).  Openings not done
        within ``limit`` seconds are given up and count as failed."""
        gate = asyncio.Semaphore(at_once)

        async def open_one(table: FourTable) -> None:
            async with gate:
                opened = await table.open()
            if not opened:
                self.failed += 1
            table.opened = True
            self.tasks += [asyncio.create_task(s.play()) for s in table.sitters]
        openings = [asyncio.create_task(open_one(t)) for t in self.tables]
        _, late = await asyncio.wait(openings, timeout=limit)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        self.failed += len(late)

    async def all_playing(self, timeout: float) -> int:
        """Wait until every open table has played its first card (or ``timeout``); how many have not."""
        deadline = time.monotonic() + timeout
        while ((waiting := sum(t.opened and t.playing_since is None for t in self.tables))
               and time.monotonic() < deadline):
            await asyncio.sleep(1.0)
        return waiting

    async def stop(self) -> None:
        """Everyone stops playing."""
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def presses(self, since: float, until: float) -> list[Pressed]:
        """Hand presses made in [since, until] (server clock)."""
        return [p for t in self.tables for p in t.presses if since <= p.query.created_at <= until]

    def forget(self, before: float) -> None:
        """Drop what a long run no longer needs (records, edit histories, presses, updates) before
        ``before``, so the simulator's memory stays flat in a soak."""
        state = self.server.state
        self.server.calls.forget(before)
        state.updates.delivered.clear()
        for messages in state.messages.values():
            for message in messages.values():
                if len(message.history) > 1 and message.history[0].at < before:
                    message.history[:] = [v for v in message.history[:-1] if v.at >= before] + message.history[-1:]
        for query_id in [q for q, query in state.callback_queries.items() if query.created_at < before]:
            del state.callback_queries[query_id]
        for table in self.tables:
            table.presses = [p for p in table.presses if p.query.created_at >= before]


# --- figures over a window -------------------------------------------------------------------------------

@dataclass
class Window:
    """What happened between ``t0`` and ``t1`` (server clock = time.monotonic)."""

    crowd: Crowd
    bot: BotProcess
    t0: float
    t1: float

    @property
    def span(self) -> float:
        return self.t1 - self.t0

    def answers(self) -> list[float]:
        """Press → answerCallbackQuery, seconds (inf: unanswered within ANSWER_WAIT)."""
        out = []
        for p in self.crowd.presses(self.t0, self.t1):
            q = p.query
            late = q.answered_at is None or q.answered_at - q.created_at > ANSWER_WAIT
            out.append(float("inf") if late else q.answered_at - q.created_at)  # type: ignore[operator]
        return out

    def own_updates(self) -> list[float]:
        """Press → the presser's private chat shows the bot's next edit or message (refused presses left
        out), seconds; inf: not within SHOWN_WAIT."""
        state = self.crowd.server.state
        shown: dict[int, list[float]] = {}
        out = []
        for p in self.crowd.presses(self.t0, self.t1):
            q = p.query
            if q.show_alert:
                continue
            times = shown.get(q.chat_id)
            if times is None:
                times = shown[q.chat_id] = sorted(v.at for m in state.messages[q.chat_id].values()
                                                  if m.from_bot for v in m.history)
            i = bisect.bisect_right(times, q.created_at)
            lag = times[i] - q.created_at if i < len(times) else float("inf")
            out.append(lag if lag <= SHOWN_WAIT else float("inf"))
        return out

    def turn_lags(self) -> list[float]:
        """An accepted play → the first hand message at that table newly offering a play in the same hand
        (the next mover's turn shown), seconds; inf: not within SHOWN_WAIT though the hand went on.
        The last play of a hand has no next turn and is left out."""
        return [lag for _, lag in self.turns()]

    def slow_turns(self, over: float = 1.0) -> str:
        """Where the slow turns (lag over ``over`` s) waited: the messages a second Telegram took from the bot
        while each waited (near 27: the bot's overall pace was full; well under it: something else held the
        turn), and the 429s among them."""
        calls = [r for r in self.crowd.server.calls.records
                 if r.method.startswith(("send", "edit")) and self.t0 - 1 <= r.at <= self.t1 + SHOWN_WAIT]
        ok = [r.at for r in calls if r.ok]
        refused = [r.at for r in calls if r.status == 429]
        slow = [(at, lag) for at, lag in self.turns() if over < lag < float("inf")]
        if not slow:
            return f"slow turns (over {over:g} s): none"
        rates = sorted((bisect.bisect_right(ok, at + lag) - bisect.bisect_left(ok, at)) / lag for at, lag in slow)
        hit = sum(1 for at, lag in slow if bisect.bisect_right(refused, at + lag) > bisect.bisect_left(refused, at))
        return (f"slow turns (over {over:g} s): {len(slow)}; messages a second Telegram took while each waited: "
                f"min {rates[0]:.1f}, median {rates[len(rates) // 2]:.1f}, max {rates[-1]:.1f}; "
                f"with a 429 meanwhile: {hit}")

    def turns(self) -> list[tuple[float, float]]:
        """(the accepted play's time, its turn lag) for :meth:`turn_lags`."""
        state = self.crowd.server.state
        out: list[tuple[float, float]] = []
        for table in self.crowd.tables:
            turns: list[tuple[float, int]] = []  # (when shown, hand)
            for sitter in table.sitters:
                # Every bot message: a finished hand's message has lost its keyboard by now.
                versions = sorted((v for m in state.messages[sitter.person.id].values() if m.from_bot
                                   for v in m.history if v.at >= self.t0 - 60), key=lambda v: v.at)
                before: str | None = None
                for v in versions:
                    now = _offers_play(v.reply_markup)
                    if now is not None and now != before:
                        turns.append((v.at, _hand_number(v.text)))
                    before = now
            turns.sort()
            plays = sorted((p.query.created_at, p.hand) for p in table.presses
                           if p.op in ("go", "play") and p.query.answered and not p.query.show_alert)
            for at, hand in plays:
                if not self.t0 <= at <= self.t1:
                    continue
                nxt = next(((t, h) for t, h in turns[bisect.bisect_right(turns, (at, 1 << 30)):] if h >= hand), None)
                later_play = any(h == hand and a > at for a, h in plays)
                if nxt is not None and nxt[1] == hand and nxt[0] - at <= SHOWN_WAIT:
                    out.append((at, nxt[0] - at))
                elif later_play:
                    out.append((at, float("inf")))
        return out

    def group_lags(self) -> list[float]:
        """The bot stores the play that wins trick k (its event's time) → the group's first message version
        showing trick k+1 under way, or a later hand, or "Hand n is over", seconds; inf: not within
        SHOWN_WAIT (a group may show at most 20 messages a minute)."""
        offset = time.time() - time.monotonic()
        # The number a hand is shown with: a redeal (an aborted hand: nobody bid) keeps its hand's number.
        rows = self.bot.rows(
            "SELECT t.chat_id, h.number - (SELECT count(*) FROM hands r WHERE r.match_id = h.match_id "
            "AND r.number < h.number AND r.status = 'aborted'), e.created_at FROM events e "
            "JOIN hands h ON h.hand_id = e.hand_id JOIN matches m ON m.match_id = h.match_id "
            "JOIN tables t ON t.table_id = m.table_id WHERE e.kind = 'play' ORDER BY e.hand_id, e.seq")
        plays: dict[tuple[int, int], list[float]] = {}
        for chat_id, number, created in rows:
            plays.setdefault((int(chat_id), int(number)), []).append(float(created) - offset)
        shown: dict[int, list[tuple[float, tuple[int, int]]]] = {}
        state = self.crowd.server.state
        out = []
        for (chat_id, number), times in plays.items():
            versions = shown.get(chat_id)
            if versions is None:
                versions = shown[chat_id] = sorted(
                    (v.at, _group_progress(v.text)) for m in state.messages.get(chat_id, {}).values()
                    if m.from_bot for v in m.history)
            for k in range(1, len(times) // 4 + 1):
                won = times[4 * k - 1]
                if not self.t0 <= won <= self.t1:
                    continue
                start = bisect.bisect_left(versions, (won, (-1, -1)))
                seen = next((at for at, progress in versions[start:] if progress >= (number, k + 1)), None)
                out.append(seen - won if seen is not None and seen - won <= SHOWN_WAIT else float("inf"))
        return out


def _group_progress(text: str | None) -> tuple[int, int]:
    """(hand, trick under way) a group message shows; a result counts as every trick of its hand."""
    over = HAND_OVER.search(text or "")
    if over:
        return int(over.group(1)), 1 << 30
    trick = TRICK.search(text or "")
    return _hand_number(text), int(trick.group(1)) if trick else 0


def _ms(values: list[float]) -> str:
    """p50/p95/p99 in ms (inf counted, so a p99 beyond the misses reads "inf") and the count."""
    if not values:
        return "      -      -      -      0"
    cells = []
    for q in (0.5, 0.95, 0.99):
        v = pct(values, q)
        cells.append("   inf" if v == float("inf") else f"{1000 * v:6.0f}")
    return " ".join(cells) + f" {len(values):6d}"


def _seconds(values: list[float]) -> str:
    """p50, p95, p99 in seconds, and the count (a quantile among the misses shows as inf)."""
    if not values:
        return "       -       -       -       0"
    return "".join(f"{pct(values, q):8.1f}" for q in (0.5, 0.95, 0.99)) + f"{len(values):7d}"


def _misses(values: list[float]) -> str:
    return f"{sum(v == float('inf') for v in values)}"


# --- the modes ---------------------------------------------------------------------------------------------

BENCH_LIMITS = FloodLimits(edits_count_overall=True)
"""Telegram's limits as issue 13 reads them: 1 a second in a chat (a burst of 3), 20 a minute in a group,
30 a second overall, sends and edits alike (a private chat's edits count in the overall window)."""


async def _crowd_playing(server: FakeTelegram, bot: BotProcess, n: int, think: tuple[float, float],
                         at_once: int, limit: float) -> tuple[Crowd, int, str]:
    """The bot idle, then N tables opened and each past its bidding, burying and stealing, playing
    cards: (crowd, idle RSS, how long that took)."""
    await bot.start()
    await asyncio.sleep(1.0)
    rss_idle = bot.rss()
    crowd = Crowd.seat(server, n, think, seed=n)
    started = time.monotonic()

    async def progress() -> None:  # a long opening (N=1000) says how far it got
        while True:
            await asyncio.sleep(60)
            print(f"  … {time.monotonic() - started:.0f} s: {len(crowd.tasks) // 4} of {n} tables opened, "
                  f"{sum(t.playing_since is not None for t in crowd.tables)} playing cards", flush=True)
    reporter = asyncio.create_task(progress())
    await crowd.open(at_once, limit)
    opened = time.monotonic()
    stuck = await crowd.all_playing(max(60.0, min(PLAYING_WAIT, started + limit - opened)))
    reporter.cancel()
    refused = [t.refusals for t in crowd.tables if t.refusals]
    busy = (f"; {len(refused)} told the bot was full at Start ({sum(refused)} times; pressed again a minute later)"
            if refused else "")
    return crowd, rss_idle, (f"opening {n} tables took {opened - started:.0f} s ({crowd.failed} failed), "
                             f"until all open ones played cards {time.monotonic() - started:.0f} s ({stuck} had not)"
                             + busy)


async def many_tables(n: int, *, window: float, ai_delay: float, think: tuple[float, float], at_once: int,
                      limit: float) -> None:
    """N four-person tables at human pace: how fast each person sees the bot answer, and at what cost."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram(limits=BENCH_LIMITS) as server:
            bot = BotProcess(server, Path(folder), ai_delay=ai_delay, group_interval=3.5, sample_every=15.0)
            crowd, rss_idle, setup = await _crowd_playing(server, bot, n, think, at_once, limit)
            cpu0, me0, t0 = bot.cpu(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            wall0 = time.time()
            await asyncio.sleep(window)
            cpu1, me1, t1 = bot.cpu(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            wall1 = time.time()
            rss, (threads, fds), inside = bot.rss(), bot.threads_and_fds(), bot.sample()
            await crowd.stop()
            await asyncio.sleep(SHOWN_WAIT)  # the bot finishes what the window's presses asked for
            w = Window(crowd, bot, t0, t1)
            answers, own, turns, group = w.answers(), w.own_updates(), w.turn_lags(), w.group_lags()
            hands = bot.rows("SELECT r.created_at - h.created_at FROM hand_results r JOIN hands h USING (hand_id) "
                             f"WHERE r.created_at BETWEEN {wall0} AND {wall1}")
            plays = bot.rows(f"SELECT count(*) FROM events WHERE kind = 'play' AND created_at BETWEEN {wall0} AND {wall1}")
            calls = [r for r in server.calls.records if t0 <= r.at <= t1 and r.method != "getUpdates"]
            kinds = Counter("answers" if r.method == "answerCallbackQuery" else "edits" if r.method.startswith("edit")
                            else "sends" if r.method.startswith("send") else "other" for r in calls)
            refused = Counter(r.chat_type for r in calls if r.status == 429)
            before = Counter(r.chat_type for r in server.calls.records if r.at < t0 and r.status == 429)
            reasons = tally(calls, server.state)
            life_cpu = await bot.stop()
            span = t1 - t0
            durations = [float(d) for (d,) in hands]
            playing = max(1, sum(t.opened for t in crowd.tables))  # per table: the tables that play
            print(f"N={n}: {setup}; window {span:.0f} s; think {think[0]:g}-{think[1]:g} s")
            print("                          p50 ms  p95 ms  p99 ms      n  misses")
            for label, values in (("press → answer", answers), ("press → own message", own),
                                  ("turn lag", turns), ("group lag (trick)", group)):
                print(f"  {label:<22}{_ms(values)}  {_misses(values):>6}")
            print(f"  hands finished {len(durations)} (mean {sum(durations) / max(1, len(durations)) / 60:.1f} min "
                  f"from deal to result), {int(plays[0][0]) / span:.1f} plays/s, "
                  f"{len(crowd.presses(t0, t1)) / span:.1f} presses/s")
            print(f"  bot CPU {(cpu1 - cpu0) / span:.2f} cores ({1000 * (cpu1 - cpu0) / span / playing:.1f} ms/s per table; "
                  f"whole life {life_cpu:.0f} s); RSS idle {rss_idle / 2**20:.0f} MiB, with {playing} tables "
                  f"{rss / 2**20:.0f} MiB = {(rss - rss_idle) / playing / 1024:.0f} KiB/table; threads {threads}, fds {fds}, "
                  f"asyncio tasks {inside.get('tasks', '?')}, timers {inside.get('timers', '?')}")
            others = Counter(r.method for r in calls if not r.method.startswith(("answer", "edit", "send")))
            print(f"  fake server: {len(calls) / span:.1f} calls/s ({kinds['sends'] / span:.1f} sends, "
                  f"{kinds['edits'] / span:.1f} edits, {kinds['answers'] / span:.1f} answers, "
                  f"{kinds['other'] / span:.1f} other: {', '.join(f'{v} {k}' for k, v in others.most_common(3))}); "
                  "429s in the window: "
                  f"{', '.join(f'{v} {k}' for k, v in refused.most_common()) or 'none'}; while opening: "
                  f"{', '.join(f'{v} {k}' for k, v in before.most_common()) or 'none'}")
            for line in per_play(reasons, int(plays[0][0])):
                print("  " + line)
            print("  " + w.slow_turns())
            print(f"  simulator+fake CPU {(me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime):.0f} s in the "
                  f"window; bot warnings {len(bot.problems())}{_kinds(bot.problems())}")
            for line in _examples(bot.problems()):
                print(f"    e.g. {line}")


async def soak(n: int, *, minutes: int, ai_delay: float, think: tuple[float, float], at_once: int,
               limit: float, frames: int = 0) -> None:
    """N tables for ``minutes``: a line a minute (memory, tasks, timers, hands, p99), then the RSS slope;
    with ``frames`` the bot traces its memory (tracemalloc, that many frames a trace) and the lines whose
    memory grew most are printed at the end."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeTelegram(limits=BENCH_LIMITS) as server:
            bot = BotProcess(server, Path(folder), ai_delay=ai_delay, group_interval=3.5, sample_every=30.0)
            if frames:
                bot.env["CHAODIPI_BENCH_TRACEMALLOC"] = str(frames)
            crowd, rss_idle, setup = await _crowd_playing(server, bot, n, think, at_once, limit)
            print(f"soak N={n}: {setup}; RSS idle {rss_idle / 2**20:.0f} MiB")
            print("  min  RSS MiB  blocks k  threads  fds  tasks  timers  jobs  hands  presses  own p99 ms  misses  "
                  "429s  cores")
            start = time.monotonic()
            points: list[tuple[float, float]] = []
            cpu = bot.cpu()
            for minute in range(1, minutes + 1):
                await asyncio.sleep(start + 60 * minute - time.monotonic())
                # The minute that ended SHOWN_WAIT ago: its presses had the time to be shown.
                t1 = time.monotonic() - SHOWN_WAIT
                w = Window(crowd, bot, t1 - 60, t1)
                own = w.own_updates()
                wall = time.time() - SHOWN_WAIT
                hands = bot.rows(f"SELECT count(*) FROM hand_results WHERE created_at BETWEEN {wall - 60} AND {wall}")
                refused = sum(1 for r in server.calls.records if w.t0 <= r.at <= t1 and r.status == 429)
                rss, (threads, fds), inside = bot.rss(), bot.threads_and_fds(), bot.sample()
                now = bot.cpu()
                used, cpu = now - cpu, now
                points.append((minute, rss / 2**20))
                p99 = pct(own, 0.99)
                blocks = inside.get("blocks")
                print(f"  {minute:3d}  {rss / 2**20:7.0f}  {'?' if blocks is None else f'{blocks / 1000:.0f}':>8}  {threads:7d}  {fds:3d}  {inside.get('tasks', '?')!s:>5}  "
                      f"{inside.get('timers', '?')!s:>6}  {inside.get('jobs', '?')!s:>4}  {int(hands[0][0]):5d}  "
                      f"{len(own):7d}  {'inf' if p99 == float('inf') else f'{1000 * p99:.0f}':>10}  "
                      f"{_misses(own):>6}  {refused:4d}  {used / 60:5.2f}", flush=True)
                crowd.forget(w.t0 - 60)
            await crowd.stop()
            await bot.stop()
            slope = _slope(points[len(points) // 4:] if len(points) >= 8 else points)
            print(f"  RSS {points[0][1]:.0f} → {points[-1][1]:.0f} MiB; slope {60 * slope:+.1f} MiB/hour "
                  f"(least squares{' after the first quarter' if len(points) >= 8 else ''}); "
                  f"bot warnings {len(bot.problems())}{_kinds(bot.problems())}")
            censuses = bot.censuses()
            if len(censuses) >= 2:
                first, last = censuses[len(censuses) // 4], censuses[-1]
                grew = sorted(((last.get(k, 0) - first.get(k, 0), k) for k in last), reverse=True)[:8]
                print("  objects that grew most (the census a quarter in → the last): "
                      + ", ".join(f"{k} {first.get(k, 0)}→{last[k]}" for d, k in grew if d > 0))
            _memory_growth(bot)


def _memory_growth(bot: BotProcess, top: int = 12) -> None:
    """The places whose traced memory grew most between the bot's tracemalloc snapshot a quarter in and
    its last one (nothing without snapshots)."""
    assert bot.samples is not None
    snapshots = sorted(bot.samples.parent.glob(bot.samples.name + ".*.snapshot"),
                       key=lambda path: int(path.name.split(".")[-2]))
    if len(snapshots) < 2:
        return
    first, last = (tracemalloc.Snapshot.load(str(path)) for path in (snapshots[len(snapshots) // 4], snapshots[-1]))
    print(f"  traced memory {sum(s.size for s in first.statistics('filename')) / 2**20:.1f} → "
          f"{sum(s.size for s in last.statistics('filename')) / 2**20:.1f} MiB; grew most (by where it was allocated):")
    for stat in last.compare_to(first, "traceback")[:top]:
        print(f"    {stat.size_diff / 1024:+8.0f} KiB {stat.count_diff:+7d} blocks  (now {stat.size / 1024:.0f} KiB, "
              f"{stat.count} blocks)")
        for line in stat.traceback.format(limit=8, most_recent_first=True):
            print(f"        {line.strip()}")


def _slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (x, y) points (y per x); 0 with fewer than two."""
    if len(points) < 2:
        return 0.0
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def _think(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    return float(low), float(high or low)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="?", choices=("all", "calls", "tables", "soak", "solo"), default="all")
    parser.add_argument("sizes", nargs="*", type=int,
                        help="table counts: for 'tables' (default 10 100 300 1000), for 'soak' one (default 100)")
    parser.add_argument("--window", type=float, default=120.0, help="seconds measured with N tables (default 120)")
    parser.add_argument("--minutes", type=int, default=60, help="length of the soak in minutes (default 60)")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES",
                        help="soak: the bot traces its memory with FRAMES frames a trace (slower) and the places "
                             "whose memory grew most are printed at the end (default 0: off)")
    parser.add_argument("--ai-delay", type=float, default=0.8,
                        help="AI seconds per move (it plays for a person who timed out; default 0.8)")
    parser.add_argument("--think", type=_think, default=DEFAULT_THINK, metavar="MIN,MAX",
                        help="a person's thinking time per move, uniform (default 4,11 s: an 8-9 minute hand)")
    parser.add_argument("--opening", type=int, default=50,
                        help="tables being opened at once while setting up (default 50)")
    parser.add_argument("--setup-limit", type=float, default=1800.0,
                        help="seconds the opening may take; tables not open by then are left out (default 1800)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    if args.what in ("all", "calls"):
        asyncio.run(calls_per_hand("AI as fast as they can (AI delay 0, no thinking)", tables=4, hands=3,
                                   ai_delay=0.0, think=(0.0, 0.0), timeout=300))
        asyncio.run(calls_per_hand("human pace (AI delay 0.8 s, a person thinks 1-3 s)", tables=4, hands=1,
                                   ai_delay=0.8, think=(1.0, 3.0), timeout=600))
    if args.what in ("all", "tables"):
        for n in args.sizes or [10, 100, 300, 1000]:
            asyncio.run(many_tables(n, window=args.window, ai_delay=args.ai_delay, think=args.think,
                                    at_once=args.opening, limit=args.setup_limit))
    if args.what == "solo":
        for n in args.sizes or [1, 10, 30]:
            asyncio.run(solo_tables(n, window=args.window, ai_delay=args.ai_delay, think=args.think))
    if args.what == "soak":
        asyncio.run(soak((args.sizes or [100])[0], minutes=args.minutes, ai_delay=args.ai_delay, think=args.think,
                         at_once=args.opening, limit=args.setup_limit, frames=args.tracemalloc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
