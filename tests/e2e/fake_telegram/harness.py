"""Wiring PTB to the fake server: a preconfigured builder and a running application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from telegram.ext import Application, ApplicationBuilder

from .server import FakeTelegram


def builder_for(server: FakeTelegram) -> ApplicationBuilder:  # type: ignore[type-arg]
    """An ``ApplicationBuilder`` pointed at ``server`` (token, base_url, base_file_url)."""
    return (
        ApplicationBuilder()
        .token(server.token)
        .base_url(server.base_url)
        .base_file_url(server.base_file_url)
    )


def unhandled(server: FakeTelegram, app: Application) -> int:  # type: ignore[type-arg]
    """Updates the fake queued that ``app`` has not finished handling: not yet fetched (the bot confirms
    what it fetched by asking for the next ones, and puts each in ``update_queue`` before it asks), or
    fetched and still being handled (``update_queue`` counts each until its handling ended, what
    ``Queue.join`` waits for)."""
    unfinished: int = getattr(app.update_queue, "_unfinished_tasks")  # noqa: B009 (no public reader)
    return len(server.state.updates.pending) + unfinished


@asynccontextmanager
async def running(
    app: Application,  # type: ignore[type-arg]
    *,
    poll_timeout: int = 10,
    **polling: Any,
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """Run ``app`` with long polling for the duration of the block, then stop it cleanly.

    This is what ``Application.run_polling`` does, minus signal handling and the
    blocking loop, so a test can act while the bot runs.
    """
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(timeout=poll_timeout, **polling)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()
