"""The outbox of group announcements: queued with what they announce, sent in order, once each."""

from __future__ import annotations

import pytest

import storage
from storage import Database

from .conftest import start_game


async def test_announcements_are_pending_in_order_until_marked(db: Database) -> None:
    game = await start_game(db, chat_id=-7)
    first = await storage.add_announcement(db, game.table.table_id, "result", "hand 1", hand_id=game.hand.hand_id)
    second = await storage.add_announcement(db, game.table.table_id, "note", "a note")
    assert first is not None and second is not None
    pending = await storage.pending_announcements(db, -7)
    assert [(a.kind, a.text, a.chat_id) for a in pending] == [("result", "hand 1", -7), ("note", "a note", -7)]
    assert await storage.pending_announcements(db, -8) == []
    await storage.mark_announced(db, first, 55)
    assert [a.announcement_id for a in await storage.pending_announcements(db)] == [second]
    row = await db.fetchone("SELECT sent_at, message_id FROM announcements WHERE announcement_id = ?", (first,))
    assert row is not None and row["sent_at"] is not None and row["message_id"] == 55


async def test_a_hand_is_announced_once_per_kind(db: Database) -> None:
    game = await start_game(db)
    table, hand = game.table.table_id, game.hand.hand_id
    assert await storage.add_announcement(db, table, "result", "first", hand_id=hand) is not None
    assert await storage.add_announcement(db, table, "result", "again", hand_id=hand) is None
    assert await storage.add_announcement(db, table, "match_over", "end", hand_id=hand) is not None
    assert [a.text for a in await storage.pending_announcements(db)] == ["first", "end"]


async def test_an_announcement_is_kept_only_with_what_it_announces(db: Database) -> None:
    game = await start_game(db)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await storage.add_announcement(db, game.table.table_id, "result", "lost", hand_id=game.hand.hand_id)
            raise RuntimeError("the result could not be stored")
    assert await storage.pending_announcements(db) == []


async def test_pending_announcements_follow_a_group_that_became_a_supergroup(db: Database) -> None:
    game = await start_game(db, chat_id=-100)
    await storage.add_announcement(db, game.table.table_id, "result", "moved", hand_id=game.hand.hand_id)
    await storage.migrate_chat(db, -100, -100200)
    assert [a.chat_id for a in await storage.pending_announcements(db)] == [-100200]
