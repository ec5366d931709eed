"""One group, one language; no game command swallowed; AI seats only by the table's people; a hello.

A Chinese group (its admin chose 中文) where Dave's Telegram has no language
and Erin's is English: every message the bot posts in the group, whoever
asked, is in Chinese.  A burst of commands is answered once with "too fast",
but a /leave at its end still happens.  Someone without a seat cannot add
AI seats.  When the bot is added to a group it says hello.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.i18n import translator

from .botkit import bot_running, command_budget_on, settled, table_message
from .fake_telegram import FakeClock, FakeTelegram, FloodLimits
from .fake_telegram.people import Group
from .scenario import announced, lobby_button, press_lobby, wait_seated

NAMES = ("Ann", "Dave", "Erin", "AI")


def english_words(group: Group) -> list[str]:
    """Every English word in the bot's group messages: names, commands, card ranks (KKAA) and the
    language's own name (「切换 English」) aside."""
    found = []
    for message in group.bot_messages():
        text = re.sub(r"<[^>]+>|/[a-z]+(@\w+)?( zh| en)?|https?://\S+|English", " ", message.text or "")
        for name in NAMES:
            text = text.replace(name, " ")
        found += [f"{word!r} in {message.text!r}" for word in re.findall(r"[A-Za-z]?[a-z]{2,}", text)]
    return found


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_every_group_reply_is_in_the_groups_language_whoever_asks(fake_telegram: FakeTelegram,
                                                                        tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="zh-hans", started=True)
    dave = server.person("Dave", None, started=True)
    erin = server.person("Erin", None, language_code="en", started=True)
    group = server.group("中文群", [ann, dave, erin], creator=ann)
    async with bot_running(server, tmp_path / "t.db") as app:
        command_budget_on(app, FakeClock())  # the budget's time stands still: its verdicts depend on order alone
        await ann.command(group, "lang", "zh")
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await dave.command(group, "join")
        await wait_seated(server, app, group, dave)
        for command, args in (("join", ()), ("stats", ()), ("rules", ("nantong",)), ("stop", ()), ("lang", ())):
            await dave.command(group, command, *args)  # already seated, no league, not the creator …
        for command, args in (("join", ()), ("leave", ()), ("leave", ()), ("stats", ()), ("help", ())):
            await erin.command(group, command, *args)
        # A burst: the throttle answers once, and the /leave at its end still happens.
        for _ in range(12):
            await dave.command(group, "help")
        await dave.command(group, "leave")
        await server.wait_for(lambda: table_message(group) is not None and "Dave" not in (table_message(group).text or ""),
                              what="Dave's /leave after the burst")
        tr = translator("zh")
        # The chat's window (10 a minute) fills during Erin's commands and Dave's own (6 in 30 s) during his;
        # whoever the notice names, it is in Chinese.
        notice = [tr("{who}, that is a lot of commands: I will answer again in a minute.", who=who)
                  for who in ("Dave", "Erin")]
        await server.wait_for(lambda: announced(group, *notice), timeout=60, what="the throttle's notice in Chinese")
        # Replies go out a second apart: every one sent (those the throttle holds wait for its clock).
        await settled(server, app, timeout=60, commands_held=True)
        notices = [m for m in group.bot_messages() if "命令太多了" in (m.text or "")]
        assert len(notices) <= 2, [m.text for m in notices]  # once per full window, not once per command
        assert english_words(group) == []


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_member_refused_the_groups_language_is_answered_in_it(fake_telegram: FakeTelegram,
                                                                      tmp_path: Path) -> None:
    """Erin (not an admin, not the table's creator) asks for English: the refusal is in the group's language,
    as every reply there (it was in the language she asked for)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="zh-hans", started=True)
    erin = server.person("Erin", None, language_code="en", started=True)
    group = server.group("中文群", [ann, erin], creator=ann)
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "lang", "zh")
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await erin.command(group, "lang", "en")
        refusal = translator("zh")("Only the table's creator or a group admin can change the group's language.")
        await server.wait_for(lambda: announced(group, refusal) or english_words(group), what="the refusal")
        await settled(server, app)
        assert english_words(group) == []
        assert announced(group, refusal)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_only_the_tables_people_add_ai_seats_and_the_bot_says_hello_when_added(fake_telegram: FakeTelegram,
                                                                                     tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    erin = server.person("Erin", None, language_code="en", started=True)
    group = server.group("A group", [ann, erin])
    new = server.group("New group", [ann, erin])
    new.remove_bot(kicked=False)
    async with bot_running(server, tmp_path / "t.db") as app:
        new.add_bot(ann)
        await server.wait_for(lambda: announced(new, "Hello! I host 炒地皮"), what="the hello")
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await server.wait_for(lambda: lobby_button(table_message(group), "ai"), what="the lobby")
        refused = await press_lobby(server, erin, group, "ai")
        assert refused.show_alert and "add or remove AI seats" in refused.text
        assert not (await press_lobby(server, ann, group, "ai")).show_alert
        assert len([m for m in new.bot_messages() if "Hello! I host" in (m.text or "")]) == 1
