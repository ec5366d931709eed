"""A group's past hands, stored before the bot starts (the league's end-to-end tests)."""

from __future__ import annotations

import time
from pathlib import Path

import storage
from tests.storage.league_kit import hands_at

from .fake_telegram import Group, Person


async def past_hands(db_path: Path, group: Group, people: list[Person]) -> None:
    """Six hands of a finished match, this month: Alice and Carol win four."""
    db = await storage.open_database(db_path)
    try:
        hands = await hands_at(db, group.id, [p.id for p in people])
        for person in people:
            await storage.upsert_user(db, person.id, person.name)
        await storage.upsert_chat(db, group.id, "牌友群")
        now = time.time()
        for index, winner in enumerate((0, 0, 1, 0, 1, 0)):
            await hands.play(now - 3600 + index * 60, [p.id for p in people], winner=winner)
        await storage.update_match(db, hands.match_id, status="finished", winner_side=0, levels=(14, 9))
        await storage.update_table(db, hands.table_id, status="finished")
    finally:
        await db.close()
