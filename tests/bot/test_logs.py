"""Structured logs: the table, hand and update on every line; nothing that looks like a card."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot import logs


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    """Logging set up as ``chaodipi run`` does it, into a string; the root logger restored afterwards."""
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    saved_quiet = {name: logging.getLogger(name).level for name in logs.QUIET_LOGGERS}
    stream = io.StringIO()
    yield stream
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved_handlers:
        root.addHandler(handler)
    root.setLevel(saved_level)
    for name, level in saved_quiet.items():
        logging.getLogger(name).setLevel(level)


async def test_each_task_logs_its_own_table_and_hand(output: io.StringIO) -> None:
    logs.setup_logging("DEBUG", "text", output)
    log = logging.getLogger("bot.tables.play")

    async def work(table: int, hand: int) -> None:
        logs.bind(table=table, hand=hand)
        for _ in range(3):
            await asyncio.sleep(0)
            log.info("working on %s", table)

    await asyncio.gather(work(12, 34), work(13, 35))
    log.info("outside any table")
    lines = output.getvalue().splitlines()
    assert len(lines) == 7
    for line in lines[:6]:
        table = line.rsplit(" ", 1)[1]
        hand = {"12": "34", "13": "35"}[table]
        assert f" INFO bot.tables.play table={table} hand={hand}: working on {table}" in line
    assert lines[6].endswith(" INFO bot.tables.play table=- hand=-: outside any table")
    assert lines[0][:4].isdigit() and lines[0][10] == "T" and lines[0][19] == "Z"


async def test_a_task_started_from_a_bound_task_inherits_its_table(output: io.StringIO) -> None:
    logs.setup_logging("INFO", "text", output)
    logs.bind(table=7, hand=8)
    logs.bind_update(99)
    await asyncio.create_task(_log_something())
    assert "table=7 hand=8 update=99: from a child task" in output.getvalue()


async def _log_something() -> None:
    logging.getLogger("bot.publisher").warning("from a child task")


def test_json_lines(output: io.StringIO) -> None:
    logs.setup_logging("INFO", "json", output)

    def in_a_fresh_context() -> None:
        logs.bind(table=3, hand=4)
        logging.getLogger("bot.app").info("ready: %d active tables", 2)

    import contextvars

    contextvars.copy_context().run(in_a_fresh_context)
    entry = json.loads(output.getvalue())
    assert entry["table"] == 3 and entry["hand"] == 4 and entry["update"] is None
    assert entry["level"] == "INFO" and entry["logger"] == "bot.app"
    assert entry["message"] == "ready: 2 active tables"


def test_anything_that_looks_like_a_card_is_masked(output: io.StringIO) -> None:
    logs.setup_logging("INFO", "text", output)
    log = logging.getLogger("bot.handlers.errors")
    log.info("held ♠A♠A ♥10 大王 小王 and 10H QS BJ SJ")
    try:
        raise ValueError("You do not hold 10H QS.")
    except ValueError:
        log.exception("update failed")
    text = output.getvalue()
    assert logs.CARD_PATTERN.search(text) is None, text
    assert "held ▒▒ ▒ ▒ ▒ and ▒ ▒ ▒ ▒" in text
    assert "You do not hold ▒ ▒." in text
    # what is not a card stays readable
    assert logs.redact("table=12 hand=34 update=5678 2026-11-29T14:00:00Z ASCII 10 H") == \
        "table=12 hand=34 update=5678 2026-11-29T14:00:00Z ASCII 10 H"


def test_chatty_libraries_stay_quiet_even_at_debug(output: io.StringIO) -> None:
    logs.setup_logging("DEBUG", "text", output)
    assert logging.getLogger("telegram.ext.ExtBot").getEffectiveLevel() == logging.INFO
    assert logging.getLogger("aiosqlite").getEffectiveLevel() == logging.INFO
    assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING
    assert logging.getLogger("bot.tables.play").getEffectiveLevel() == logging.DEBUG


def test_setting_up_twice_does_not_double_lines(output: io.StringIO) -> None:
    logs.setup_logging("INFO", "text", output)
    logs.setup_logging("INFO", "text", output)
    logging.getLogger("bot").info("once")
    assert output.getvalue().count("once") == 1


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError):
        logs.setup_logging("INFO", "xml")


def test_the_bot_token_is_masked_in_every_line(output: io.StringIO) -> None:
    logs.setup_logging("DEBUG", "text", output)
    logs.hide_secret("4242:AAHtheSecretPartOfAToken")
    log = logging.getLogger("telegram.ext")
    try:
        raise ValueError("The token `4242:AAHtheSecretPartOfAToken` was rejected")
    except ValueError:
        log.exception("url http://h:80804242:AAHtheSecretPartOfAToken/getMe failed")
    text = output.getvalue()
    assert "AAHtheSecret" not in text and "http://h:80804242:***/getMe" in text and "`4242:***`" in text
