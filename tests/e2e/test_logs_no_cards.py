"""A whole hand played through the real bot with logging at DEBUG: no log line names a card.

Everything is captured twice: the lines as ``chaodipi run`` writes them, and
the raw records before the last-resort masking of :mod:`bot.logs`, so that
the test fails if any source (ours, PTB, aiosqlite, httpx) emits a card,
not only if the mask misses one.
"""

from __future__ import annotations

import io
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import logs

from .botkit import bot_running, play_my_turn, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits


class _Records(logging.Handler):
    """Keeps every record's message and traceback, unformatted and unmasked."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.records: list[logging.LogRecord] = []
        self.addFilter(logs.ContextFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.texts.append(text)


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, _Records]]:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    saved_quiet = {name: logging.getLogger(name).level for name in logs.QUIET_LOGGERS}
    stream, records = io.StringIO(), _Records()
    logs.setup_logging("DEBUG", "text", stream)
    root.addHandler(records)
    yield stream, records
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved_handlers:
        root.addHandler(handler)
    root.setLevel(saved_level)
    for name, level in saved_quiet.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_hand_at_debug_level_logs_no_card(
    fake_telegram: FakeTelegram, tmp_path: Path, captured: tuple[io.StringIO, _Records]
) -> None:
    stream, records = captured
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Friends", [alice])
    async with bot_running(server, tmp_path / "t.db") as app:
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        for _ in range(3):
            await (await alice.press(table_message(group), "+ AI")).answer()
        await server.wait_for(lambda: "▶️ Start" in str(table_message(group).labels) and
                              "(empty)" not in (table_message(group).text or ""), what="a full table")
        await (await alice.press(table_message(group), "▶️ Start")).answer()
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        # Until a hand is scored: a deal where nobody declares is dealt again after a few events.
        for _ in range(2000):
            if _scored(table):
                break
            if not await play_my_turn(server, alice, table):
                await server.wait_for(lambda: _scored(table) or _alice_to_move(table, alice.id),
                                      timeout=10, what="Alice's move")
        assert _scored(table), "no hand was played to its end"

    leaks = [text for text in records.texts if logs.CARD_PATTERN.search(text)]
    assert not leaks, leaks[:5]
    assert logs.CARD_PATTERN.search(stream.getvalue()) is None
    # The records are about something: moves at DEBUG, each with its table and hand,
    # and the moves Alice made through buttons with the update that carried them.
    moves = [r for r in records.records if r.getMessage().startswith("event ")]
    with sqlite3.connect(tmp_path / "t.db") as db:  # the moves stored in the deals until the scored hand
        (played,), = db.execute("SELECT count(*) FROM events WHERE hand_id <= "
                                "(SELECT max(hand_id) FROM hand_results)").fetchall()
    assert played >= 4 and len(moves) >= played  # every move logged (a hand's length depends on its plays)
    assert all(r.table == table.id and r.hand is not None for r in moves)  # type: ignore[attr-defined]
    assert any(r.update is not None for r in moves)  # type: ignore[attr-defined]
    assert f"table={table.id} hand=" in stream.getvalue()


def _scored(table) -> bool:  # type: ignore[no-untyped-def]
    return table.last_result is not None and table.last_result.result is not None


def _alice_to_move(table, user_id: int) -> bool:  # type: ignore[no-untyped-def]
    seat = table.seat_of(user_id)
    hand = table.match.hand
    if hand.phase == "bidding":
        return seat not in hand.passed
    return hand.turn == seat
