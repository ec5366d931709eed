"""What each message the bot keeps current shows, as a digest: an edit after a restart that would change
nothing is not sent.

The bot edits its messages in place and skips an edit whose text and
buttons equal what the message already shows.  That knowledge lived in
memory only, so every restart re-sent every message unchanged (Telegram:
"message is not modified").  The digest of what Telegram last accepted is
stored per message; a digest says nothing of the text itself.
"""

from __future__ import annotations

import time

from storage.db import Database

KEPT_DAYS = 30
"""Digests of messages not touched for this many days are dropped (their tables are long over)."""


async def shown_digests(db: Database) -> dict[tuple[int, int], str]:
    """Every stored digest, by (chat id, message id)."""
    rows = await db.fetchall("SELECT chat_id, message_id, digest FROM shown_messages")
    return {(int(row[0]), int(row[1])): str(row[2]) for row in rows}


async def save_shown(db: Database, chat_id: int, message_id: int, digest: str) -> None:
    """Remember what a message shows now."""
    async with db.transaction():
        await db.execute(
            """INSERT INTO shown_messages (chat_id, message_id, digest, updated_at) VALUES (?, ?, ?, ?)
               ON CONFLICT (chat_id, message_id) DO UPDATE SET digest = excluded.digest,
                                                              updated_at = excluded.updated_at""",
            (chat_id, message_id, digest, time.time()),
        )


async def forget_old_shown(db: Database, days: float = KEPT_DAYS) -> int:
    """Drop the digests of messages not touched for ``days`` days; how many went."""
    async with db.transaction():
        rows = await db.execute("DELETE FROM shown_messages WHERE updated_at < ? RETURNING chat_id",
                                (time.time() - days * 86400,))
    return len(rows)
