"""Odd input for the web app's server, by category: every one must get a 4xx with a reason, never a 5xx.

Used by ``test_webapp_inputs.py`` (all of them, against the real bot) and
``bench/bench_webapp.py --inputs`` (the figures: inputs tried per category
and the answers they got).  Each input is sent with valid ``initData`` of a
person seated at a playing table, so only the odd part can be refused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from yarl import URL

ODD_IDS = (
    "²", "¹²", "١٢", "１２", "߁", "𝟏", "0x10", "1e3", "1.0", "-1", "+1", " 1", "1 ", "%201", "", "00000000000000000001",
    "99999999999999999999", "9223372036854775808", "1" * 5000, "NaN", "∞", "null", "[1]", "1;2", "../1",
)
"""Table and hand ids that are not ids: non-ASCII digits, signs, spaces, floats, past SQLite's 64-bit range."""

BIG_IDS = ("9223372036854775807", "0")
"""Well-formed ids of nothing: refused as someone else's (403), not as malformed."""


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def odd_bodies(version: str) -> list[tuple[str, bytes]]:
    """(label, body) for ``/act``: wrong JSON, wrong types, sizes and depth, malformed nonces."""
    def move(**fields: Any) -> bytes:
        body = {"op": "pass", "cards": [], "trump": None, "version": version, "nonce": "n0nce-0123456789"}
        body.update(fields)
        return json.dumps({k: v for k, v in body.items() if v is not _MISSING}).encode()

    return [
        ("not JSON", b"op=pass"), ("empty", b""), ("null", b"null"), ("a list", b"[]"), ("a number", b"5"),
        ("a string", b'"pass"'), ("invalid UTF-8", b'{"op": "\xff\xfe"}'), ("NaN", b'{"op": NaN}'),
        ("op a number", move(op=5)), ("op unknown", move(op="cheat")), ("op a list", move(op=["pass"])),
        ("cards a number", move(cards=5)), ("cards true", move(cards=True)), ("cards a string", move(cards="5H")),
        ("cards of numbers", move(cards=[1, 2])), ("cards not cards", move(cards=["XX"])),
        ("cards nested", move(cards=[["5H"]])), ("1,000 cards", move(cards=["5H"] * 1000)),
        ("a 100-character card", move(cards=["5" * 100])), ("trump a number", move(trump=5)),
        ("trump unknown", move(trump="Z")), ("version a number", move(version=5)),
        ("version 10,000 characters", move(version="1" * 10_000)), ("version an object", move(version={})),
        ("nonce missing", move(nonce=_MISSING)), ("nonce too short", move(nonce="abc")),
        ("nonce a number", move(nonce=12345678901)), ("nonce 1,000 characters", move(nonce="n" * 1000)),
        ("nonce null", move(nonce=None)), ("nonce with spaces", move(nonce="n o n c e 1 2 3")),
        ("an unknown field", move(extra=1)), ("100k-deep array", _deep(100_000).encode()),
        ("deep cards", move(cards=json.loads(_deep(50)))),
        ("1 MB of padding", move(pad="x" * 1_000_000)),
    ]


_MISSING: Any = object()


@dataclass(frozen=True)
class Answer:
    """One odd input and the status it got."""

    category: str
    label: str
    status: int
    reason: str


