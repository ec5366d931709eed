"""The web app as a person's phone uses it: signed ``initData``, the JSON API and the event stream.

``webapp_running`` runs the real bot (``botkit.bot_running``) with
``CHAODIPI_PUBLIC_URL`` set, so it serves the web app on a free port of
127.0.0.1; :class:`AppClient` speaks for one person with ``initData``
signed for the bot's token, as Telegram would hand it to the page.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from telegram.ext import Application

from bot.model import Table
from bot.webapp.initdata import sign

from .botkit import bot_running
from .fake_telegram import FakeTelegram
from .fake_telegram.people import Person
from .plans import Plan
from .scenario import _next_person

PUBLIC_URL = "https://chaodipi.example"


@asynccontextmanager
async def webapp_running(server: FakeTelegram, db_path: Path, **changes: object) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """The real bot with its web app on ``http://127.0.0.1:<port>`` (``app_port(app)``)."""
    settings: dict[str, object] = dict(public_url=PUBLIC_URL, webhook_listen="127.0.0.1", webhook_port=0)
    settings.update(changes)
    async with bot_running(server, db_path, **settings) as app:
        yield app


def app_base(app: Application) -> str:  # type: ignore[type-arg]
    """Where the bot's HTTP server listens."""
    return f"http://127.0.0.1:{app.bot_data['http'].port}"


def init_data_for(server: FakeTelegram, person: Person, **kwargs: Any) -> str:
    """``initData`` Telegram would give this person's web app."""
    user = {"id": person.id, "first_name": person.name, "language_code": person.user.language_code or "en"}
    return sign(server.token, user, **kwargs)


class AppClient:
    """One person's web app: every request signed with their ``initData``."""

    def __init__(self, session: aiohttp.ClientSession, base: str, init_data: str) -> None:
        self.session = session
        self.base = base
        self.init_data = init_data
        self.sent_at = 0.0
        """``time.perf_counter()`` when the last POST left (for latency figures)."""

    @property
    def headers(self) -> dict[str, str]:
        """The authorisation header the page sends."""
        return {"Authorization": f"tma {self.init_data}"}

    async def get(self, path: str) -> tuple[int, Any]:
        """GET an API path; (status, JSON body or text)."""
        async with self.session.get(self.base + path, headers=self.headers) as response:
            return response.status, await _body(response)

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """POST JSON to an API path; (status, JSON body or text)."""
        self.sent_at = time.perf_counter()
        async with self.session.post(self.base + path, headers=self.headers, json=body) as response:
            return response.status, await _body(response)

    async def state(self, table_id: int) -> dict[str, Any]:
        """The seat's state (asserting the request was allowed)."""
        status, body = await self.get(f"/app/api/tables/{table_id}")
        assert status == 200, (status, body)
        return body["state"]  # type: ignore[no-any-return]

    async def act(self, table_id: int, op: str, cards: list[str] = (), trump: str | None = None,  # type: ignore[assignment]
                  *, version: str | None = None) -> tuple[int, Any]:
        """A move as the page sends it (the seat's current version unless given, a fresh nonce)."""
        if version is None:
            version = (await self.state(table_id))["version"]
        return await self.post(f"/app/api/tables/{table_id}/act",
                               {"op": op, "cards": list(cards), "trump": trump, "version": version,
                                "nonce": secrets.token_hex(8)})

    async def hint(self, table_id: int) -> list[str]:
        """The suggested cards."""
        status, body = await self.post(f"/app/api/tables/{table_id}/hint", {})
        assert status == 200, (status, body)
        return body["cards"]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Frame:
    """One event of a stream as it arrived: its name, its data, ``time.monotonic()`` on arrival (the clock
    the leak scanner's timeline and the fake server's message versions use)."""

    event: str
    data: Any
    at: float


