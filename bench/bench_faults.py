"""Figures for issue 45: how the bot comes through faults, measured from outside.

For each fault the real bot runs as its own process (``python -m bot.cli run``,
settings from the environment, as ``bench/bench_bot.py`` runs it) against the
fake Bot API of ``tests/e2e`` with Telegram's flood limits, on 127.0.0.1.
Two tables play at a human pace, every move made from the private hand
message as a person makes it (``bench_bot.Sitter``: a press, then 4-11 s of
thinking before the next): table 1 is two people (N, S) and two AI seats,
table 2 one person (N) and three AI seats.  The AI seats are the casual AI
(quick rules of thumb, so the AI is not what is measured) except for
``kill``, which needs the strong AI's search workers.  The people also do
what people do when the bot has trouble: a press that got no answer, or an
answer saying to try again, is pressed again after some thinking, and
「I'm back」 is pressed when the AI took their seat over.

The bot's HTTP server is on (``CHAODIPI_PUBLIC_URL``, which in polling mode
starts it for the web app) so that ``GET /health`` can be read every 2 s; the
heartbeat file is read as often, and ``chaodipi health`` is run once near the
fault's end and once at the end of the run.  The bot logs at INFO, the
production default, to a file outside the faulty disk.

The faults (``--fault KIND --seconds N``; ``--all`` runs the issue's list:
lock 5/30/120 s, full 30 s, outage 30/120/300 s, freeze 90 s, kill):

* ``lock``: a second process opens the database and holds ``BEGIN EXCLUSIVE``
  for N s (the fault starts once it has the lock).
* ``full``: the database (and its WAL, shm and heartbeat files) lives on a
  32 MiB tmpfs the bench mounts (it must run as root); a file fills it to the
  last byte, and is deleted N s later.  (``PRAGMA max_page_count`` from a
  second connection would not do: the limit belongs to the connection that
  sets it, the bot's own writes go on.)
* ``outage``: the fake Telegram is down for N s, a third each hanging every
  call, answering 502 and refusing connections (``FakeTelegram.set_outage``).
* ``freeze``: ``SIGSTOP`` for N s, then ``SIGCONT``.
* ``kill``: strong AI seats, one search worker (``CHAODIPI_AI_WORKERS=1``);
  once a search worker runs, ``SIGKILL``; the bot's descendants alive 5 s
  later are counted from /proc (and killed, by pid, if any); then the bot is
  started again on the same database.  The fault ends at the restart.

What each row says, for a window of ``--window`` s (default 120) before the
fault and the same after its end:

* acknowledged moves before / during / after: move presses (bid, pass, bury,
  steal, don't steal, play) answered without an alert, by when they were
  pressed; "not in the log": acknowledged moves with no matching event (table,
  seat, kind, stored between the press and its answer) in the database's
  event log once the bot has stopped.
* tables stuck: tables with no stored move within 60 s of the fault's end;
  every table moving again: seconds from the fault's end until each table's
  next stored move (the slowest table).
* log lines: WARNING and above, and tracebacks, written from the fault's start
  to its end, and from its end to the end of the after-window.
* /health: the last answer during the fault (and how soon it turned
  unhealthy), the seconds after the end until it was healthy again, and the
  last answer of the run; ``chaodipi health`` near the fault's end and at the
  end of the run.
* ``PRAGMA integrity_check`` of the database once the bot stopped.

Run from the repository root (``--all`` takes about an hour and a quarter)::

    nice -n 10 .venv/bin/python bench/bench_faults.py --fault lock --seconds 30
    nice -n 10 .venv/bin/python bench/bench_faults.py --all

It prints a line per step, a Markdown table at the end, and writes every
figure (with the log lines' kinds and examples) to ``bench/results/faults.json``
(a single fault's run replaces its own entry).  Prints figures only;
nothing asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_bot import BENCH_LIMITS, OPEN_WAIT, BotProcess, FourTable, Sitter, _think  # noqa: E402
from bot import callbacks  # noqa: E402
from bot.health import heartbeat_path, troubles  # noqa: E402
from tests.e2e.fake_telegram import FakeTelegram  # noqa: E402
from tests.e2e.fake_telegram.people import MessageView  # noqa: E402
from tests.e2e.fake_telegram.state import CallbackQuery  # noqa: E402
from tests.e2e.scenario import keyboard_version, lobby_button, offered_move  # noqa: E402
from tests.e2e.test_workers import alive, descendants  # noqa: E402

ISSUE_FAULTS = (("lock", 5), ("lock", 30), ("lock", 120), ("full", 30), ("outage", 30), ("outage", 120),
                ("outage", 300), ("freeze", 90), ("kill", 5))
"""The issue's list: (kind, seconds).  For ``kill`` the seconds are the wait between the kill and the restart."""
DEFAULT_SECONDS = {"lock": 30, "full": 30, "outage": 30, "freeze": 90, "kill": 5}
STUCK_AFTER = 60.0
"""A table with no stored move within this many seconds of the fault's end counts as stuck."""
SAMPLE_EVERY = 2.0
"""Seconds between two reads of ``/health`` and of the heartbeat file."""
HEALTH_TIMEOUT = 3.0
"""A ``/health`` request not answered within this counts as no answer."""
PLAYING_WAIT = 900.0
"""How long both tables may take from /newgame to their first card played."""
TMPFS_SIZE = "32m"
"""The small filesystem of the ``full`` fault: room for the database, its WAL and a little more."""
MOVE_KINDS = {"pass": "pass", "bid": "bid", "bury": "bury", "steal": "steal", "nosteal": "pass_steal",
              "play": "play", "go": "play"}
