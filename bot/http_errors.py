"""The HTTP server's own error answers: a fixed line and the security headers, nothing of the request.

aiohttp answers a request that is not well-formed HTTP (a request line or a
header too long, a bad method, a header without a colon …) before any
handler or middleware runs, with a body that quotes what it could not parse
(up to 8 KB of it: an ``Authorization`` header, ``initData`` and all) and
without the headers every other answer carries.  Its answer to a handler's
crash (500) or timeout (504) is made the same way.  :class:`Runner` serves
the application with connections whose :meth:`Connection.handle_error`
answers every such error with :func:`error_answer` instead.  Logging is
aiohttp's, through the server's logger (:class:`bot.webhook.ServerLog`).
"""

from __future__ import annotations

from http import HTTPStatus

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from bot.webapp.headers import ALWAYS, PRIVATE


def error_answer(status: int) -> web.Response:
    """The answer to a request the server could not handle: its status line as text, the security
    headers, and the connection closed after it (what was sent may have left it out of step)."""
    try:
        text = f"{status} {HTTPStatus(status).phrase}\n"
    except ValueError:
        text = f"{status}\n"
    answer = web.Response(status=status, text=text, headers={**ALWAYS, **PRIVATE})
    answer.force_close()
    return answer


class Connection(RequestHandler):
    """aiohttp's connection, answering its own errors with :func:`error_answer`."""

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """Log as aiohttp does (and give up, as it does, when part of an answer was sent already), then
        answer with the fixed text."""
        super().handle_error(request, status, exc, message)
        return error_answer(status)


class _Server(web.Server):
    """aiohttp's server, making :class:`Connection` connections."""

    def __call__(self) -> RequestHandler:
        return Connection(self, loop=self._loop, **self._kwargs)


class Runner(web.AppRunner):
    """``web.AppRunner`` whose server answers its own errors with :func:`error_answer`."""

    async def _make_server(self) -> web.Server:
        made = await super()._make_server()
        # aiohttp offers no option for the connection's class: the same server, with ours.
        return _Server(made.request_handler, request_factory=made.request_factory,
                       handler_cancellation=made.handler_cancellation, loop=made._loop, **made._kwargs)
