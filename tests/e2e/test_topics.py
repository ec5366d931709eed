"""A table in a forum topic that an admin closes mid-match: it pauses, its people are told privately, once, and
it goes on when the topic is reopened; one whose topic is deleted closes, its people told.  The group's other
topics play on.

The fake Telegram is taught to close a topic (``Group.close_topic``): the topic
gets a ``forum_topic_closed`` service message (unless the bot missed it), and
Telegram refuses the bot's new messages there with "Bad Request: TOPIC_CLOSED"
(its edits still pass), unless the bot is an admin allowed to manage topics.
And to delete one (``Group.delete_topic``): its messages are gone, and a new
one there is refused with "Bad Request: message thread not found"; no update
tells the bot.
"Nothing moves" is proved with the bot's own settled signals and its timer's
end, never with a quiet window.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import translator
from bot.model import Table

from .botkit import bot_running, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView, Person
from .scenario import App, announced, hint_and_do, play_hand
from .test_groups_as_they_are import Topic, assert_closed_for_good, settled, table_in_topic
from .test_muted import assert_healthy, told, waits_through_her_clock
from .test_table_knows import _closed_in_private

EN = translator("en")
TITLE = "Forum"
PAUSED = EN("The topic of our table in {title} was closed, so the table is paused. It goes on once an admin reopens "
            "the topic; or /stop there closes it.", title=TITLE)
GOES_ON = EN("The topic of our table in {title} is open again: the table goes on.", title=TITLE)
BACK_HERE = EN("This topic is open again: the table goes on.")
SAYS_PAUSED = EN("The table is paused: this topic is closed. It goes on once an admin reopens it; /stop closes it.")
DELETED = EN("The topic of our table in {title} was deleted (or I can no longer post in it), so the table there is "
             "closed. The hands already played are kept.", title=TITLE)


def table_message(server: FakeTelegram, group: Group, table: Table) -> MessageView:
    """The table's message in its topic, as it looks now."""
    assert table.message_id is not None
    return MessageView.of(server.state.messages[group.id][table.message_id])


