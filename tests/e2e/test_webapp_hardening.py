"""The web app's server against odd input and greedy clients: 4xx with a reason, the log clean, bounded work.

* Every input of ``odd_inputs.py`` (ids that are not ASCII digits or are
  past SQLite's range, JSON of the wrong shape, size or depth, malformed
  nonces, oversized or broken headers) gets a 4xx, nothing changes, and
  no log line holds a traceback or a piece of ``initData``.
* Every answer of the app carries the security headers; authenticated
  answers are never cached.
* The server's own answers to malformed HTTP carry the same headers and
  quote nothing of the request.
* Streams are capped per person and per table (the places of someone who
  left never lock a newcomer out); a stream needs a ticket
  from an authenticated POST, used once, so ``initData`` never travels in
  a URL.
* A client that never finishes its request headers is disconnected.
* A storage fault that can pass is 503 with a reason, not a 500.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs

import aiohttp
import pytest

import bot.webhook
import storage
from bot.webapp import headers as webapp_headers
from bot.webapp import streams as webapp_streams
from bot.webapp.initdata import sign

from .appkit import AppClient, app_base, init_data_for, stream, webapp_running
from .botkit import tables
from .fake_telegram import FakeTelegram, FloodLimits
from .odd_inputs import Answer, try_all
from .scenario import App, fill_with_ai, press_lobby, sit_from_group, start_match, wait_seated

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


class Playing:
    """Alice (N) and three AI seats at a table whose match has started, with her web app's client."""

    def __init__(self, server: FakeTelegram, app: App, table_id: int, client: AppClient) -> None:
        self.server, self.app, self.table_id, self.client = server, app, table_id, client

    @property
    def port(self) -> int:
        return int(self.app.bot_data["http"].port)


@pytest.fixture
async def playing(fake_telegram: FakeTelegram, tmp_path: Path) -> AsyncIterator[Playing]:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Hardening", [alice])
    async with webapp_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame", "yancheng")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        await wait_seated(server, app, group, alice)
        await fill_with_ai(server, alice, group, 3)
        table = await start_match(server, app, alice, group)
        # A first name found nowhere but in this initData: the log must never show it.
        init_data = sign(server.token, {"id": alice.id, "first_name": "Zelda-Marker", "language_code": "en"})
        async with aiohttp.ClientSession() as session:
            yield Playing(server, app, table.id, AppClient(session, app_base(app), init_data))


async def test_every_odd_input_gets_a_4xx_and_the_log_no_traceback_nor_init_data(
        playing: Playing, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="aiohttp")
    table = tables(playing.app).get(playing.table_id)
    assert table is not None and table.match is not None
    hand = table.match.hand
    answers: list[Answer] = []
    client = playing.client
    await try_all(client.session, client.base, playing.port, client.init_data, table.id, table.version(0),
                  answers.append)
    wrong = [a for a in answers if not 400 <= a.status < 500]
    assert not wrong, wrong[:10]
    by_category = Counter(a.category for a in answers)
    assert by_category["JSON body (act)"] >= 30 and by_category["HTTP"] >= 8 and len(answers) > 250, by_category
    # Our own answers say why (aiohttp's answers to broken HTTP are its own).
    unexplained = [a for a in answers if a.category != "HTTP" and a.status != 404 and not a.reason]
    assert not unexplained, unexplained[:10]
    assert not [e for e in hand.events if e.action.seat == 0], "an odd input made a move (the AI seats may)"
    # Malformed ids are 400, well-formed ids of nothing 403; a malformed nonce is 400, not "replayed".
    assert {a.status for a in answers if a.category == "hand id" and a.label == "²"} == {400}
    assert {a.status for a in answers if a.category == "hand id" and a.label.startswith("9223372036854775807")} \
        == {403}
    assert {a.status for a in answers if a.category == "JSON body (act)" and a.label.startswith("nonce")} == {400}

    fields = {key: values[0] for key, values in parse_qs(client.init_data).items()}
    fragments = ("Zelda", fields["hash"], fields["query_id"], "auth_date", '{"id"', "%7B%22id")
    for record in caplog.records:
        message = record.getMessage()
        assert record.exc_info is None and "Traceback" not in message, (record.name, message)
        assert not [f for f in fragments if f in message], (record.name, message)


