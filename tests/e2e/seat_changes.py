"""Seats changing hands at random moments of a match, and the leak scan of every private chat afterwards.

A run seats two people (one reading Chinese, one English) and two AI seats,
plays through the buttons, and at a random moment of each hand does one of:
a person leaves (/leave, confirming the escape when asked), leaves right
after their own move (while the edit of their hand message is pending), is
timed out (the AI plays for them) and comes back later with 「我回来了」, or
the bot restarts.  :func:`find_seat_leaks` then reads every version of every
message each person's chat received against the seat they held at that
moment (see ``leaks.py``).  Used by ``test_seat_changes.py`` (a few hands)
and ``bench/bench_seat_leaks.py`` (hundreds).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bot.tables import nobody_left
from bot.tables.turns import set_timer
from engine.hand import Hand

from .botkit import bot_running, tables
from .fake_telegram import FakeTelegram
from .fake_telegram.people import Group, MessageView, Person
from .leaks import Leak, Tenure, Timeline, find_seat_leaks
from .scenario import (
    ANSWER_TIMEOUT,
    App,
    fill_with_ai,
    hint_and_do,
    play_hand,
    press_back,
    sit_from_group,
    start_match,
    wait_seated,
)

EVENTS = ("leave", "leave_after_own_move", "away", "restart", "nothing")
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


async def seat_change_run(server: FakeTelegram, db_path: Path, rng: random.Random, *, hands: int) -> RunFigures:
    """One table, ``hands`` hands (fewer if everyone left), a seat change at a random moment of each."""
    figures = RunFigures()
    ann = server.person("Ann <b>&", None, language_code="zh-hans", started=True)
    ben = server.person("Ben", None, language_code="en", started=True)
    group = server.group("Leak & <check>", [ann, ben])
    timeline = Timeline()
    seats = {ann.id: 0, ben.id: 2}
    tenures: dict[int, list[Tenure]] = {ann.id: [Tenure(0, 0.0)], ben.id: [Tenure(2, 0.0)]}
    playing: dict[int, Person] = {0: ann, 2: ben}
    away: dict[int, Person] = {}
    seen_deals: set[int] = set()
    hand_seed = None
    done = False
    first = True
    with _installed(timeline):
        while not done:
            async with bot_running(server, db_path, group_interval=0.5) as app:
                service = tables(app)
                if first:
                    await ann.command(group, "newgame")
                    await wait_seated(server, app, group, ann)
                    await sit_from_group(server, ben, group, 2)
                    await wait_seated(server, app, group, ben)
                    await fill_with_ai(server, ann, group, 2)
                    await start_match(server, app, ann, group, rng.randrange(10**6))
                    first = False
                table = service.in_chat(group.id)
                assert table is not None and table.match is not None
                hand_seed = table.match.hand_seed
                restart = False
                while not restart:
                    # With nobody present the table pauses once the hand under way ends: wait for that.
                    await server.wait_for(lambda: table.paused or not table.playing or not nobody_left(table),
                                          timeout=30, what="the table to pause or someone to play")
                    if table.paused and away:  # someone comes back: the table resumes
                        seat, person = away.popitem()
                        answer = await press_back(server, person)
                        assert not answer.show_alert, answer.text
                        playing[seat] = person
                        await server.wait_for(lambda: not table.paused, what="the table to resume")
                    if table.match is None or table.paused or not table.playing or figures.hands >= hands:
                        done = True
                        break
                    hand: Hand = table.match.hand
                    if hand.setup.seed not in seen_deals:
                        seen_deals.add(hand.setup.seed)
                        figures.hands += 1
                    event = rng.choice(EVENTS)
                    # A random phase of the hand, then a random number of moves into it.
                    target, extra = rng.choice(PHASES), rng.randrange(0, 30)
                    await play_hand(server, table, playing, until=lambda h: _reached(h, target, extra))
                    if table.match is None or table.match.hand is not hand or hand.over:
                        continue
                    people_left = [p for p in (ann, ben) if table.seat_of(p.id) is not None]
                    phase = hand.phase
                    if event == "restart":
                        figures.restarts += 1
                        figures.phases["restart in " + phase] += 1
                        restart = True
                    elif event in ("leave", "leave_after_own_move") and people_left:
                        person = rng.choice(people_left)
                        seat = seats[person.id]
                        if event == "leave_after_own_move" and seat in playing and hand.phase != "bidding":
                            def own_move(h: Hand) -> bool:
                                return h.turn == seat and h.phase in ("burying", "playing")
                            await play_hand(server, table, playing, until=own_move)
                            if table.match.hand is hand and not hand.over and own_move(hand):
                                await hint_and_do(server, person, table, seat)
                        phase = hand.phase if table.match.hand is hand else "next hand"
                        if await leave(server, app, group, person, tenures[person.id]):
                            figures.seat_changes += 1
                            figures.phases[event + " in " + phase] += 1
                            playing.pop(seat, None)
                            away.pop(seat, None)
                    elif event == "away" and hand.phase not in ("bidding", "finished") and hand.turn in playing:
                        seat = hand.turn
                        person = playing.pop(seat)
                        await force_timeout(app, group)
                        await server.wait_for(lambda: table.seats[seat] is None or table.seats[seat].timed_out  # type: ignore[union-attr]
                                              or table.match is None or table.match.hand is not hand,
                                              what="the timeout")
                        if table.seats[seat] is not None and table.seats[seat].timed_out:  # type: ignore[union-attr]
                            away[seat] = person
                            figures.seat_changes += 1
                            figures.phases["away in " + phase] += 1
                    elif away and rng.random() < 0.7:
                        seat, person = away.popitem()
                        answer = await press_back(server, person)
                        if not answer.show_alert:
                            playing[seat] = person
                await server.wait_idle()
    assert hand_seed is not None
    scan = find_seat_leaks(server, timeline, tenures, lambda deal: hand_seed(deal - 1))
    figures.scanned, figures.leaks = scan.versions, scan.leaks
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
