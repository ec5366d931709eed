"""Fixtures for end-to-end tests: a fake Telegram per test, on a free port of 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import telegram

from .fake_telegram import FakeClock, FakeTelegram

ServerFactory = Callable[..., Awaitable[FakeTelegram]]


def _assert_clean(server: FakeTelegram) -> None:
    # A method the bot needs but the fake lacks, or a bug in the fake, must fail
    # the test that met it, not scroll by in a log.
    assert not server.unknown_methods, f"the bot called unimplemented methods: {server.unknown_methods}"
    assert not server.internal_errors, f"the fake server failed: {server.internal_errors!r}"


@pytest.fixture
async def fake_telegram_factory() -> AsyncIterator[ServerFactory]:
    """Start servers with custom settings: ``await fake_telegram_factory(limits=...)``."""
    started: list[FakeTelegram] = []

    async def make(**kwargs: Any) -> FakeTelegram:
        server = FakeTelegram(**kwargs)
        await server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        await server.stop()
    for server in started:
        _assert_clean(server)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fake_telegram(**kwargs): settings for the fake_telegram fixture, "
        "e.g. @pytest.mark.fake_telegram(limits=FloodLimits.unlimited())",
    )
    config.addinivalue_line("markers", "deal(seed_index): the Tables.rng seed a web app test's match is dealt with")


@pytest.fixture
async def fake_telegram(
    request: pytest.FixtureRequest, fake_telegram_factory: ServerFactory
) -> FakeTelegram:
    """A fake Telegram: real clock and Telegram's flood limits unless the test's
    ``@pytest.mark.fake_telegram(...)`` says otherwise."""
    marker = request.node.get_closest_marker("fake_telegram")
    return await fake_telegram_factory(**(marker.kwargs if marker else {}))


@pytest.fixture
def fake_clock() -> FakeClock:
    """A clock that moves only on ``advance``."""
    return FakeClock()


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[telegram.Bot]:
    """A real, initialised ``telegram.Bot`` talking to ``fake_telegram``."""
    async with telegram.Bot(fake_telegram.token, base_url=fake_telegram.base_url) as ptb_bot:
        yield ptb_bot
