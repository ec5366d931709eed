"""The web app's HTTP side: the page, its JSON API and its live stream, on the bot's aiohttp server.

====================================================  =========================================================
``GET  /app/``, ``/app/app.js``, ``/app/app.css``     the page (package data, no third-party assets)
``GET  /app/api/tables``                              the tables where the person sits
``GET  /app/api/tables/{id}``                         the state of their seat (:mod:`bot.webapp.state`)
``POST /app/api/tables/{id}/act``                     a move: ``{op, cards, trump, version, nonce}``
``POST /app/api/tables/{id}/hint``                    the suggested cards (selects nothing on the server)
``POST /app/api/tables/{id}/back``                    「我回来了」: someone away plays their seat again ``{nonce}``
``POST /app/api/tables/{id}/next``                    「下一局」 between hands (relaxed, daily) ``{deal, nonce}``
``POST /app/api/tables/{id}/ticket``                  a ticket for the stream (:mod:`bot.webapp.streams`)
``GET  /app/api/tables/{id}/events?ticket=<ticket>``  server-sent events (:mod:`bot.webapp.events`)
``GET  /app/api/hands/{hand_id}``                     a finished hand, trick by trick, for the replay
====================================================  =========================================================

Every API request but the stream carries Telegram's ``initData`` in the
header ``Authorization: tma <initData>``, checked by
:mod:`bot.webapp.initdata` (or, in ``chaodipi play`` only, ``local <secret>``:
:mod:`bot.webapp.signin`): 401 when it does not prove who asks.  The stream
is opened with a ticket from an authenticated POST instead (a browser's
``EventSource`` sends no headers, and ``initData`` must not go in a URL).
The person may read and act only for the seat they hold at that table, and
only while they hold it: 403 otherwise, checked again under the table's
lock, since a seat may change hands while a request waits for it.  Input
is checked by :mod:`bot.webapp.inputs` before use (400 with a reason).  A
move carries a fresh ``nonce``; the same nonce twice under the same
``initData`` is a replayed request: 403, and nothing changes.  Moves go
through :meth:`bot.tables.Tables.perform`, the one call a keyboard press
makes too: parse → perform → render.  Every answer carries the headers of
:mod:`bot.webapp.headers`.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Final

from aiohttp import web
from telegram.ext import Application

from bot.budget import replay_budget
from bot.i18n import Translator
from bot.model import Table
from bot.tables import (
    MOVES,
    Choose,
    ComeBack,
    Done,
    Hint,
    Move,
    NextHand,
    Outcome,
    Person,
    Refused,
    StorageFault,
    Tables,
)
from bot.untrusted import shown
from bot.webapp import headers
from bot.webapp.events import SeatStream
from bot.webapp.initdata import InitDataError, WebAppUser
from bot.webapp.inputs import (
    MOVE_FIELDS,
    deal_of,
    move_of,
    nonce_of,
    parse_id,
    read_object,
    refuse,
    refuse_too_many,
)
from bot.webapp.live import Live
from bot.webapp.replay import replay_json
from bot.webapp.signin import who_asks
from bot.webapp.state import seat_state, words
from bot.webapp.streams import TICKET_LIFE, StreamCapError, Streams

log = logging.getLogger(__name__)

PREFIX: Final = "/app"
STATIC: Final = {"": ("index.html", "text/html"), "app.js": ("app.js", "text/javascript"),
                 "app.css": ("app.css", "text/css"), "signin.js": ("signin.js", "text/javascript")}
NONCES_KEPT: Final = 100_000
"""At most this many recent nonces are remembered (a bound on memory; about 10 MB)."""


class WebAppRoutes:
    """The handlers, bound to the running bot."""

    def __init__(self, application: Application) -> None:  # type: ignore[type-arg]
        self.application = application
        self.live = Live()
        self.streams = Streams()
        self._nonces: OrderedDict[tuple[str, str], float] = OrderedDict()

    # --- plumbing -----------------------------------------------------------------------------------
    def install(self, web_app: web.Application) -> None:
        """Add the page and the API to an aiohttp application."""
        web_app.router.add_get(PREFIX, self._redirect)
        for name in STATIC:
            web_app.router.add_get(f"{PREFIX}/{name}", self._static)
        web_app.router.add_get(f"{PREFIX}/api/tables", self._tables)
        web_app.router.add_get(PREFIX + "/api/tables/{table}", self._state)
        web_app.router.add_post(PREFIX + "/api/tables/{table}/act", self._act)
        web_app.router.add_post(PREFIX + "/api/tables/{table}/hint", self._hint)
        web_app.router.add_post(PREFIX + "/api/tables/{table}/back", self._back)
        web_app.router.add_post(PREFIX + "/api/tables/{table}/next", self._next)
        web_app.router.add_post(PREFIX + "/api/tables/{table}/ticket", self._ticket)
        web_app.router.add_get(PREFIX + "/api/tables/{table}/events", self._events)
        web_app.router.add_get(PREFIX + "/api/hands/{hand}", self._replay)
        headers.install(web_app, PREFIX)
        web_app.middlewares.append(storage_faults)
        web_app.on_startup.append(self._startup)
        web_app.on_shutdown.append(self._shutdown)

    @property
    def tables(self) -> Tables:
        """The bot's table service (there once ``post_init`` ran)."""
        tables = self.application.bot_data.get("tables")
        if tables is None:
            refuse(web.HTTPServiceUnavailable, "starting")
        return tables  # type: ignore[no-any-return]

    @property
    def max_age(self) -> float:
        """Seconds an ``initData`` stays good (``CHAODIPI_WEBAPP_MAX_AGE``)."""
        return float(self.application.bot_data["config"].webapp_max_age)

    async def _startup(self, web_app: web.Application) -> None:
        # The server starts after post_init in both modes, so the table service is there to watch.
        self.tables.follow(self.live.changed)

    async def _shutdown(self, web_app: web.Application) -> None:
        self.live.close()
        tables = self.application.bot_data.get("tables")
        if tables is not None:
            tables.unfollow(self.live.changed)

    def _user(self, request: web.Request) -> WebAppUser:
        try:
            return who_asks(request, self.application.bot_data)
        except InitDataError as exc:
            log.warning("web app request refused: %s (from %s)", exc, request.remote)
            refuse(web.HTTPUnauthorized, str(exc))

    async def _translator(self, user_id: int, language_code: str | None) -> Translator:
        return await self.tables.people.translator(user_id, language_code)

    def _seat(self, request: web.Request, user: WebAppUser) -> tuple[Table, int]:
        """The table named in the path and the person's seat there; 403 for anyone not seated at it."""
        found = self.tables.seat_of(parse_id(request.match_info["table"], "table"), user.id)
        if found is None:
            refuse(web.HTTPForbidden, "not your table")
        return found

    @asynccontextmanager
    async def _holding(self, table: Table, seat: int, user: WebAppUser) -> AsyncIterator[None]:
        """The table's lock, once the person is found to hold the seat still (403 if not)."""
        async with table.lock:
            if self.tables.get(table.id) is not table or not self.tables.holds(table, seat, user.id):
                refuse(web.HTTPForbidden, "not your table")
            yield

    def _state_of(self, tr: Translator, table: Table, seat: int) -> dict[str, Any]:
        tables = self.tables
        last = self.live.last_hand.get(table.id)
        if last is None and table.status == "finished":
            last = table.hand_id
        state = seat_state(tr, table, seat, tables.group_titles.get(table.chat_id, table.title), last)
        # A move's answer and the stream can arrive in either order: the revision tells the page which is newer.
        # It is the seat's own (moved by what this seat is shown only), never a count of the table's changes.
        state["rev"] = self.live.revision(table.id, seat, state)
        return state

    def _fresh_nonce(self, user: WebAppUser, nonce: str) -> bool:
        """True the first time this opening of the app sends this (well-formed) nonce."""
        key = (user.hash, nonce)
        if key in self._nonces:
            return False
        now = time.time()
        self._nonces[key] = now
        # A nonce need not be kept longer than its initData is valid: after that the request fails anyway.
        while self._nonces and (len(self._nonces) > NONCES_KEPT
                                or next(iter(self._nonces.values())) < now - self.max_age):
            self._nonces.popitem(last=False)
        return True

    def _check_nonce(self, user: WebAppUser, body: dict[str, Any], table: Table) -> None:
        if not self._fresh_nonce(user, nonce_of(body)):
            log.warning("web app request refused: replayed nonce (table %s)", table.id)
            refuse(web.HTTPForbidden, "replayed request")

    # --- the page --------------------------------------------------------------------------------------
    async def _redirect(self, request: web.Request) -> web.Response:
        raise web.HTTPFound(f"{PREFIX}/" + (f"?{request.query_string}" if request.query_string else ""))

    async def _static(self, request: web.Request) -> web.Response:
        name = request.path[len(PREFIX) + 1:]
        filename, content_type = STATIC[name]
        body = resources.files("bot.webapp").joinpath("static", filename).read_bytes()
        return web.Response(body=body, content_type=content_type, charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    # --- the API -----------------------------------------------------------------------------------------
    async def _tables(self, request: web.Request) -> web.Response:
        user = self._user(request)
        tables = self.tables
        mine = [{"table": t.id, "seat": s, "title": shown(tables.group_titles.get(t.chat_id, t.title)),
                 "status": t.status} for t, s in tables.tables_of(user.id)]
        tr = await self._translator(user.id, user.language_code)
        # The page's words come with the list: a person with no seat (or at another's table) is told so.
        return _json({"ok": True, "tables": mine, "lang": tr.lang, "words": words(tr)})

    async def _state(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, seat = self._seat(request, user)
        tr = await self._translator(user.id, user.language_code)
        async with self._holding(table, seat, user):
            state = self._state_of(tr, table, seat)
        return _json({"ok": True, "state": state})

    async def _act(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, _seat = self._seat(request, user)
        body = await read_object(request, MOVE_FIELDS)
        move = move_of(body)
        self._check_nonce(user, body, table)
        tr = await self._translator(user.id, user.language_code)
        outcome = await self.tables.perform(Person(user.id, "app"), table,
                                            Move(MOVES[move.op], move.cards, move.version or "", move.trump))
        state = self._after(tr, table, user, outcome)
        if isinstance(outcome, Choose):
            return _json({"ok": False, "choose": list(outcome.trumps), "state": state})
        if isinstance(outcome, Refused):
            return _json({"ok": False, "refusal": outcome.text(tr, table.settings.ruleset()), "state": state},
                         status=409)
        return _json({"ok": True, "state": state})

    async def _hint(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, _seat = self._seat(request, user)
        tr = await self._translator(user.id, user.language_code)
        outcome = await self.tables.perform(Person(user.id, "app"), table, Hint(None, select=False))
        self._seated(tr, table, user, outcome)
        if isinstance(outcome, Refused):
            return _json({"ok": False, "refusal": outcome.text(tr, table.settings.ruleset())}, status=409)
        assert isinstance(outcome, Done)
        return _json({"ok": True, "cards": [str(c) for c in outcome.cards]})

    async def _back(self, request: web.Request) -> web.Response:
        """「我回来了」 in the page: the AI stops playing for the person (as the button under the away notice)."""
        user = self._user(request)
        table, _seat = self._seat(request, user)
        body = await read_object(request, frozenset({"nonce"}))
        self._check_nonce(user, body, table)
        tr = await self._translator(user.id, user.language_code)
        outcome = await self.tables.perform(Person(user.id, "app"), table, ComeBack())
        state = self._after(tr, table, user, outcome)
        if isinstance(outcome, Refused):
            return _json({"ok": False, "refusal": outcome.text(tr, table.settings.ruleset()), "state": state},
                         status=409)
        return _json({"ok": True, "state": state})

    async def _next(self, request: web.Request) -> web.Response:
        """「下一局」 in the page, between hands at the relaxed and daily paces (as under the table message):
        ``deal`` is the deal the page was drawn at, so a press from before the last pause is out of date."""
        user = self._user(request)
        table, _seat = self._seat(request, user)
        body = await read_object(request, frozenset({"deal", "nonce"}))
        deal = deal_of(body)
        self._check_nonce(user, body, table)
        tr = await self._translator(user.id, user.language_code)
        outcome = await self.tables.perform(Person(user.id, "app"), table, NextHand(deal))
        state = self._after(tr, table, user, outcome)
        if isinstance(outcome, Refused):
            return _json({"ok": False, "refusal": outcome.text(tr, table.settings.ruleset()), "state": state},
                         status=409)
        return _json({"ok": True, "state": state})

    def _seated(self, tr: Translator, table: Table, user: WebAppUser, outcome: Outcome) -> int:
        """The person's seat after a request (read with no wait since the service let go of the lock); 403
        for someone who holds no seat there (any more), 503 while the table stayed busy."""
        if isinstance(outcome, Refused) and outcome.code == "busy":
            refuse(web.HTTPServiceUnavailable, "the table is busy", refusal=outcome.text(tr))
        seat = table.seat_of(user.id)
        if seat is None or self.tables.get(table.id) is not table:
            refuse(web.HTTPForbidden, "not your table")
        return seat

    def _after(self, tr: Translator, table: Table, user: WebAppUser, outcome: Outcome) -> dict[str, Any]:
        """The seat's state after a request (see :meth:`_seated`)."""
        return self._state_of(tr, table, self._seated(tr, table, user, outcome))

    async def _ticket(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, seat = self._seat(request, user)
        try:
            ticket = self.streams.issue(user.id, table.id, seat, user.auth_date, user.language_code,
                                        holds=lambda user_id, at: self.tables.holds(table, at, user_id))
        except StreamCapError:
            tr = await self._translator(user.id, user.language_code)
            refuse(web.HTTPTooManyRequests, "too many open streams",
                   refusal=tr("The table is open in too many windows; close one and try again."))
        return _json({"ok": True, "ticket": ticket, "expires_in": TICKET_LIFE})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        table_id = parse_id(request.match_info["table"], "table")
        ticket = self.streams.redeem(request.query.get("ticket", ""), table_id)
        if ticket is None:
            refuse(web.HTTPUnauthorized, "no valid stream ticket")
        try:
            table = self.tables.get(table_id)
            if table is None:
                refuse(web.HTTPForbidden, "not your table")
            tr = await self._translator(ticket.user_id, ticket.language_code)
            return await SeatStream(self.tables, self.live, ticket, table, tr, self.max_age, self._state_of).run(request)
        finally:
            self.streams.closed(ticket)

    async def _replay(self, request: web.Request) -> web.Response:
        user = self._user(request)
        hand_id = parse_id(request.match_info["hand"], "hand")
        refuse_too_many(user, replay_budget(self.application.bot_data))  # a replay deals the match again
        tr = await self._translator(user.id, user.language_code)
        replay = await self.tables.replay(hand_id, user.id)
        if replay is None:
            refuse(web.HTTPForbidden, "not a hand of yours")
        return _json({"ok": True, "replay": replay_json(replay, tr)})


@web.middleware
async def storage_faults(request: web.Request, handler: Any) -> web.StreamResponse:
    """A storage fault that can pass (the database locked, the disk full) where the app only reads (who
    asks, a replay): 503 with a reason, not a 500; the fault is logged once where it happened."""
    try:
        return await handler(request)  # type: ignore[no-any-return]
    except StorageFault:
        if not request.path.startswith(PREFIX + "/"):
            raise
        refuse(web.HTTPServiceUnavailable, "storage trouble: please try again in a moment")


def _json(value: Any, status: int = 200) -> web.Response:
    return web.json_response(value, status=status, dumps=_dumps)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
