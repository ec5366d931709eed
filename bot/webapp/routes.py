"""The web app's HTTP side: the page, its JSON API and its live stream, on the bot's aiohttp server.

=====================================================  ========================================================
``GET  /app/``, ``/app/app.js``, ``/app/app.css``      the page (package data, no third-party assets)
``GET  /app/api/tables``                               the tables where the person sits
``GET  /app/api/tables/{id}``                          the state of their seat (:mod:`bot.webapp.state`)
``POST /app/api/tables/{id}/act``                      a move: ``{op, cards, trump, version, nonce}``
``POST /app/api/tables/{id}/hint``                     the suggested cards (selects nothing on the server)
``GET  /app/api/tables/{id}/events?auth=<initData>``   server-sent events: ``state`` at every change
``GET  /app/api/hands/{hand_id}``                      a finished hand, trick by trick, for the replay
=====================================================  ========================================================

Every API request carries Telegram's ``initData`` (header
``Authorization: tma <initData>``; the event stream, which browsers open
without headers, in ``?auth=``), checked by :mod:`bot.webapp.initdata`: 401
when it does not prove who asks.  The person may read and act only for their
own seat at that table: 403 otherwise.  A move carries a fresh ``nonce``; the
same nonce twice under the same ``initData`` is a replayed request: 403, and
nothing changes.  Moves go through :meth:`bot.tables.Tables.move` under the
table's lock, the path of a keyboard press.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

from aiohttp import web
from telegram.ext import Application

import storage
from bot.i18n import Translator, pick_language, translator
from bot.messages import refusal, storage_refusal
from bot.model import Table
from bot.tables import MoveKind, TableError, Tables
from bot.webapp.initdata import InitDataError, WebAppUser, validate
from bot.webapp.live import Live
from bot.webapp.replay import replay_json
from bot.webapp.state import seat_state
from engine.cards import Card
from engine.errors import EngineError, NotationError

log = logging.getLogger(__name__)

PREFIX: Final = "/app"
STATIC: Final = {"": ("index.html", "text/html"), "app.js": ("app.js", "text/javascript"),
                 "app.css": ("app.css", "text/css")}
HEARTBEAT: Final = 15.0
"""Seconds between keep-alive comments on a quiet stream (a dead connection shows up at the next one)."""
NONCES_KEPT: Final = 100_000
"""At most this many recent nonces are remembered (a bound on memory; about 10 MB)."""
OPS: Final[dict[str, MoveKind]] = {"bid": "bid", "pass": "pass", "bury": "bury", "steal": "steal",
                                   "nosteal": "pass_steal", "play": "play"}
TRUMPS: Final = ("S", "H", "D", "C", "NT")


class WebAppRoutes:
    """The handlers, bound to the running bot."""

    def __init__(self, application: Application) -> None:  # type: ignore[type-arg]
        self.application = application
        self.live = Live()
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
        web_app.router.add_get(PREFIX + "/api/tables/{table}/events", self._events)
        web_app.router.add_get(PREFIX + "/api/hands/{hand}", self._replay)
        web_app.on_startup.append(self._startup)
        web_app.on_shutdown.append(self._shutdown)

    @property
    def tables(self) -> Tables:
        """The bot's table service (there once ``post_init`` ran)."""
        tables = self.application.bot_data.get("tables")
        if tables is None:
            raise web.HTTPServiceUnavailable(text="starting")
        return tables  # type: ignore[no-any-return]

    async def _startup(self, web_app: web.Application) -> None:
        # The server starts after post_init in both modes, so the table service is there to watch.
        self.tables.watchers.append(self.live.changed)

    async def _shutdown(self, web_app: web.Application) -> None:
        self.live.close()
        tables = self.application.bot_data.get("tables")
        if tables is not None and self.live.changed in tables.watchers:
            tables.watchers.remove(self.live.changed)

    def _user(self, request: web.Request, init_data: str | None = None) -> WebAppUser:
        if init_data is None:
            header = request.headers.get("Authorization", "")
            init_data = header[4:] if header.startswith("tma ") else ""
        config = self.application.bot_data["config"]
        try:
            return validate(init_data, config.token, max_age=config.webapp_max_age)
        except InitDataError as exc:
            log.warning("web app request refused: %s (from %s)", exc, request.remote)
            raise web.HTTPUnauthorized(text=json.dumps({"ok": False, "error": str(exc)}),
                                       content_type="application/json") from None

    async def _translator(self, user: WebAppUser) -> Translator:
        record = await storage.get_user(self.tables.db, user.id)
        if record is not None and record.language:
            return translator(record.language)
        return translator(pick_language(user.language_code))

    def _seat(self, request: web.Request, user: WebAppUser) -> tuple[Table, int]:
        """The table named in the path and the person's seat there; 403 for anyone not seated at it."""
        raw = request.match_info["table"]
        found = self.tables.seat_of(int(raw), user.id) if raw.isdigit() else None
        if found is None:
            raise web.HTTPForbidden(text=json.dumps({"ok": False, "error": "not your table"}),
                                    content_type="application/json")
        return found

    def _state_of(self, tr: Translator, table: Table, seat: int) -> dict[str, Any]:
        tables = self.tables
        last = self.live.last_hand.get(table.id)
        if last is None and table.status == "finished":
            last = table.hand_id
        state = seat_state(tr, table, seat, tables.group_titles.get(table.chat_id, table.title), last)
        # A move's answer and the stream can arrive in either order: the revision tells the page which is newer.
        state["rev"] = self.live.revisions.get(table.id, 0)
        return state

    def _fresh_nonce(self, user: WebAppUser, nonce: object) -> bool:
        """True the first time this opening of the app sends this nonce."""
        if not isinstance(nonce, str) or not 8 <= len(nonce) <= 64:
            return False
        key = (user.hash, nonce)
        if key in self._nonces:
            return False
        now = time.time()
        self._nonces[key] = now
        # A nonce need not be kept longer than its initData is valid: after that the request fails anyway.
        max_age = self.application.bot_data["config"].webapp_max_age
        while self._nonces and (len(self._nonces) > NONCES_KEPT or next(iter(self._nonces.values())) < now - max_age):
            self._nonces.popitem(last=False)
        return True

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
        mine = [{"table": t.id, "seat": s, "title": tables.group_titles.get(t.chat_id, t.title), "status": t.status}
                for t, s in tables.tables_of(user.id)]
        return web.json_response({"ok": True, "tables": mine}, dumps=_dumps)

    async def _state(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, seat = self._seat(request, user)
        tr = await self._translator(user)
        async with table.lock:
            state = self._state_of(tr, table, seat)
        return web.json_response({"ok": True, "state": state}, dumps=_dumps)

    async def _act(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, seat = self._seat(request, user)
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="a JSON object is expected")
        if not self._fresh_nonce(user, body.get("nonce")):
            log.warning("web app move refused: replayed or missing nonce (table %s)", table.id)
            raise web.HTTPForbidden(text=json.dumps({"ok": False, "error": "replayed request"}),
                                    content_type="application/json")
        tr = await self._translator(user)
        op, trump = body.get("op"), body.get("trump")
        try:
            cards = [Card.parse(str(c)) for c in body.get("cards") or []]
        except NotationError:
            cards = None
        if op not in OPS or cards is None or (trump is not None and trump not in TRUMPS):
            raise web.HTTPBadRequest(text="not a move")
        tables = self.tables
        async with table.lock:
            problem, choose = await self._move(tables, table, seat, OPS[op], cards, trump, body.get("version"), tr)
            tables.refresh(table, urgent=[seat])
            state = self._state_of(tr, table, seat)
        if choose is not None:
            return web.json_response({"ok": False, "choose": choose, "state": state}, dumps=_dumps)
        if problem is not None:
            return web.json_response({"ok": False, "refusal": problem, "state": state}, status=409, dumps=_dumps)
        return web.json_response({"ok": True, "state": state}, dumps=_dumps)

    async def _move(self, tables: Tables, table: Table, seat: int, kind: MoveKind, cards: Sequence[Card],
                    trump: str | None, version: object, tr: Translator) -> tuple[str | None, list[str] | None]:
        """Make the move as the keyboard would; (refusal text, trump choices to offer)."""
        if not table.playing:
            return tr("No hand is being played at this table."), None
        if version != table.version(seat):
            return tr("That button is out of date; your hand is shown again."), None
        assert table.match is not None
        if kind == "pass" and seat in table.match.hand.passed:
            return tr("You have already done that."), None  # one pass a round
        info = table.seats[seat]
        if info is not None:
            info.last_active = time.time()
        await tables.come_back(table, seat)  # a move from someone away brings them back
        if kind in ("pass", "pass_steal"):
            cards = []
        elif not cards:
            return tr("Select the cards first."), None
        if kind in ("bid", "steal") and trump is None:
            choices = tables.trump_choices(table, cards)
            if choices is not None:
                return None, choices
        try:
            await tables.move(table, seat, kind, cards, None if trump == "NT" else trump)
        except EngineError as exc:
            return refusal(tr, exc, table.settings.ruleset()), None
        except TableError as exc:
            return exc.text(tr), None
        except storage.StorageFault as fault:
            return storage_refusal(tr, fault), None  # a fault that can pass: logged once where it happened
        except storage.StorageError:
            log.exception("table %s: storage error", table.id)
            return tr("I could not save your move; nothing changed. Please try again."), None
        return None, None

    async def _hint(self, request: web.Request) -> web.Response:
        user = self._user(request)
        table, seat = self._seat(request, user)
        tr = await self._translator(user)
        async with table.lock:
            if not table.playing:
                return web.json_response({"ok": False, "refusal": tr("No hand is being played at this table.")},
                                         status=409, dumps=_dumps)
            suggestion = self.tables.hint(table, seat)
        if not suggestion:
            return web.json_response({"ok": False, "refusal": tr("Nothing to suggest now.")}, status=409,
                                     dumps=_dumps)
        return web.json_response({"ok": True, "cards": [str(c) for c in suggestion]}, dumps=_dumps)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request, request.query.get("auth", ""))
        table, seat = self._seat(request, user)
        tr = await self._translator(user)
        tables = self.tables
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                               "X-Accel-Buffering": "no"})
        await response.prepare(request)
        key = (table.id, seat)
        tables.app_seats[key] += 1
        last = ""
        try:
            while not self.live.closing.is_set():
                change = self.live.signal(table.id)
                async with table.lock:
                    state = _dumps(self._state_of(tr, table, seat))
                if state != last:
                    await response.write(f"event: state\ndata: {state}\n\n".encode())
                    last = state
                if tables.get(table.id) is not table:
                    await response.write(b"event: closed\ndata: {}\n\n")
                    break
                await self._quiet(request, change)
                if not change.is_set():
                    await response.write(b": keep-alive\n\n")
        except ConnectionResetError:
            pass  # the app was closed; the stream ends
        finally:
            tables.app_seats[key] -= 1
            if tables.app_seats[key] <= 0:
                del tables.app_seats[key]
                if tables.get(table.id) is table:
                    tables.refresh(table, urgent=[seat])  # the hand message catches up with the app
        return response

    async def _quiet(self, request: web.Request, change: asyncio.Event) -> None:
        """Until the table changes or a heartbeat is due; raises ConnectionResetError once the app has gone."""
        loop = asyncio.get_running_loop()
        due = loop.time() + HEARTBEAT
        while not change.is_set() and not self.live.closing.is_set() and loop.time() < due:
            # Checked every second: a closed app must give its seat's hand message back promptly.
            if request.transport is None or request.transport.is_closing():
                raise ConnectionResetError
            await self.live.wait(change, 1.0)

    async def _replay(self, request: web.Request) -> web.Response:
        user = self._user(request)
        tr = await self._translator(user)
        raw = request.match_info["hand"]
        replay = await self.tables.replay(int(raw), user.id) if raw.isdigit() else None
        if replay is None:
            raise web.HTTPForbidden(text=json.dumps({"ok": False, "error": "not a hand of yours"}),
                                    content_type="application/json")
        return web.json_response({"ok": True, "replay": replay_json(replay, tr)}, dumps=_dumps)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
