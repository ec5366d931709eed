"""Groups as they are, at random: people doing whatever their clients let them, and what goes wrong in the bot.

    PYTHONPATH=. python bench/bench_chaos.py [--seed S] [--steps N] [--groups G] [--restarts R] [--trace]

The real bot (its Mini App on) runs against the fake Telegram (``tests/e2e``) with a few groups (one a forum
with a topic, one a basic group that may become a supergroup) and six people, some of them in several
groups.  At each step one person does one thing their client allows, drawn at random: a command in a group
or a topic (``/newgame`` with a preset or garbage, ``/join``, ``/leave``, ``/stop``, ``/hand``, the league's
``/season``, ``/leaderboard``, ``/history``, ``/stats`` with odd arguments, sometimes as an anonymous
admin) or in private; a tap on any button of any message they see (old ones too); the lobby's buttons
(seats, ± AI, Leave, Start, ⚙️ Settings and each choice); a /leave mid-match and Leave or Stay on its
question; 「我回来了」 or /join back; hand buttons out of order or twice at once; 「下一局」 and 🃏; the Mini
App's API (tables, state, moves, hints, replays, the league); a forged callback; the edit of an old command;
blocking the bot and coming back; leaving and joining a group, made admin or not; a turn's clock running out
(``set_timer``); two or three of these at the same moment.  An admin mutes the bot, lets it write again,
removes it and adds it back, closes, reopens and deletes topics; the group is upgraded; the bot restarts
over the same database.  Seats the people leave empty are filled by the AI, so hands are played.  The moves
past the first lobby are in ``bench/chaos_moves.py``.

Nothing it does is wrong for a person to do, so the bot must never: log an error or worse (a traceback, a
task that failed), show "Something went wrong", leave a press unanswered or stop settling
(:func:`tests.e2e.botkit.settled`), answer the Mini App with a 5xx, call a method the fake lacks, or report
itself unhealthy.  Printed: what was done (matches started, hands finished, steps by kind, why steps did
nothing), the warnings logged (one example each), and each finding with the steps before it.  It asserts
nothing; a finding is a bug to fix (``tests/e2e/test_chaos.py`` runs a short seed as a test).
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import random
import tempfile
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from bench.chaos_moves import MoreMoves
from tests.e2e.appkit import PUBLIC_URL
from tests.e2e.botkit import bot_running, current_hand_message, play_my_turn, settled, tables
from tests.e2e.fake_telegram import FakeTelegram, FloodLimits
from tests.e2e.fake_telegram.people import Group, MessageView

PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong", "new", "chizhou", "anhui")
ODD_ARGS = ("", "xyz", "$\\x$", "<b>", "9" * 30, "‮evil", "yancheng yancheng", "@everyone")
GROUP_COMMANDS = ("newgame", "join", "leave", "stop", "hand", "rules", "stats", "leaderboard", "history", "season",
                  "lang", "help", "start")
"""Each as likely as the others, but /newgame and /join (twice as likely) and /stop (a third as likely)."""
PRIVATE_COMMANDS = ("start", "hand", "rules", "stats", "lang", "help", "leave", "join")
SOMETHING_WRONG = ("Something went wrong", "出错")


class Findings(logging.Handler):
    """Every record of WARNING or worse the bot logs while the run goes on (errors are findings), with the
    steps before it."""

    def __init__(self, recent: deque[str]) -> None:
        super().__init__(logging.WARNING)
        self.records: list[tuple[int, logging.LogRecord, list[str]]] = []
        self.step = 0
        self.recent = recent

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((self.step, record, list(self.recent)))


class Chaos(MoreMoves):
    """One run: the world, the bot, and the steps."""

    def __init__(self, server: FakeTelegram, db: Path, rng: random.Random, groups: int) -> None:
        self.server = server
        self.db = db
        self.rng = rng
        self.people = [server.person(name, name.lower(), language_code=lang, started=rng.random() < 0.8)
                       for name, lang in (("Ann", "en"), ("Bo", "zh-hans"), ("Cy", "en"), ("Di", "zh-hans"),
                                          ("Ed", "en"), ("Fa", None))]
        self.admin = self.people[0]
        self.groups: list[Group] = []
        for i in range(groups):
            members = rng.sample(self.people, rng.randint(2, len(self.people)))
            if self.admin not in members:
                members.append(self.admin)
            group = server.group(f"Group {i} $\\x$" if i == 2 else f"Group {i}", members, creator=self.admin,
                                 forum=i == 0, supergroup=i != 1)
            self.groups.append(group)
        self.topics: dict[int, list[int | None]] = {g.id: [None] for g in self.groups}
        forum = self.groups[0]
        self.topics[forum.id].append(forum.create_topic("牌桌 topic", self.admin))
        self.done: Counter[str] = Counter()
        self.recent: deque[str] = deque(maxlen=6)
        self.findings: list[str] = []
        self.idle: Counter[str] = Counter()
        """Why a step did nothing (the client would not let them, or nothing to do)."""
        self.app: Any = None
        self.trace = False
        self.session: aiohttp.ClientSession | None = None
        self.http_errors: list[str] = []
        self.hands: dict[int, int] = {}
        """Hands finished at each table that had a match (the most seen)."""
        self.answers_read = 0
        self.steps = 0
        self.examples: dict[str, str] = {}
        """A warning's text as logged, by its template."""

    def find(self, text: str) -> None:
        """A finding, with the steps before it."""
        self.findings.append(f"step {self.steps}: {text}\n      after: {list(self.recent)}")

    # --- what people do ---------------------------------------------------------------------
    async def group_command(self) -> str:
        group = self.rng.choice(self.groups)
        people = self.members(group)
        if not people or group.chat.bot_status in ("kicked", "left") or group.chat.migrated_to is not None:
            return "nothing (no one in the group)"
        person = self.rng.choice(people)
        command = self.rng.choice(GROUP_COMMANDS + ("newgame", "join"))
        topic = self.rng.choice(self.topics[group.id]) if group.chat.is_forum else None
        if tables(self.app).in_chat(group.id, topic) is None and self.rng.random() < 0.5:  # no table there yet
            command = "newgame"
        if command == "stop" and self.rng.random() < 2 / 3:
            command = "hand"
        args: list[str] = []
        if command == "newgame":
            args = [self.rng.choice(PRESETS + ODD_ARGS)]
        elif command == "lang":
            args = [self.rng.choice(("zh", "en", "fr", ""))]
        elif self.rng.random() < 0.1:
            args = [self.rng.choice(ODD_ARGS)]
        await person.command(group, command, *[a for a in args if a], topic=topic)
        return f"{person.name}: /{command} {' '.join(args)} in {group.chat.title} (topic {topic})"

    async def private_command(self) -> str:
        person = self.rng.choice(self.people)
        if not person.user.has_started_bot or person.user.has_blocked_bot:
            await person.start_private()
            return f"{person.name}: Start in private"
        command = self.rng.choice(PRIVATE_COMMANDS)
        await person.command(None, command)
        return f"{person.name}: /{command} in private"

    async def press_something(self, *, hand_first: bool) -> str:
        person = self.rng.choice(self.people)
        seen: list[MessageView] = []
        if hand_first and person.user.has_started_bot and not person.user.has_blocked_bot:
            seen = [m for m in person.bot_private_messages()[-3:] if m.all_buttons()]
        if not seen:
            for group in self.groups:
                if group.chat.migrated_to is None and person.id in group.chat.members:
                    seen += [m for m in group.bot_messages()[-4:] if m.all_buttons()]
            if person.user.has_started_bot and not person.user.has_blocked_bot:
                seen += [m for m in person.bot_private_messages()[-6:] if m.all_buttons()]
        if not seen:
            return "nothing (no button to press)"
        message = self.rng.choice(seen)
        button = self.rng.choice([b for b in message.all_buttons() if b.callback_data is not None] or [None])
        if button is None:
            return "nothing (only links)"
        answer = await (await person.forge_callback(message, button.callback_data or "")).answer(timeout=30)
        return f"{person.name}: pressed {button.text!r} ({button.callback_data}) → {answer.text!r}"

    async def forge(self) -> str:
        person = self.rng.choice(self.people)
        messages = [m for g in self.groups if g.chat.migrated_to is None for m in g.bot_messages()[-2:]]
        if not messages:
            return "nothing (no message to forge on)"
        message = self.rng.choice(messages)
        data = self.rng.choice(("x", "", "t:1:sit:9", "h:0:play:AS", "l:" + "9" * 40, "\u0000", "a" * 64))
        answer = await (await person.forge_callback(message, data)).answer(timeout=30)
        return f"{person.name}: forged callback {data!r} → {answer.text!r}"

    async def edit_old(self) -> str:
        group = self.rng.choice(self.groups)
        mine = [m for m in group.messages() if (m.text or "").startswith("/") and m.sender_id in
                {p.id for p in self.people}]
        if not mine or group.chat.migrated_to is not None:
            return "nothing (no command to edit)"
        message = self.rng.choice(mine)
        person = next(p for p in self.people if p.id == message.sender_id)
        await person.edit(message, self.rng.choice(("/leave", "/stop", "/newgame", "typo fixed")))
        return f"{person.name}: edited an old command in {group.chat.title}"

    async def block_or_back(self) -> str:
        person = self.rng.choice(self.people[1:])
        if person.user.has_blocked_bot:
            await person.start_private()
            return f"{person.name}: came back (Start)"
        person.block_bot()
        return f"{person.name}: blocked the bot"

    async def group_event(self) -> str:
        group = self.rng.choice(self.groups)
        if group.chat.migrated_to is not None:
            return "nothing (an upgraded group's old id)"
        status = group.chat.bot_status
        roll = self.rng.random()
        if status in ("kicked", "left"):
            group.add_bot(self.admin)
            return f"the bot added back to {group.chat.title}"
        if status == "restricted":
            group.unmute_bot(self.admin, tell=self.rng.random() < 0.8)
            return f"the bot unmuted in {group.chat.title}"
        if roll < 0.4:
            group.mute_bot(self.admin, tell=self.rng.random() < 0.8)
            return f"the bot muted in {group.chat.title}"
        if roll < 0.6:
            group.remove_bot(by=self.admin, tell=self.rng.random() < 0.8)
            return f"the bot removed from {group.chat.title}"
        if group.chat.is_forum and roll < 0.9:
            topics = [t for t in self.topics[group.id] if t is not None]
            if not topics or roll > 0.85:
                topic = group.create_topic(self.rng.choice(("新桌", "<b>$\\x$</b>", "‮topic")), self.admin)
                self.topics[group.id].append(topic)
                return f"topic {topic} opened in {group.chat.title}"
            topic = self.rng.choice(topics)
            if topic in group.chat.closed_topics:
                group.reopen_topic(topic, self.admin, tell=self.rng.random() < 0.8)
                return f"topic {topic} reopened"
            if roll < 0.8:
                group.close_topic(topic, self.admin, tell=self.rng.random() < 0.8)
                return f"topic {topic} closed"
            group.delete_topic(topic)
            self.topics[group.id].remove(topic)
            return f"topic {topic} deleted"
        if group.chat.type == "group":
            new_id = await group.migrate_to_supergroup(self.admin)
            return f"{group.chat.title} upgraded to a supergroup ({new_id})"
        return "nothing (no group event)"

    # --- the run ----------------------------------------------------------------------------
    async def step(self) -> None:
        for group in self.groups:  # a mute lasts a few steps: the admin lets the bot write again
            if group.chat.bot_status == "restricted" and self.rng.random() < 0.1:
                group.unmute_bot(self.admin, tell=self.rng.random() < 0.8)
                self.recent.append(f"the bot unmuted in {group.chat.title}")
        moves: list[tuple[float, Callable[[], Awaitable[str]]]] = [
            (40, self.play), (25, self.lobby), (14, self.press_hand), (8, self.press_any), (14, self.group_command),
            (5, self.private_command), (6, self.league), (6, self.mash), (4, self.escape), (4, self.come_back),
            (3, self.clock_runs_out), (3, self.next_hand), (5, self.webapp), (2, self.membership),
            (2, self.forge), (2, self.edit_old), (2, self.block_or_back), (2, self.group_event), (6, self.together),
        ]
        _weight, move = self.rng.choices(moves, weights=[w for w, _ in moves])[0]
        try:
            what = await move()
        except TimeoutError as exc:  # a press the bot never answered
            what = f"nothing (TimeoutError: {exc})"
            self.find(f"{move.__name__}: {exc}")
        except (RuntimeError, ValueError, KeyError) as exc:  # the client would not let them: not the bot's fault
            what = f"nothing ({type(exc).__name__}: {exc})"
        self.recent.append(what)
        if self.trace:
            print(f"{self.steps:4d} {what}", flush=True)
        self.done[move.__name__] += 1
        self.steps += 1
        if what.startswith("nothing"):
            self.done["(nothing)"] += 1
            self.idle[what[:70]] += 1
        self.observe()

    def observe(self) -> None:
        """Hands finished at each table, and any answer or message saying "Something went wrong"."""
        for table in tables(self.app).by_id.values():
            if table.match is not None:
                self.hands[table.id] = max(self.hands.get(table.id, 0), table.match.hands_played)
        queries = list(self.server.state.callback_queries.values())
        for query in queries[self.answers_read:]:
            if query.answered and any(s in (query.answer_text or "") for s in SOMETHING_WRONG):
                self.find(f"a press of {query.data!r} was answered {query.answer_text!r}")
        while self.answers_read < len(queries) and queries[self.answers_read].answered:
            self.answers_read += 1
        for error in self.http_errors:
            self.find(f"the web app answered {error}")
        self.http_errors.clear()

    async def together(self) -> str:
        """Two or three people act at the same moment (a /stop while someone presses, two escapes, …)."""
        moves = self.rng.sample([self.lobby, self.press_hand, self.press_any, self.group_command, self.mash,
                                 self.escape, self.come_back, self.next_hand, self.webapp, self.league,
                                 self.clock_runs_out, self.block_or_back], self.rng.randint(2, 3))
        done = await asyncio.gather(*(move() for move in moves), return_exceptions=True)
        for move, result in zip(moves, done):
            if isinstance(result, TimeoutError):
                self.find(f"together, {move.__name__}: {result}")
            elif isinstance(result, BaseException) and not isinstance(result, (RuntimeError, ValueError, KeyError)):
                raise result
        return "together: " + " | ".join(r if isinstance(r, str) else f"({type(r).__name__})" for r in done)

    async def press_hand(self) -> str:
        """A tap on a button of one's latest private messages (a hand keyboard, mostly)."""
        return await self.press_something(hand_first=True)

    async def press_any(self) -> str:
        """A tap on any button one sees, in a group or in private, old ones too."""
        return await self.press_something(hand_first=False)

    async def play(self) -> str:
        """Someone whose move it is makes a sensible one (so hands get played between the odd things)."""
        for table in list(tables(self.app).by_id.values()):
            if table.match is None or table.between_hands is not None:
                continue
            for person in self.people:
                seat = table.seat_of(person.id)
                info = table.seats[seat] if seat is not None else None
                if seat is None or info is None or info.timed_out or info.is_ai or person.user.has_blocked_bot \
                        or not person.user.has_started_bot:
                    continue
                hand = table.match.hand
                if hand.over or (hand.phase != "bidding" and hand.turn != seat):
                    continue
                try:
                    moved = await asyncio.wait_for(play_my_turn(self.server, person, table), 20)
                except (TimeoutError, AssertionError, RuntimeError, KeyError) as exc:
                    return f"nothing (play: {type(exc).__name__}: {str(exc)[:80]})"
                if moved:
                    return f"play: {person.name} moved at table {table.id}"
        return "nothing (nobody to move)"

    def health(self, where: str) -> None:
        summary = tables(self.app).tasks.summary()
        if summary["failed"] or summary["failing"]:
            self.find(f"{where}: tasks failed {summary['failed']}, failing {summary['failing']}")
        status = self.app.bot_data["health"].status()
        if not status["ok"]:
            self.find(f"{where}: /health not ok: {status}")
        if self.server.unknown_methods or self.server.internal_errors:
            self.find(f"{where}: fake: {self.server.unknown_methods} {self.server.internal_errors!r}")
            self.server.unknown_methods.clear()
            self.server.internal_errors.clear()
        for table in tables(self.app).by_id.values():  # the mover's hand message is always current
            hand = table.match.hand if table.match is not None else None
            if hand is None or hand.over or not table.playing or table.between_hands is not None:
                continue
            for person in self.people:
                seat = table.seat_of(person.id)
                info = table.seats[seat] if seat is not None else None
                if seat is None or info is None or info.is_ai or info.timed_out or person.user.has_blocked_bot \
                        or not person.user.has_started_bot or (hand.phase != "bidding" and hand.turn != seat):
                    continue
                if current_hand_message(person, table, seat) is None:
                    self.find(f"{where}: {person.name}'s hand message at table {table.id} is not current "
                              f"({table.version(seat)}, {hand.phase})")