async def goes_on(server: FakeTelegram, app: App, table: Table, group: Group, alice: Person) -> None:
    """The topic is open again: the topic and Alice are told, the hand is played to its end (the AI seats move
    again), and the table message no longer says it is paused."""
    assert table.thread_id is not None
    await server.wait_for(lambda: announced(Topic(group, table.thread_id), BACK_HERE),  # type: ignore[arg-type]
                          what="the topic told the table goes on")
    await server.wait_for(lambda: told(alice, GOES_ON) == 1, what="Alice told the table goes on")
    assert not table.topic_closed and table.match is not None
    played = table.match.hands_played
    match = table.match
    await server.wait_for(lambda: table.between_hands is None and not match.hand.over, what="a hand under way")
    await play_hand(server, table, {0: alice})
    await settled(server, app)
    assert match.hands_played > played
    assert SAYS_PAUSED not in (table_message(server, group, table).text or "")
    assert told(alice, PAUSED) == 1 and told(alice, GOES_ON) == 1
    await assert_healthy(app)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_restart_keeps_the_table_of_a_closed_topic_paused(fake_telegram: FakeTelegram,
                                                                 tmp_path: Path) -> None:
    """The bot restarts while the table's topic is closed: the table comes back paused, Alice not told again;
    her clock running out is no timeout and the AI seats after her wait (edits of the table message pass in a
    closed topic, so nothing would stop them: the closed topic used to be forgotten).  Reopened, it goes on."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory, forum=True)
    north = group.create_topic("North table", alice)
    db_path = tmp_path / "t.db"
    async with bot_running(server, db_path) as app:
        table = await table_in_topic(server, app, alice, group, north, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing" and hand.turn == 0)
        await settled(server, app)
        group.close_topic(north, by=mallory)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await settled(server, app)
        assert table.topic_closed

    async with bot_running(server, db_path) as app:
        found = tables(app).in_chat(group.id, north)  # as loaded at start-up
        assert found is not None and found.match is not None
        table = found
        await settled(server, app)
        assert table.topic_closed and (group.id, north) in tables(app).topics.closed
        await waits_through_her_clock(server, app, table, alice)
        assert told(alice, PAUSED) == 1, "told again after the restart"
        group.reopen_topic(north, by=mallory)
        await goes_on(server, app, table, group, alice)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_topic_closed_mid_hand_pauses_its_table_and_reopened_it_goes_on(fake_telegram: FakeTelegram,
                                                                                tmp_path: Path) -> None:
    """An admin closes the topic on Alice's turn: its table pauses at once (the service message; the bot, no
    admin, may not write there), she is told privately, once; her clock running out is no timeout; she may still
    play, and the AI seats after her wait.  Bob's table in another topic of the group plays on meanwhile.
    Reopened, the table goes on and the topic is told."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, bob, mallory], creator=mallory, forum=True)
    north, south = group.create_topic("North table", alice), group.create_topic("South table", bob)
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_in_topic(server, app, alice, group, north, 3)
        other = await table_in_topic(server, app, bob, group, south, 4)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing" and hand.turn == 0)
        await settled(server, app)
        group.close_topic(north, by=mallory)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await server.wait_for(lambda: SAYS_PAUSED in (table_message(server, group, table).text or ""),
                              what="the table says so")
        assert table.topic_closed and not table.muted and tables(app).get(table.id) is table  # paused, not closed
        await settled(server, app)
        await waits_through_her_clock(server, app, table, alice)
        # The other topic's table plays a whole hand meanwhile, told in its topic, its player never told a pause.
        assert other.match is not None
        await play_hand(server, other, {0: bob})
        await server.wait_for(lambda: announced(Topic(group, south), "Hand 1 is over"),  # type: ignore[arg-type]
                              what="the other topic's result")
        await settled(server, app)
        assert tables(app).tasks.get(f"ai {table.id}") is None and tables(app).watch() == []  # still waiting
        assert other.match.hands_played == 1 and not other.silenced and told(bob, "topic") == 0
        assert told(alice, PAUSED) == 1
        group.reopen_topic(north, by=mallory)
        await goes_on(server, app, table, group, alice)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_topic_closed_unseen_is_found_by_a_refusal_and_a_reply_that_goes_through_opens_it(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The bot missed the service message (it was down): the first message the topic refuses (the hand's result)
    pauses the table; the topic reopened unseen too, a reply to an admin's command there goes through and the
    table goes on."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory, forum=True)
    north = group.create_topic("North table", alice)
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_in_topic(server, app, alice, group, north, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
        await settled(server, app)
        group.close_topic(north, by=mallory, tell=False)
        # The hand's end is announced to the topic, which refuses it: the table pauses.
        await play_hand(server, table, {0: alice}, until=lambda hand: table.topic_closed)
        await server.wait_for(lambda: told(alice, PAUSED) == 1, what="Alice told privately")
        await settled(server, app)
        assert table.topic_closed and tables(app).get(table.id) is table and (group.id, north) in tables(app).topics.closed
        assert tables(app).tasks.get(f"ai {table.id}") is None and tables(app).tasks.get(f"next-hand {table.id}") is None
        group.reopen_topic(north, by=mallory, tell=False)
        await mallory.command(group, "help", topic=north)
        await goes_on(server, app, table, group, alice)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_bot_that_manages_topics_plays_on_in_a_closed_topic(fake_telegram: FakeTelegram,
                                                                    tmp_path: Path) -> None:
    """The bot is an admin allowed to manage topics: Telegram still takes what it sends in a closed topic, so the
    table there is not paused (its players play from their private chats), and nobody is told it is."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, mallory], creator=mallory, forum=True, bot_admin=True)
    group.chat.bot_manages_topics = True
    north = group.create_topic("North table", alice)
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_in_topic(server, app, alice, group, north, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
        group.close_topic(north, by=mallory)
        await settled(server, app)
        assert server.calls.count("getChatMember", chat_id=group.id) >= 1  # its rights were asked
        assert table.match is not None and not table.topic_closed
        await play_hand(server, table, {0: alice})
        await server.wait_for(lambda: announced(Topic(group, north), "Hand 1 is over"),  # type: ignore[arg-type]
                              what="the result, in the closed topic")
        await settled(server, app)
        assert not table.topic_closed and told(alice, PAUSED) == 0
        await assert_healthy(app)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_topic_deleted_mid_hand_closes_its_table_and_its_people_are_told(fake_telegram: FakeTelegram,
                                                                                tmp_path: Path) -> None:
    """An admin deletes the topic on Alice's turn (no update tells the bot): her move's table message, gone
    with the topic, is sent anew and refused, and the table closes as at /stop: stored as stopped, the match
    abandoned (its hands kept), her hand message says the table is closed, and she is told why, once.  Bob's
    table in another topic plays on, its player told nothing."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    group = server.group(TITLE, [alice, bob, mallory], creator=mallory, forum=True)
    north, south = group.create_topic("North table", alice), group.create_topic("South table", bob)
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_in_topic(server, app, alice, group, north, 3)
        other = await table_in_topic(server, app, bob, group, south, 4)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing" and hand.turn == 0)
        await settled(server, app)
        group.delete_topic(north)
        await hint_and_do(server, alice, table, 0)
        await server.wait_for(lambda: tables(app).get(table.id) is None, what="the table closed")
        await server.wait_for(lambda: told(alice, DELETED) == 1, what="Alice told privately")
        await settled(server, app)
        _closed_in_private(alice)
        await assert_closed_for_good(server, app, table, group)
        assert tables(app).in_chat(group.id, north) is None and (group.id, north) in tables(app).topics.deleted
        # The other topic's table plays on, and nothing more is tried in the topic gone.
        mark = server.calls.mark()
        assert other.match is not None
        await play_hand(server, other, {0: bob})
        await server.wait_for(lambda: announced(Topic(group, south), "Hand 1 is over"),  # type: ignore[arg-type]
                              what="the other topic's result")
        await settled(server, app)
        assert other.status == "playing" and other.match.hands_played == 1 and told(bob, "topic") == 0
        assert [r for r in server.calls.since(mark) if r.params.get("message_thread_id") == north] == []
        assert told(alice, DELETED) == 1
        await assert_healthy(app)
