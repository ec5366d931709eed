"""aiohttp's server log through bot.webhook.ServerLog: a client's malformed HTTP is one line, nothing quoted."""

from __future__ import annotations

import logging

import pytest
from aiohttp.http_exceptions import BadHttpMethod, LineTooLong

from bot.webhook import ServerLog

SECRET = "tma query_id=AAH&user=%7B%22id%22%3A42%2C%22first_name%22%3A%22Zelda%22%7D&auth_date=1&hash=ab"


def test_a_clients_malformed_request_is_one_line_without_its_words(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    log = ServerLog(logging.getLogger("aiohttp.server"), {})
    try:
        raise LineTooLong(SECRET.encode()[:100], 8190)
    except LineTooLong as exc:
        log.exception("Error handling request from %s", "203.0.113.9", exc_info=exc)
    log.debug("Error handling request from %s", "203.0.113.9", exc_info=BadHttpMethod(SECRET))
    assert [(r.levelno, r.getMessage(), r.exc_info) for r in caplog.records] == [
        (logging.INFO, "refused a malformed HTTP request (LineTooLong)", None),
        (logging.DEBUG, "refused a malformed HTTP request (BadHttpMethod)", None),
    ]


def test_a_fault_of_the_server_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    log = ServerLog(logging.getLogger("aiohttp.server"), {})
    try:
        raise KeyError("x")
    except KeyError:
        log.exception("Unhandled exception")
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and record.getMessage() == "Unhandled exception" and record.exc_info
