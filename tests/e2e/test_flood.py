"""Flood limits: no 429 reaches a person as a failure, and the group's message budget holds.

Telegram allows about 20 messages a minute in a group (edits count), one a
second in a chat, 30 a second overall; the fake answers 429 with
``retry_after`` beyond that.  The bot coalesces group edits; its
``ChatRateLimiter`` throttles each chat and waits out a 429 (in that chat only)
before retrying.
What a person must never see: a press left unanswered or answered too late
("query is too old"), an error popup, a message that stays out of date.
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path

import pytest

from bot.model import Table
from bot.tables import Tables

from . import scenario
from .botkit import bot_running, current_hand_message, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .fake_telegram.recording import CallRecord
from .scenario import announced, choose_setting, fill_with_ai, play_hand, start_match, wait_seated

COUNTED = {"sendmessage", "editmessagetext", "editmessagereplymarkup"}


def most_in_window(records: list[CallRecord], window: float) -> int:
    """The most successful messages and edits among ``records`` in any ``window`` seconds."""
    times: deque[float] = deque()
    most = 0
    for record in records:
        if record.method.lower() not in COUNTED or not record.ok:
            continue
        times.append(record.at)
        while times[0] <= record.at - window:
            times.popleft()
        most = max(most, len(times))
    return most


def never_retried(server: FakeTelegram) -> list[CallRecord]:
    """Calls refused with 429 that were not sent again successfully (should be none)."""
    lost = []
    records = server.calls.records
    for index, record in enumerate(records):
        if record.status == 429 and not any(
                r.method == record.method and r.params == record.params
                and (r.ok or "not modified" in (r.description or "")) for r in records[index + 1:]):
            lost.append(record)
    return lost


async def check_people_saw_no_failure(server: FakeTelegram, app: scenario.App, table: Table, group: Group,
                                      people: dict[int, Person], caplog: pytest.LogCaptureFixture) -> None:
    """Every press answered in time and without an error; nothing failed for good; the messages are current."""
    for query in server.state.callback_queries.values():
        assert query.answered, query
        assert not (query.answer_text or "").startswith(("Something went wrong", "出错")), query
    too_old = [r for r in server.calls.calls("answerCallbackQuery") if not r.ok]
    assert not too_old, too_old
    service: Tables = tables(app)
    publisher = service.publisher
    assert publisher is not None
    # The last press is answered before the group hears of it: let the edits and the outbox finish.
    # An edit refused with 429 may still be waiting out its "retry after": judge the retries once every
    # pending edit is made.
    await settled(server, app, timeout=120)
    assert not never_retried(server)
    given_up = [r.getMessage() for r in caplog.records if r.name == "bot.publisher"]
    assert not given_up, given_up  # "send failed" / "edit failed": a 429 beyond the retries
    text, _markup = service.render_group_message(table)
    last = [r for r in server.calls.records if r.chat_id == group.id and r.ok
            and r.method == "editMessageText" and r.params.get("message_id") == table.message_id]
    assert last and last[-1].params["text"] == text, "the group's table message is out of date"
    for seat, person in people.items():
        if table.playing:
            assert current_hand_message(person, table, seat) is not None, f"{person.name}'s hand is out of date"


@pytest.mark.long
@pytest.mark.fake_telegram()  # Telegram's own figures, real clock
async def test_real_limits_a_whole_match_at_ai_speed(fake_telegram: FakeTelegram, tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    server = fake_telegram
    caplog.set_level(logging.WARNING, logger="bot")
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Rush hour", [alice])
    async with bot_running(server, tmp_path / "t.db", group_interval=3.5, tap_gap=1.0) as app:  # the production intervals
        await alice.command(group, "newgame", "xin")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        # The casual AI, whose moves depend on the deal alone: the strong AI's search stops at a time
        # budget, so on a loaded machine it plays other moves, and the match could last many more hands.
        await choose_setting(server, alice, group, "strength", "casual")
        table = await start_match(server, app, alice, group, 1)  # 7 hands
        assert table.match is not None and table.settings.ai_strength == "casual"
        while not table.match.over:
            await play_hand(server, table, {0: alice})
        # Each hand's result is a group message besides the table edits: at AI speed the group's 20 a minute
        # fill up, and the match's end may wait out the rest of a minute before it is announced.
        await server.wait_for(lambda: announced(group, "win the match!"), timeout=90, what="the end of the match")
        await check_people_saw_no_failure(server, app, table, group, {0: alice}, caplog)
    group_calls = [r for r in server.calls.records if r.chat_id == group.id]
    assert most_in_window(group_calls, 60.0) <= 20


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits(per_chat_rate=0.5, per_chat_burst=1, group_max=4, group_window=4.0))
async def test_tight_limits_every_429_is_waited_out_and_retried(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits far tighter than Telegram's (4 group messages in 4 s, one every 2 s in a chat) force 429s."""
    server = fake_telegram
    caplog.set_level(logging.WARNING, logger="bot")
    monkeypatch.setattr(scenario, "ANSWER_TIMEOUT", 14.0)  # Telegram's clients wait about that long
    alice = server.person("Alice", "alice", language_code="en", started=True)
    bob = server.person("Bob", "bob", language_code="zh-hans", started=True)
    group = server.group("Crowded", [alice, bob])
    async with bot_running(server, tmp_path / "t.db", group_interval=1.0) as app:
        await alice.command(group, "newgame")
        await wait_seated(server, app, group, alice)
        answer = await scenario.press_lobby(server, bob, group, "sit", "2")
        assert not answer.show_alert
        await wait_seated(server, app, group, bob)
        await fill_with_ai(server, alice, group, 2)
        table = await start_match(server, app, alice, group, 3)
        assert table.match is not None
        hand = table.match.hand
        await play_hand(server, table, {0: alice, 2: bob})
        assert hand.over
        await check_people_saw_no_failure(server, app, table, group, {0: alice, 2: bob}, caplog)
    assert server.flood.rejections_by_chat[group.id] >= 1, "the limits never bit: the test proves nothing"
    group_calls = [r for r in server.calls.records if r.chat_id == group.id]
    assert most_in_window(group_calls, 4.0) <= 4