async def test_a_replayed_nonce_is_403_and_a_well_formed_move_still_works(playing: Playing) -> None:
    client, table_id = playing.client, playing.table_id
    table = tables(playing.app).get(table_id)
    assert table is not None and table.match is not None
    for attempt in range(10):  # an AI seat's bid may change the version between the read and the move
        body = {"op": "pass", "cards": [], "trump": None, "version": table.version(0), "nonce": f"{attempt:016}"}
        status, answer = await client.post(f"/app/api/tables/{table_id}/act", body)
        if status == 200:
            break
    assert status == 200 and answer["ok"], answer
    status, answer = await client.post(f"/app/api/tables/{table_id}/act", body)
    assert status == 403 and answer["error"] == "replayed request", answer


async def test_every_answer_carries_the_security_headers(playing: Playing) -> None:
    client, base = playing.client, playing.client.base
    async with client.session.get(base + "/app/") as page:
        assert page.status == 200
        csp = page.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self' https://telegram.org" in csp, csp
        assert "connect-src 'self'" in csp and "'unsafe-inline'" not in csp and "base-uri 'none'" in csp, csp
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Referrer-Policy"] == "no-referrer"
    for path in ("/app/app.js", "/app/app.css"):
        async with client.session.get(base + path) as response:
            assert response.headers["X-Content-Type-Options"] == "nosniff"
    answers = []
    for method, path, headers in (("GET", "/app/api/tables", client.headers),
                                  ("GET", f"/app/api/tables/{playing.table_id}", client.headers),
                                  ("GET", "/app/api/tables", {}),  # refused: 401
                                  ("POST", f"/app/api/tables/{playing.table_id}/ticket", client.headers),
                                  ("GET", "/app/api/tables/²", client.headers)):  # malformed: 400
        async with client.session.request(method, base + path, headers=headers) as response:
            answers.append(response.status)
            assert response.headers["Cache-Control"] == "no-store", (path, response.status)
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert "Content-Security-Policy" in response.headers
    assert answers == [200, 200, 401, 200, 400]
    async with stream(client, playing.table_id) as events:
        await playing.server.wait_for(lambda: events.states, what="the stream")
        assert events.headers is not None and events.headers["Cache-Control"] == "no-store"


async def test_a_stream_needs_a_fresh_ticket_and_init_data_never_goes_in_a_url(playing: Playing) -> None:
    client, table_id = playing.client, playing.table_id
    status, answer = await client.post(f"/app/api/tables/{table_id}/ticket", {})
    assert status == 200 and answer["ok"], answer
    ticket = answer["ticket"]
    assert ticket not in client.init_data and len(ticket) >= 32
    url = f"{client.base}/app/api/tables/{table_id}/events?ticket={ticket}"
    async with client.session.get(url) as response:
        assert response.status == 200
        assert (await response.content.readline()).startswith(b"event: state")
    async with client.session.get(url) as response:  # used once already
        assert response.status == 401
    # initData in the URL is not accepted any more (it would end up in a proxy's access log).
    async with client.session.get(f"{client.base}/app/api/tables/{table_id}/events?auth={client.init_data}") as r:
        assert r.status == 401
    # A ticket is for one table: another table's stream refuses it.
    status, answer = await client.post(f"/app/api/tables/{table_id}/ticket", {})
    async with client.session.get(f"{client.base}/app/api/tables/{table_id + 1}/events?ticket={answer['ticket']}") as r:
        assert r.status in (401, 403)


