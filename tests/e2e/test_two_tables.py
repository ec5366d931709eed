"""A person at two tables (issue 55): their private messages of both tables are paced together, so quick
taps at both draw no 429; a result names its group.

Private edits count against Telegram's one-a-second limit here (the fake's ``edits_count_in_private``):
the strictest reading, as the run of issue 55 met it (41 × 429, all in one person's chat).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.model import Table

from .botkit import bot_running, hand_message, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits, Group, Person

TAPS = 30
"""Taps at each table, each a fifth of a second after the last one at the other table."""


async def _open(server: FakeTelegram, app, person: Person, group: Group) -> Table:  # type: ignore[no-untyped-def]
    await person.command(group, "newgame")
    await server.wait_for(lambda: group.bot_messages(), what="the table message")
    for _ in range(3):
        await (await person.press(table_message(group), "+ AI")).answer()
    await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), what="a full table")
    table = tables(app).in_chat(group.id)
    assert table is not None
    assert not (await (await person.press(table_message(group), "▶️ Start")).answer()).show_alert
    return table


def _hand_of(person: Person, table: Table):  # type: ignore[no-untyped-def]
    """The person's hand message of this table (its buttons carry the table's id)."""
    for message in reversed(person.bot_private_messages()):
        if any(b.callback_data and b.callback_data.startswith(f"H:{table.id}:") for b in message.all_buttons()):
            return message
    return None


@pytest.mark.fake_telegram(limits=FloodLimits(edits_count_in_private=True))
async def test_quick_taps_at_two_tables_draw_no_429_in_the_persons_chat(fake_telegram: FakeTelegram,
                                                                         tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", None, language_code="en", started=True)
    first, second = server.group("Monday", [alice]), server.group("Friday", [alice])
    async with bot_running(server, tmp_path / "t.db", ai_delay=600.0, tap_gap=1.0) as app:
        tables_ = [await _open(server, app, alice, group) for group in (first, second)]
        messages = [await server.wait_for(lambda t=t: _hand_of(alice, t), timeout=15, what="a hand message")
                    for t in tables_]
        assert all(m.text is not None and g.chat.title in m.text for m, g in zip(messages, (first, second)))
        assert hand_message(alice) is not None
        mark = server.calls.mark()
        for tap in range(TAPS):  # select and unselect one card, at both tables in turn, quicker than 1 a second
            for message in messages:
                card = next(b for b in message.all_buttons() if b.callback_data and ":sel:" in b.callback_data)
                await (await alice.press(message, lambda b, c=card.callback_data: b.callback_data == c)).answer()
                await asyncio.sleep(0.2)
        publisher = tables(app).publisher
        assert publisher is not None
        await server.wait_for(lambda: publisher.settled, timeout=60, what="every edit made")
        calls = server.calls.since(mark)
    edits = [r for r in calls if r.method == "editMessageText" and r.chat_id == alice.id]
    assert edits, "no edit was made: the test proves nothing"
    refused = [r for r in calls if r.status == 429]
    print(f"private edits {len(edits)}, 429s {len(refused)}")
    assert not refused, f"{len(refused)} × 429 in {len(edits)} edits"
    assert server.flood.rejections_by_chat[alice.id] == 0
