"""Fixtures for storage tests: real SQLite files in a temporary folder, never mocks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

import storage
from storage import Database, HandRecord, MatchRecord, TableRecord

RULESET = {"name": "yancheng", "laps": 3, "red5_trump": True}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "chaodipi.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(db_path)
    try:
        yield database
    finally:
        await database.close()


@dataclass
class Game:
    table: TableRecord
    match: MatchRecord
    hand: HandRecord


async def start_game(
    db: Database,
    chat_id: int = -1001,
    players: Sequence[int | None] = (1, 2, 3, 4),
    *,
    seed: int = 7,
) -> Game:
    """A chat with a playing table, its four seats, a match and its first hand."""
    await storage.upsert_chat(db, chat_id, f"chat {chat_id}")
    human = [p for p in players if p is not None]
    for person in human:
        await storage.upsert_user(db, person, f"player{person}")
    table = await storage.create_table(db, chat_id, creator_id=human[0] if human else None)
    for seat, occupant in enumerate(players):
        await storage.set_seat(db, table.table_id, seat, user_id=occupant, is_ai=occupant is None)
    table = await storage.update_table(db, table.table_id, status="playing")
    match = await storage.create_match(db, table.table_id, preset="yancheng", ruleset=RULESET)
    hand = await storage.create_hand(db, match.match_id, seed=seed, ruleset=RULESET)
    return Game(table, match, hand)
