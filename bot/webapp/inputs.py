"""What the web app accepts from a request, checked before anything uses it: 4xx with a reason otherwise.

Ids are ASCII digits within SQLite's 64-bit range (``str.isdigit`` would let
``²`` through to ``int()``, and a 20-digit id would overflow SQLite).  A
JSON body is read up to :data:`MAX_BODY` bytes within :data:`BODY_TIMEOUT`
seconds, its nesting is measured before it is parsed (a 100,000-deep array
would exhaust Python's recursion), and only then is it parsed and checked
field by field: type, size, allowed values.  Nothing here logs what a
request said.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from aiohttp import web

from bot import untrusted
from bot.budget import PersonBudget
from bot.i18n import pick_language, translator
from bot.webapp.initdata import WebAppUser
from engine.cards import Card
from engine.errors import NotationError

MAX_BODY: Final = 4096
"""Bytes a move may take (the longest, a bury of eight cards, is about 200)."""
MAX_DEPTH: Final = 2
"""A move is an object holding a list: nothing nests deeper."""
MAX_CARDS: Final = 33
"""A hand holds at most 25 cards, and 33 while the kitty is picked up."""
BODY_TIMEOUT: Final = 10.0
"""Seconds a request body may take to arrive (the headers' limit is the server's, :mod:`bot.webhook`)."""
OPS: Final = ("bid", "pass", "bury", "steal", "nosteal", "play")
TRUMPS: Final = ("S", "H", "D", "C", "NT")
_NONCE: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")
_VERSION: Final = re.compile(r"[0-9A-Za-z.]{1,40}")
_DEAL: Final = re.compile(r"[0-9]{1,9}")


def refuse(status: type[web.HTTPException], reason: str, **extra: Any) -> NoReturn:
    """Answer with ``status`` and ``{"ok": false, "error": reason, …}``."""
    text = json.dumps({"ok": False, "error": reason, **extra}, ensure_ascii=False)
    if status is web.HTTPRequestEntityTooLarge:
        raise web.HTTPRequestEntityTooLarge(MAX_BODY, text=text, content_type="application/json")
    raise status(text=text, content_type="application/json")


def refuse_too_many(user: WebAppUser, budget: PersonBudget) -> None:
    """Refuse (429, with when to try again, in the asker's language) a request past the person's budget, before
    any work; a request that fits is counted."""
    if budget.allows(user.id):
        return
    tr = translator(pick_language(user.language_code))  # no database read for a refusal
    wait = max(1, math.ceil(budget.retry_after(user.id)))
    raise web.HTTPTooManyRequests(
        text=json.dumps({"ok": False, "error": tr("Too many requests: try again in {n} seconds.", n=wait),
                         "retry_after": wait}, ensure_ascii=False),
        content_type="application/json", headers={"Retry-After": str(wait)})


def parse_id(raw: str, what: str) -> int:
    """An id from the path (:func:`bot.untrusted.parse_id`: ASCII digits within SQLite's range), else 400."""
    found = untrusted.parse_id(raw)
    if found is None:
        refuse(web.HTTPBadRequest, f"not a {what} id")
    return found


def parse_chat_id(raw: str) -> int:
    """A group's id from the path (:func:`bot.untrusted.parse_chat_id`: one minus at most), else 400."""
    found = untrusted.parse_chat_id(raw)
    if found is None:
        refuse(web.HTTPBadRequest, "not a group id")
    return found


async def read_object(request: web.Request, allowed: frozenset[str]) -> dict[str, Any]:
    """The request's JSON object, read within the size and time limits; only ``allowed`` keys."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        refuse(web.HTTPRequestEntityTooLarge, "the body is too large")
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            while len(body) <= MAX_BODY:
                chunk = await request.content.read(MAX_BODY + 1 - len(body))
                if not chunk:
                    break
                body += chunk
    except TimeoutError:
        refuse(web.HTTPRequestTimeout, "the body took too long")
    except web.RequestPayloadError:
        refuse(web.HTTPBadRequest, "the body is not well formed")
    if len(body) > MAX_BODY:
        refuse(web.HTTPRequestEntityTooLarge, "the body is too large")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        refuse(web.HTTPBadRequest, "the body is not UTF-8")
    if too_deep(text, MAX_DEPTH):
        refuse(web.HTTPBadRequest, "the JSON nests too deep")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        refuse(web.HTTPBadRequest, "the body is not JSON")
    if not isinstance(value, dict):
        refuse(web.HTTPBadRequest, "a JSON object is expected")
    unknown = set(value) - allowed
    if unknown:
        refuse(web.HTTPBadRequest, "unknown field: " + sorted(unknown)[0][:20])
    return value


def too_deep(text: str, limit: int) -> bool:
    """True if the JSON text nests arrays and objects more than ``limit`` deep (brackets in strings aside)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def nonce_of(body: dict[str, Any]) -> str:
    """The request's nonce: 8 to 64 of ``A-Z a-z 0-9 _ -``, else 400."""
    nonce = body.get("nonce")
    if not isinstance(nonce, str) or _NONCE.fullmatch(nonce) is None:
        refuse(web.HTTPBadRequest, "the nonce is missing or malformed")
    return nonce


@dataclass(frozen=True, slots=True)
class Move:
    """A move as the page sends it, checked for shape (the engine checks the rest)."""

    op: str
    cards: tuple[Card, ...]
    trump: str | None
    version: str | None
    nonce: str


MOVE_FIELDS: Final = frozenset({"op", "cards", "trump", "version", "nonce"})


def move_of(body: dict[str, Any]) -> Move:
    """The move in a body read by :func:`read_object`; 400 naming the first field that is wrong."""
    op, cards, trump, version = body.get("op"), body.get("cards", []), body.get("trump"), body.get("version")
    if op not in OPS:
        refuse(web.HTTPBadRequest, "not a move: op")
    if cards is None:
        cards = []
    if not isinstance(cards, list) or len(cards) > MAX_CARDS \
            or not all(isinstance(card, str) and len(card) <= 3 for card in cards):
        refuse(web.HTTPBadRequest, "not a move: cards")
    try:
        parsed = tuple(Card.parse(card) for card in cards)
    except NotationError:
        refuse(web.HTTPBadRequest, "not a move: cards")
    if trump is not None and trump not in TRUMPS:
        refuse(web.HTTPBadRequest, "not a move: trump")
    if version is not None and (not isinstance(version, str) or _VERSION.fullmatch(version) is None):
        refuse(web.HTTPBadRequest, "not a move: version")
    return Move(op, parsed, trump, version, nonce_of(body))


def deal_of(body: dict[str, Any]) -> str:
    """The deal number a 「下一局」 press was drawn at: 1 to 9 ASCII digits, else 400."""
    deal = body.get("deal")
    if not isinstance(deal, str) or _DEAL.fullmatch(deal) is None:
        refuse(web.HTTPBadRequest, "not a deal")
    return deal