"""Hand-keyboard operations that make a move, and the kind of event each stores (``trump`` is a bid or a
steal, by its argument)."""
TRY_AGAIN = "try again"
"""In the bot's answer to a press that changed nothing because of a fault (English)."""
RESULTS = ROOT / "bench" / "results" / "faults.json"

LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)  # waits for the bot's write to end
db.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
print("released", flush=True)
"""
"""``python -c LOCKER DB SECONDS``: another program holding the database's write lock for SECONDS."""


class FaultUnavailable(Exception):
    """The fault cannot be made on this machine (e.g. no permission to mount a tmpfs)."""


# --- the people ---------------------------------------------------------------------------------------------

class Player(Sitter):
    """A person at a table who plays from their hand message (:class:`bench_bot.Sitter`) and, when the bot
    has trouble, does what people do: presses again after a while when a press got no answer or was told
    to try again, and presses 「I'm back」 once the AI has taken their seat over."""

    last: CallbackQuery | None = None
    """The last press and its answer."""

    async def press(self, message: MessageView, data: str, op: str) -> CallbackQuery | None:
        """As :meth:`Sitter.press`, remembering the press."""
        query = await super().press(message, data, op)
        self.last = query
        return query

    def _troubled(self) -> bool:
        """The last press got no answer, or was told to try again."""
        query = self.last
        return query is not None and (not query.answered
                                      or (query.show_alert and TRY_AGAIN in (query.answer_text or "")))

    def _back_button(self, pressed: set[tuple[int, int]]) -> tuple[MessageView, str, tuple[int, int]] | None:
        """The newest 「I'm back」 button in the private chat, in a version of its message not pressed yet."""
        for message in reversed(list(self.server.state.messages[self.person.id].values())):
            if not message.from_bot or message.deleted:
                continue
            version = (message.message_id, len(message.history))
            for row in message.buttons:
                for button in row:
                    data = str(button.get("callback_data", ""))
                    if data.endswith(":return") and version not in pressed:
                        return MessageView.of(message), data, version
        return None

    async def play(self) -> None:
        """Make every move the hand message offers, once per keyboard version (again after trouble), and
        come back when away; until cancelled."""
        seen: object = None  # the message version last looked at
        acted: tuple[str, str] | None = None  # the keyboard version and move last answered
        backs: set[tuple[int, int]] = set()
        while True:
            changed = self.server.chat_changed(self.person.id)
            back = self._back_button(backs)
            if back is not None:
                view, data, version = back
                backs.add(version)
                await asyncio.sleep(self.rng.uniform(*self.think))
                await self.press(view, data, "back")
                seen = None
                continue
            raw = self.hand_message()
            if raw is None or raw.history[-1] is seen:
                await changed.wait()
                continue
            seen = raw.history[-1]
            view = MessageView.of(raw)
            move = offered_move(view)
            if move is None or (keyboard_version(view), move) == acted:
                continue
            await asyncio.sleep(self.rng.uniform(*self.think))
            raw = self.hand_message()
            view = MessageView.of(raw) if raw is not None else view
            if raw is None or offered_move(view) != move:
                seen = None  # the question changed while thinking: look again
                continue
            acted = (keyboard_version(view), move)
            if not await self.move(view, move) or self._troubled():
                acted, seen = None, None  # the same question once more (after the next look's thinking)


