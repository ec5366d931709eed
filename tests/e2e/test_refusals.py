"""What the bot refuses: each gets its clear answer, and nothing changes.

Stale buttons, forged ``callback_data``, another person's button, commands
in the wrong chat, and a person who blocked the bot in the middle of a hand.
After each refusal the hand (engine fingerprint), the selections, the seats
and the table's status are as before, and no update failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import translator
from bot.model import Table
from engine.cards import shuffled_deck

from .botkit import bot_running, settled, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import CallbackAnswer, Group, MessageView, Person
from .scenario import (
    App,
    announced,
    fill_with_ai,
    hand_button,
    lobby_button,
    play_hand,
    play_until,
    press_lobby,
    start_match,
    up_to_date_hand,
    wait_seated,
)

EN, ZH = translator("en"), translator("zh")


def _state(table: Table) -> tuple[Any, ...]:
    assert table.match is not None
    return (table.match.hand.fingerprint(), [+table.selected(s) for s in range(4)], table.status,
            [(s.user_id, s.is_ai, s.timed_out) if s else None for s in table.seats])


async def _refused(server: FakeTelegram, app: App, table: Table, press: Callable[[], Awaitable[CallbackAnswer]],
                   expected: str) -> None:
    """Press, expect a popup with exactly this text, and nothing changed."""
    before = _state(table)
    answer = await press()
    assert answer.show_alert and answer.text == expected, (answer, expected)
    await settled(server, app)
    assert _state(table) == before


async def _replied(server: FakeTelegram, app: App, person: Person, chat: Group | None, command: str, expected: str,
                   table: Table, *args: str) -> None:
    """Send a command, expect the bot's reply with this text there, and nothing changed."""
    before = _state(table)
    sent = await person.command(chat, command, *args)
    where = person.private_messages if chat is None else chat.bot_messages

    def reply() -> MessageView | None:  # (PTB quotes the command in groups only)
        found = [m for m in where() if m.from_bot and m.message_id > sent.message_id
                 and m.reply_to_message_id in (None, sent.message_id)]
        return found[0] if found else None
    message = await server.wait_for(reply, what=f"the reply to /{command}")
    assert message.text == expected, (message.text, expected)
    await settled(server, app)
    assert _state(table) == before


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_refusals_answer_clearly_and_change_nothing(fake_telegram: FakeTelegram, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="zh-hans", started=True)
    eve = server.person("Eve", "eve", language_code="en", started=True)
    group = server.group("Card room", [alice, bob, eve])
    empty = server.group("Empty room", [eve])
    caplog.set_level(logging.ERROR, logger="bot")

    async with bot_running(server, tmp_path / "t.db", group_interval=1.0) as app:
        # --- the lobby -------------------------------------------------------------------------
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        answer = await press_lobby(server, bob, group, "sit", "2")
        assert not answer.show_alert
        await wait_seated(server, app, group, bob)
        table = tables(app).in_chat(group.id)
        assert table is not None
        answer = await press_lobby(server, eve, group, "start")
        assert answer.show_alert and answer.text == EN("Only someone seated at the table can start it.")
        answer = await press_lobby(server, bob, group, "set")
        assert answer.show_alert and answer.text == ZH("Only the table's creator or a group admin can change the settings.")
        assert table.status == "open" and table.id not in tables(app).lobby_panels
        old_lobby = await server.wait_for(lambda: lobby_button(table_message(group), "sit", "3") and table_message(group),
                                          what="the lobby with a free west seat")
        await fill_with_ai(server, alice, group, 2)
        await start_match(server, app, alice, group, seed_index=7)
        assert table.match is not None
        old_hand = await up_to_date_hand(server, alice, table, 0)  # the bidding keyboard
        hand = await play_until(server, table, {0: alice, 2: bob},
                                lambda h: len(h.tricks) >= 2 and h.turn == 0 and not h.current)
        mine = await up_to_date_hand(server, alice, table, 0)
        version = table.version(0)
        peek = await server.wait_for(lambda: hand_button(table_message(group), "peek") and table_message(group),
                                     what="the table message of the match")

        # --- stale buttons -------------------------------------------------------------------------
        # The bidding keyboard's Pass, pressed in the play: the window it answered is closed, and says so.
        await _refused(server, app, table, lambda: _press(alice, old_hand, "pass"),
                       EN("Bidding is closed; your hand is shown again."))
        await _refused(server, app, table, lambda: _press_lobby(eve, old_lobby, "sit", "3"),
                       EN("The match has started; seats are fixed now."))
        assert not eve.bot_private_messages(), "Eve was told she is joining a table she cannot join"

        # --- forged callback_data ------------------------------------------------------------------
        not_held = next(c for c in shuffled_deck(0) if c not in hand.hands[0])
        forged = [
            (alice, mine, "hello", EN("That button is not valid.")),
            (alice, mine, "H:1:" + "9" * 70, EN("That button is not valid.")),
            (alice, mine, f"H:{table.id + 99}:{version}:play", EN("That table is closed.")),
            (alice, mine, f"H:{table.id}:{version}:sel:{not_held}0",
             EN("That button is out of date; your hand is shown again.")),
            (alice, mine, f"H:{table.id}:{version}:trump:bid-Q", EN("That button is not valid.")),
            (alice, mine, f"H:{table.id}:{version}:play", EN("Select the cards first.")),
            (alice, peek, f"H:{table.id}:{version}:play", EN("That button is not valid.")),  # a hand button in the group
            (alice, peek, f"L:{table.id}:preset:nantong", EN("Settings cannot change once the match has started.")),
        ]
        for person, message, data, expected in forged:
            await _refused(server, app, table, lambda p=person, m=message, d=data: _forge(p, m, d), expected)  # type: ignore[misc]
        # Start once the match is under way: what it asks for holds, so it is said quietly (a toast, no alert).
        before = _state(table)
        quiet = await _forge(bob, peek, f"L:{table.id}:start")
        assert not quiet.show_alert and quiet.text == ZH("The match has already started."), quiet
        await settled(server, app)
        assert _state(table) == before

        # --- another person's button ----------------------------------------------------------------
        await _refused(server, app, table, lambda: _press(eve, peek, "peek"), EN("You are not playing at this table."))
        await eve.command(None, "help")
        eve_chat = await server.wait_for(lambda: eve.bot_private_messages() and eve.last_private_message(),
                                         what="Eve's /help")
        await _refused(server, app, table, lambda: _forge(eve, eve_chat, f"H:{table.id}:{version}:play"),
                       EN("You are not playing at this table."))
        await _refused(server, app, table, lambda: _forge(bob, peek, f"L:{table.id}:preset:nantong"),
                       ZH("Only the table's creator or a group admin can change the settings."))

        # --- commands in the wrong chat, or by the wrong person ---------------------------------
        await _replied(server, app, alice, None, "newgame",
                       EN("Open a table in a group chat: add me to a group and send /newgame there."), table)
        await _replied(server, app, alice, None, "leaderboard", EN("Send /leaderboard in a group."), table)
        await _replied(server, app, alice, None, "history", EN("Send /history in a group."), table)
        await _replied(server, app, eve, empty, "join", EN("There is no table here. Start one with /newgame."), table)
        await _replied(server, app, eve, group, "newgame", EN("This group already has a table. Use /stop to close it first."),
                       table)
        await _replied(server, app, eve, group, "leave", EN("You are not seated at a table in this chat."), table)
        # Everyone in the group reads the reply: it is in the group's language (the table's, English), not Bob's.
        await _replied(server, app, bob, group, "stop", EN("Only the table's creator or a group admin can stop it."), table)
        await _replied(server, app, bob, group, "lang", EN("Only the table's creator or a group admin can change the group's language."),
                       table, "en")
        assert tables(app).in_chat(group.id) is table and table.lang == "en"

        # --- a person who blocked the bot ----------------------------------------------------------
        bob.block_bot()
        await play_hand(server, table, {0: alice})  # Bob's next update fails: the AI plays for him
        assert hand.phase == "finished"
        assert announced(group, EN("{who} cannot receive my messages (blocked?): the AI plays for them.", who="Bob"))
        assert table.seats[2].timed_out and not table.seats[2].reachable  # type: ignore[union-attr]
        blocked = server.calls.calls(chat_id=bob.id, status=403)
        assert blocked, "the bot never met Bob's block"
        # The next hand does not wait for him either.
        next_hand = table.match.hand
        await play_hand(server, table, {0: alice})
        assert next_hand.over and table.seats[2].timed_out  # type: ignore[union-attr]
        # Bob comes back: Start in the private chat; his hand message shows the current hand again.
        await bob.start_private()
        await server.wait_for(lambda: table.seats[2].reachable, what="Bob reachable again")  # type: ignore[union-attr]
        await up_to_date_hand(server, bob, table, 2)

    popups = [p.text for person in (alice, bob, eve) for p in person.popups()]
    assert not any("Something went wrong" in (t or "") or "出错" in (t or "") for t in popups), popups
    failures = [r for r in caplog.records if r.name.startswith("bot") and r.levelno >= logging.ERROR]
    assert not failures, [r.getMessage() for r in failures]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_two_newgames_at_once_open_one_table_and_answer_both(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """Ann and Bo send /newgame at the same moment: both pass the check for a table before either is stored,
    and storage keeps one table a group.  Ann's table opens; Bo is told the group has one (the old code failed
    his update with a traceback, and he got no answer at all)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    bo = server.person("Bo", None, language_code="en", started=True)
    group = server.group("Two at once", [ann, bo])
    async with bot_running(server, tmp_path / "t.db") as app:
        await asyncio.gather(ann.command(group, "newgame"), bo.command(group, "newgame"))
        answer = EN("This group already has a table. Use /stop to close it first.")
        await server.wait_for(lambda: announced(group, answer), what="the answer to the second /newgame")
        await settled(server, app)
        assert len(tables(app).all_in_chat(group.id)) == 1
        assert sum(1 for m in group.bot_messages() if "Chao Di Pi" in (m.text or "")) == 1
    failures = [r for r in caplog.records if r.name.startswith("bot") and r.levelno >= logging.ERROR]
    assert not failures, [r.getMessage() for r in failures]


async def _press(person: Person, message: MessageView, op: str) -> CallbackAnswer:
    button = hand_button(message, op)
    assert button is not None, (op, message.labels)
    return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer()


async def _press_lobby(person: Person, message: MessageView, op: str, arg: str) -> CallbackAnswer:
    button = lobby_button(message, op, arg)
    assert button is not None, (op, message.labels)
    return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer()


async def _forge(person: Person, message: MessageView, data: str) -> CallbackAnswer:
    return await (await person.forge_callback(message, data)).answer()