class Stream:
    """An open event stream: every event received, in order, and whether the server ended it."""

    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url
        self.states: list[dict[str, Any]] = []
        self.frames: list[Frame] = []
        """Every event (``state``, ``closed``, ``left``), as it arrived."""
        self.arrivals: list[tuple[tuple[int, int], float]] = []
        """(:func:`progress` of the state, ``time.perf_counter()``) of every state received (a revision is
        the seat's own and says nothing across seats)."""
        self.closed = False
        """A ``closed`` event came (the table closed)."""
        self.left: dict[str, Any] | None = None
        """The data of the ``left`` event, once one came (the person no longer holds the seat, is away, or
        their ``initData`` expired)."""
        self.ended = False
        """The server ended the response."""
        self.status: int | None = None
        self.headers: Mapping[str, str] | None = None
        """The answer's headers."""
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Stream:
        self._task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    def frames_after(self, moment: float) -> list[Frame]:
        """The events that arrived at or after ``moment`` (``time.monotonic()``)."""
        return [frame for frame in self.frames if frame.at >= moment]

    async def _read(self) -> None:
        async with self.session.get(self.url) as response:
            self.status, self.headers = response.status, response.headers
            if response.status != 200:
                return
            event = ""
            async for raw in response.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    self.frames.append(Frame(event, data, time.monotonic()))
                    if event == "state":
                        self.states.append(data)
                        self.arrivals.append((progress(data), time.perf_counter()))
                    elif event == "closed":
                        self.closed = True
                    elif event == "left":
                        self.left = data
            self.ended = True


def progress(state: dict[str, Any]) -> tuple[int, int]:
    """How far the table's play is in a seat's state, comparable across seats: (hand number, actions of the
    hand so far)."""
    view = state.get("view")
    return (view["number"] if view else 0), state["seq"]


class TicketStream(Stream):
    """A stream opened as the page opens it: a ticket from an authenticated POST, then the stream's URL
    with the ticket (``initData`` never in a URL)."""

    def __init__(self, client: AppClient, table_id: int) -> None:
        super().__init__(client.session, f"{client.base}/app/api/tables/{table_id}/events")
        self.client = client
        self.table_id = table_id
        self.ticket_answer: tuple[int, Any] | None = None

    async def _read(self) -> None:
        self.ticket_answer = status, answer = await self.client.post(f"/app/api/tables/{self.table_id}/ticket", {})
        if status != 200:
            self.status = status
            return
        self.url = f"{self.client.base}/app/api/tables/{self.table_id}/events?ticket={answer['ticket']}"
        await super()._read()


def stream(client: AppClient, table_id: int) -> Stream:
    """The seat's event stream, opened with a fresh ticket as the page does."""
    return TicketStream(client, table_id)


async def _body(response: aiohttp.ClientResponse) -> Any:
    text = await response.text()
    try:
        return json.loads(text)
    except ValueError:
        return text


async def play_through_app(table: Table, clients: Sequence[AppClient], plan: Plan,
                           before_move: Callable[[], Awaitable[None]] | None = None,
                           after_move: Callable[[int, Any], Awaitable[None]] | None = None) -> None:
    """Every move of the hand through the app (``clients[seat]``): the plan's bid and steal, passes
    otherwise, the hint's bury and plays.  ``before_move()`` runs before each move, ``after_move(seat,
    answer)`` after it."""
    assert table.match is not None
    hand = table.match.hand
    bids = list(plan.bids)
    stolen = False
    people = dict(enumerate(clients))
    while not hand.over:
        if before_move is not None:
            await before_move()
        seat = _next_person(hand, people)  # type: ignore[arg-type]
        assert seat is not None
        if hand.phase == "bidding":
            move = bids.pop(0) if bids else None
            seat = move.seat if move is not None else seat
            client = clients[seat]
            status, answer = (await client.act(table.id, "bid", [str(c) for c in move.cards]) if move is not None
                              else await client.act(table.id, "pass"))
        elif hand.phase == "stealing":
            client = clients[seat]
            steal = plan.steal
            if steal is not None and steal.seat == seat and not stolen:
                stolen = True
                status, answer = await client.act(table.id, "steal", [str(c) for c in steal.cards], steal.trump)
            else:
                status, answer = await client.act(table.id, "nosteal")
        else:
            client = clients[seat]
            op = "bury" if hand.phase == "burying" else "play"
            status, answer = await client.act(table.id, op, await client.hint(table.id))
        assert status == 200 and answer["ok"], answer
        if after_move is not None:
            await after_move(seat, answer)
