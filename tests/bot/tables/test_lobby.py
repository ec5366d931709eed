"""What a new table starts with: a group that never chose gets today's defaults (the strong AI among them);
a group's stored choices carry over to its next table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.model import TableSettings
from bot.tables import Tables


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[Tables]:
    db = await storage.open_database(tmp_path / "new.db")
    await storage.upsert_user(db, 1, "Alice")
    try:
        yield Tables(db, Settings(token="1:new"))
    finally:
        await db.close()


async def test_a_new_groups_first_table_plays_the_strong_ai(tables: Tables) -> None:
    table = await tables.new_table(-100, "G", 1, "zh", None)
    assert table.settings == TableSettings()
    assert table.settings.ai_strength == "strong"


async def test_a_new_table_named_with_a_preset_still_plays_the_strong_ai(tables: Tables) -> None:
    table = await tables.new_table(-100, "G", 1, "zh", "xin")
    assert table.settings.preset == "xin" and table.settings.ai_strength == "strong"


async def test_the_groups_choice_carries_over_to_its_next_table(tables: Tables) -> None:
    table = await tables.new_table(-100, "G", 1, "zh", None)
    await tables.change_setting(table, "strength", "casual")
    await tables.change_setting(table, "preset", "anhui")
    await tables.stop(table)
    again = await tables.new_table(-100, "G", 1, "zh", None)
    assert again.settings.ai_strength == "casual" and again.settings.preset == "anhui"


async def test_settings_stored_before_the_strength_existed_keep_the_casual_ai(tables: Tables) -> None:
    await storage.upsert_chat(tables.db, -100, "G")
    await storage.update_chat(tables.db, -100, default_preset="nantong",
                              settings={"preset": "nantong", "pace": "realtime"})
    table = await tables.new_table(-100, "G", 1, "zh", None)
    assert table.settings.preset == "nantong" and table.settings.ai_strength == "casual"
