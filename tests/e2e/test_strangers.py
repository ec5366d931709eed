"""Abuse tried from outside, against the real bot through the fake Telegram.

* A seat link (``/start s…``) seats only members of the table's group (the
  bot asks ``getChatMember``); a payload guessed from the table id seats nobody.
* Hostile group titles and names (``<b>``, ``&``, ``<3``, 200 characters,
  RTL marks, emoji) never break a message: Telegram refuses none of them.
* A flood of junk commands with long arguments gets a few answers and one
  notice, spaced a second apart (never a 429), the rest held back (ten at
  most) or dropped, and no handler fails; a game command is always answered.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot import links
from bot.budget import PER_CHAT
from bot.handlers.throttle import GAME_COMMANDS, MOST_WAITING

from .botkit import bot_running, command_budget_on, settled, tables
from .fake_telegram import FakeClock, FakeTelegram, FloodLimits
from .fake_telegram.people import Person
from .scenario import press_lobby, sit_from_group, start_match, wait_seated

HOSTILE = ("<b>", "Tom & Jerry <3", "\u202eevil\u202c 🃏 " + "名" * 190, "&amp; <i>x</i> 🙂")


def _last_private(person: Person) -> str:
    messages = person.bot_private_messages()
    return messages[-1].text or "" if messages else ""


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_seat_link_seats_members_of_its_group_only(fake_telegram: FakeTelegram, tmp_path: Path,
                                                           lang: str) -> None:
    server = fake_telegram
    code = "zh-hans" if lang == "zh" else "en"
    alice = server.person("Alice", None, language_code=code, started=True)
    bob = server.person("Bob", None, language_code=code)  # a member who never opened the bot
    mallory = server.person("Mallory", None, language_code=code, started=True)  # not in the group
    group = server.group("Members", [alice, bob])
    server.group("Elsewhere", [mallory])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        table = tables(app).in_chat(group.id)
        assert table is not None
        # Bob cannot be reached: his Sit button answers with the seat link.
        answer = await press_lobby(server, bob, group, "sit", "2")
        assert answer.url is not None
        # Mallory got hold of it (forwarded): refused, not seated.
        await mallory.open_link(answer.url)
        refusal = "这个链接只给本群成员入座" if lang == "zh" else "This link seats members of its group only"
        await server.wait_for(lambda: refusal in _last_private(mallory), what="the stranger's refusal")
        assert table.seat_of(mallory.id) is None
        # A payload guessed from the table id alone (the old form) seats nobody either.
        await mallory.start_private(f"s{table.id}_1")
        invalid = "这个链接无效" if lang == "zh" else "That link is not valid"
        await server.wait_for(lambda: invalid in _last_private(mallory), what="the guessed link refused")
        assert table.seat_of(mallory.id) is None
        # Bob, a member, takes the seat with the same link.
        await bob.open_link(answer.url)
        assert await wait_seated(server, app, group, bob) == 2
        assert links.table_token(server.token, table.id) in answer.url
        assert not server.calls.errors() or all(r.status == 403 for r in server.calls.errors())


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_hostile_titles_and_names_break_no_message(fake_telegram: FakeTelegram, tmp_path: Path,
                                                         lang: str) -> None:
    server = fake_telegram
    code = "zh-hans" if lang == "zh" else "en"
    people = [server.person(name, None, language_code=code, started=index != 1) for index, name in enumerate(HOSTILE)]
    group = server.group(HOSTILE[1], people)
    async with bot_running(server, tmp_path / "t.db") as app:
        creator = people[0]
        await creator.command(group, "newgame")
        await wait_seated(server, app, group, creator)
        # The one who never opened the bot gets the link, opens it, and is told where they sit.
        await sit_from_group(server, people[1], group, 1)
        await wait_seated(server, app, group, people[1])
        await server.wait_for(lambda: any("Tom & Jerry <3" in (m.text or "") for m in people[1].bot_private_messages()),
                              what="the seat confirmation naming the group")
        for seat, person in ((2, people[2]), (3, people[3])):
            await sit_from_group(server, person, group, seat)
            await wait_seated(server, app, group, person)
        table = await start_match(server, app, creator, group)
        await server.wait_for(lambda: all(p.bot_private_messages() for p in people), what="every hand message")
        await people[2].command(group, "leave")  # bidding: free, announced with the name
        await server.wait_for(lambda: table.seat_of(people[2].id) is None, what="the leave")
        await settled(server, app)
        for person in people[:2]:
            await person.command(group, "stats")
        await people[0].command(group, "leaderboard")
        await settled(server, app)
    refused = [r for r in server.calls.errors() if r.status == 400]
    assert not refused, refused[:3]


@pytest.mark.long
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_flood_of_junk_commands_is_budgeted(fake_telegram: FakeTelegram, tmp_path: Path, lang: str,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Telegram's own limits: 40 junk commands with 1,500–4,000-character arguments from two people."""
    server = fake_telegram
    code = "zh-hans" if lang == "zh" else "en"
    eve = server.person("Eve", None, language_code=code, started=True)
    zed = server.person("Zed", None, language_code=code, started=True)
    group = server.group("Flood", [eve, zed])
    caplog.set_level(logging.WARNING)
    async with bot_running(server, tmp_path / "t.db") as app:
        # The budget's time stands still: what it answers, notices and holds depends on the commands' order
        # alone, not on how long a loaded machine took to send forty of them.
        command_budget_on(app, FakeClock())
        commands = ("rules", "stats", "help", "newgame", "lang", "leaderboard", "join", "hand")
        for index in range(40):
            person = (eve, zed)[index % 2]
            junk = ("x<&>" * 1000)[: 1500 + 62 * index]
            await person.command(group, commands[index % len(commands)], junk)
        # Every command handled, every answer sent (a second apart at least): what the throttle holds back
        # waits for its budget's clock, which stands still.
        await settled(server, app, timeout=120, commands_held=True)
        asked = {m.message_id: (m.text or "")[1:].split("@")[0] for m in group.messages() if not m.from_bot}
        replies = [asked[m.reply_to_message_id] for m in group.bot_messages() if m.reply_to_message_id is not None]
        notices = [m for m in group.bot_messages() if m.reply_to_message_id is not None
                   and ("命令太多了" in (m.text or "") or "that is a lot of commands" in (m.text or ""))]
        held = [text[1:].split("@")[0] for _update, _chat, _user, text in app.bot_data["commands_later"].waiting]
    # A game command is handled whatever the budget (each of the ten once); of the others, at most the chat's
    # budget is answered, one notice says to wait, at most MOST_WAITING wait to be answered later (after the
    # notice), and the rest are dropped; spaced so that Telegram refuses none.
    games = [name for name in replies if name in GAME_COMMANDS]
    assert sorted(games) == sorted(commands[i % len(commands)] for i in range(40)
                                   if commands[i % len(commands)] in GAME_COMMANDS), replies
    assert len(notices) == 1, replies
    answered = len(replies) - len(games) - len(notices)
    assert 1 <= answered <= PER_CHAT[0], replies
    assert len(held) == MOST_WAITING and not set(held) & GAME_COMMANDS, held
    assert server.calls.count(status=429) == 0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[-2000:]
    assert "Rate limit hit" not in caplog.text
