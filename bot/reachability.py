"""Whether Telegram answers: every Bot API request, ``getUpdates`` included, tells :class:`bot.faults.Faults`.

python-telegram-bot sends each request through an :class:`HTTPXRequest`;
this one notes the outcome: a network error, a timeout or a 5xx answer is
a fault of kind ``"telegram"`` (it may pass: the callers retry), any other
answer from Telegram (a 4xx included: Telegram is there) ends it.  The
library still raises what it raised: only the bookkeeping is added, and a
5xx page that is not JSON (a proxy's "Bad Gateway") is given to it as the
JSON error it stands for, so that it does not log a traceback per call.

``getUpdates``' own request (``polling=True``) is the exception: the
library's polling loop waits longer after each failure (1, 1.5, 2.25 … up
to 30 s) unless it is a timeout, so after a long outage the bot would not
poll for up to 30 s while Telegram is back (``bench/bench_faults.py``
measured 25 s).  An unreachable Telegram is given to it as a timeout after
a pause of :data:`POLL_AGAIN`: it polls again once a second throughout.

An update the library cannot read (a field it requires missing, as from a
Bot API older or newer than it expects) would stop the bot for good: the
polling loop confirms a batch only once it has read it, so it fetched the
same batch again and again, logging it as critical, and no update after it
ever reached the bot.  Each such update is given to it as its bare id
(:func:`readable_updates`): logged as an error once, confirmed, skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any, Final, NoReturn

from telegram import Update
from telegram.error import NetworkError, TimedOut
from telegram.request import HTTPXRequest

from bot.faults import Faults

POLL_AGAIN: Final = 1.0
"""Seconds between two polls while Telegram cannot be reached."""

log = logging.getLogger(__name__)


def log_skipped(update_id: int, raw: dict[str, Any], exc: Exception) -> None:
    """The one ERROR line of an update the library cannot read: its id, its kinds and why (quoted: its text may
    carry what a person typed)."""
    kinds = ", ".join(sorted(repr(key) for key in raw if key != "update_id"))
    log.error("update %s (%s) cannot be read and is skipped: %s: %r", update_id, kinds, type(exc).__name__,
              str(exc)[:200])


def readable_updates(payload: bytes) -> bytes:
    """``getUpdates``' answer with every update python-telegram-bot cannot read replaced by its bare
    ``{"update_id": N}`` (an update of no kind, which no handler takes), each logged as an error; any other
    answer as it came."""
    try:
        answer = json.loads(payload)
    except ValueError:
        return payload
    result = answer.get("result") if isinstance(answer, dict) and answer.get("ok") is True else None
    if not isinstance(result, list):
        return payload
    skipped = False
    for index, raw in enumerate(result):
        try:
            Update.de_json(raw, None)
        except Exception as exc:  # what the library would raise reading the whole batch
            update_id = raw.get("update_id") if isinstance(raw, dict) else None
            if type(update_id) is not int:
                return payload  # nothing to confirm it by: the library's own handling
            log_skipped(update_id, raw, exc)
            result[index] = {"update_id": update_id}
            skipped = True
    return json.dumps(answer).encode() if skipped else payload


class WatchedRequest(HTTPXRequest):
    """:class:`HTTPXRequest` that tells ``faults`` when Telegram stops and starts answering; with ``polling``,
    the request of ``getUpdates``, which turns an unreachable Telegram into a timeout a second later."""

    def __init__(self, faults: Faults, *, polling: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.faults = faults
        self.polling = polling

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """Make the request as usual, and note whether Telegram answered."""
        try:
            code, payload = await super().do_request(*args, **kwargs)
        except NetworkError as exc:  # TimedOut included
            self.faults.failed("telegram", type(exc).__name__)
            if self.polling and not isinstance(exc, TimedOut):
                await self._poll_again(exc)
            raise
        if code < 500:
            self.faults.passed("telegram")
            return code, readable_updates(payload) if self.polling and code == 200 else payload
        self.faults.failed("telegram", f"HTTP {code}")
        if self.polling:
            await self._poll_again(None)
        try:
            json.loads(payload)
        except ValueError:
            phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Server error"
            payload = json.dumps({"ok": False, "error_code": code, "description": f"{phrase} ({code})"}).encode()
        return code, payload

    async def _poll_again(self, cause: NetworkError | None) -> NoReturn:
        """Telegram cannot be reached: a timeout, after :data:`POLL_AGAIN`, which the polling loop retries at
        once (the fault is counted already)."""
        await asyncio.sleep(POLL_AGAIN)
        raise TimedOut("Telegram cannot be reached; polling again") from cause