def _lobby(table: FourTable, op: str, arg: str = "") -> MessageView | None:
    """The group's table message if it shows the lobby button ``op`` (Start: only once every seat is taken)."""
    for message in table.group.server.state.messages[table.group.id].values():
        if message.from_bot and not message.deleted:
            view = MessageView.of(message)
            if lobby_button(view, op, arg) is None or (op == "start" and "(empty)" in (view.text or "")):
                return None
            return view
    return None


async def _press_lobby(table: FourTable, presser: Sitter, op: str, arg: str = "") -> None:
    """``presser`` presses the lobby button ``op`` once the group's message shows it."""
    lobby = await presser.until(table.group.id, lambda: _lobby(table, op, arg), OPEN_WAIT)
    button = lobby_button(lobby, op, arg) if lobby is not None else None
    if lobby is None or button is None or button.callback_data is None:
        raise RuntimeError(f"table {table.index}: no {op} {arg} button in the lobby")
    query = await presser.press(lobby, button.callback_data, "lobby")
    if query is None or not query.answered or query.show_alert:
        raise RuntimeError(f"table {table.index}: {op} {arg} refused: {query.answer_text if query else 'gone'}")


async def open_table(table: FourTable, ai_seats: int, casual: bool) -> None:
    """/newgame by the first person, the others sit, AI seats fill the rest, the AI made casual if asked,
    Start; returns once every person has their hand message."""
    first = table.sitters[0]
    await first.person.command(table.group, "newgame")
    for sitter in table.sitters[1:]:
        await _press_lobby(table, sitter, "sit", str(sitter.seat))
    for _ in range(ai_seats):
        await _press_lobby(table, first, "ai")
    if casual:
        for op, arg in (("set", ""), ("strength", "casual"), ("back", "")):
            await _press_lobby(table, first, op, arg)
    await _press_lobby(table, first, "start")
    for sitter in table.sitters:
        if await sitter.until(sitter.person.id, sitter.hand_message, OPEN_WAIT) is None:
            raise RuntimeError(f"table {table.index}: {sitter.person.name} got no hand message")


def seat_tables(server: FakeTelegram, think: tuple[float, float], seed: int) -> list[FourTable]:
    """Table 1: two people (N, S); table 2: one person (N).  English speakers who pressed Start before."""
    tables = []
    for index, seats in ((1, (0, 2)), (2, (0,))):
        people = [server.person(f"T{index}{'NESW'[s]}", f"t{index}_{s}", language_code="en", started=True)
                  for s in seats]
        table = FourTable(index, server.group(f"Table {index}", people))
        table.sitters = [Player(server, p, table, s, think, random.Random(seed * 101 + index * 4 + s))
                         for s, p in zip(seats, people)]
        tables.append(table)
    return tables


# --- the bot and what is said about it --------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FaultBot(BotProcess):
    """``chaodipi run`` as :class:`bench_bot.BotProcess` runs it, logging at INFO to ``log``, with its HTTP
    server on (for ``/health``) and one search worker for the strong AI."""

    def __init__(self, server: FakeTelegram, db_folder: Path, log: Path) -> None:
        super().__init__(server, db_folder, ai_delay=0.8, group_interval=3.5)
        self.port = _free_port()
        self.log = log
        self.env.update({"CHAODIPI_LOG_LEVEL": "INFO", "CHAODIPI_AI_WORKERS": "1",
                         "CHAODIPI_PUBLIC_URL": "https://bench.invalid", "CHAODIPI_WEBHOOK_LISTEN": "127.0.0.1",
                         "CHAODIPI_WEBHOOK_PORT": str(self.port)})

    @property
    def db(self) -> Path:
        """The database file."""
        return Path(self.env["CHAODIPI_DB"])

    def log_size(self) -> int:
        """Bytes written to the log so far."""
        return self.log.stat().st_size if self.log.exists() else 0


@dataclass
class Sample:
    """One look at the bot's health."""

    at: float
    """When (monotonic)."""
    code: int | None
    """``/health``'s HTTP status; None when it did not answer within :data:`HEALTH_TIMEOUT`."""
    status: dict[str, Any] | None
    heartbeat: dict[str, Any] | None
    """The heartbeat file's JSON (None: missing or unreadable)."""


