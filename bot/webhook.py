"""The bot's own small HTTP server: the webhook, ``GET /health``, and the web app.

PTB's ``run_webhook`` brings its own tornado server with one route.  We run
the Application by hand instead (as PTB documents for custom webhook
servers) behind an aiohttp server with two routes:

* ``POST /telegram`` — an update from Telegram.  It must carry the secret
  token in ``X-Telegram-Bot-Api-Secret-Token`` (403 otherwise); the update
  goes onto the Application's queue and is answered 200 at once.
* ``GET /health`` — 200 and ``{"ok": true, "active_tables": n, "uptime": s, ...}``
  while the bot runs, 503 while it starts or stops.

With ``CHAODIPI_PUBLIC_URL`` set, the same server serves the web app under
``/app`` (:mod:`bot.webapp`; the wiring in :mod:`bot.app` hands its routes
over as ``bot_data["http_routes"]``); in polling mode the bot then starts
this server without the webhook route.

The server speaks plain HTTP: put a TLS proxy (Caddy, nginx) in front, which
forwards ``<CHAODIPI_WEBHOOK_URL>/telegram`` to it.  Without
``CHAODIPI_WEBHOOK_SECRET`` a random secret is made at each start (the bot
registers the webhook itself each time), so the endpoint is never open.

Facing whatever reaches it, the server (aiohttp's options, passed to its
request handler):

* closes a connection whose request headers are not complete
  :data:`HEADER_TIMEOUT` seconds after it opened or after its last answer
  (aiohttp's ``keepalive_timeout``, which it also arms on a new connection:
  a client sending its headers a byte at a time holds no socket for long;
  a request being answered, a stream included, is not cut);
* refuses a request line or header over :data:`MAX_LINE` bytes, or more
  than :data:`MAX_HEADERS` headers, with 400;
* answers a request it cannot handle (malformed HTTP, a handler's crash)
  with a fixed line and the security headers, quoting nothing of the
  request (:mod:`bot.http_errors`);
* logs a request that is not well-formed HTTP as one line naming the kind
  of error, without aiohttp's traceback, whose message can quote the
  request (an oversized ``Authorization`` header, ``initData`` and all).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import signal
import sys
from collections.abc import Callable
from typing import Any, Final

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.health import Health
from bot.http_errors import Runner
from bot.reachability import log_skipped
from bot.updates import UPDATE_KINDS

log = logging.getLogger(__name__)

WEBHOOK_PATH: Final = "/telegram"
HEALTH_PATH: Final = "/health"
SECRET_HEADER: Final = "X-Telegram-Bot-Api-Secret-Token"
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
HEADER_TIMEOUT: Final = 10.0
"""Seconds a connection may take to send a request's headers (and stay idle between requests)."""
MAX_LINE: Final = 8190
"""Bytes a request line or one header may take (aiohttp's default, stated: ``initData`` is well below)."""
MAX_HEADERS: Final = 64
"""Headers a request may carry (a browser sends about twenty)."""

Routes = Callable[[web.Application], None]
"""Adds more routes to the server's aiohttp application (the web app's)."""


