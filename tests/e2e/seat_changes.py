"""Seats changing hands at random moments of a match, and the leak scan of every private chat and app stream.

A run seats two people (one reading Chinese, one English) and two AI seats,
plays through the buttons and the web app, and at a random moment of each
hand does one of: a person leaves (/leave, confirming the escape when
asked), leaves right after their own move (while the edit of their hand
message is pending), is timed out (the AI plays for them), blocks the bot
(the AI plays for them once a message bounces), or the bot restarts; people
away come back later (「我回来了」 on the keyboard or in the app, /start
after unblocking).  At each moment a person playing may open the web app
(they then move in it, their hand message waiting) or close it.
:func:`find_seat_leaks` then reads every version of every message and every
popup in each person's chat, and every frame of every stream, against the
seat they held at that moment (see ``leaks.py``).  Used by
``test_seat_changes.py`` (a few hands) and ``bench/bench_seat_leaks.py``
(hundreds).
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from bot.model import Table
from bot.tables import Tables, nobody_left
from bot.tables.turns import set_timer
from engine.hand import Hand

from .appkit import AppClient, Stream, app_base, init_data_for, stream, webapp_running
from .botkit import settled, tables
from .fake_telegram import FakeTelegram
from .fake_telegram.people import Group, MessageView, Person
from .leaks import Leak, Tenure, Timeline, find_seat_leaks
from .scenario import (
    ANSWER_TIMEOUT,
    App,
    _next_person,
    choose_setting,
    fill_with_ai,
    hint_and_do,
    move_landed,
    play_hand,
    press_back,
    sit_from_group,
    start_match,
    wait_seated,
)

EVENTS = ("leave", "leave_after_own_move", "away", "block", "restart", "nothing")
PHASES = ("bidding", "burying", "stealing", "playing")
_ORDER = {phase: index for index, phase in enumerate(PHASES)}


def _reached(hand: Hand, phase: str, moves: int) -> bool:
    """True once the hand is some moves into ``phase`` (or past it: a phase may not happen)."""
    now = _ORDER.get(hand.phase, len(PHASES))
    if now != _ORDER[phase]:
        return now > _ORDER[phase]
    if phase == "playing":
        return sum(len(trick.plays) for trick in hand.tricks) + len(hand.current) >= moves
    if phase == "bidding":
        return len(hand.events) >= moves % 5
    return True


@dataclass
class RunFigures:
    """What a run did and what the scan found."""

    hands: int = 0
    seat_changes: int = 0
    restarts: int = 0
    phases: Counter[str] = field(default_factory=Counter)
    """The phases of the hand in which seats changed hands (restarts included)."""
    scanned: int = 0
    """Message versions read."""
    popups: int = 0
    streams: int = 0
    """Web app streams opened."""
    frames: int = 0
    """Stream frames read."""
    leaks: list[Leak] = field(default_factory=list)


def _question(group: Group, asked_after: int) -> MessageView | None:
    """The bot's newest escape question in the group, sent after message ``asked_after``."""
    for message in reversed(group.bot_messages()):
        if message.message_id > asked_after and any(":esc:" in (b.callback_data or "")
                                                    for b in message.all_buttons()):
            return message
    return None


async def leave(server: FakeTelegram, app: App, group: Group, person: Person, tenure: list[Tenure]) -> bool:
    """/leave, confirming the escape if asked; True once the seat is the AI's (the tenure then ends)."""
    held = tenure[-1]
    for _attempt in range(5):
        table = tables(app).in_chat(group.id)
        assert table is not None
        if table.seat_of(person.id) is None:
            return True
        last = group.bot_messages()[-1].message_id if group.bot_messages() else 0
        tenure[-1] = Tenure(held.seat, held.start, time.monotonic())  # a free leave takes effect at once
        await person.command(group, "leave")
        found = await server.wait_for(lambda: table.seat_of(person.id) is None or _question(group, last),
                                      what=f"{person.name} leaving or asked to confirm")
        if found is True:
            return True
        question = _question(group, last)
        assert question is not None
        tenure[-1] = Tenure(held.seat, held.start, time.monotonic())
        press = await person.press(question, lambda b: ":esc:" in (b.callback_data or ""))
        answer = await press.answer(ANSWER_TIMEOUT)
        if not answer.show_alert:
            await server.wait_for(lambda: table.seat_of(person.id) is None, what=f"{person.name}'s seat to the AI")
            return True
        tenure[-1] = held  # the hand moved on before the confirmation: still seated, ask again
    return False


