"""The outbox: group announcements that must be made exactly once, even across a crash.

A hand's result is stored together with its announcement, in one
transaction; the bot sends pending announcements in order and marks each
one sent.  A crash anywhere between the result's commit and the send leaves
the announcement pending, and the next start sends it.  (Between Telegram's
answer and the mark, a crash would send it again: that window is one
round-trip to the database, the shortest the Bot API allows, since Telegram
cannot be asked whether a message was already sent.)
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field

from storage.db import Database


@dataclass(frozen=True, slots=True)
class Announcement:
    """A pending announcement: the table it is about, the chat it goes to now, its HTML text."""

    announcement_id: int
    table_id: int
    chat_id: int
    kind: str
    text: str
    photo: bytes | None = field(default=None, repr=False)
    """A picture (PNG) sent with the text as its caption; None: a text message."""
    thread_id: int | None = None
    """The forum topic of the table it is about (None: a group without topics, or the General topic)."""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Announcement:
        """Build one from a row of :func:`pending_announcements`' query."""
        photo = row["photo"]
        thread = row["thread_id"]
        return cls(int(row["announcement_id"]), int(row["table_id"]), int(row["chat_id"]), str(row["kind"]),
                   str(row["text"]), bytes(photo) if photo is not None else None,
                   int(thread) if thread is not None else None)


async def add_announcement(db: Database, table_id: int, kind: str, text: str, *,
                           hand_id: int | None = None, photo: bytes | None = None) -> int | None:
    """Queue an announcement for the table's group; its id, or None if this hand's ``kind`` is queued already.

    ``photo``: a picture sent with ``text`` as its caption (at most 1024
    characters, as Telegram allows).  Call it in the transaction that stores
    what it announces, so that both or neither are kept.
    """
    async with db.transaction():
        rows = await db.execute(
            """INSERT INTO announcements (table_id, hand_id, kind, text, photo, created_at)
               VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING announcement_id""",
            (table_id, hand_id, kind, text, photo, time.time()),
        )
    return int(rows[0][0]) if rows else None


async def pending_announcements(db: Database, chat_id: int | None = None) -> list[Announcement]:
    """The announcements not sent yet, oldest first: of one chat, or of every chat."""
    rows = await db.fetchall(
        """SELECT a.announcement_id, a.table_id, t.chat_id, t.thread_id, a.kind, a.text, a.photo
           FROM announcements AS a JOIN tables AS t ON t.table_id = a.table_id
           WHERE a.sent_at IS NULL AND (? IS NULL OR t.chat_id = ?)
           ORDER BY a.announcement_id""",
        (chat_id, chat_id),
    )
    return [Announcement.from_row(row) for row in rows]


async def mark_announced(db: Database, announcement_id: int, message_id: int | None) -> None:
    """Record that an announcement was sent (``message_id`` None: the chat could not take it; given up)."""
    async with db.transaction():
        await db.execute("UPDATE announcements SET sent_at = ?, message_id = ? WHERE announcement_id = ?",
                         (time.time(), message_id, announcement_id))
