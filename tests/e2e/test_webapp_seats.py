"""A web app stream shows a seat only while its person holds it, and ends the moment they stop.

Each test opens the real bot's event stream for one seat, then the seat is
lost one way: a leave in the lobby (and a seat taken elsewhere), a leave
followed by someone else sitting there, an escape during the bidding, a
timeout with the AI taking over, the table stopped, the ``initData``
expiring.  Every ``state`` frame is then read card by card against what the
seat's person could know at its arrival (``leaks.find_seat_leaks``: after
the seat is lost, only what they knew then and what the group sees), and
the stream must have said why and ended.  The first three are the issue's
reproductions: on the old code the stream went on showing the seat's next
holder's cards, and a leaver's stream kept the newcomer's hand message
from being sent.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.model import Table
from bot.tables.turns import set_timer
from bot.webapp.initdata import sign

from .appkit import AppClient, Frame, Stream, app_base, init_data_for, stream, webapp_running
from .botkit import hand_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .leaks import Tenure, Timeline, find_seat_leaks
from .scenario import (
    App,
    fill_with_ai,
    play_hand,
    press_lobby,
    sit_from_group,
    start_match,
    wait_seated,
)
from .seat_changes import leave

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


@pytest.fixture
def timeline(monkeypatch: pytest.MonkeyPatch) -> Timeline:
    """Every hand dealt and every action applied, with the moment it happened."""
    recorded = Timeline()
    recorded.install(monkeypatch)
    return recorded


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client_session:
        yield client_session


async def new_table(server: FakeTelegram, app: App, group: Group, creator: Person) -> Table:
    """The creator opens a table (盐城: hidden bidding) and sits at N."""
    await creator.command(group, "newgame", "yancheng")
    await server.wait_for(lambda: group.bot_messages(), what="the table message")
    assert await wait_seated(server, app, group, creator) == 0
    table = tables(app).in_chat(group.id)
    assert table is not None
    return table


async def sit(server: FakeTelegram, app: App, group: Group, person: Person, seat: int) -> float:
    """The person takes ``seat``; the moment they held it."""
    await sit_from_group(server, person, group, seat)
    assert await wait_seated(server, app, group, person) == seat
    return time.monotonic()


def states(frames: Sequence[Frame]) -> list[tuple[float, Any]]:
    """The ``state`` frames, as the leak scan reads them."""
    return [(frame.at, frame.data) for frame in frames if frame.event == "state"]


def assert_ended_saying(events: Stream, event: str, reason: str) -> None:
    """The stream's last event is ``event`` with ``reason`` (in the reader's words too), and it ended."""
    assert events.ended, "the stream is still open"
    last = events.frames[-1]
    assert (last.event, last.data.get("reason")) == (event, reason), events.frames[-3:]
    assert last.data.get("text"), last.data


def scan(timeline: Timeline, table: Table, tenures: dict[int, list[Tenure]],
         streams: Sequence[tuple[list[Tenure], Stream]], server: FakeTelegram) -> None:
    """No private chat and no stream frame showed a card its reader could not know then."""
    assert table.match is not None
    match = table.match
    found = find_seat_leaks(server, timeline, tenures, lambda deal: match.hand_seed(deal - 1),
                            [(held, states(events.frames)) for held, events in streams])
    assert found.frames > 0
    assert not found.leaks, "\n".join(map(str, found.leaks[:10]))


# --- the three reproductions ---------------------------------------------------------------

async def test_leaving_a_seat_in_the_lobby_and_sitting_elsewhere_ends_the_old_seats_stream(
        fake_telegram: FakeTelegram, tmp_path: Path, timeline: Timeline, session: aiohttp.ClientSession) -> None:
    """Dave sits at S, opens the app, leaves and sits at W; the AI takes S and the match starts: his S stream
    (which showed S's whole hand on the old code) says he left and ends, and shows none of S's cards."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    dave = server.person("Dave", "dave", language_code="en", started=True)
    group = server.group("Lobby leave", [alice, dave])
    async with webapp_running(server, tmp_path / "t.db") as app:
        table = await new_table(server, app, group, alice)
        at_s = await sit(server, app, group, dave, 2)
        dave_app = AppClient(session, app_base(app), init_data_for(server, dave))
        async with stream(dave_app, table.id) as at_south:
            await server.wait_for(lambda: at_south.states, what="Dave's first state")
            left = time.monotonic()
            answer = await press_lobby(server, dave, group, "leave")
            assert not answer.show_alert, answer.text
            at_w = await sit(server, app, group, dave, 3)
            await fill_with_ai(server, alice, group, 2)  # seats E and S
            await start_match(server, app, alice, group)
            await server.wait_for(lambda: hand_message(dave), what="Dave's hand at W")
            # The old code sent the match to the S stream as soon as it started.
            await server.wait_for(lambda: at_south.ended or any(f.data.get("view") for f in at_south.frames),
                                  what="the S stream to end or show the match")
            scan(timeline, table, {dave.id: [Tenure(2, at_s, left), Tenure(3, at_w)]},
                 [([Tenure(2, at_s, left)], at_south)], server)
            assert_ended_saying(at_south, "left", "seat")


async def test_a_stream_shows_nothing_of_the_next_person_at_its_seat_who_gets_their_hand_message(
        fake_telegram: FakeTelegram, tmp_path: Path, timeline: Timeline, session: aiohttp.ClientSession) -> None:
    """Dave sits at E, opens the app and leaves; Carol sits at E.  Dave's stream shows none of Carol's cards
    (the old code streamed her hand "you sit E"), and Carol gets her private hand message at once (the old
    code held it back until Dave's stream closed: the app counted as open for whoever sat at E)."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    carol = server.person("Carol", "carol", language_code="zh-hans", started=True)
    dave = server.person("Dave", "dave", language_code="en", started=True)
    group = server.group("Next at E", [alice, carol, dave])
    async with webapp_running(server, tmp_path / "t.db") as app:
        table = await new_table(server, app, group, alice)
        at_e = await sit(server, app, group, dave, 1)
        dave_app = AppClient(session, app_base(app), init_data_for(server, dave))
        async with stream(dave_app, table.id) as at_east:
            await server.wait_for(lambda: at_east.states, what="Dave's first state")
            left = time.monotonic()
            answer = await press_lobby(server, dave, group, "leave")
            assert not answer.show_alert, answer.text
            carol_sat = await sit(server, app, group, carol, 1)
            await fill_with_ai(server, alice, group, 2)
            await start_match(server, app, alice, group)
            await server.wait_for(lambda: hand_message(carol), timeout=10, what="Carol's hand message")
            await server.wait_for(lambda: at_east.ended or any(f.data.get("view") for f in at_east.frames),
                                  what="Dave's stream to end or show the match")
            scan(timeline, table, {dave.id: [Tenure(1, at_e, left)], carol.id: [Tenure(1, carol_sat)]},
                 [([Tenure(1, at_e, left)], at_east)], server)
            assert_ended_saying(at_east, "left", "seat")


async def test_an_escape_during_the_bidding_ends_the_stream_before_the_next_deal(
        fake_telegram: FakeTelegram, tmp_path: Path, timeline: Timeline, session: aiohttp.ClientSession) -> None:
    """Eve escapes with /leave during the bidding (free: no card played); the AI takes her seat and the next
    hand is dealt.  Her stream (which on the old code showed the AI's new deal and its hidden bid) ends."""
    server = fake_telegram
    eve = server.person("Eve", "eve", language_code="en", started=True)
    frank = server.person("Frank", "frank", language_code="zh-hans", started=True)
    group = server.group("Escape", [eve, frank])
    async with webapp_running(server, tmp_path / "t.db") as app:
        table = await new_table(server, app, group, eve)
        frank_sat = await sit(server, app, group, frank, 2)
        await fill_with_ai(server, eve, group, 2)
        await start_match(server, app, eve, group)
        assert table.match is not None
        eve_app = AppClient(session, app_base(app), init_data_for(server, eve))
        async with stream(eve_app, table.id) as events:
            await server.wait_for(lambda: events.states and events.states[-1]["view"], what="Eve's first deal")
            tenure = [Tenure(0, 0.0)]
            assert await leave(server, app, group, eve, tenure)
            assert (await eve_app.get(f"/app/api/tables/{table.id}"))[0] == 403
            await server.wait_for(lambda: table.match is not None and table.match.deals >= 2, what="the next deal")
            await server.wait_for(lambda: events.ended or any((f.data.get("version") or "").startswith("2.")
                                                              for f in events.frames), what="the stream's end")
            scan(timeline, table, {eve.id: tenure, frank.id: [Tenure(2, frank_sat)]}, [(tenure, events)], server)
            assert_ended_saying(events, "left", "seat")


# --- the other ways of losing a seat ---------------------------------------------------------------------

async def test_a_timeout_ends_the_stream_and_the_page_offers_the_way_back(
        fake_telegram: FakeTelegram, tmp_path: Path, timeline: Timeline, session: aiohttp.ClientSession) -> None:
    """Alice times out and the AI plays for her: like her keyboard, the app shows no card while she is away;
    the stream says so and ends; 「我回来了」 in the app brings her back, cards and all."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    group = server.group("Away", [alice])
    async with webapp_running(server, tmp_path / "t.db") as app:
        table = await new_table(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        await start_match(server, app, alice, group)
        assert table.match is not None
        await play_hand(server, table, {0: alice}, until=lambda h: h.phase == "playing" and h.turn == 0)
        alice_app = AppClient(session, app_base(app), init_data_for(server, alice))
        async with stream(alice_app, table.id) as events:
            await server.wait_for(lambda: events.states and events.states[-1]["hand"], what="Alice's cards")
            service = tables(app)
            async with table.lock:
                table.deadline = time.time() - 1
                set_timer(service, table)
            info = table.seats[0]
            assert info is not None
            await server.wait_for(lambda: info.timed_out, what="the timeout")
            away = time.monotonic()
            await server.wait_for(lambda: events.ended, what="the stream's end")
            tenure = [Tenure(0, 0.0, away)]
            scan(timeline, table, {alice.id: tenure}, [(tenure, events)], server)
            assert_ended_saying(events, "left", "away")
            assert events.left is not None and events.left["text"] == "AI 替你出牌，直到你回来。"
        status, body = await alice_app.get(f"/app/api/tables/{table.id}")
        assert status == 200 and body["state"]["away"] and body["state"]["hand"] == [], body
        assert body["state"]["view"] is None and body["state"]["mode"] is None
        status, body = await alice_app.post(f"/app/api/tables/{table.id}/back", {"nonce": "b" * 16})
        assert status == 200 and body["ok"] and not body["state"]["away"], body
        assert not info.timed_out and body["state"]["hand"]
        status, body = await alice_app.post(f"/app/api/tables/{table.id}/back", {"nonce": "c" * 16})
        assert status == 409 and body["refusal"] == "这个座位已经是你自己在打了。", body


async def test_stopping_the_table_closes_the_stream(
        fake_telegram: FakeTelegram, tmp_path: Path, timeline: Timeline, session: aiohttp.ClientSession) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Stop", [alice])
    async with webapp_running(server, tmp_path / "t.db") as app:
        table = await new_table(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        await start_match(server, app, alice, group)
        alice_app = AppClient(session, app_base(app), init_data_for(server, alice))
        async with stream(alice_app, table.id) as events:
            await server.wait_for(lambda: events.states and events.states[-1]["hand"], what="Alice's cards")
            await alice.command(group, "stop")
            stopped = time.monotonic()
            await server.wait_for(lambda: events.ended, what="the stream's end")
            assert_ended_saying(events, "closed", "table")
            assert not [f for f in events.frames_after(stopped) if f.event == "state" and f.data["hand"]
                        and f.data["status"] != "playing"], "a closed table's state showed cards"
            assert events.left is None


async def test_a_stream_ends_when_its_init_data_expires(
        fake_telegram: FakeTelegram, tmp_path: Path, session: aiohttp.ClientSession) -> None:
    """initData's age is checked for as long as the stream runs, not only when it opens."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Expiry", [alice])
    async with webapp_running(server, tmp_path / "t.db", webapp_max_age=20.0) as app:
        table = await new_table(server, app, group, alice)
        user = {"id": alice.id, "first_name": "Alice", "language_code": "en"}
        alice_app = AppClient(session, app_base(app), sign(server.token, user, auth_date=int(time.time()) - 14))
        async with stream(alice_app, table.id) as events:
            await server.wait_for(lambda: events.states, what="Alice's first state")
            await server.wait_for(lambda: events.ended, timeout=30, what="the stream's end")
            assert_ended_saying(events, "left", "expired")
            assert events.left is not None and "Telegram" in events.left["text"]
        assert (await alice_app.get(f"/app/api/tables/{table.id}"))[0] == 401
