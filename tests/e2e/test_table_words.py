"""What the group reads, through the fake Bot API: /rules, replies in the group's language, /lang,
the table message of a stopped table, and /hand's reply between hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import translator
from bot.rules import rules_pages
from engine.ruleset import RULESETS

from .botkit import bot_running, settled, table_message, tables
from .endings import find_ending, store_table
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView, Person
from .scenario import App, fill_with_ai, press_hand, start_match, wait_seated

EN, ZH = translator("en"), translator("zh")


async def replies(server: FakeTelegram, app: App, person: Person, chat: Group, command: str, *args: str,
                  count: int = 1) -> list[MessageView]:
    """Send a command in the group; the bot's ``count`` messages that answer it."""
    sent = await person.command(chat, command, *args)

    def answers() -> list[MessageView] | None:
        found = [m for m in chat.bot_messages() if m.message_id > sent.message_id
                 and m.reply_to_message_id == sent.message_id]
        return found if len(found) >= count else None
    found = await server.wait_for(answers, what=f"the reply to /{command}")
    await settled(server, app)
    return found


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_rules_are_sent_in_pages_in_the_readers_language(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    bob = server.person("Bob", "bob", language_code="zh-hans", started=True)
    alice = server.person("Alice", "alice", language_code="en", started=True)
    zh_room = server.group("牌友群", [bob])
    en_room = server.group("Card room", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        for person, group, lang, preset in ((bob, zh_room, "zh", "yancheng"), (alice, en_room, "en", "anhui")):
            tr = translator(lang)
            expected = rules_pages(tr, RULESETS[preset])
            args = () if preset == "yancheng" else (preset,)  # no name and no table: 盐城, the default
            got = await replies(server, app, person, group, "rules", *args, count=len(expected))
            assert [m.text for m in got] == [_plain(page) for page in expected]
            assert all(len(m.text or "") <= 4096 for m in got)
        assert (await replies(server, app, alice, en_room, "rules", "nantong", count=2))[0].text.startswith(
            "Nantong/Lianyungang (open bids) · rules (1/2)")


def _plain(page: str) -> str:
    """A page as Telegram shows it (the fake server strips the HTML)."""
    import html
    import re
    return html.unescape(re.sub(r"</?b>", "", page))


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_group_reads_replies_in_its_language_and_lang_changes_it(fake_telegram: FakeTelegram,
                                                                          tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="zh-hans", started=True)
    group = server.group("Card room", [alice, bob])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")  # Alice's table: the group's language is English
        await wait_seated(server, app, group, alice)
        for command, expected in (("stats", "You have not finished a hand in this group yet."),
                                  ("newgame", "This group already has a table. Use /stop to close it first."),
                                  ("hand", "You are not playing at any table."),
                                  ("stop", "Only the table's creator or a group admin can stop it.")):
            got = await replies(server, app, bob, group, command)  # Bob reads Chinese, the group English
            assert got[0].text == EN(expected), command
        # With a table open, a preset and junk after /newgame do not matter: not "Unknown preset" (issue 55).
        got = await replies(server, app, bob, group, "newgame", "扬州", "extra", "junk")
        assert got[0].text == EN("This group already has a table. Use /stop to close it first.")
        await replies(server, app, alice, group, "lang", "zh")
        for person in (alice, bob):
            got = await replies(server, app, person, group, "stats")
            assert got[0].text == ZH("You have not finished a hand in this group yet.")
        assert "炒地皮" in (table_message(group).text or "")  # the table message follows too


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_stopped_table_says_so_and_loses_its_buttons(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Card room", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group)
        await server.wait_for(lambda: any(b.text == "🃏 My hand" for row in table_message(group).buttons for b in row),
                              what="the table message of the match")
        got = await replies(server, app, alice, group, "stop")
        assert got[0].text == EN("The table is closed.")
        closed = await server.wait_for(lambda: (table_message(group).text or "").endswith(EN("This table is closed."))
                                       and table_message(group), what="the table message saying it is closed")
        assert closed.buttons == () or not any(closed.buttons)
        assert tables(app).in_chat(group.id) is None and table.status == "stopped"


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_commands_past_the_budget_are_answered_later_in_order(fake_telegram: FakeTelegram,
                                                                   tmp_path: Path) -> None:
    """Issue 55: the throttle said "I will answer again in a minute" twice, then never answered /help and
    /season tz (while a /stats sent between them was answered).  Now: one notice, and every command past the
    budget is answered once there is room, in the order it was sent."""
    from bot.budget import CommandBudget

    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Card room", [alice], creator=alice)
    async with bot_running(server, tmp_path / "t.db") as app:
        app.bot_data["command_budget"] = CommandBudget(per_chat=(10, 60.0), per_person=(2, 2.0))  # a short window
        sent = [await alice.command(group, *words) for words in (
            ("stats",), ("stats",), ("help",), ("stats",), ("help",), ("season", "tz", "Europe/London"))]

        def answers(message: MessageView) -> list[MessageView]:
            return [m for m in group.bot_messages() if m.reply_to_message_id == message.message_id]

        notice = EN("{who}, that is a lot of commands: I will answer again in a minute.", who="Alice")
        later = [sent[2], sent[3], sent[5]]  # the second /help, sent while the first waits, is answered once
        await server.wait_for(lambda: all(any(notice not in (m.text or "") for m in answers(s)) for s in later),
                              timeout=60, what="every command past the budget answered")
        await settled(server, app, timeout=60)
        assert sum(notice in (m.text or "") for m in group.bot_messages()) == 1
        firsts = [min(m.message_id for m in answers(s) if notice not in (m.text or "")) for s in later]
        assert firsts == sorted(firsts)  # in the order they were sent
        assert "Europe/London" in (answers(sent[5])[-1].text or "")
        assert not answers(sent[4])


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_hand_between_hands_is_not_told_as_sent(fake_telegram: FakeTelegram, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """/hand while the table reads a result: nothing of the next hand is sent before it starts (the person is
    told in private when it comes), so the group's reply says that, not that the hand was sent."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Between hands", [alice])
    db_path = tmp_path / "t.db"
    await store_table(find_ending("nantong"), db_path, group.id, "Between hands", alice.id, "Alice", monkeypatch)
    async with bot_running(server, db_path, hand_pause=3600.0) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None
        answer = await press_hand(server, alice, table, 0, "go", "0")  # her last card ends hand 1
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: table.between_hands is not None, what="the pause between hands")
        got = await replies(server, app, alice, group, "hand")
        assert [m.text for m in got] == [EN("The next hand has not started yet; I told you in our private chat when it starts.")]
        assert table.between_hands is not None
        # /start in the private chat meanwhile: no "your cards are below" over a note that the next hand comes.
        before = {m.message_id for m in alice.bot_private_messages()}
        await alice.start_private()
        await settled(server, app)
        new = [m.text or "" for m in alice.bot_private_messages() if m.message_id not in before]
        assert new and not any(EN("You sit at the table in {title}; your cards are below.", title="Between hands")
                               in text for text in new), new
