"""Fixtures shared by the bot's unit tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[storage.Database]:
    """A fresh database in the test's own folder, closed after the test."""
    database = await storage.open_database(tmp_path / "league.db")
    try:
        yield database
    finally:
        await database.close()
