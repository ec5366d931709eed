"""Telegram Mini App ``initData``: who is asking, proven by Telegram's signature.

Telegram hands the web app a query string (``query_id``, ``user``,
``auth_date``, ``hash``, …) signed for this bot.  As Telegram documents it:
the data-check string is every field but ``hash``, ``key=value`` with the
values decoded, sorted by key and joined by newlines; the secret key is
``HMAC_SHA256(key="WebAppData", msg=bot_token)``; ``hash`` must equal the hex
``HMAC_SHA256(key=secret_key, msg=data_check_string)``.  ``auth_date`` must
not be older than the configured limit, so a leaked ``initData`` stops
working.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode


class InitDataError(Exception):
    """``initData`` that does not prove who is asking (missing, forged, for another bot, or too old)."""


@dataclass(frozen=True, slots=True)
class WebAppUser:
    """The person a valid ``initData`` names."""

    id: int
    first_name: str
    language_code: str | None
    auth_date: int
    hash: str
    """The signature: tells one opening of the app from another."""


def secret_key(bot_token: str) -> bytes:
    """``HMAC_SHA256(key="WebAppData", msg=bot_token)``."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def validate(init_data: str, bot_token: str, *, max_age: float, now: float | None = None) -> WebAppUser:
    """The person ``init_data`` names; raises :class:`InitDataError` unless Telegram signed it recently."""
    if not init_data:
        raise InitDataError("no initData")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field is repeated")
    given = fields.get("hash", "")
    expected = hmac.new(secret_key(bot_token), _check_string(fields).encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise InitDataError("the signature does not match")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise InitDataError("auth_date or user is missing") from None
    age = (time.time() if now is None else now) - auth_date
    if age > max_age:
        raise InitDataError("initData has expired")
    if age < -60:  # a clock a minute ahead is a clock problem; more is a forgery attempt
        raise InitDataError("auth_date is in the future")
    return WebAppUser(user_id, str(user.get("first_name", "")), user.get("language_code"), auth_date, given)


def sign(bot_token: str, user: dict[str, object], *, auth_date: int | None = None,
         query_id: str = "AAHdF6IQAAAAAN0XohDhrOrc") -> str:
    """``initData`` as Telegram would make it for this bot (tests, the browser stub, benches)."""
    fields = {
        "query_id": query_id,
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    fields["hash"] = hmac.new(secret_key(bot_token), _check_string(fields).encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)
