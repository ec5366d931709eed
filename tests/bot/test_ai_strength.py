"""The table's AI strength (「轻松」 casual / 「高手」 strong): stored, shown in the settings, strong by default."""

from __future__ import annotations

import pytest

from bot import callbacks
from bot.i18n import translator
from bot.model import Seat, Table, TableSettings
from bot.render_group import render_settings
from tests.bot import builders as T


def _table(settings: TableSettings) -> Table:
    table = Table(id=T.TABLE_ID, chat_id=-100, creator_id=1, lang="zh", title=T.GROUP_TITLE, settings=settings)
    table.seats = [Seat(1, T.NAMES[0]), None, Seat(None, "AI", is_ai=True), None]
    return table


def test_strong_by_default_and_stored() -> None:
    assert TableSettings().ai_strength == "strong"
    casual = TableSettings(ai_strength="casual")
    assert TableSettings.from_dict(casual.to_dict()) == casual
    assert TableSettings.from_dict(TableSettings().to_dict()).ai_strength == "strong"
    # Stored before the setting existed: those tables played the casual AI, and keep it.
    assert TableSettings.from_dict({"preset": "xin"}).ai_strength == "casual"
    assert TableSettings.from_dict({"ai_strength": "godlike"}).ai_strength == "casual"


@pytest.mark.parametrize("lang,labels", [("zh", ("AI：轻松", "AI：高手")), ("en", ("AI: casual", "AI: strong"))])
@pytest.mark.parametrize("strength", ["casual", "strong"])
def test_settings_panel_offers_both_strengths_and_ticks_the_table_s(lang: str, labels: tuple[str, str],
                                                                   strength: str) -> None:
    _raw, markup = render_settings(translator(lang), _table(TableSettings(ai_strength=strength)))  # type: ignore[arg-type]
    found = {}
    for row in markup.inline_keyboard:
        for button in row:
            data = callbacks.decode(button.callback_data)  # type: ignore[arg-type]
            if data is not None and data.op == "strength":
                found[data.arg] = button.text
    assert set(found) == {"casual", "strong"}
    assert found["casual"].removeprefix("✓ ") == labels[0] and found["strong"].removeprefix("✓ ") == labels[1]
    assert found[strength].startswith("✓ ")
    assert not found["strong" if strength == "casual" else "casual"].startswith("✓ ")