async def chaos_run(seed: int, steps: int, *, restarts: int = 3, groups: int = 3, trace: bool = False,
                    stop_after: int | None = None) -> tuple[Chaos, Counter[str]]:
    """One run of ``steps`` steps with ``restarts`` restarts at random steps (``stop_after``: only the first
    so many steps of that run, to replay a finding); the world after it (its findings, what was done) and the
    kinds of warning logged."""
    rng = random.Random(seed)
    recent: deque[str] = deque(maxlen=6)
    caught = Findings(recent)
    logging.getLogger().addHandler(caught)
    level = logging.getLogger().level
    logging.getLogger().setLevel(logging.INFO)
    restarts_at = sorted(rng.sample(range(10, steps), min(restarts, max(0, steps - 10))))
    steps = min(steps, stop_after or steps)
    try:
        async with FakeTelegram(limits=FloodLimits.unlimited()) as server, aiohttp.ClientSession() as session:
            with tempfile.TemporaryDirectory() as tmp:
                chaos = Chaos(server, Path(tmp) / "chaos.db", rng, groups)
                chaos.recent, chaos.trace, chaos.session = recent, trace, session
                step = 0
                while step < steps:
                    async with bot_running(server, chaos.db, public_url=PUBLIC_URL, webhook_listen="127.0.0.1",
                                           webhook_port=0) as app:
                        chaos.app = app
                        while step < steps:
                            caught.step = step
                            await chaos.step()
                            step += 1
                            if step % 10 == 0:
                                try:
                                    await settled(server, app, timeout=60)
                                except TimeoutError as exc:
                                    chaos.find(f"the bot did not settle: {exc}")
                                chaos.health(f"step {step}")
                            if restarts_at and step == restarts_at[0]:
                                restarts_at.pop(0)
                                chaos.done["restart"] += 1
                                break
                        for t in tables(app).by_id.values():
                            chaos.done[f"table {t.status}{' silenced' if t.silenced else ''}"] += 1
    finally:
        logging.getLogger().removeHandler(caught)
        logging.getLogger().setLevel(level)
    for at, record, before in caught.records:
        if record.levelno >= logging.ERROR:
            chaos.findings.append(f"step {at}: {record.levelname} {record.name}: {record.getMessage()[:300]}"
                                  + (f" ({record.exc_info[1]!r}{cause(record.exc_info[1])})" if record.exc_info else "") + f"\n      after: {before}")
    warnings = Counter(f"{r.name}: {r.msg}" for _at, r, _b in caught.records if r.levelno == logging.WARNING)
    chaos.examples = {f"{r.name}: {r.msg}": r.getMessage() for _at, r, _b in caught.records}
    return chaos, warnings


