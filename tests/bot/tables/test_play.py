"""A hand's end (``bot/tables/play.py``): the match deals the next hand the moment a hand ends, while the bot
still stores the result; nothing may show the next hand in that window.  A real table service over a real
database; no Telegram."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import storage
from bot.config import Settings
from bot.i18n import translator
from bot.render_group import render_table
from bot.tables import Tables
from bot.tables.shown import waiting_humans


@pytest.mark.parametrize("hand_pause", [0.0, 4.0])
async def test_while_a_result_is_stored_the_table_shows_the_pause_not_the_next_hand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hand_pause: float) -> None:
    db = await storage.open_database(tmp_path / "end.db")
    tables = Tables(db, Settings(token="1:end", hand_pause=hand_pause))
    try:
        await storage.upsert_chat(db, -5, "End")
        for user in range(1, 5):
            await storage.upsert_user(db, user, f"P{user}")
        table = await tables.new_table(-5, "End", 1, "en", "yancheng")
        for seat in range(4):  # four people: three are still asked to bid in the next hand
            await tables.sit(table, seat + 1, f"P{seat + 1}", "en", seat)
        await tables.start(table)
        assert table.match is not None and table.match.hand.phase == "bidding"
        seen: list[tuple[int, Any, str, list[int]]] = []
        record_hand_result = storage.record_hand_result

        async def storing(*args: Any, **kwargs: Any) -> None:
            # The moment the result is being stored: what would a render (the group's message, a hand
            # message, a nudge) make of the table now?
            assert table.match is not None
            text, _markup = render_table(translator("en"), table)
            seen.append((table.match.hand.setup.number, table.last_result, text, waiting_humans(table)))
            await record_hand_result(*args, **kwargs)

        monkeypatch.setattr(storage, "record_hand_result", storing)
        async with table.lock:
            await tables.escape(table, 0)  # before any card: the hand ends at once, and the next is dealt
        assert len(seen) == 1
        number, last_result, text, waiting = seen[0]
        assert number == 2, "the next hand was dealt before the result was stored"
        assert last_result is not None and last_result.number == 1
        assert "The next hand starts in a moment." in text and "Bidding is open" not in text, text
        assert "hand 1</b>" in text.split("\n")[0], "while the result is read the header names the hand that ended"
        assert waiting == [], "a player was asked to move in the next hand before the last one's result"
        if hand_pause:
            assert table.between_hands is not None and table.between_hands > time.time() + hand_pause / 2
            assert "hand 1</b>" in render_table(translator("en"), table)[0].split("\n")[0]
            tables.next_hand(table)
        else:
            assert table.between_hands is None, "with no pause the next hand is shown at once"
        text, _markup = render_table(translator("en"), table)
        assert "hand 2</b>" in text.split("\n")[0] and "Bidding is open" in text, text
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()


async def test_leaving_between_hands_gives_the_seat_to_the_ai_and_scores_no_hand(tmp_path: Path) -> None:
    """The next hand is dealt but not shown: leaving then is no escape (no 「第 2 局结束」 for a hand nobody
    saw, no deal spent); the AI holds the seat from the next hand, stored, and /join gives it back at once."""
    db = await storage.open_database(tmp_path / "leave.db")
    tables = Tables(db, Settings(token="1:leave", hand_pause=60.0))
    try:
        await storage.upsert_chat(db, -6, "Leave")
        for user in range(1, 5):
            await storage.upsert_user(db, user, f"P{user}")
        table = await tables.new_table(-6, "Leave", 1, "en", "yancheng")
        for seat in range(4):
            await tables.sit(table, seat + 1, f"P{seat + 1}", "en", seat)
        await tables.start(table)
        async with table.lock:
            await tables.escape(table, 0)  # before any card: hand 1 ends, hand 2 is dealt, the pause begins
        assert table.match is not None and table.between_hands is not None
        hand, deals, played = table.match.hand, table.match.deals, table.match.hands_played
        pending = len(await storage.pending_announcements(db))
        async with table.lock:
            await tables.escape(table, 2)  # P3 leaves while the table reads the result
        assert table.match.hand is hand and table.match.deals == deals and table.match.hands_played == played
        assert not hand.events and table.between_hands is not None, "the next hand was touched"
        info = table.seats[2]
        assert info is not None and info.is_ai and table.left[2].user_id == 3
        assert len(await storage.pending_announcements(db)) == pending, "a result was announced"
        stored = {s.seat: s for s in await storage.get_seats(db, table.id)}
        assert stored[2].is_ai and stored[2].user_id is None
        active = await storage.load_active_table(db, table.id)
        assert active is not None and active.match is not None
        assert active.match.extra["left"] == {"0": 1, "2": 3}
        async with table.lock:
            assert await tables.take_seat_back(table, 2), "between hands the seat is theirs again at once"
        info = table.seats[2]
        assert info is not None and not info.is_ai and info.user_id == 3 and 2 not in table.left
    finally:
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()