async def raw_request(port: int, data: bytes, timeout: float = 10.0) -> tuple[int, bytes]:
    """Send bytes as they are to the bot's server; (status, body) of its answer (0 if none)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(timeout):
            answer = await reader.read(65536)
            while answer and b"\r\n\r\n" not in answer:
                more = await reader.read(65536)
                if not more:
                    break
                answer += more
    except (ConnectionError, TimeoutError):
        return 0, b""
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    parts = head.split(b" ", 2)
    return (int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else 0), body


async def try_all(session: aiohttp.ClientSession, base: str, port: int, init_data: str, table_id: int,
                  version: str, on_answer: Callable[[Answer], None]) -> None:
    """Send every odd input (the person named by ``init_data`` sits at ``table_id``, whose keyboard version
    for them is ``version``) and report each answer."""
    auth = {"Authorization": f"tma {init_data}"}

    async def send(category: str, label: str, method: str, path: str, body: bytes | None = None,
                   headers: dict[str, str] | None = None) -> None:
        url = URL(base + path, encoded=False)
        async with session.request(method, url, data=body, headers={**auth, **(headers or {})}) as response:
            text = await response.text(errors="replace")
            on_answer(Answer(category, label, response.status, _reason(text)))

    for raw in ODD_IDS + BIG_IDS:
        label = raw if len(raw) <= 24 else f"{len(raw)} characters"
        for what, method, path in (("state", "GET", ""), ("act", "POST", "/act"), ("hint", "POST", "/hint"),
                                   ("ticket", "POST", "/ticket"), ("back", "POST", "/back"),
                                   ("events", "GET", "/events")):
            await send(f"table id ({what})", label, method, f"/app/api/tables/{_path(raw)}{path}",
                       b"{}" if method == "POST" else None)
        await send("hand id", label, "GET", f"/app/api/hands/{_path(raw)}")
    for label, body in odd_bodies(version):
        for what in ("act", "back"):
            await send(f"JSON body ({what})", label, "POST", f"/app/api/tables/{table_id}/{what}", body,
                       {"Content-Type": "application/json"})
    for label, value in (("no scheme", init_data), ("Bearer", f"Bearer {init_data}"), ("empty", ""),
                         ("tma only", "tma "), ("a field twice", f"tma {init_data}&auth_date=1"),
                         ("non-ASCII", "tma ünïcødé")):
        await send("Authorization", label, "GET", "/app/api/tables", None, {"Authorization": value})
    for label, query in (("unknown ticket", "ticket=" + "A" * 43), ("empty ticket", "ticket="),
                         ("initData in the URL", "auth=" + init_data), ("10,000-character ticket", "ticket=" + "t" * 10_000)):
        await send("stream ticket", label, "GET", f"/app/api/tables/{table_id}/events?{query}", None,
                   {"Authorization": ""})
    host = "Host: 127.0.0.1\r\n"
    header = f"Authorization: tma {init_data}"
    for label, data in (
        ("a 20 KB Authorization header", f"GET /app/api/tables HTTP/1.1\r\n{host}{header}{'x' * 20_000}\r\n\r\n"),
        ("an 8 KB header name", f"GET /app/api/tables HTTP/1.1\r\n{host}{'X' * 9000}: 1\r\n{header}\r\n\r\n"),
        ("300 headers", f"GET /app/api/tables HTTP/1.1\r\n{host}" + "".join(f"X-{i}: {i}\r\n" for i in range(300))
         + f"{header}\r\n\r\n"),
        ("a 20 KB request line", f"GET /app/api/tables/{'1' * 20_000} HTTP/1.1\r\n{host}{header}\r\n\r\n"),
        ("a bad method", f"G@T /app/api/tables HTTP/1.1\r\n{host}{header}\r\n\r\n"),
        ("not HTTP", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 hello\r\n\r\n"),
        ("a bad Content-Length", f"POST /app/api/tables/{table_id}/act HTTP/1.1\r\n{host}{header}\r\n"
         "Content-Length: -5\r\n\r\n"),
        ("a body longer than said", f"POST /app/api/tables/{table_id}/act HTTP/1.1\r\n{host}{header}\r\n"
         "Content-Length: 2\r\nContent-Type: application/json\r\n\r\n{\"op\": \"pass\"}"),
        ("a header without a colon", f"GET /app/api/tables HTTP/1.1\r\n{host}{header}\r\nnonsense\r\n\r\n"),
    ):
        status, body = await raw_request(port, data.encode("latin-1"))
        on_answer(Answer("HTTP", label, status, _reason(body.decode("latin-1"))))


def _path(raw: str) -> str:
    """The id as a path segment (percent-encoded where a URL must be)."""
    from urllib.parse import quote

    return quote(raw, safe="")


def _reason(text: str) -> str:
    try:
        body = json.loads(text)
    except ValueError:
        return text[:80]
    if isinstance(body, dict):
        return str(body.get("error") or body.get("refusal") or "")[:80]
    return text[:80]