class HealthWatch:
    """Reads ``/health`` and the heartbeat file every :data:`SAMPLE_EVERY` s until stopped."""

    def __init__(self, bot: FaultBot) -> None:
        self.bot = bot
        self.samples: list[Sample] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin sampling."""
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop sampling."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        url = f"http://127.0.0.1:{self.bot.port}/health"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=HEALTH_TIMEOUT)) as session:
            while True:
                at = time.monotonic()
                try:  # first, so that it is read at ``at`` (a request may wait seconds for its answer)
                    beat = json.loads(heartbeat_path(self.bot.db).read_text())
                except (OSError, ValueError):
                    beat = None
                code: int | None = None
                status: dict[str, Any] | None = None
                try:
                    async with session.get(url) as response:
                        code, status = response.status, await response.json()
                except (aiohttp.ClientError, TimeoutError, ValueError):
                    pass  # frozen, killed, restarting: no answer
                self.samples.append(Sample(at, code, status, beat))
                await asyncio.sleep(max(0.0, at + SAMPLE_EVERY - time.monotonic()))

    def between(self, t0: float, t1: float) -> list[Sample]:
        """The samples taken in [t0, t1)."""
        return [s for s in self.samples if t0 <= s.at < t1]


def said(sample: Sample | None) -> str:
    """What one ``/health`` answer said, in a few words."""
    if sample is None:
        return "-"
    if sample.code is None or sample.status is None:
        return "no answer"
    if sample.status.get("ok"):
        return f"{sample.code} ok"
    return f"{sample.code}: " + "; ".join(troubles(sample.status))


def states(samples: list[Sample]) -> str:
    """What ``/health`` said over a stretch of time: each state once (durations and counts left out), in the
    order first seen, with how many answers said it: "no answer ×44, 503: Telegram is unreachable ×1"."""
    seen = Counter(re.sub(r" for [\d.]+ s \(\d+ failures?\)", "", said(s)) for s in samples)
    return ", ".join(f"{state} ×{n}" for state, n in seen.items()) or "-"


def beat_said(sample: Sample | None) -> str:
    """What the heartbeat file said at one sample: its age and its troubles."""
    if sample is None:
        return "-"
    if sample.heartbeat is None:
        return "no heartbeat file"
    age = time.time() - time.monotonic() + sample.at - float(sample.heartbeat.get("time", 0))
    state = "ok" if sample.heartbeat.get("ok") else "; ".join(troubles(sample.heartbeat))
    return f"{age:.0f} s old: {state}"


async def chaodipi_health(bot: FaultBot) -> str:
    """What ``chaodipi health --db …`` says now: its exit status and its sentence (without the summary)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "health", "--db", str(bot.db), cwd=ROOT, env=bot.env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    text = (out or err).decode(errors="replace").strip().removeprefix("chaodipi health: ")
    return f"exit {process.returncode}: {text.split(': mode=')[0]}"


# --- the faults -------------------------------------------------------------------------------------------

@dataclass
class Span:
    """When a fault started and ended (monotonic), and what else was seen making it."""

    start: float
    end: float
    extra: dict[str, Any] = field(default_factory=dict)
    log_end: int | None = None
    """The log's size when the fault ended, if taken by the fault itself (a bot woken by SIGCONT writes at
    once: its lines belong after the fault)."""


@dataclass
class Scene:
    """One fault's run: the fake Telegram, the bot, the tables, the health samples."""

    kind: str
    seconds: float
    server: FakeTelegram
    bot: FaultBot
    disk: Path | None
    tables: list[FourTable]
    watch: HealthWatch
    probes: dict[str, str] = field(default_factory=dict)
    """``chaodipi health`` answers, by when they were asked."""
    pending: list[asyncio.Task[None]] = field(default_factory=list)

    def probe_at(self, label: str, delay: float) -> None:
        """Ask ``chaodipi health`` ``delay`` s from now, in the background."""
        async def ask() -> None:
            await asyncio.sleep(delay)
            self.probes[label] = await chaodipi_health(self.bot)
        self.pending.append(asyncio.create_task(ask()))

    def during(self, seconds: float) -> None:
        """The probe during the fault: near its end (the heartbeat is rewritten every 15 s)."""
        self.probe_at("during", max(0.5, seconds - 2))


async def lock(scene: Scene) -> Span:
    """Another process holds ``BEGIN EXCLUSIVE`` on the database for the fault's seconds."""
    asked = time.monotonic()
    locker = await asyncio.create_subprocess_exec(sys.executable, "-c", LOCKER, str(scene.bot.db),
                                                  str(scene.seconds), stdout=asyncio.subprocess.PIPE)
    assert locker.stdout is not None
    if (await locker.stdout.readline()).strip() != b"held":
        raise RuntimeError("the locker did not get the lock")
    start = time.monotonic()
    scene.during(scene.seconds)
    await locker.stdout.readline()  # "released"
    end = time.monotonic()
    await locker.wait()
    return Span(start, end, {"waited for the lock (s)": round(start - asked, 2)})