async def force_timeout(app: App, group: Group) -> None:
    """Make the turn's deadline pass now (the bot's own timer fires and applies the timeout policy)."""
    service = tables(app)
    table = service.in_chat(group.id)
    assert table is not None
    async with table.lock:
        table.deadline = time.time() - 1
        set_timer(service, table)


APP_SHARE = 0.5
"""How often, at each moment of a run, a person without the web app open opens it (and one with it open
closes it, at 0.3)."""


class _Apps:
    """The people's web apps during one run of the bot: the streams open now, and every stream opened."""

    def __init__(self, session: aiohttp.ClientSession, base: str, server: FakeTelegram, people: list[Person],
                 tenures: dict[int, list[Tenure]], opened: list[tuple[list[Tenure], Stream]]) -> None:
        self.clients = {p.id: AppClient(session, base, init_data_for(server, p)) for p in people}
        self.server, self.tenures, self.opened = server, tenures, opened
        self.streams: dict[int, Stream] = {}

    def showing(self, person: Person) -> bool:
        """True while this person's app streams their seat (their hand message waits)."""
        events = self.streams.get(person.id)
        return events is not None and not events.ended

    async def toggle(self, rng: random.Random, table: Table, present: Mapping[int, Person]) -> None:
        """Open or close apps at random: only people playing their seat open one."""
        for person in list(present.values()):
            events = self.streams.get(person.id)
            if events is not None and (events.ended or rng.random() < 0.3):
                await self.close(person)
            elif events is None and rng.random() < APP_SHARE:
                events = stream(self.clients[person.id], table.id)
                await events.__aenter__()
                self.streams[person.id] = events
                self.opened.append((self.tenures[person.id], events))
                await self.server.wait_for(lambda: events.frames or events.status not in (None, 200),
                                           what=f"{person.name}'s stream")

    async def close(self, person: Person) -> None:
        """The person closes the app (their hand message catches up)."""
        events = self.streams.pop(person.id, None)
        if events is not None:
            await events.__aexit__(None, None, None)

    async def close_all(self) -> None:
        for person_id in list(self.streams):
            await self.streams.pop(person_id).__aexit__(None, None, None)


async def app_move(server: FakeTelegram, client: AppClient, table: Table, seat: int) -> None:
    """One move through the app (pass, don't steal, or the hint's bury or play), as its player would."""
    assert table.match is not None
    hand = table.match.hand
    for _attempt in range(10):
        if table.match.hand is not hand or hand.over or _next_person(hand, {seat: None}) != seat:  # type: ignore[dict-item]
            return
        events = len(hand.events)
        status, body = await client.get(f"/app/api/tables/{table.id}")
        assert status == 200, body
        version = body["state"]["version"]
        if hand.phase in ("bidding", "stealing"):
            op, cards = ("pass" if hand.phase == "bidding" else "nosteal"), []
        else:
            op = "bury" if hand.phase == "burying" else "play"
            status, hint = await client.post(f"/app/api/tables/{table.id}/hint", {})
            if status != 200:
                continue  # the hand moved on meanwhile
            cards = hint["cards"]
        status, answer = await client.act(table.id, op, cards, version=version)
        if status == 200 and answer["ok"]:
            await move_landed(server, table, hand, events)
            return
        # Out of date: an AI seat moved between the read and the move; read again.
    raise AssertionError(f"seat {seat} could not move through the app")


async def seat_change_run(server: FakeTelegram, db_path: Path, rng: random.Random, *, hands: int,
                          strength: str = "strong") -> RunFigures:
    """One table, ``hands`` hands (fewer if everyone left), a seat change at a random moment of each; the AI
    seats play at ``strength`` (「轻松」 ``casual`` plays at once, 「高手」 ``strong`` searches)."""
    run = _Run(server, db_path, rng, hands, strength)
    with _installed(run.timeline):
        while not run.done:
            async with webapp_running(server, db_path, group_interval=0.5) as app, \
                    aiohttp.ClientSession() as session:
                apps = _Apps(session, app_base(app), server, [run.ann, run.ben], run.tenures, run.streams)
                try:
                    await run.one_bot_run(app, apps)
                finally:
                    await apps.close_all()
                await settled(server, app)
    return run.scan()


