"""Whether Telegram answers: every Bot API request, ``getUpdates`` included, tells :class:`bot.faults.Faults`.

python-telegram-bot sends each request through an :class:`HTTPXRequest`;
this one notes the outcome: a network error, a timeout or a 5xx answer is
a fault of kind ``"telegram"`` (it may pass: the callers retry), any other
answer from Telegram (a 4xx included: Telegram is there) ends it.  The
library still raises what it raised: only the bookkeeping is added, and a
5xx page that is not JSON (a proxy's "Bad Gateway") is given to it as the
JSON error it stands for, so that it does not log a traceback per call.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from telegram.error import NetworkError
from telegram.request import HTTPXRequest

from bot.faults import Faults


class WatchedRequest(HTTPXRequest):
    """:class:`HTTPXRequest` that tells ``faults`` when Telegram stops and starts answering."""

    def __init__(self, faults: Faults, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.faults = faults

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """Make the request as usual, and note whether Telegram answered."""
        try:
            code, payload = await super().do_request(*args, **kwargs)
        except NetworkError as exc:  # TimedOut included
            self.faults.failed("telegram", type(exc).__name__)
            raise
        if code < 500:
            self.faults.passed("telegram")
            return code, payload
        self.faults.failed("telegram", f"HTTP {code}")
        try:
            json.loads(payload)
        except ValueError:
            phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Server error"
            payload = json.dumps({"ok": False, "error_code": code, "description": f"{phrase} ({code})"}).encode()
        return code, payload
