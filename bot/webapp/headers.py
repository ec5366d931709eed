"""Security headers on every answer under ``/app``: errors, the stream and the page alike.

Added as the answer is prepared (aiohttp's ``on_response_prepare``), so no
handler can forget them and a refusal raised anywhere carries them too.  The
server's own answers to requests that never reach a handler (malformed HTTP)
carry them as well (:mod:`bot.http_errors`).

* ``Content-Security-Policy``: the page's own script, styles and API, and
  Telegram's script; nothing inline, no other origin, no ``<base>``, no
  form posting anywhere.  (Telegram's script adds an inline ``<style>`` for
  Telegram Web's scrollbars; the policy blocks it, which costs nothing.)
* ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``.
* ``Cache-Control: no-store`` on everything under ``/app/api/``: the
  answers to authenticated requests (refusals too) are one person's.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web

CSP: Final = ("default-src 'none'; script-src 'self' https://telegram.org; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self'; base-uri 'none'; form-action 'none'")
"""The page's own files and API, and Telegram's script (``index.html`` loads
``https://telegram.org/js/telegram-web-app.js``)."""


ALWAYS: Final = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
"""On every answer under the prefix."""
PRIVATE: Final = {"Cache-Control": "no-store"}
"""Also on every answer under the API (and on the server's own error answers, which may be anyone's)."""


def install(web_app: web.Application, prefix: str) -> None:
    """Add the headers to every answer whose path starts with ``prefix``."""
    api = prefix + "/api/"

    async def add(request: web.Request, response: web.StreamResponse) -> None:
        path = request.path
        if path != prefix and not path.startswith(prefix + "/"):
            return
        response.headers.update(ALWAYS)
        if path.startswith(api):
            response.headers.update(PRIVATE)

    web_app.on_response_prepare.append(add)