async def test_streams_are_capped_per_person_and_per_table(playing: Playing,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    client, table_id, server = playing.client, playing.table_id, playing.server
    cap = webapp_streams.PER_PERSON
    opened = [stream(client, table_id) for _ in range(cap)]
    for events in opened:
        await events.__aenter__()
    try:
        await server.wait_for(lambda: all(e.states for e in opened), what="the streams up to the cap")
        status, answer = await client.post(f"/app/api/tables/{table_id}/ticket", {})
        assert status == 429 and answer["error"] == "too many open streams", answer
    finally:
        for events in opened:
            await events.__aexit__(None, None, None)
    # Closed streams free their places (checked every second); the table's cap binds too.
    await server.wait_for(lambda: playing_open(playing) == 0, timeout=10, what="the streams to be counted closed")
    monkeypatch.setattr(webapp_streams, "PER_TABLE", 2)
    two = [stream(client, table_id) for _ in range(2)]
    for events in two:
        await events.__aenter__()
    try:
        await server.wait_for(lambda: all(e.states for e in two), what="two streams")
        status, answer = await client.post(f"/app/api/tables/{table_id}/ticket", {})
        assert status == 429, answer
    finally:
        for events in two:
            await events.__aexit__(None, None, None)


async def test_the_places_of_someone_who_left_never_lock_a_newcomer_out(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Four people fill the table's stream cap with tickets; Dave leaves and Eve sits at his seat: she gets a
    ticket and her stream at once (the old code counted Dave's unused tickets for 30 s: 429), and Dave's
    leftover tickets open nothing."""
    server = fake_telegram
    people = [server.person(name, name.lower(), language_code="en", started=True)
              for name in ("Alice", "Bob", "Carol", "Dave", "Eve")]
    alice, dave, eve = people[0], people[3], people[4]
    group = server.group("Leftovers", people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        await alice.command(group, "newgame", "yancheng")
        await wait_seated(server, app, group, alice)
        for seat, person in enumerate(people[1:4], start=1):
            await sit_from_group(server, person, group, seat)
            assert await wait_seated(server, app, group, person) == seat
        table = tables(app).in_chat(group.id)
        assert table is not None
        clients = {p.id: AppClient(session, app_base(app), init_data_for(server, p)) for p in people}
        daves: list[str] = []
        assert webapp_streams.PER_TABLE == 4 * webapp_streams.PER_PERSON
        for person in people[:4]:
            for _ in range(webapp_streams.PER_PERSON):
                status, answer = await clients[person.id].post(f"/app/api/tables/{table.id}/ticket", {})
                assert status == 200, answer
                if person is dave:
                    daves.append(answer["ticket"])
        answer = await press_lobby(server, dave, group, "leave")
        assert not answer.show_alert, answer.text
        await sit_from_group(server, eve, group, 3)
        assert await wait_seated(server, app, group, eve) == 3
        async with stream(clients[eve.id], table.id) as events:
            await server.wait_for(lambda: events.states or events.status not in (None, 200), what="Eve's stream")
            assert events.status == 200 and events.states[0]["seat"] == 3, events.ticket_answer
        for ticket in daves:
            async with session.get(f"{app_base(app)}/app/api/tables/{table.id}/events?ticket={ticket}") as response:
                assert response.status == 401


async def _whole_answer(port: int, data: bytes) -> tuple[bytes, bytes]:
    """Send bytes as they are; the server's whole answer (it closes the connection after an error), as head
    and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout=30)  # generous: never a timing claim
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body


async def test_the_servers_own_error_answers_carry_the_headers_and_quote_nothing_of_the_request(
        playing: Playing) -> None:
    """aiohttp answers malformed HTTP itself, before any handler: the old answers quoted up to 8 KB of the
    request (initData and all) and had none of the security headers."""
    init_data = playing.client.init_data
    fields = {key: values[0] for key, values in parse_qs(init_data).items()}
    host = "Host: 127.0.0.1\r\n"
    requests = {
        "an 8 KB header holding initData":
            f"GET /app/api/tables HTTP/1.1\r\n{host}Authorization: tma {init_data}&pad={'p' * 8192}\r\n\r\n",
        "a header name holding initData": f"GET /app/api/tables HTTP/1.1\r\n{host}X-{init_data}: 1\r\n\r\n",
        "a header without a colon": f"GET /app/api/tables HTTP/1.1\r\n{host}{init_data}\r\n\r\n",
        "a bad request line": f"GET /app/api/tables?{init_data} HTTP/1.1 and more\r\n{host}\r\n",
        "a bad method": f"G@T /app/api/tables?{init_data} HTTP/1.1\r\n{host}\r\n",
        "an 8 KB request line": f"GET /app/api/tables?{init_data}&pad={'p' * 8192} HTTP/1.1\r\n{host}\r\n",
    }
    fragments = [b"Zelda", fields["hash"].encode(), fields["query_id"].encode(), b"auth_date", b"/app/api",
                 b"ppppppppp", b"127.0.0.1", b"and more", b"G@T"]
    for label, data in requests.items():
        head, body = await _whole_answer(playing.port, data.encode("latin-1"))
        lines = head.decode("latin-1").split("\r\n")
        assert lines[0].split(" ")[1] == "400", (label, lines[0])
        headers = dict(line.split(": ", 1) for line in lines[1:])
        assert headers.get("Content-Security-Policy") == webapp_headers.CSP, (label, headers)
        assert headers.get("X-Content-Type-Options") == "nosniff", (label, headers)
        assert headers.get("Referrer-Policy") == "no-referrer", (label, headers)
        assert headers.get("Cache-Control") == "no-store", (label, headers)
        assert body == b"400 Bad Request\n", (label, body[:300])
        assert not [f for f in fragments if f in head + body], (label, head + body)


def playing_open(playing: Playing) -> int:
    """Streams the bot counts as open."""
    routes = playing.app.bot_data["webapp"]
    return int(routes.streams.open_count())


@pytest.fixture
def short_header_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(bot.webhook, "HEADER_TIMEOUT", 1.0)
    return 1.0


async def test_a_client_that_never_finishes_its_headers_is_disconnected(
        short_header_timeout: float, fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Slow", [alice])
    async with webapp_running(server, tmp_path / "t.db") as app:
        port = app.bot_data["http"].port
        slow = []
        for _ in range(20):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /app/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            await writer.drain()
            slow.append((reader, writer))
        for reader, writer in slow:
            # The server hangs up (EOF) rather than wait for the rest; generous, never a timing claim.
            assert await asyncio.wait_for(reader.read(), timeout=30) == b""
            writer.close()
        # A stream lasts far longer than the header timeout: the timeout is for headers only.
        await alice.command(group, "newgame", "yancheng")
        await wait_seated(server, app, group, alice)
        async with aiohttp.ClientSession() as session:
            client = AppClient(session, app_base(app), init_data_for(server, alice))
            async with stream(client, tables(app).in_chat(group.id).id) as events:  # type: ignore[union-attr]
                await server.wait_for(lambda: events.states, what="the stream")
                await asyncio.sleep(3 * short_header_timeout)
                await fill_with_ai(server, alice, group, 1)
                await server.wait_for(lambda: len(events.states) >= 2, what="a state after the header timeout")
                assert not events.ended


async def test_a_storage_fault_is_503_with_a_reason_not_a_500(playing: Playing, monkeypatch: pytest.MonkeyPatch) -> None:
    async def locked(*args: object, **kwargs: object) -> None:
        raise storage.DatabaseLocked("database is locked", written=False)

    monkeypatch.setattr(storage, "get_user", locked)
    status, body = await playing.client.get(f"/app/api/tables/{playing.table_id}")
    assert status == 503 and body["error"].startswith("storage trouble"), body
    status, body = await playing.client.get("/app/api/hands/1")
    assert status == 503, body
