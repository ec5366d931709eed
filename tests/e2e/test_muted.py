"""A group that mutes the bot mid-match: the table pauses and its people are told privately, once; when the
bot may write again the table goes on and the group is told.

The fake Telegram is taught to mute the bot (``Group.mute_bot``): an admin
restricts it, Telegram sends the ``my_chat_member`` update (member →
restricted, ``can_send_messages`` false) unless the bot missed it, and
refuses every ``sendMessage`` there with "Bad Request: not enough rights to
send text messages to the chat" (edits of its own messages still pass).
"Nothing moves" is proved with the bot's own settled signals and its timer's
end, never with a quiet window.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.i18n import translator
from bot.model import Table
from bot.tables.turns import set_timer

from .botkit import bot_running, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .scenario import App, announced, hint_and_do, play_hand, table_of_one
from .test_groups_as_they_are import settled

EN = translator("en")
TITLE = "Muted group"
PAUSED = EN("I may not send messages in {title} any more (I was muted there), so the table there is paused. It goes "
            "on once an admin lets me send messages there again; or /stop there closes it.", title=TITLE)
GOES_ON = EN("I may send messages in {title} again: the table there goes on.", title=TITLE)
BACK_HERE = EN("I may send messages here again: the table goes on.")
SAYS_PAUSED = EN("The table is paused: I may not send messages here. It goes on once an admin lets me send messages "
                 "again; /stop closes it.")


def told(person: Person, text: str) -> int:
    """How many private messages of the bot to ``person`` say ``text``."""
    return sum(text in (m.text or "") for m in person.bot_private_messages())


async def assert_healthy(app: App) -> None:
    """No task failed or keeps failing, /health is ok."""
    summary = tables(app).tasks.summary()
    assert summary["failed"] == 0 and summary["failing"] == [], summary
    health = app.bot_data["health"].status()
    assert health["ok"], health


async def goes_on(server: FakeTelegram, app: App, table: Table, group: Group, alice: Person) -> None:
    """The bot may write again: the group and Alice are told, the hand is played to its end (the AI seats move
    again), and the table message no longer says it is paused."""
    await server.wait_for(lambda: announced(group, BACK_HERE), what="the group told the table goes on")
    await server.wait_for(lambda: told(alice, GOES_ON) == 1, what="Alice told the table goes on")
    assert not table.muted and table.match is not None
    played = table.match.hands_played
    match = table.match
    await server.wait_for(lambda: table.between_hands is None and not match.hand.over, what="a hand under way")
    await play_hand(server, table, {0: alice})
    await settled(server, app)
    assert match.hands_played > played
    assert SAYS_PAUSED not in (table_message(group).text or "")
    assert told(alice, PAUSED) == 1 and told(alice, GOES_ON) == 1
    await assert_healthy(app)


async def waits_through_her_clock(server: FakeTelegram, app: App, table: Table, alice: Person) -> None:
    """Alice's clock runs out while the table is paused: no timeout, the AI does not take her seat.  She may
    still play from her private chat; the AI seats after her do not move, and nothing is stuck."""
    async with table.lock:
        table.deadline = time.time() + 0.1
        set_timer(tables(app), table)
    await server.wait_for(lambda: tables(app).tasks.get(f"timer {table.id}") is None, what="the timer's end")
    seat = table.seats[0]
    assert seat is not None and not seat.timed_out and not seat.is_ai
    assert table.match is not None
    hand = table.match.hand
    moves = len(hand.events)
    await hint_and_do(server, alice, table, 0)
    await settled(server, app)
    assert len(hand.events) == moves + 1 and hand.turn != 0 and table.match.hand is hand
    assert tables(app).tasks.get(f"ai {table.id}") is None and tables(app).watch() == []


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_muted_mid_hand_the_table_pauses_and_goes_on_when_unmuted(fake_telegram: FakeTelegram,
                                                                       tmp_path: Path) -> None:
    """An admin mutes the bot on Alice's turn: she is told privately, once; her clock running out is no timeout;
    she may still play, and the AI seats after her wait.  Unmuted, the table goes on and the group is told."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory)
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_of_one(server, app, alice, group, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing" and hand.turn == 0)
        await settled(server, app)
        group.mute_bot(by=mallory)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await server.wait_for(lambda: SAYS_PAUSED in (table_message(group).text or ""), what="the table says so")
        assert table.muted and tables(app).get(table.id) is table  # paused, not closed
        await settled(server, app)
        await waits_through_her_clock(server, app, table, alice)
        assert told(alice, PAUSED) == 1
        group.unmute_bot(by=mallory)
        await goes_on(server, app, table, group, alice)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_muted_unseen_the_refusals_pause_the_table(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The bot missed the update (it was down): the group's refusals of what it sends, lasting a while, pause the
    table as the update would have; an admin letting it write again makes it go on."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory)
    async with bot_running(server, tmp_path / "t.db") as app:
        muting = tables(app).muting
        muting.after = 0.0  # refusals a while apart: two in a row here
        table = await table_of_one(server, app, alice, group, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
        await settled(server, app)
        group.mute_bot(by=mallory, tell=False)
        # The hand's end is announced to the group, which refuses it: the table pauses.
        await play_hand(server, table, {0: alice}, until=lambda hand: table.muted)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await settled(server, app)
        assert table.muted and tables(app).get(table.id) is table and group.id in muting.muted
        assert tables(app).tasks.get(f"ai {table.id}") is None and tables(app).tasks.get(f"next-hand {table.id}") is None
        group.unmute_bot(by=mallory)
        await goes_on(server, app, table, group, alice)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_restart_keeps_the_table_of_a_muted_group_paused(fake_telegram: FakeTelegram,
                                                                 tmp_path: Path) -> None:
    """The bot restarts while muted: the table comes back paused, its people not told again.  Her clock
    running out is no timeout, and the AI seats after her wait.  It used to forget the mute: until two
    refusals two minutes apart showed it again, the clock ran out and the AI played on, unseen in the group."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory)
    db_path = tmp_path / "t.db"
    async with bot_running(server, db_path) as app:
        table = await table_of_one(server, app, alice, group, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing" and hand.turn == 0)
        await settled(server, app)
        group.mute_bot(by=mallory)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await settled(server, app)
        assert table.muted

    async with bot_running(server, db_path) as app:
        found = tables(app).in_chat(group.id)  # as loaded at start-up
        assert found is not None and found.match is not None
        table = found
        await settled(server, app)
        await waits_through_her_clock(server, app, table, alice)
        assert table.muted and group.id in tables(app).muting.muted
        assert SAYS_PAUSED in (table_message(group).text or "")
        assert told(alice, PAUSED) == 1, "told again after the restart"
        group.unmute_bot(by=mallory)
        await goes_on(server, app, table, group, alice)
