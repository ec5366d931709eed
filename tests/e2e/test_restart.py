"""The bot stops in the middle of a hand and starts again on the same database; and a restore drill.

Nothing a player was told is lost: the hand's state after the restart is the
one before (engine fingerprints), the same table and hand messages go on
being edited, and stored deadlines are armed again (one that passed while
the bot was down is not a timeout yet: the group is reminded, and the turn
gets the reminder's time more).  The drill backs the database up while the
bot runs (``chaodipi backup``), stops the bot, deletes the database, restores
it (``chaodipi restore``) and plays on.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

import storage
from bot.model import PACES, Pace, Table
from engine.hand import Hand

from .botkit import bot_running, hand_message, settled, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .scenario import (
    App,
    announced,
    fill_with_ai,
    play_hand,
    press_back,
    press_hand,
    press_lobby,
    start_match,
    wait_seated,
)


async def _open(server: FakeTelegram, app: App, alice: Person, bob: Person | None, group: Group,
                pace: str | None = None) -> Table:
    """Alice opens a table (Bob sits in seat 2 if given), AI in the other seats, at the given pace; started."""
    await alice.command(group, "newgame")
    await wait_seated(server, app, group, alice)
    if pace is not None:
        for op, arg in (("set", ""), ("pace", pace), ("back", "")):
            answer = await press_lobby(server, alice, group, op, arg)
            assert not answer.show_alert, answer.text
    if bob is not None:
        answer = await press_lobby(server, bob, group, "sit", "2")
        assert not answer.show_alert, answer.text
        await wait_seated(server, app, group, bob)
    await fill_with_ai(server, alice, group, 2 if bob is not None else 3)
    table = await start_match(server, app, alice, group, seed_index=3)
    if pace is not None:
        assert table.settings.pace == pace
    return table


async def _chaodipi(*args: str) -> int:
    """Run the ``chaodipi`` command (from this checkout) in its own process, as an operator would."""
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", *args, cwd=root, env=env)
    return await process.wait()


def _midway(tricks: int, seat: int):  # type: ignore[no-untyped-def]
    """Past ``tricks`` tricks, the seat's turn: it comes in every trick (a lead may never come again: the
    strong AI's plays depend on its time budget, so the tricks a person wins are not fixed by the seed)."""
    return lambda hand: len(hand.tricks) >= tricks and hand.turn == seat


def _reloaded(app: App, group: Group) -> Table:
    """The group's table as the bot loaded it at start-up."""
    table = tables(app).in_chat(group.id)
    assert table is not None, "the table was not loaded"
    return table


async def _settled(server: FakeTelegram, app: App, table: Table) -> None:
    """Wait until the bot has armed the deadline of the person to move and shown the state.

    The hand moves on before the move's announcements are stored (a failed
    throw, a red five), and the deadline is armed after that, so the test
    waits for the deadline itself, not only for a quiet moment.
    """
    await server.wait_for(lambda: table.deadline is not None, timeout=30, what="the person's deadline")
    await settled(server, app)


async def _alice_to_play(server: FakeTelegram, app: App, alice: Person, bob: Person, group: Group) -> Table:
    """A relaxed table of Alice, Bob (seat 2) and two AI seats, past three tricks, at Alice's turn."""
    table = await _open(server, app, alice, bob, group, pace="relaxed")
    await play_hand(server, table, {0: alice, 2: bob}, until=_midway(3, 0))
    await _settled(server, app, table)
    return table


