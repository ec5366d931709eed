"""The fake Bot API server: HTTP on 127.0.0.1, routing, recording, waiting helpers.

PTB's ``HTTPXRequest`` POSTs to ``{base_url}{token}/{method}`` with the
parameters as form fields (strings raw, everything else JSON-encoded), or as
multipart when files are attached. This server accepts that, JSON bodies and
query strings alike, answers ``{"ok": true, "result": ...}`` or Telegram's error
object, and records every call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from aiohttp import web

from . import errors
from .errors import ApiError
from .limits import Clock, FloodControl, FloodLimits
from .methods import BotApi, Params
from .people import Group, Person
from .recording import CallLog, CallRecord
from .state import BOT_ID, State, User

log = logging.getLogger(__name__)

DEFAULT_TOKEN = f"{BOT_ID}:AAFakeTokenForTheChaodipiEndToEndTests0"


class FakeTelegram:
    """A Bot API server for one test: ``async with FakeTelegram() as tg: ...``.

    Args:
        token: the bot token the server accepts (others get 401 Unauthorized).
        bot_username: the bot's @username (without "@").
        limits: flood-control figures; ``FloodLimits.unlimited()`` disables it.
        clock: time source for flood control, callback expiry and records.
        callback_query_ttl: seconds after which a press can no longer be answered
            (None: never). Telegram's clients give up after some seconds.
        privacy_mode: Telegram's default for bots: in groups the bot receives only
            commands, replies to it and service messages (unless it is an admin).
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "chaodipi_test_bot",
        bot_name: str = "炒地皮",
        limits: FloodLimits | None = None,
        clock: Clock = time.monotonic,
        callback_query_ttl: float | None = 15.0,
        privacy_mode: bool = True,
    ) -> None:
        if not token.startswith(f"{BOT_ID}:"):
            raise ValueError(f"the token must start with the fake bot's id {BOT_ID}:")
        self.token = token
        self.clock = clock
        self.privacy_mode = privacy_mode
        bot = User(id=BOT_ID, first_name=bot_name, username=bot_username, is_bot=True)
        self.state = State(bot=bot)
        self.state.on_change = self._notify
        self.flood = FloodControl(limits or FloodLimits(), clock)
        self.api = BotApi(
            self.state,
            self.flood,
            clock,
            callback_query_ttl=callback_query_ttl,
            privacy_mode=privacy_mode,
        )
        self.calls = CallLog()
        self.unknown_methods: list[str] = []
        """Methods the bot called that this server does not implement."""
        self.internal_errors: list[BaseException] = []
        """Bugs of the fake server itself (answered with 500)."""
        self.people: list[Person] = []
        self.groups: list[Group] = []
        self._changed = asyncio.Event()
        self._chat_changes: dict[int, asyncio.Event] = {}
        self._in_flight = 0
        self._last_activity = time.monotonic()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._port: int | None = None
        self.outage: str | None = None
        """While set, Telegram is down as the bot would see it: ``"502"`` answers Bad Gateway, ``"hang"``
        never answers, ``"refuse"`` refuses connections (see :meth:`set_outage`)."""
        self._outage_over = asyncio.Event()

    # --- life cycle ---------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on ``host:port`` (port 0: a free port)."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        # Cancel a handler when its client goes away: an abandoned long poll must not
        # linger and later answer a dead connection.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=1.0, access_log=None
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self._port = sockets[0].getsockname()[1]
        self._host = host
        self._site = site

    async def set_outage(self, mode: str | None) -> None:
        """Make Telegram unreachable as a network or Telegram itself fails: ``"502"`` (every call answered
        502 Bad Gateway, nothing done), ``"hang"`` (calls are held, unanswered, until the outage ends; the
        bot's own timeouts give up on them), ``"refuse"`` (the port is closed: connections are refused);
        ``None`` ends the outage (the port listens again, held calls are answered 502)."""
        assert self._runner is not None
        if self.outage == "refuse" and mode != "refuse":
            self._site = web.TCPSite(self._runner, self._host, self._port)
            await self._site.start()
        elif mode == "refuse" and self.outage != "refuse" and self._site is not None:
            await self._site.stop()
            server = self._runner.server
            for connection in list(server.connections if server is not None else ()):
                connection.force_close()  # kept-alive connections go too: nothing gets through
        if mode != "hang":
            self._outage_over.set()
            self._outage_over = asyncio.Event()
        self.outage = mode

    async def stop(self) -> None:
        """Stop listening; waiting long polls return at once."""
        self.api.closing = True
        self.state.updates.wake()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """For ``Bot(base_url=...)`` / ``ApplicationBuilder().base_url(...)``."""
        if self._port is None:
            raise RuntimeError("the fake Telegram server is not started")
        return f"http://{self._host}:{self._port}/bot"

    @property
    def base_file_url(self) -> str:
        """For ``ApplicationBuilder().base_file_url(...)`` (files are not served)."""
        if self._port is None:
            raise RuntimeError("the fake Telegram server is not started")
        return f"http://{self._host}:{self._port}/file/bot"

    @property
    def bot(self) -> User:
        """The bot's own account."""
        return self.state.bot

    # --- the world ----------------------------------------------------------

    def person(
        self,
        first_name: str,
        username: str | None = None,
        *,
        language_code: str | None = "en",
        last_name: str | None = None,
        started: bool = False,
    ) -> Person:
        """A new person; ``started=True`` if they had pressed Start before the test."""
        user = self.state.add_user(first_name, username, language_code, last_name)
        user.has_started_bot = started
        person = Person(self, user)
        self.people.append(person)
        return person

    def group(
        self,
        title: str,
        members: Sequence[Person] = (),
        *,
        admins: Sequence[Person] = (),
        creator: Person | None = None,
        supergroup: bool = False,
        username: str | None = None,
        bot_admin: bool = False,
        forum: bool = False,
    ) -> Group:
        """A new group with the bot already in it (and the people given as members); ``forum``: a
        supergroup with topics (``Group.create_topic``)."""
        chat = self.state.add_group(title, supergroup=supergroup or forum, username=username)
        chat.is_forum = forum
        chat.bot_status = "administrator" if bot_admin else "member"
        for member in members:
            chat.members[member.id] = "member"
        for admin in admins:
            chat.members[admin.id] = "administrator"
        if creator is not None:
            chat.members[creator.id] = "creator"
        group = Group(self, chat.id)
        self.groups.append(group)
        return group

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by the bot."""
        return list(self.state.updates.pending)

    # --- waiting --------------------------------------------------------------

    def _notify(self, activity: bool = True) -> None:
        if activity:  # an empty long poll is the bot waiting, not the bot doing something
            self._last_activity = time.monotonic()
        self._changed.set()
        self._changed = asyncio.Event()

    def chat_changed(self, chat_id: int) -> asyncio.Event:
        """An event set by the next call of the bot that concerns ``chat_id``.

        Any call naming the chat counts (a message sent, edited or deleted there,
        a press in it answered, a refused attempt too): a waiter re-checks its
        condition after it. Cheap to wait on by the thousand, unlike
        :meth:`wait_for`, which also re-checks every 50 ms. Take the event
        *before* checking the condition, then wait: nothing is missed.
        """
        event = self._chat_changes.get(chat_id)
        if event is None:
            event = self._chat_changes[chat_id] = asyncio.Event()
        return event

    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = 5.0, what: str | None = None
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-checked after every change the server sees (and every 50 ms, for
        conditions on things outside it). Raises ``TimeoutError`` naming ``what``
        and the last calls, so a failing test says what it was waiting for.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "\n  ".join(
                    f"{r.method} {r.status} {r.description or ''} {r.params}"
                    for r in self.calls.records[-8:]
                )
                raise TimeoutError(
                    f"waited {timeout}s for {what or predicate!r}; last calls:\n  {recent}"
                )
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), min(remaining, 0.05))
            except TimeoutError:
                pass

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[CallRecord], bool] = lambda r: True,
        *,
        after: int = 0,
        timeout: float = 5.0,
    ) -> CallRecord:
        """Wait for a call of ``method`` (after mark ``after``) matching ``predicate``."""

        def find() -> CallRecord | None:
            for record in self.calls.calls(method):
                if record.seq > after and predicate(record):
                    return record
            return None

        found: CallRecord = await self.wait_for(find, timeout, what=f"a {method} call")
        return found

    async def wait_idle(self, quiet: float = 0.15, timeout: float = 5.0) -> None:
        """Wait until the bot confirmed every update and made no call for ``quiet`` s.

        A quiet moment proves nothing on a slow machine: to assert that something did *not* happen, wait
        for the bot's own settled signal (``tests/e2e/botkit.settled``; for a bare application,
        ``harness.unhandled``) or move a fake clock.
        """

        def idle() -> bool:
            return (
                not self.state.updates.pending
                and self._in_flight == 0
                and time.monotonic() - self._last_activity >= quiet
            )

        await self.wait_for(idle, timeout, what="the bot to go idle")

    # --- HTTP ---------------------------------------------------------------

    async def _handle_file(self, request: web.Request) -> web.Response:
        return web.json_response(ApiError(404, errors.NOT_FOUND).to_json(), status=404)

    async def _handle(self, request: web.Request) -> web.Response:
        if self.outage == "hang":
            await self._outage_over.wait()
        if self.outage is not None:  # a gateway in front of Telegram answers, Telegram does nothing
            return web.Response(status=502, text="Bad Gateway")
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return web.json_response(ApiError(401, errors.UNAUTHORIZED).to_json(), status=401)
        params = await self._read_params(request)
        handler = self.api.handlers.get(method.lower())
        at = self.clock()
        polling = method.lower() == "getupdates"
        if not polling:
            self._in_flight += 1
        status, body = 200, {}
        try:
            if handler is None:
                self.unknown_methods.append(method)
                log.error("fake Telegram: the bot called unknown method %s", method)
                raise ApiError(404, errors.NOT_FOUND)
            result = await handler(params)
            body = {"ok": True, "result": result}
        except ApiError as error:
            status, body = error.error_code, error.to_json()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug of the fake itself: loud, never silent
            log.exception("fake Telegram: internal error in %s", method)
            self.internal_errors.append(exc)
            status = 500
            body = {"ok": False, "error_code": 500, "description": f"Internal Server Error: {exc!r}"}
        finally:
            if not polling:
                self._in_flight -= 1
        self._record(method, params, at, status, body)
        return web.json_response(body, status=status, dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def _read_params(self, request: web.Request) -> Params:
        form: dict[str, str] = {key: value for key, value in request.query.items()}
        if request.can_read_body:
            if request.content_type == "application/json":
                payload = await request.json()
                values: dict[str, Any] = Params.from_form(form).values
                if isinstance(payload, dict):
                    values.update(payload)
                return Params(values)
            posted = await request.post()
            files: dict[str, bytes] = {}
            for key, value in posted.items():
                if isinstance(value, str):
                    form[key] = value
                else:  # an upload: the call log records its field name, the method gets its bytes
                    form[key] = f"<file {key}>"
                    files[key] = value.file.read() if isinstance(value, web.FileField) else bytes(value)
            params = Params.from_form(form)
            params.files = files
            return params
        return Params.from_form(form)

    def _record(
        self, method: str, params: Params, at: float, status: int, body: dict[str, Any]
    ) -> None:
        chat_id: int | None = None
        raw_chat = params.get("chat_id")
        if isinstance(raw_chat, int):
            chat_id = raw_chat
        elif isinstance(raw_chat, str) and raw_chat.lstrip("-").isdigit():
            chat_id = int(raw_chat)
        elif method.lower() == "answercallbackquery":
            query = self.state.callback_queries.get(str(params.get("callback_query_id")))
            chat_id = query.chat_id if query else None
        chat = self.state.chats.get(chat_id) if chat_id is not None else None
        self.calls.add(
            CallRecord(
                seq=self.calls.total + 1,
                method=method,
                params=dict(params.values),
                chat_id=chat_id,
                chat_type=chat.type if chat else None,
                at=at,
                status=status,
                description=body.get("description"),
                result=body.get("result"),
            )
        )
        if chat_id is not None and (event := self._chat_changes.pop(chat_id, None)) is not None:
            event.set()
        self._notify(activity=not (method.lower() == "getupdates" and not body.get("result")))