def mount_tmpfs(where: Path) -> None:
    """Mount a :data:`TMPFS_SIZE` tmpfs at ``where``; :class:`FaultUnavailable` saying why if impossible."""
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "chaodipi-bench",
                               str(where)], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise FaultUnavailable(f"cannot run mount: {exc}") from exc
    if done.returncode != 0:
        raise FaultUnavailable(f"mount -t tmpfs failed ({done.stderr.strip() or done.returncode}); "
                               "the full-disk fault needs root (CAP_SYS_ADMIN)")


def fill(path: Path) -> int:
    """Write ``path`` until its filesystem has not one byte left; the bytes written."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for chunk in (1 << 20, 1 << 12, 1):  # large writes first, then down to the last byte
            block = b"\0" * chunk
            while True:
                try:
                    written += os.write(fd, block)
                except OSError:  # ENOSPC: nothing of this size fits any more
                    break
    finally:
        os.close(fd)
    return written


async def full(scene: Scene) -> Span:
    """The database's filesystem filled to the last byte for the fault's seconds, then the filler deleted."""
    assert scene.disk is not None
    filler = scene.disk / "filler"
    written = await asyncio.to_thread(fill, filler)
    start = time.monotonic()
    left = os.statvfs(scene.disk)
    scene.during(scene.seconds)
    await asyncio.sleep(scene.seconds)
    filler.unlink()
    end = time.monotonic()
    return Span(start, end, {"filler (bytes)": written, "free once filled (bytes)": left.f_bavail * left.f_frsize})


async def outage(scene: Scene) -> Span:
    """The fake Telegram down for the fault's seconds: a third hanging, a third 502, a third refusing."""
    start = time.monotonic()
    scene.during(scene.seconds)
    for mode in ("hang", "502", "refuse"):
        await scene.server.set_outage(mode)
        await asyncio.sleep(scene.seconds / 3)
    await scene.server.set_outage(None)
    return Span(start, time.monotonic(), {"modes": "hang, 502, refuse (a third each)"})


async def freeze(scene: Scene) -> Span:
    """SIGSTOP, the fault's seconds, SIGCONT."""
    os.kill(scene.bot.pid, signal.SIGSTOP)
    start = time.monotonic()
    scene.during(scene.seconds)
    try:
        await asyncio.sleep(scene.seconds)
    finally:
        log_end = scene.bot.log_size()
        os.kill(scene.bot.pid, signal.SIGCONT)
    return Span(start, time.monotonic(), log_end=log_end)


def _searching(bot: BotProcess) -> bool:
    """A strong-AI search worker of the bot is up (multiprocessing's resource tracker does not count)."""
    return any("multiprocessing" in cmd and "resource_tracker" not in cmd for cmd in descendants(bot.pid).values())


async def kill(scene: Scene) -> Span:
    """SIGKILL with search workers up; the bot's descendants alive 5 s later; a restart on the same
    database ``seconds`` after the kill (the fault's end)."""
    bot = scene.bot
    before = descendants(bot.pid)
    assert bot.process is not None
    bot.process.send_signal(signal.SIGKILL)
    start = time.monotonic()
    await bot.process.wait()
    scene.probe_at("during", 2.0)
    await asyncio.sleep(5.0)
    left = {pid: cmd for pid, cmd in before.items() if alive(pid)}
    for pid in left:  # nothing the bot started may run on into the next fault
        os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(max(0.0, start + scene.seconds - time.monotonic()))
    end = time.monotonic()
    await bot.start()
    return Span(start, end, {
        "processes below the bot at the kill": len(before),
        "of them alive 5 s later": len(left),
        "which": sorted(cmd[:120] for cmd in before.values()),
        "restart: polling after (s)": round(time.monotonic() - end, 1)})


INJECT: dict[str, Callable[[Scene], Awaitable[Span]]] = {
    "lock": lock, "full": full, "outage": outage, "freeze": freeze, "kill": kill}


# --- figures ----------------------------------------------------------------------------------------------

def _kind_of(op: str, data: str) -> str | None:
    """The event kind a move press stores (None: not a move)."""
    if op == "trump":  # the trump choice of a bid or a steal: "bid-S", "steal-NT"
        decoded = callbacks.decode(data)
        return decoded.arg.partition("-")[0] if decoded is not None else None
    return MOVE_KINDS.get(op)