class WebhookServer:
    """``POST /telegram`` into the Application's update queue, and ``GET /health``."""

    def __init__(self, application: Application, *, listen: str, port: int,  # type: ignore[type-arg]
                 secret: str | None, health: Health, routes: Routes | None = None) -> None:
        """``secret`` None: no webhook route (polling mode); ``routes``: more routes to serve (the web app's)."""
        self.application = application
        self.routes = routes
        self.listen = listen
        self.requested_port = port
        self.secret = secret
        self.health = health
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    @property
    def port(self) -> int:
        """The port the server listens on (useful when started on port 0)."""
        if self._port is None:
            raise RuntimeError("the webhook server is not started")
        return self._port

    async def start(self) -> None:
        """Start listening."""
        web_app = web.Application()
        if self.secret is not None:
            web_app.router.add_post(WEBHOOK_PATH, self._telegram)
        web_app.router.add_get(HEALTH_PATH, self._health)
        if self.routes is not None:
            self.routes(web_app)
        self._runner = Runner(web_app, access_log=None, shutdown_timeout=5.0, keepalive_timeout=HEADER_TIMEOUT,
                                     max_line_size=MAX_LINE, max_field_size=MAX_LINE, max_headers=MAX_HEADERS,
                                     logger=ServerLog(logging.getLogger("aiohttp.server"), {}))
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.listen, self.requested_port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self._port = sockets[0].getsockname()[1] if sockets else self.requested_port
        log.info("HTTP server listening on %s:%s%s", self.listen, self._port, " (web app)" if self.routes is not None else "")

    async def stop(self) -> None:
        """Stop taking requests (requests being answered finish first)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _telegram(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        assert self.secret is not None
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            log.warning("webhook call refused: wrong or missing secret token (from %s)", request.remote)
            return web.Response(status=403, text="forbidden")
        if not self.application.running:
            return web.Response(status=503, text="not running")  # Telegram delivers it again later
        try:
            data = await request.json()
        except Exception:  # not JSON: the sender's mistake
            return web.Response(status=400, text="not an update")
        try:
            update = Update.de_json(data, self.application.bot)
        except Exception as exc:
            if not isinstance(data, dict) or type(data.get("update_id")) is not int:
                return web.Response(status=400, text="not an update")
            # From Telegram (the secret says so), but not readable by the library (a field it requires
            # missing): said loudly and confirmed, or Telegram would deliver it again and again.
            log_skipped(data["update_id"], data, exc)
            return web.Response(text="skipped")
        if update is None:
            return web.Response(status=400, text="not an update")
        await self.application.update_queue.put(update)
        return web.Response(text="ok")

    async def _health(self, request: web.Request) -> web.Response:
        status = self.health.status()
        if not self.application.running:
            status["ok"] = False
        return web.json_response(status, status=200 if status["ok"] else 503, dumps=_dumps)


class ServerLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """aiohttp's server log, without a client's words: a request that is not well-formed HTTP is one line
    naming the kind of error, at most at INFO (anyone on the internet can send one), without the traceback
    and without the error's message, which can quote the request's headers."""

    def log(self, level: int, msg: object, *args: object, exc_info: Any = None, **kwargs: Any) -> None:
        """Log as aiohttp asked, unless the error is the client's (see the class)."""
        error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1] if exc_info else None
        if isinstance(error, HttpProcessingError):
            self.logger.log(min(level, logging.INFO), "refused a malformed HTTP request (%s)", type(error).__name__)
            return
        self.logger.log(level, msg, *args, exc_info=exc_info, **kwargs)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def webhook_secret(config: Settings) -> str:
    """The configured secret, else a fresh random one (Telegram allows ``A-Za-z0-9_-``)."""
    return config.webhook_secret or secrets.token_urlsafe(32)


async def serve_webhook(application: Application, config: Settings,  # type: ignore[type-arg]
                        stop: asyncio.Event | None = None) -> None:
    """Run the bot in webhook mode until ``stop`` is set (default: until SIGINT or SIGTERM).

    The same life cycle as PTB's ``run_webhook``: initialise, ``post_init``,
    serve, register the webhook, start; on the way out stop taking requests,
    let the Application finish the updates it has, ``post_stop``, shut down,
    ``post_shutdown``.  The webhook stays registered, so Telegram keeps the
    updates that arrive while the bot is down and delivers them afterwards.
    """
    assert config.webhook_url is not None
    if stop is None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stop.set)
    secret = webhook_secret(config)
    health: Health = application.bot_data["health"]
    server = WebhookServer(application, listen=config.webhook_listen, port=config.webhook_port,
                           secret=secret, health=health, routes=application.bot_data.get("http_routes"))
    await application.initialize()
    initialised = False
    try:
        if application.post_init is not None:
            await application.post_init(application)
        initialised = True
        await server.start()
        await application.bot.set_webhook(config.webhook_url.rstrip("/") + WEBHOOK_PATH, secret_token=secret,
                                          allowed_updates=list(UPDATE_KINDS))
        await application.start()
        log.info("serving the webhook at %s%s", config.webhook_url.rstrip("/"), WEBHOOK_PATH)
        await stop.wait()
        log.info("stop requested: no new updates; finishing the ones in progress")
    finally:
        await server.stop()
        try:
            if application.running:
                await application.stop()
            if initialised and application.post_stop is not None:
                # Also after a failed start (e.g. setWebhook refused): the tables' work
                # ends while the bot can still send, as after a normal stop.
                await application.post_stop(application)
            await application.shutdown()
        finally:
            if application.post_shutdown is not None:
                await application.post_shutdown(application)