async def _deadline_while_down(db_path: Path, table_id: int, deadline: float) -> None:
    """What the stored deadline of the table is once the bot comes back (time passed while it was down)."""
    db = await storage.open_database(db_path)
    try:
        await storage.update_table(db, table_id, turn_deadline=deadline)
    finally:
        await db.close()


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_restart_mid_hand_loses_nothing_and_rearms_the_timer(fake_telegram: FakeTelegram,
                                                                   tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="zh-hans", started=True)
    group = server.group("Night owls", [alice, bob])
    db_path = tmp_path / "t.db"
    people = {0: alice, 2: bob}

    async with bot_running(server, db_path) as app:
        table = await _open(server, app, alice, bob, group, pace="relaxed")
        assert table.match is not None
        await play_hand(server, table, people, until=_midway(5, 0))
        await _settled(server, app, table)
        hand = table.match.hand
        before = hand.fingerprint()
        deadline = table.deadline
        assert deadline is not None and deadline > time.time() + 3000, "a relaxed turn waits an hour"
        messages = {s: table.seats[s].hand_message_id for s in people}  # type: ignore[union-attr]
        table_message_id = table.message_id
        table_id = table.id
    calls_at_stop = server.calls.mark()

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        assert table.id == table_id and table.match is not None
        assert table.match.hand.fingerprint() == before
        assert table.lang == "en", "the group's language is the creator's, after a restart too"
        assert table.deadline == pytest.approx(deadline)
        timer = tables(app).tasks.get(f"timer {table.id}")
        assert timer is not None and not timer.done(), "the stored deadline was not armed again"
        assert table.message_id == table_message_id
        assert {s: table.seats[s].hand_message_id for s in people} == messages  # type: ignore[union-attr]
        await _settled(server, app, table)
        # The same messages are edited: no new message carries a hand keyboard.
        for call in server.calls.since(calls_at_stop):
            if call.method == "sendMessage":
                assert "inline_keyboard" not in str(call.params.get("reply_markup")), call
        # Only what changed is edited: the bot knows what each message shows (no "message is not modified").
        unchanged = [c for c in server.calls.since(calls_at_stop)
                     if c.method == "editMessageText" and c.status == 400 and "not modified" in (c.description or "")]
        assert unchanged == [], unchanged
        # Alice still plays from her hand message, and the hand goes on to its end.
        hand = table.match.hand
        await play_hand(server, table, people)
        assert hand.phase == "finished"
        await server.wait_for(lambda: announced(group, "Hand 1 is over"), what="the result")
        # At the relaxed pace hand 2 waits for 「Next hand」; then it comes as a new message, which notifies.
        await server.wait_for(lambda: any(b.text == "▶️ Next hand" for b in table_message(group).all_buttons()),
                              what="the Next hand button")
        pressed = await (await alice.press(table_message(group), "▶️ Next hand")).answer()
        assert not pressed.show_alert, pressed.text
        await server.wait_for(lambda: "hand 2" in (getattr(hand_message(alice), "text", "") or ""), what="hand 2")
        assert hand_message(alice).message_id != messages[0]  # type: ignore[union-attr]


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_deadline_that_passed_while_the_bot_was_down_gets_a_grace_period_at_start(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that was down could not take Alice's move: at start the group is reminded, and the timeout comes
    only after the grace (the reminder's time; a few seconds here)."""
    monkeypatch.setitem(PACES, "relaxed", Pace(turn=3600, bidding=3600, reminder=6))
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Slow table", [alice, bob])
    db_path = tmp_path / "t.db"
    people = {0: alice, 2: bob}

    async with bot_running(server, db_path) as app:
        table = await _alice_to_play(server, app, alice, bob, group)
        assert table.match is not None
        table_id, events = table.id, len(table.match.hand.events)

    await _deadline_while_down(db_path, table_id, time.time() - 5)  # the hour passes while the bot is down

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        assert table.match is not None
        hand: Hand = table.match.hand
        await server.wait_for(lambda: announced(group, "⏰"), what="the reminder at start")
        assert not announced(group, "Alice ran out of time") and not table.seats[0].timed_out  # type: ignore[union-attr]
        await server.wait_for(lambda: announced(group, "Alice ran out of time"), timeout=20,
                              what="the timeout after the grace")
        await server.wait_for(lambda: len(hand.events) > events, what="the AI's move for Alice")
        assert hand.events[events].action.seat == 0
        # Her hand message is frozen; she is back as soon as she taps 「I'm back」; both play on to the end.
        assert table.seats[0].timed_out  # type: ignore[union-attr]
        answer = await press_back(server, alice)
        assert not answer.show_alert, answer.text
        assert not table.seats[0].timed_out  # type: ignore[union-attr]
        await press_hand(server, alice, table, 0, "sel")
        await press_hand(server, alice, table, 0, "sel")  # the same card again: nothing selected
        assert not +table.selected(0)
        await play_hand(server, table, people)
        assert hand.phase == "finished"


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_restore_drill_backup_stop_delete_restore_play_on(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Backups", [alice])
    db_path = tmp_path / "live.db"
    backup_path = tmp_path / "backup.db"

    async with bot_running(server, db_path) as app:
        table = await _open(server, app, alice, None, group)
        assert table.match is not None
        await play_hand(server, table, {0: alice}, until=_midway(4, 0))
        await _settled(server, app, table)
        before = table.match.hand.fingerprint()
        # chaodipi backup, while the bot runs
        assert await _chaodipi("backup", str(backup_path), "--db", str(db_path)) == 0

    for path in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        path.unlink(missing_ok=True)
    assert not db_path.exists()
    assert await _chaodipi("restore", str(backup_path), "--db", str(db_path)) == 0

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        assert table.match is not None
        assert table.match.hand.fingerprint() == before
        hand = table.match.hand
        await play_hand(server, table, {0: alice})
        assert hand.phase == "finished"
        await server.wait_for(lambda: announced(group, "Hand 1 is over"), what="the result")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_restart_between_hands_keeps_the_pause(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """At the relaxed and daily paces the next hand waits for 「Next hand」 (or for a turn's time): a restart
    during that pause keeps it.  It used to end it at once: the next hand was dealt out to everyone the moment
    the bot was back, while the group's last word was that it starts when someone presses 「Next hand」."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Slow table", [alice, bob])
    db_path = tmp_path / "t.db"

    async with bot_running(server, db_path) as app:
        table = await _open(server, app, alice, bob, group, pace="relaxed")
        await bob.command(group, "leave")  # before any card: free, the hand ends and the pause begins
        await server.wait_for(lambda: table.between_hands is not None, what="the pause between hands")
        await server.wait_for(lambda: any(b.text == "▶️ Next hand" for b in table_message(group).all_buttons()),
                              what="the Next hand button")
        until = table.between_hands
        assert until is not None and until > time.time() + 3000, "a relaxed pause waits an hour"
        await settled(server, app)
    calls_at_stop = server.calls.mark()

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        assert table.between_hands == pytest.approx(until, abs=5)
        assert tables(app).tasks.get(f"next-hand {table.id}") is not None, "the pause's end was not armed again"
        await settled(server, app)
        assert any(b.text == "▶️ Next hand" for b in table_message(group).all_buttons()), table_message(group).text
        assert "Next hand" in (table_message(group).text or "") and "hand 1" in (table_message(group).text or "")
        sent = [c for c in server.calls.since(calls_at_stop) if c.method == "sendMessage" and c.chat_id == alice.id]
        assert sent == [], "the next hand was shown before anyone pressed 「Next hand」"
        pressed = await (await alice.press(table_message(group), "▶️ Next hand")).answer()
        assert not pressed.show_alert, pressed.text
        await server.wait_for(lambda: table.between_hands is None, what="the next hand")
        await server.wait_for(lambda: (m := hand_message(alice)) is not None and "hand 2" in (m.text or ""),
                              what="hand 2")

    # The pause ended: a restart now shows hand 2, and no pause comes back.
    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        assert table.between_hands is None
        await settled(server, app)
        assert "hand 2" in (table_message(group).text or "")


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_reminder_due_while_the_bot_was_down_is_sent_once_it_is_back(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot was down when Alice's reminder was due (her deadline had not passed yet): she is reminded as
    soon as it is back, not timed out unwarned when the rest of her time runs out; and a restart after her
    reminder reminds her no second time."""
    monkeypatch.setitem(PACES, "relaxed", Pace(turn=3600, bidding=3600, reminder=600))
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Slow table", [alice, bob])
    db_path = tmp_path / "t.db"

    def reminders() -> int:
        return sum("⏰" in (m.text or "") for m in group.bot_messages())

    async with bot_running(server, db_path) as app:
        table = await _alice_to_play(server, app, alice, bob, group)
        table_id = table.id
        assert reminders() == 0

    # Down for the better part of her hour: ten minutes before her deadline (the reminder's time) passed.
    await _deadline_while_down(db_path, table_id, time.time() + 300)

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        await server.wait_for(lambda: announced(group, "⏰ Alice"), timeout=10, what="the reminder missed while down")
        assert not table.seats[0].timed_out  # type: ignore[union-attr]
        await settled(server, app)
        assert reminders() == 1

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        await _settled(server, app, table)
        assert reminders() == 1, "reminded twice"


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_table_message_shows_the_grace_a_deadline_passed_while_down_gets(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice's deadline passed while the bot was down: at start she gets the reminder's time more, and the
    group's table message says how long that is (it said '(0 s left)', drawn at start from the deadline
    that had passed, until the next move: ten minutes at the relaxed pace, three hours at the daily)."""
    monkeypatch.setitem(PACES, "relaxed", Pace(turn=3600, bidding=3600, reminder=600))
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Slow table", [alice, bob])
    db_path = tmp_path / "t.db"

    async with bot_running(server, db_path) as app:
        table_id = (await _alice_to_play(server, app, alice, bob, group)).id

    await _deadline_while_down(db_path, table_id, time.time() - 60)

    async with bot_running(server, db_path) as app:
        _reloaded(app, group)
        await server.wait_for(lambda: announced(group, "⏰ Alice"), what="the reminder at start")
        await settled(server, app)
        text = table_message(group).text or ""
        assert "Alice to play" in text and "(10 min left)" in text, text


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_restart_keeps_when_the_turn_began(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """At the relaxed and daily paces the table message says since when the person to move has had their
    turn, 「（14:03 起）」: a restart keeps it (the turn's start was in memory only, and every table message lost
    it at start, until the next move)."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Slow table", [alice, bob])
    db_path = tmp_path / "t.db"

    async with bot_running(server, db_path) as app:
        await _alice_to_play(server, app, alice, bob, group)
        line = next(line for line in (table_message(group).text or "").splitlines() if "Alice to play" in line)
        assert "(since " in line, line
        since = line[line.index("(since "):line.index(")") + 1]

    async with bot_running(server, db_path) as app:
        table = _reloaded(app, group)
        await _settled(server, app, table)
        line = next(line for line in (table_message(group).text or "").splitlines() if "Alice to play" in line)
        assert since in line, line
