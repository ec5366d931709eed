"""Stopping the bot: the tables' last work gets STOP_TIMEOUT seconds, then the shut-down goes on."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from bot import app as bot_app


class StuckTables:
    """A table service whose last edits never go out (Telegram unreachable)."""

    outbox = None
    publisher = None

    def __init__(self) -> None:
        self.closing = asyncio.Event()

    async def close(self) -> None:
        self.closing.set()
        await asyncio.Event().wait()


async def test_the_shut_down_gives_up_on_work_that_outlasts_its_patience(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(bot_app, "STOP_TIMEOUT", 0.2)
    tables = StuckTables()
    application = SimpleNamespace(bot_data={"tables": tables})
    with caplog.at_level(logging.WARNING):
        await asyncio.wait_for(bot_app._stop_tables(application), 5)  # type: ignore[arg-type]
    assert tables.closing.is_set()
    assert "gave up waiting after 0 s" in caplog.text
    await bot_app._stop_tables(application)  # type: ignore[arg-type]  # once only: a second call returns


async def test_a_stop_cancelled_from_outside_is_not_swallowed() -> None:
    """Cancelling the shut-down itself (a second Ctrl-C) cancels it, whenever it comes."""
    tables = StuckTables()
    application = SimpleNamespace(bot_data={"tables": tables})
    stopping = asyncio.create_task(bot_app._stop_tables(application))  # type: ignore[arg-type]
    await tables.closing.wait()
    stopping.cancel()
    done, _ = await asyncio.wait({stopping}, timeout=2)
    assert done and stopping.cancelled()