def log_lines(bot: FaultBot, begin: int, end: int) -> dict[str, Any]:
    """WARNING-and-above lines and tracebacks the bot wrote between two log offsets, with their kinds."""
    with open(bot.log, "rb") as log:
        log.seek(begin)
        text = log.read(max(0, end - begin)).decode(errors="replace")
    lines = text.splitlines()
    loud = [line for line in lines if len(line.split(" ", 2)) > 2 and line.split(" ", 2)[1] in
            ("WARNING", "ERROR", "CRITICAL")]
    kinds = Counter(_kind(line) for line in loud)
    examples: dict[str, str] = {}
    for line in loud:
        examples.setdefault(_kind(line), line[:300])
    tracebacks = []
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            # The exception's own line ends the block: the first line after it that is not indented
            # (nor a chained traceback's header).
            raised = next((later for later in lines[i + 1:] if later and not later.startswith((" ", "Traceback", "During",
                                                                                               "The above"))), "?")
            tracebacks.append(f"{_kind(lines[i - 1]) if i else '?'} → {raised[:200]}")
    return {"lines": len(lines), "warnings": sum(" WARNING " in line for line in loud),
            "errors": len(loud) - sum(" WARNING " in line for line in loud), "tracebacks": len(tracebacks),
            "kinds": dict(kinds.most_common(12)), "examples": list(examples.values())[:12],
            "traceback kinds": dict(Counter(tracebacks).most_common(6))}


def _kind(line: str) -> str:
    """A log line's message without its time, level, logger and ``key=value`` fields, cut to nine words."""
    return " ".join(w for w in line.split(" ", 3)[-1].split()[:9] if "=" not in w)


def figures(scene: Scene, span: Span, window: float, offsets: dict[str, int]) -> dict[str, Any]:
    """The row of one fault, from the presses, the stored events, the log and the health samples."""
    offset = time.time() - time.monotonic()  # monotonic (the fake's clock) → wall (the database's)
    bot = scene.bot
    events = bot.rows(
        "SELECT t.chat_id, e.kind, json_extract(e.payload, '$.seat'), e.created_at FROM events e "
        "JOIN hands h ON h.hand_id = e.hand_id JOIN matches m ON m.match_id = h.match_id "
        "JOIN tables t ON t.table_id = m.table_id ORDER BY e.created_at")
    seat_of = {s.person.id: s.seat for t in scene.tables for s in t.sitters}
    used: set[int] = set()
    counts = Counter[str]()
    missing: list[str] = []
    presses = [p for t in scene.tables for p in t.presses]
    for table in scene.tables:
        for pressed in table.presses:
            query = pressed.query
            kind = _kind_of(pressed.op, query.data)
            if kind is None or not query.answered or query.show_alert or query.answered_at is None:
                continue
            at = query.created_at
            phase = ("before" if span.start - window <= at < span.start else "during" if span.start <= at < span.end
                     else "after" if span.end <= at < span.end + window else "other")
            counts[phase] += 1
            counts["acknowledged"] += 1
            low, high = query.created_at + offset - 1.0, query.answered_at + offset + 1.0
            match = next((i for i, (chat, k, seat, at) in enumerate(events) if i not in used and
                          chat == table.group.id and k == kind and seat == seat_of[query.from_id]
                          and low <= at <= high), None)
            if match is None:
                missing.append(f"table {table.index} seat {seat_of[query.from_id]} {kind} pressed "
                               f"{query.created_at - span.start:+.1f} s from the fault's start")
            else:
                used.add(match)
    end_wall = span.end + offset
    moved: dict[str, float | None] = {}
    movers: dict[str, str] = {}
    for table in scene.tables:
        nxt = next(((at, kind, seat) for chat, kind, seat, at in events if chat == table.group.id and at > end_wall),
                   None)
        moved[f"table {table.index}"] = round(nxt[0] - end_wall, 1) if nxt is not None else None
        if nxt is not None:
            person = any(s.seat == nxt[2] for s in table.sitters)
            movers[f"table {table.index}"] = f"{nxt[1]} by {'a person' if person else 'an AI seat'} (seat {nxt[2]})"
    stuck = [name for name, after in moved.items() if after is None or after > STUCK_AFTER]
    slowest = None if any(v is None for v in moved.values()) else max(v for v in moved.values() if v is not None)
    during = scene.watch.between(span.start, span.end)
    after = scene.watch.between(span.end, span.end + window + 60)
    unhealthy = next((s.at - span.start for s in during if s.code is None or not (s.status or {}).get("ok")), None)
    healthy = next((s.at - span.end for s in after if s.status is not None and s.status.get("ok")), None)
    check = bot.rows("PRAGMA integrity_check")
    return {
        "fault": scene.kind, "seconds": scene.seconds, "ai": "strong" if scene.kind == "kill" else "casual",
        "window (s)": window,
        "moves": {"before": counts["before"], "during": counts["during"], "after": counts["after"],
                  "acknowledged in the run": counts["acknowledged"], "not in the event log": len(missing),
                  "missing": missing[:20]},
        "presses": {"all": len(presses), "unanswered": sum(not p.query.answered for p in presses),
                    "alerts": sum(p.query.answered and p.query.show_alert for p in presses),
                    "alert texts": dict(Counter(p.query.answer_text for p in presses
                                                if p.query.answered and p.query.show_alert).most_common(6))},
        "moved again after the end (s)": moved, "first move after the end": movers,
        "every table moving again (s)": slowest, "stuck after": stuck,
        "log": {"during": log_lines(bot, offsets["start"], offsets["end"]),
                "after": log_lines(bot, offsets["end"], offsets["after"])},
        "health": {"during": states(during), "last during": said(during[-1] if during else None),
                   "unhealthy after the start (s)": None if unhealthy is None else round(unhealthy, 1),
                   "healthy again after the end (s)": None if healthy is None else round(healthy, 1),
                   "after": said(after[-1] if after else None),
                   "heartbeat during": beat_said(during[-1] if during else None),
                   "heartbeat after": beat_said(after[-1] if after else None),
                   "chaodipi health during": scene.probes.get("during", "-"),
                   "chaodipi health after": scene.probes.get("after", "-")},
        "integrity": str(check[0][0]) if check else "?",
        "fault detail": span.extra,
    }


