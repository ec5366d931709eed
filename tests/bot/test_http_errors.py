"""The HTTP server's own error answers (bot.http_errors): a fixed line and the security headers, nothing of
the request, also for a handler's crash."""

from __future__ import annotations

import asyncio
import logging

import pytest
from aiohttp import web

from bot.http_errors import Runner
from bot.webapp.headers import ALWAYS, PRIVATE
from bot.webhook import ServerLog

SECRET = "query_id=AAH&user=%7B%22id%22%3A42%2C%22first_name%22%3A%22Zelda%22%7D&auth_date=1&hash=ab"


async def _answer(port: int, data: bytes) -> tuple[list[str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout=30)  # generous: never a timing claim
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.decode("latin-1").split("\r\n"), body


async def test_a_crash_and_malformed_http_get_the_fixed_answer(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")

    async def crash(request: web.Request) -> web.Response:
        raise RuntimeError(request.headers.get("Authorization", ""))

    app = web.Application()
    app.router.add_get("/crash", crash)
    runner = Runner(app, access_log=None, logger=ServerLog(logging.getLogger("aiohttp.server"), {}))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        for data, status, text in (
            (f"GET /crash HTTP/1.1\r\nHost: x\r\nAuthorization: tma {SECRET}\r\n\r\n", "500",
             b"500 Internal Server Error\n"),
            (f"GET /crash?{SECRET} HTTP/1.1 and more\r\nHost: x\r\n\r\n", "400", b"400 Bad Request\n"),
        ):
            lines, body = await _answer(port, data.encode())
            assert lines[0].split(" ")[1] == status and body == text, (lines[0], body)
            headers = dict(line.split(": ", 1) for line in lines[1:])
            assert {name: headers.get(name) for name in {**ALWAYS, **PRIVATE}} == {**ALWAYS, **PRIVATE}
            assert "Zelda" not in "\n".join(lines)
    finally:
        await runner.cleanup()
    crashes = [r for r in caplog.records if r.exc_info and isinstance(r.exc_info[1], RuntimeError)]
    assert crashes, "a crash is still logged with its traceback (it is the server's fault)"
