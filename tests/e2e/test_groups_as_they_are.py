"""Telegram as it really is: the bot removed from a group mid-hand, an edited command, a missed supergroup
upgrade, an anonymous admin.

Every test drives the real bot against the fake Telegram, taught what each
needs: a member removing the bot (``Group.remove_bot``, with or without the
``my_chat_member`` update), an edited message (``Person.edit``), an upgrade
whose service message never reaches the bot (``migrate_to_supergroup(tell=
False)``), a command sent as the group (``command(..., as_group=True)``).
"Nothing more happens" is proved with the bot's own settled signals, never
with a quiet window.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import storage
from bot.i18n import translator
from bot.model import Table
from bot.updates import UPDATE_KINDS

from . import botkit
from .botkit import bot_running, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView, Person
from .scenario import (
    App,
    announced,
    choose_setting,
    fill_with_ai,
    hint_and_do,
    play_hand,
    table_of_one,
    wait_seated,
)

REMOVED = translator("en")("I was removed from {title}, so the table there is closed. The hands already played are kept.",
                           title="{title}").split("{title}")


async def settled(server: FakeTelegram, app: App) -> None:
    """Every message shows the latest state: no edit waits, no notice or announcement is on its way, no call
    is in flight (the bot's own signals, as in test_budget.py)."""
    await botkit.settled(server, app)


def told_privately(person: Person, title: str) -> bool:
    """The person got the private notice that the table in ``title`` closed."""
    return any(REMOVED[0] in (m.text or "") and title in (m.text or "") for m in person.bot_private_messages())


async def assert_closed_for_good(server: FakeTelegram, app: App, table: Table, group: Group) -> None:
    """The table is closed in memory and in storage, no task failed or keeps failing, /health is ok."""
    assert tables(app).get(table.id) is None and tables(app).in_chat(group.id) is None
    record = await storage.get_table(tables(app).db, table.id)
    assert record is not None and record.status == "stopped"
    assert table.match_id is not None
    match = await storage.get_match(tables(app).db, table.match_id)
    assert match is not None and match.status == "abandoned"
    summary = tables(app).tasks.summary()
    assert summary["failed"] == 0 and summary["failing"] == [], summary
    health = app.bot_data["health"].status()
    assert health["ok"], health


@pytest.mark.parametrize("told", [True, False], ids=["my_chat_member", "only_403"])
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_removed_mid_hand_the_table_closes_and_its_people_are_told(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                        told: bool) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    mallory = server.person("Mallory", "mallory", language_code="en", started=True)
    lost = server.group("Lost group", [alice, mallory], creator=mallory)
    other = server.group("Other group", [bob])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_of_one(server, app, alice, lost, 3)
        kept = await table_of_one(server, app, bob, other, 4)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
        await settled(server, app)
        mark = server.calls.mark()
        removed_at = server.clock()
        lost.remove_bot(by=mallory, tell=told)
        if not told:  # the bot finds out only when it next writes there: Alice's move edits the table
            await hint_and_do(server, alice, table, 0)
        await server.wait_for(lambda: told_privately(alice, "Lost group"), what="Alice told privately")
        await server.wait_for(lambda: tables(app).get(table.id) is None, what="the table closed")
        await settled(server, app)
        after = [r for r in server.calls.since(mark) if r.chat_id == lost.id]
        last = max((r.at for r in after), default=removed_at)
        # The other group's table plays on: a whole hand, then everything settled …
        quiet = server.calls.mark()
        await play_hand(server, kept, {0: bob})
        await settled(server, app)
        # … and not one call went to the lost group meanwhile.
        assert [r.method for r in server.calls.since(quiet) if r.chat_id == lost.id] == []
        assert kept.status == "playing" and kept.match is not None and kept.match.hands_played >= 1
        await assert_closed_for_good(server, app, table, lost)
        assert all(r.status == 403 for r in after), [(r.method, r.status) for r in after]
        assert len(after) <= (0 if told else 2), [r.method for r in after]
        print(f"\nFIGURES removed ({'my_chat_member' if told else 'only a 403'}): {len(after)} call(s) to the group "
              f"after removal, the last {last - removed_at:.2f} s after it; task failures "
              f"{tables(app).tasks.summary()['failed']}; update kinds asked for: {[str(kind) for kind in UPDATE_KINDS]}")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_an_edited_command_changes_nothing(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Dave left with /leave, sat down again, then corrected a typo in the old /leave: he stays seated.  Ann's
    edited /newgame and /stop change nothing either.  Telegram does not even send the edits (the bot does not
    ask for them); fed to the bot directly, its command handlers ignore them too."""
    from telegram import Update

    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    dave = server.person("Dave", "dave", language_code="en", started=True)
    group = server.group("Typos", [ann, dave], creator=ann)
    async with bot_running(server, tmp_path / "t.db") as app:
        opened = await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await dave.command(group, "join")
        await wait_seated(server, app, group, dave)
        left = await dave.command(group, "leave")
        await server.wait_for(lambda: tables(app).in_chat(group.id).seat_of(dave.id) is None, what="Dave left")
        await dave.command(group, "join")
        await wait_seated(server, app, group, dave)
        stopped = await ann.command(group, "stop")
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table stopped")
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await dave.command(group, "join")
        await wait_seated(server, app, group, dave)
        await settled(server, app)
        table = tables(app).in_chat(group.id)
        assert table is not None
        seats, messages = [s and s.user_id for s in table.seats], len(group.bot_messages())
        bot = f"@{server.bot.username}"
        edits = [await dave.edit(left, f"/leave{bot} "), await ann.edit(opened, f"/newgame{bot} nantong"),
                 await ann.edit(stopped, f"/stop{bot} ")]
        dropped = [u for u in server.state.updates.dropped if "edited_message" in u]
        assert len(dropped) == 3  # not asked for: Telegram keeps them
        for update in dropped:  # and had it sent them, the commands would not run
            await app.process_update(Update.de_json(update, app.bot))
        await settled(server, app)
        assert tables(app).in_chat(group.id) is table and table.status == "open"
        assert [s and s.user_id for s in table.seats] == seats
        assert len(group.bot_messages()) == messages
        assert all(edit.edited for edit in edits)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_an_upgrade_missed_is_found_by_the_next_refusal(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The group became a supergroup while the service message never reached the bot: the next call's refusal
    (``migrate_to_chat_id``) moves the table, and the hand goes on and ends in the new chat, nothing lost."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Growing group", [alice], creator=alice)
    old = group.id
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_of_one(server, app, alice, group, 3)
        await play_hand(server, table, {0: alice}, until=lambda hand: hand.phase == "playing")
        await settled(server, app)
        hand, events = table.match.hand, len(table.match.hand.events)  # type: ignore[union-attr]
        new = await group.migrate_to_supergroup(alice, tell=False)
        assert not [u for u in server.state.updates.delivered if "migrate_to_chat_id" in str(u)]
        await play_hand(server, table, {0: alice})  # Alice's first move: its group edit is refused, the table moves
        assert hand.over and len(hand.events) > events
        await server.wait_for(lambda: announced(group, "Hand 1 is over"), what="the result, in the new chat")
        await settled(server, app)
        assert table.chat_id == new and tables(app).in_chat(new) is table and tables(app).in_chat(old) is None
        record = await storage.get_table(tables(app).db, table.id)
        assert record is not None and record.chat_id == new and record.status == "playing"
        assert await storage.resolve_chat_id(tables(app).db, old) == new
        assert table_message(group).text and "Alice" in (table_message(group).text or "")
        refused = [r for r in server.calls if r.chat_id == old and r.status == 400]
        assert 1 <= len(refused) <= 3, [r.method for r in refused]  # the calls in flight when it moved, no retry
        summary = tables(app).tasks.summary()
        assert summary["failed"] == 0 and summary["failing"] == [], summary
        assert app.bot_data["health"].status()["ok"]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_an_anonymous_admin_stops_a_table(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """An admin posting as the group (GroupAnonymousBot, ``sender_chat`` the group) may /stop; a member may not."""
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    max_ = server.person("Max", "max", language_code="en", started=True)
    boss = server.person("Boss", "boss", language_code="en", started=True)
    group = server.group("Anonymous", [ann, max_, boss])
    group.add(boss, "administrator")
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await max_.command(group, "stop")
        await server.wait_for(lambda: announced(group, "Only the table's creator or a group admin can stop it."),
                              what="Max refused")
        assert tables(app).in_chat(group.id) is not None
        with pytest.raises(RuntimeError, match="only an admin"):
            await max_.command(group, "stop", as_group=True)
        await boss.command(group, "stop", as_group=True)
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table stopped")
        await server.wait_for(lambda: announced(group, "The table is closed."), what="the reply")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_command_deleted_at_once_is_still_answered(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The group runs a moderation bot that deletes every command as soon as it is posted.  Bo, who never
    opened the bot, sends /join: the answer, with the link he needs, still comes, just not as a reply
    (Telegram refuses a reply to a message that is gone unless it is told to send it anyway)."""
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    bo = server.person("Bo", "bo", language_code="en")
    group = server.group("Tidy", [ann, bo], creator=ann)
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        join = await bo.command(group, "join")
        server.state.messages[group.id][join.message_id].deleted = True  # before the bot reads it
        await settled(server, app)
        assert server.calls.calls("sendMessage", chat_id=group.id, status=400) == []
        assert announced(group, "First open a private chat with me and press Start")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_an_anonymous_admin_is_asked_to_sit_as_themselves(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Boss posts as the group (an anonymous admin: the sender is GroupAnonymousBot, whom no bot can write to).
    His /newgame opens the table and his /join takes no seat: both tell him to send it as himself.  The lobby
    never lists "Group" as someone joining, and a seat is his once he joins as himself."""
    server = fake_telegram
    boss = server.person("Boss", "boss", language_code="en", started=True)
    group = server.group("Anonymous", [boss])
    group.add(boss, "administrator")
    async with bot_running(server, tmp_path / "t.db") as app:
        await boss.command(group, "newgame", as_group=True)
        table = await server.wait_for(lambda: tables(app).in_chat(group.id), what="the table")
        await boss.command(group, "join", as_group=True)
        await settled(server, app)
        asked = [m for m in group.bot_messages() if "as yourself" in (m.text or "")]
        assert len(asked) == 2, [m.text for m in group.bot_messages()]
        assert all(s is None for s in table.seats) and not table.pending
        assert "Group" not in (table_message(group).text or "")
        await boss.command(group, "join")
        await wait_seated(server, app, group, boss)


def bot_muted(server: FakeTelegram, group: Group, by: Person, muted: bool) -> None:
    """``by`` (an admin) restricts the bot so it cannot write, or lifts that: Telegram sends ``my_chat_member``
    (member → restricted, or back), with the restricted member's every permission as its ChatMember has."""
    state = server.state
    bot = state.bot.to_api()
    can = not muted
    restricted: dict[str, object] = {
        "status": "restricted", "user": bot, "is_member": True, "until_date": 0, "can_send_messages": can,
        **{f"can_{right}": can for right in (
            "send_audios", "send_documents", "send_photos", "send_videos", "send_video_notes", "send_voice_notes",
            "send_polls", "send_other_messages", "add_web_page_previews", "react_to_messages")},
        **{f"can_{right}": False for right in ("change_info", "invite_users", "pin_messages", "manage_topics",
                                               "edit_tag")},
    }
    member = {"status": "member", "user": bot}
    state.updates.push("my_chat_member", {
        "chat": group.chat.to_api(state.users), "from": by.user.to_api(), "date": 0,
        "old_chat_member": member if muted else restricted, "new_chat_member": restricted if muted else member,
    })
    state.on_change()


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_bot_unmuted_says_no_hello(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """An admin mutes the bot (restricted), then lifts it: the bot was in the group all along, so it does not
    greet the group again as if just added."""
    server = fake_telegram
    boss = server.person("Boss", "boss", language_code="en", started=True)
    group = server.group("Muted", [boss])
    group.add(boss, "administrator")
    async with bot_running(server, tmp_path / "t.db") as app:
        bot_muted(server, group, boss, True)
        bot_muted(server, group, boss, False)
        await settled(server, app)
        assert not server.state.updates.pending
        assert not announced(group, "Hello! I host"), [m.text for m in group.bot_messages()]


async def test_the_bot_describes_itself_in_both_languages(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    async with bot_running(server, tmp_path / "t.db"):
        pass
    found = server.state.descriptions
    assert "/newgame" in found[("description", "")] and "炒地皮" in found[("short_description", "")]
    assert "群" in found[("description", "zh")] and "群" in found[("short_description", "zh")]
    assert found[("description", "")] != found[("description", "zh")]


class Topic:
    """One topic of a forum group, as the scenario helpers look at a group: its bot messages are the topic's."""

    def __init__(self, group: Group, thread_id: int) -> None:
        self.group = group
        self.thread_id = thread_id

    @property
    def id(self) -> int:
        """The group's chat id (a topic has none of its own)."""
        return self.group.id

    def bot_messages(self) -> list[MessageView]:
        """The bot's visible messages in this topic, oldest first."""
        return [m for m in self.group.topic_messages(self.thread_id) if m.from_bot]


async def table_in_topic(server: FakeTelegram, app: App, person: Person, group: Group, thread_id: int,
                         seed_index: int) -> Table:
    """``person`` types /newgame in the topic, three casual AI seats fill the table there, the match starts."""
    import random

    from .scenario import lobby_button, press_lobby

    topic = Topic(group, thread_id)
    await person.command(group, "newgame", "yancheng", topic=thread_id)
    table = await server.wait_for(lambda: tables(app).in_chat(group.id, thread_id), what="the topic's table")
    await fill_with_ai(server, person, topic, 3)  # type: ignore[arg-type]
    await choose_setting(server, person, topic, "strength", "casual")  # type: ignore[arg-type]
    await server.wait_for(lambda: table.full and lobby_button(topic.bot_messages()[0], "start") is not None
                          and "(empty)" not in (topic.bot_messages()[0].text or ""), what="a full table")
    tables(app).rng = random.Random(seed_index)
    answer = await press_lobby(server, person, topic, "start")  # type: ignore[arg-type]
    assert not answer.show_alert, answer.text
    await server.wait_for(lambda: table.match is not None, what="the match to start")
    return table  # type: ignore[no-any-return]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_two_topics_of_a_forum_each_run_a_table(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """In a forum group a table lives in the topic where /newgame was typed: two topics play at once, every
    message of each table is in its own topic, commands act on their topic's table, one table a topic."""
    import asyncio

    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    group = server.group("Forum", [alice, bob], creator=alice, forum=True)
    north, south = group.create_topic("North table", alice), group.create_topic("South table", bob)
    async with bot_running(server, tmp_path / "t.db") as app:
        first = await table_in_topic(server, app, alice, group, north, 3)
        second = await table_in_topic(server, app, bob, group, south, 4)
        assert first is not second and (first.thread_id, second.thread_id) == (north, south)
        await asyncio.gather(play_hand(server, first, {0: alice}), play_hand(server, second, {0: bob}))
        for thread_id in (north, south):
            await server.wait_for(lambda t=thread_id: announced(Topic(group, t), "Hand 1 is over"),  # type: ignore[misc]
                                  what="each topic's result")
        # One table a topic; a command acts on the table of the topic it was typed in, and is answered there.
        await alice.command(group, "newgame", topic=north)
        await server.wait_for(lambda: announced(Topic(group, north), "This topic already has a table."),  # type: ignore[arg-type]
                              what="the refusal, in the topic")
        await bob.command(group, "stop", topic=south)
        await server.wait_for(lambda: tables(app).in_chat(group.id, south) is None, what="the south table stopped")
        await server.wait_for(lambda: announced(Topic(group, south), "The table is closed."),  # type: ignore[arg-type]
                              what="the reply, in the topic")
        assert tables(app).in_chat(group.id, north) is first and first.status == "playing"
        await settled(server, app)
        # Every message the bot wrote in the group is in one of the two topics, none in General …
        written = [m for m in group.messages() if m.from_bot]
        assert written and all(m.thread_id in (north, south) for m in written), [(m.thread_id, m.text) for m in written]
        # … each table's message in its own topic, and every send to the group named a topic.
        by_id = {m.message_id: m for m in written}
        assert by_id[first.message_id].thread_id == north  # type: ignore[index]
        assert by_id[second.message_id].thread_id == south  # type: ignore[index]
        sends = [r for r in server.calls if r.chat_id == group.id and r.method in ("sendMessage", "sendPhoto")]
        assert sends and all(r.params.get("message_thread_id") in (north, south) for r in sends)
        record = await storage.get_table(tables(app).db, first.id)
        assert record is not None and record.thread_id == north
    # After a restart the table is still the north topic's: a /stop typed there closes it, answered there.
    async with bot_running(server, tmp_path / "t.db") as app:
        again = tables(app).in_chat(group.id, north)
        assert again is not None and again.id == first.id and again.thread_id == north
        replies = len(Topic(group, north).bot_messages())
        await alice.command(group, "stop", topic=north)
        await server.wait_for(lambda: tables(app).in_chat(group.id, north) is None, what="the north table stopped")
        await server.wait_for(lambda: len(Topic(group, north).bot_messages()) > replies, what="the reply")
        assert all(m.thread_id in (north, south) for m in group.messages() if m.from_bot)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_admins_the_bot_never_met_start_seasons(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """An admin who never played nor opened the bot, and an anonymous admin posting as the group, sent
    /season new 春季赛 and /season monthly: the season row names who started it, and neither was a person the
    bot had stored, so storage refused it (a foreign key), the log had a traceback and the admin no reply.  Now
    the admin is remembered as any person who asks is, and a season started as the group names nobody."""
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    boss = server.person("Boss", "boss", language_code="en")
    group = server.group("Seasons", [ann, boss])
    group.add(boss, "administrator")
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")  # the group is known; Boss is not
        await wait_seated(server, app, group, ann)
        await boss.command(group, "season", "new", "Spring")
        await server.wait_for(lambda: announced(group, "The season 「Spring」 starts now"), what="Boss's season")
        await boss.command(group, "season", "monthly", as_group=True)
        await server.wait_for(lambda: announced(group, "Back to monthly seasons"), what="the group's season")
        await settled(server, app)
        seasons = await storage.seasons_of(tables(app).db, group.id)
        assert [(s.kind, s.started_by) for s in seasons][-2:] == [("named", boss.id), ("monthly", None)]