def cause(exc: BaseException | None) -> str:
    """The exception's cause (``raise … from``), if any."""
    found = exc.__cause__ or exc.__context__ if exc is not None else None
    return f" caused by {found!r}" if found is not None else ""


async def run(args: argparse.Namespace) -> None:
    """Run and print the figures and the findings."""
    started = time.monotonic()
    chaos, warnings = await chaos_run(args.seed, args.steps, restarts=args.restarts, groups=args.groups,
                                      trace=args.trace)
    done = chaos.done
    print(f"seed {args.seed}: {args.steps} steps in {time.monotonic() - started:.0f} s, {done['restart']} restarts; "
          f"matches started {len(chaos.hands)}, hands finished {sum(chaos.hands.values())}")
    print("steps done, by kind:", {k: n for k, n in done.most_common() if not k.startswith(("table", "("))})
    print("tables at each stop:", {k: n for k, n in done.most_common() if k.startswith("table")})
    print(f"steps that did nothing: {done['(nothing)']}, the most common:", dict(chaos.idle.most_common(8)))
    print("warnings logged (kinds):", len(warnings))
    for text, n in warnings.most_common(15):
        print(f"  {n:4d} × {text[:110]}\n         e.g. {chaos.examples[text][:150]}")
    print(f"findings: {len(chaos.findings)}")
    for finding in chaos.findings[:40]:
        print("  -", finding)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--groups", type=int, default=3)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--trace", action="store_true", help="print each step")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