# --- one fault's run ----------------------------------------------------------------------------------------

async def measure(kind: str, seconds: float, *, window: float, think: tuple[float, float], seed: int) -> dict[str, Any]:
    """Two tables playing, ``window`` s, the fault, ``window`` s after it: the fault's figures."""
    def say(text: str) -> None:
        print(f"  [{kind} {seconds:g} s] {text}", flush=True)

    with tempfile.TemporaryDirectory(prefix="chaodipi-faults-") as tmp:
        folder = Path(tmp)
        disk: Path | None = None
        if kind == "full":
            mount_tmpfs(folder / "disk")
            disk = folder / "disk"
        try:
            async with FakeTelegram(limits=BENCH_LIMITS) as server:
                bot = FaultBot(server, disk or folder, folder / "bot.log")
                tables = seat_tables(server, think, seed)
                scene = Scene(kind, seconds, server, bot, disk, tables, HealthWatch(bot))
                players: list[asyncio.Task[None]] = []
                try:
                    return await _run(scene, players, window, say)
                finally:
                    for task in players:
                        task.cancel()
                    await asyncio.gather(*players, return_exceptions=True)
                    await scene.watch.stop()
                    if bot.process is not None and bot.process.returncode is None:  # a run cut short
                        os.kill(bot.pid, signal.SIGCONT)
                        await bot.stop()
        finally:
            if disk is not None:
                subprocess.run(["umount", "-l", str(disk)], check=False, capture_output=True)


async def _run(scene: Scene, players: list[asyncio.Task[None]], window: float, say: Callable[[str], None]) -> dict[str, Any]:
    """Open the tables, play, make the fault, play on; stop the bot; the figures."""
    bot, tables, kind = scene.bot, scene.tables, scene.kind
    await bot.start()
    scene.watch.start()
    casual = kind != "kill"
    await asyncio.gather(open_table(tables[0], 2, casual), open_table(tables[1], 3, casual))
    players += [asyncio.create_task(s.play()) for t in tables for s in t.sitters]
    opened = time.monotonic()
    while (not all(t.playing_since for t in tables) or (kind == "kill" and not _searching(bot))) \
            and time.monotonic() - opened < PLAYING_WAIT:
        await asyncio.sleep(1.0)
    say(f"both tables playing cards after {time.monotonic() - opened:.0f} s; {window:g} s before the fault")
    await asyncio.sleep(window)
    offsets = {"start": bot.log_size()}
    span = await INJECT[kind](scene)
    offsets["end"] = span.log_end if span.log_end is not None else bot.log_size()
    say(f"fault over after {span.end - span.start:.1f} s; {window:g} s after it")
    await asyncio.sleep(max(0.0, span.end + max(window, STUCK_AFTER) - time.monotonic()))
    offsets["after"] = bot.log_size()
    scene.probe_at("after", 0.0)
    await asyncio.gather(*scene.pending)
    for task in players:
        task.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    await scene.watch.stop()
    await bot.stop()
    row = figures(scene, span, window, offsets)
    row["bot exit status"] = bot.process.returncode if bot.process is not None else None
    say(f"done: {summary(row)}")
    return row