class _Run:
    """The people, seats and figures of one :func:`seat_change_run`, across restarts of the bot."""

    def __init__(self, server: FakeTelegram, db_path: Path, rng: random.Random, hands: int, strength: str) -> None:
        self.server, self.rng, self.hands, self.strength = server, rng, hands, strength
        self.figures = RunFigures()
        self.ann = ann = server.person("Ann <b>&", None, language_code="zh-hans", started=True)
        self.ben = ben = server.person("Ben", None, language_code="en", started=True)
        self.group = server.group("Leak & <check>", [ann, ben])
        self.timeline = Timeline()
        self.seats = {ann.id: 0, ben.id: 2}
        self.tenures: dict[int, list[Tenure]] = {ann.id: [Tenure(0, 0.0)], ben.id: [Tenure(2, 0.0)]}
        self.playing: dict[int, Person] = {0: ann, 2: ben}
        self.away: dict[int, Person] = {}
        self.blocked: set[int] = set()
        self.streams: list[tuple[list[Tenure], Stream]] = []
        """Every app stream opened, with the tenures of the person who opened it."""
        self.seen_deals: set[int] = set()
        self.hand_seed: Callable[[int], int] | None = None
        self.done = False
        self.first = True

    async def one_bot_run(self, app: App, apps: _Apps) -> None:
        """Play on until the bot restarts (an event) or the run is done."""
        server, group, ann, ben, figures, rng = self.server, self.group, self.ann, self.ben, self.figures, self.rng
        service = tables(app)
        if self.first:
            await ann.command(group, "newgame")
            await wait_seated(server, app, group, ann)
            await sit_from_group(server, ben, group, 2)
            await wait_seated(server, app, group, ben)
            await fill_with_ai(server, ann, group, 2)
            if self.strength != "strong":  # the table's default
                await choose_setting(server, ann, group, "strength", self.strength)
            await start_match(server, app, ann, group, rng.randrange(10**6))
            self.first = False
        table = service.in_chat(group.id)
        assert table is not None and table.match is not None
        self.hand_seed = table.match.hand_seed
        while True:
            # With nobody present the table pauses once the hand under way ends: wait for that (the AI plays
            # the hand out, which at 「高手」 takes seconds a move on a busy machine).
            await server.wait_for(lambda: table.paused or not table.playing or not nobody_left(table),
                                  timeout=120, what="the table to pause or someone to play")
            if table.paused and self.away:  # someone comes back: the table resumes
                assert await self.come_back(apps, table, *self.away.popitem(), keyboard=True)
                await server.wait_for(lambda: not table.paused, what="the table to resume")
            if table.match is None or table.paused or not table.playing or figures.hands >= self.hands:
                self.done = True
                return
            hand: Hand = table.match.hand
            if hand.setup.seed not in self.seen_deals:
                self.seen_deals.add(hand.setup.seed)
                figures.hands += 1
            await apps.toggle(rng, table, self.playing)
            event = rng.choice(EVENTS)
            # A random phase of the hand, then a random number of moves into it.
            target, extra = rng.choice(PHASES), rng.randrange(0, 30)
            await self.play(apps, table, lambda h: _reached(h, target, extra))
            if table.match is None or table.match.hand is not hand or hand.over:
                continue
            phase = hand.phase
            if event == "restart":
                figures.restarts += 1
                figures.phases["restart in " + phase] += 1
                return
            if event in ("leave", "leave_after_own_move"):
                await self.leave(app, apps, table, hand, event)
            elif event == "away" and hand.phase not in ("bidding", "finished") and hand.turn in self.playing:
                seat = hand.turn
                person = self.playing.pop(seat)
                await force_timeout(app, group)
                await server.wait_for(lambda: table.seats[seat] is None or table.seats[seat].timed_out  # type: ignore[union-attr]
                                      or table.match is None or table.match.hand is not hand, what="the timeout")
                if table.seats[seat] is not None and table.seats[seat].timed_out:  # type: ignore[union-attr]
                    self.away[seat] = person
                    figures.seat_changes += 1
                    figures.phases["away in " + phase] += 1
            elif event == "block" and hand.phase not in ("bidding", "finished"):
                await self.block(service, apps, table, hand)
            elif self.away and rng.random() < 0.7:
                await self.come_back(apps, table, *self.away.popitem())

    async def play(self, apps: _Apps, table: Table, until: Callable[[Hand], bool]) -> None:
        """Play until ``until(hand)`` or the hand's end: people with the app open move in it, the others
        on their keyboards."""
        assert table.match is not None
        hand = table.match.hand
        in_app = {seat: p for seat, p in self.playing.items() if apps.showing(p)}
        keyboard = {seat: p for seat, p in self.playing.items() if seat not in in_app}
        while True:
            await play_hand(self.server, table, keyboard, until=lambda h: until(h) or _next_person(h, in_app) is not None)
            if table.match.hand is not hand or hand.over or until(hand):
                return
            seat = _next_person(hand, in_app)
            if seat is None:
                return
            await app_move(self.server, apps.clients[in_app[seat].id], table, seat)

    async def leave(self, app: App, apps: _Apps, table: Table, hand: Hand, event: str) -> None:
        """A person leaves (``leave_after_own_move``: right after their own move)."""
        people_left = [p for p in (self.ann, self.ben) if table.seat_of(p.id) is not None]
        if not people_left:
            return
        person = self.rng.choice(people_left)
        seat = self.seats[person.id]
        if event == "leave_after_own_move" and seat in self.playing and hand.phase != "bidding":
            def own_move(h: Hand) -> bool:
                return h.turn == seat and h.phase in ("burying", "playing")
            await self.play(apps, table, own_move)
            assert table.match is not None
            if table.match.hand is hand and not hand.over and own_move(hand):
                if apps.showing(person):
                    await app_move(self.server, apps.clients[person.id], table, seat)
                else:
                    await hint_and_do(self.server, person, table, seat)
        assert table.match is not None
        phase = hand.phase if table.match.hand is hand else "next hand"
        if await leave(self.server, app, self.group, person, self.tenures[person.id]):
            self.figures.seat_changes += 1
            self.figures.phases[event + " in " + phase] += 1
            self.playing.pop(seat, None)
            self.away.pop(seat, None)

    async def block(self, service: Tables, apps: _Apps, table: Table, hand: Hand) -> None:
        """Someone playing on their keyboard blocks the bot; the AI plays for them once a message bounces."""
        candidates = [(seat, p) for seat, p in self.playing.items() if not apps.showing(p)]
        if not candidates:
            return
        seat, person = self.rng.choice(candidates)
        person.block_bot()
        async with table.lock:
            # The bot sends them their hand anew (as for /hand; an edit of an unchanged message would not
            # reach Telegram): Telegram answers 403.
            await service.show_hand_again(table, seat)
        try:
            await self.server.wait_for(lambda: table.seats[seat] is None or table.seats[seat].timed_out,  # type: ignore[union-attr]
                                       timeout=15, what="the AI playing for someone who blocked the bot")
        except TimeoutError:
            pass
        info = table.seats[seat]
        if info is not None and info.timed_out:
            self.playing.pop(seat)
            self.away[seat] = person
            self.blocked.add(person.id)
            self.figures.seat_changes += 1
            self.figures.phases["block in " + hand.phase] += 1
        else:
            await person.start_private()  # not noticed (the hand moved on): unblocked again, nothing changed

    async def come_back(self, apps: _Apps, table: Table, seat: int, person: Person, *, keyboard: bool = False) -> bool:
        """Someone away plays again: /start after unblocking, 「我回来了」 on the keyboard, or in the app."""
        info = table.seats[seat]
        if person.id in self.blocked:
            self.blocked.discard(person.id)
            await person.start_private()
            await self.server.wait_for(lambda: info is None or not info.timed_out, what=f"{person.name} back")
        elif not keyboard and self.rng.random() < 0.5:
            status, _answer = await apps.clients[person.id].post(f"/app/api/tables/{table.id}/back",
                                                                {"nonce": secrets.token_hex(8)})
            if status != 200:
                self.away[seat] = person
                return False
        else:
            answer = await press_back(self.server, person)
            if answer.show_alert:
                self.away[seat] = person
                return False
        self.playing[seat] = person
        return True

    def scan(self) -> RunFigures:
        """Read every private chat and every stream frame against the seats held: the run's figures."""
        hand_seed = self.hand_seed
        assert hand_seed is not None
        found = find_seat_leaks(self.server, self.timeline, self.tenures, lambda deal: hand_seed(deal - 1),
                                [(held, [(f.at, f.data) for f in events.frames if f.event == "state"])
                                 for held, events in self.streams])
        figures = self.figures
        figures.scanned, figures.popups, figures.frames, figures.leaks = (found.versions, found.popups,
                                                                          found.frames, found.leaks)
        figures.streams = len(self.streams)
        return figures


class _installed:
    """Install a timeline on the engine's Hand for the duration of a ``with`` block (no pytest needed)."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline

    def __enter__(self) -> None:
        import pytest

        self.patch = pytest.MonkeyPatch()
        self.timeline.install(self.patch)

    def __exit__(self, *exc: object) -> None:
        self.patch.undo()
