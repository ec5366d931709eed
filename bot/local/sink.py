"""A Bot API that goes nowhere: what ``chaodipi play`` runs the real bot against.

The bot's whole service expects to talk to Telegram.  In play mode it talks
to this small aiohttp server on 127.0.0.1 instead (python-telegram-bot's
``base_url``): every method gets the smallest answer the library accepts —
``getMe`` the local bot, a send or an edit a message with the next id, a
member for ``getChatMember``, ``true`` for everything else — and nothing
leaves the machine (the page shows the table, its results and replays).
The token is made at random for each run and means nothing anywhere else.
"""

from __future__ import annotations

import hmac
import itertools
import json
import secrets
import time
from typing import Any, Final

from aiohttp import web

from bot.config import LOCAL_IDS

BOT_ID: Final = LOCAL_IDS + 77
"""The local bot's user id (an id of the local world: :data:`bot.config.LOCAL_IDS`)."""
BOT_USERNAME: Final = "chaodipi_local_bot"
MESSAGE_METHODS: Final = frozenset({"sendmessage", "sendphoto", "editmessagetext", "editmessagecaption",
                                    "editmessagemedia", "editmessagereplymarkup"})
"""Methods whose answer is a message."""


class BotApiSink:
    """The local Bot API server; :attr:`base_url` is what the bot's settings name."""

    def __init__(self) -> None:
        self.token = f"{secrets.randbelow(10**9) + 10**9}:{secrets.token_urlsafe(27)}"
        """A random token of Telegram's shape, made for this run only."""
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        """The ``base_url`` for python-telegram-bot (it appends the token)."""
        return f"http://127.0.0.1:{self._port}/bot"

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._answer)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _answer(self, request: web.Request) -> web.Response:
        if not hmac.compare_digest(request.match_info["token"].encode(), self.token.encode()):
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        params = await _params(request)
        return web.json_response({"ok": True, "result": self.result(request.match_info["method"].lower(), params)})

    def result(self, method: str, params: dict[str, Any]) -> Any:
        """The answer to one call: the least the library accepts for it."""
        if method == "getme":
            return {"id": BOT_ID, "is_bot": True, "first_name": "炒地皮", "username": BOT_USERNAME,
                    "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": False}
        if method == "getupdates":
            return []
        if method == "getchatmember":
            user = {"id": _int(params.get("user_id")), "is_bot": False, "first_name": "?"}
            return {"status": "member", "user": user}
        if method == "getchatadministrators":
            return []
        if method == "getchat":
            chat_id = _int(params.get("chat_id"))
            return {"id": chat_id, "type": "group" if chat_id < 0 else "private", "title": "炒地皮"}
        if method not in MESSAGE_METHODS:
            return True
        return self._message(method, params)

    def _message(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = _int(params.get("chat_id"))
        text = params.get("text") or params.get("caption")
        edited = method.startswith("edit")
        message_id = _int(params.get("message_id")) if edited else next(self._ids)
        message: dict[str, Any] = {
            "message_id": message_id, "date": int(time.time()),
            "chat": {"id": chat_id, "type": "group" if chat_id < 0 else "private", "title": "炒地皮"},
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "炒地皮", "username": BOT_USERNAME},
        }
        if isinstance(text, str):
            message["caption" if "caption" in params or method == "sendphoto" else "text"] = text
        if method in ("sendphoto", "editmessagemedia"):
            file_id = f"local-{message_id}-{secrets.token_hex(4)}"
            message["photo"] = [{"file_id": file_id, "file_unique_id": file_id, "width": 1, "height": 1}]
        return message


async def _params(request: web.Request) -> dict[str, Any]:
    """The call's parameters, decoded as Telegram would (a form's values are JSON where they parse)."""
    if request.content_type == "application/json":
        body = await request.json()
        return body if isinstance(body, dict) else {}
    values: dict[str, Any] = {}
    for name, raw in (await request.post()).items():
        if not isinstance(raw, str):
            continue  # an upload (a picture): nobody looks at it
        try:
            values[name] = json.loads(raw)
        except ValueError:
            values[name] = raw
    return values


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