# --- output -------------------------------------------------------------------------------------------------

def label(row: dict[str, Any]) -> str:
    """The fault's name in the table: "lock 30 s", "kill (restart after 5 s)"."""
    if row["fault"] == "kill":
        return f"kill with AI workers (restart after {row['seconds']:g} s)"
    return f"{row['fault']} {row['seconds']:g} s"


def summary(row: dict[str, Any]) -> str:
    """One line: moves, stuck, every table moving again."""
    m = row["moves"]
    return (f"moves {m['before']} / {m['during']} / {m['after']}, not in the log {m['not in the event log']}; "
            f"stuck {', '.join(row['stuck after']) or 'none'}; every table moving again after "
            f"{row['every table moving again (s)']} s; integrity {row['integrity']}")


def markdown(rows: list[dict[str, Any]]) -> str:
    """The figures as a Markdown table, one row per fault."""
    head = ("| fault | acknowledged moves before / during / after | not in the log | tables stuck after | "
            "every table moving again (s after the end) | WARNING+ lines during / after (tracebacks) | "
            "/health during | /health healthy again after (s) | `chaodipi health` during → after | integrity |")
    out = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for row in rows:
        if "unavailable" in row:
            out.append(f"| {label(row)} | not run: {row['unavailable']} |" + " |" * 8)
            continue
        m, logs, health = row["moves"], row["log"], row["health"]
        tracebacks = logs["during"]["tracebacks"] + logs["after"]["tracebacks"]
        loud = [logs[p]["warnings"] + logs[p]["errors"] for p in ("during", "after")]
        out.append(
            f"| {label(row)} | {m['before']} / {m['during']} / {m['after']} | {m['not in the event log']} | "
            f"{', '.join(row['stuck after']) or 'none'} | {row['every table moving again (s)']} | "
            f"{loud[0]} / {loud[1]} ({tracebacks}) | {health['during']} (unhealthy after "
            f"{health['unhealthy after the start (s)']} s) | {health['healthy again after the end (s)']} | "
            f"{health['chaodipi health during']} → {health['chaodipi health after']} | {row['integrity']} |")
    return "\n".join(out)


def save(rows: list[dict[str, Any]], path: Path) -> None:
    """Write the rows to ``path``, replacing the entries of the same faults and keeping the others."""
    kept: dict[str, Any] = {}
    if path.exists():
        try:
            kept = json.loads(path.read_text())
        except ValueError:
            kept = {}
    for row in rows:
        kept[label(row)] = row
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--fault", choices=sorted(INJECT), help="one fault")
    chosen.add_argument("--all", action="store_true", help="the issue's list: " + ", ".join(
        f"{k} {s}" for k, s in ISSUE_FAULTS))
    parser.add_argument("--seconds", type=float, help="how long the fault lasts (kill: the wait before the "
                        f"restart); defaults: {DEFAULT_SECONDS}")
    parser.add_argument("--window", type=float, default=120.0,
                        help="seconds measured before the fault and after it (default 120)")
    parser.add_argument("--think", type=_think, default=(4.0, 11.0), metavar="MIN,MAX",
                        help="a person's thinking time per move, uniform (default 4,11 s)")
    parser.add_argument("--seed", type=int, default=1, help="the people's random choices (default 1)")
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where the figures go (default {RESULTS})")
    args = parser.parse_args(argv)
    runs = (list(ISSUE_FAULTS) if args.all else
            [(args.fault, args.seconds if args.seconds is not None else DEFAULT_SECONDS[args.fault])])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, nice {os.nice(0)}; think "
          f"{args.think[0]:g}-{args.think[1]:g} s, windows {args.window:g} s", flush=True)
    rows = []
    for kind, seconds in runs:
        try:
            row = asyncio.run(measure(kind, seconds, window=args.window, think=args.think, seed=args.seed))
        except FaultUnavailable as exc:
            row = {"fault": kind, "seconds": seconds, "unavailable": str(exc)}
            print(f"  [{kind} {seconds:g} s] not run: {exc}", flush=True)
        rows.append(row)
        save([row], args.json)
    print()
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
