"""A bot far behind Telegram's overall limit starts no new match: the tables playing keep their pace,
and whoever pressed Start is told to press it again in a minute (nothing else changes)."""

from __future__ import annotations

import pytest

from bot.config import Settings
from bot.i18n import translator
from bot.model import Seat, Table
from bot.tables import FAR_BEHIND, TableError, Tables


class Behind:
    """Stands in for the publisher: only its backlog (seconds of messages waiting) is read."""

    def __init__(self, backlog: float) -> None:
        self.backlog = backlog


def lobby() -> Table:
    table = Table(id=5, chat_id=-100, creator_id=100, lang="zh", title="G", status="open")
    table.seats = [Seat(100 + s, f"P{s}", lang="zh") for s in range(4)]
    return table


class Started(Exception):
    """Raised by the stand-in database: the start went past the check."""


class Database:
    def transaction(self) -> object:
        raise Started


@pytest.mark.parametrize("backlog, refused", [(FAR_BEHIND + 1, True), (FAR_BEHIND - 1, False), (0.0, False)])
async def test_no_new_match_starts_while_the_bot_is_far_behind(backlog: float, refused: bool) -> None:
    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(backlog)  # type: ignore[assignment]
    table = lobby()
    if refused:
        with pytest.raises(TableError) as caught:
            await tables.start(table)
        assert caught.value.text(translator("zh")) == "我现在开的桌已经到了 Telegram 允许的上限，请过一分钟再按「开始」。"
        assert "press Start again in a minute" in caught.value.text(translator("en"))
        assert table.status == "open" and table.match is None
    else:
        with pytest.raises(Started):
            await tables.start(table)
