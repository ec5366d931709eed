"""A group that becomes a supergroup gets no second hello.

Telegram may tell the bot that it "joined" the new supergroup
(tdlib/telegram-bot-api issue #266), before the upgrade's service messages
or after them; the bot has been in the group all along, so it says nothing.
A supergroup the bot is really added to still gets its hello, a few seconds
later (it waits for an upgrade's notice).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.handlers import group_events

from .botkit import bot_running, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group
from .scenario import announced, wait_seated

HELLO = "Hello! I host 炒地皮"
WAIT = 1.0
"""The hello's wait in a supergroup, shortened for the tests."""


def _hellos(group: Group, chat_id: int | None = None) -> int:
    return sum(HELLO in (m.text or "") for m in group.messages(chat_id=chat_id) if m.from_bot)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("joined", ["before", "after"])
async def test_an_upgraded_group_is_not_greeted_again(fake_telegram: FakeTelegram, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, joined: str) -> None:
    monkeypatch.setattr(group_events, "HELLO_WAIT", WAIT)
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    group = server.group("Growing group", [ann], creator=ann)
    old = group.id
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        new = await group.migrate_to_supergroup(ann, joined=joined)
        await server.wait_for(lambda: tables(app).in_chat(new) is not None, what="the table in the new chat")
        await asyncio.sleep(2 * WAIT)  # past the hello's wait
        await settled(server, app)
        assert not server.state.updates.pending
        assert _hellos(group) == 0 and _hellos(group, old) == 0, [m.text for m in group.bot_messages()]
        assert tables(app).tasks.summary()["failed"] == 0


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_supergroup_the_bot_is_added_to_is_greeted_once(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group_events, "HELLO_WAIT", WAIT)
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=True)
    fresh = server.group("Fresh supergroup", [ann], supergroup=True)
    fresh.remove_bot(kicked=False)
    async with bot_running(server, tmp_path / "t.db") as app:
        fresh.add_bot(ann)
        await server.wait_for(lambda: announced(fresh, HELLO), timeout=10 * WAIT, what="the hello")
        await settled(server, app)
        assert _hellos(fresh) == 1
