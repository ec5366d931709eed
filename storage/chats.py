"""Users and group chats, and following a group when it becomes a supergroup."""

from __future__ import annotations

import time
from typing import Any

from storage.db import Database
from storage.errors import NotFound, StorageError
from storage.records import ChatRecord, UserRecord, to_json


async def upsert_user(
    db: Database, user_id: int, display_name: str, *, language: str | None = None
) -> UserRecord:
    """Record a user or refresh their display name; ``language`` is kept if not given."""
    now = time.time()
    async with db.transaction():
        rows = await db.execute(
            """INSERT INTO users (user_id, display_name, language, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (user_id) DO UPDATE SET
                   display_name = excluded.display_name,
                   language = COALESCE(excluded.language, users.language),
                   updated_at = excluded.updated_at
               RETURNING *""",
            (user_id, display_name, language, now, now),
        )
    return UserRecord.from_row(rows[0])


async def get_user(db: Database, user_id: int) -> UserRecord | None:
    """The user, or ``None`` if the bot never met them."""
    row = await db.fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
    return UserRecord.from_row(row) if row is not None else None


async def set_user_reachability(
    db: Database,
    user_id: int,
    *,
    can_message_privately: bool | None = None,
    blocked: bool | None = None,
) -> UserRecord:
    """Record whether the bot can message the user privately and whether they blocked it.

    A flag left ``None`` is unchanged.  Raises :class:`NotFound` for an unknown user.
    """
    async with db.transaction():
        rows = await db.execute(
            """UPDATE users SET
                   can_message_privately = COALESCE(?, can_message_privately),
                   blocked = COALESCE(?, blocked),
                   updated_at = ?
               WHERE user_id = ? RETURNING *""",
            (_flag(can_message_privately), _flag(blocked), time.time(), user_id),
        )
    if not rows:
        raise NotFound(f"No user {user_id}.")
    return UserRecord.from_row(rows[0])


async def set_user_language(db: Database, user_id: int, language: str | None) -> UserRecord:
    """Set the user's language (``None``: follow Telegram's or the bot's default)."""
    async with db.transaction():
        rows = await db.execute(
            "UPDATE users SET language = ?, updated_at = ? WHERE user_id = ? RETURNING *",
            (language, time.time(), user_id),
        )
    if not rows:
        raise NotFound(f"No user {user_id}.")
    return UserRecord.from_row(rows[0])


async def upsert_chat(db: Database, chat_id: int, title: str = "") -> ChatRecord:
    """Record a group chat or refresh its title; its language and settings are kept."""
    now = time.time()
    async with db.transaction():
        rows = await db.execute(
            """INSERT INTO chats (chat_id, title, created_at, updated_at) VALUES (?, ?, ?, ?)
               ON CONFLICT (chat_id) DO UPDATE SET
                   title = excluded.title, updated_at = excluded.updated_at
               RETURNING *""",
            (chat_id, title, now, now),
        )
    return ChatRecord.from_row(rows[0])


async def get_chat(db: Database, chat_id: int) -> ChatRecord | None:
    """The chat, or ``None`` if the bot never recorded it."""
    row = await db.fetchone("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
    return ChatRecord.from_row(row) if row is not None else None


_UNSET: Any = object()


async def update_chat(
    db: Database,
    chat_id: int,
    *,
    language: str | None = _UNSET,
    default_preset: str = _UNSET,
    settings: dict[str, Any] = _UNSET,
) -> ChatRecord:
    """Change a chat's language, default preset or settings; what is not passed is kept.

    ``language=None`` resets the chat to the bot's default language.
    """
    changes: list[tuple[str, Any]] = []
    if language is not _UNSET:
        changes.append(("language", language))
    if default_preset is not _UNSET:
        changes.append(("default_preset", default_preset))
    if settings is not _UNSET:
        changes.append(("settings", to_json(settings)))
    rows = await db.update_row("chats", "chat_id", chat_id, changes)
    if not rows:
        raise NotFound(f"No chat {chat_id}.")
    return ChatRecord.from_row(rows[0])


async def migrate_chat(db: Database, old_id: int, new_id: int) -> ChatRecord:
    """Move a group that became a supergroup (Telegram's ``migrate_to_chat_id``) to its new id.

    Every table of the old chat, and so its league standings, follows.  If the
    bot already recorded the new chat, the old chat's language, preset and
    settings replace the new one's: they are what the group chose.  Calling it
    again after the move is harmless.  Raises :class:`StorageError` if both
    chats have an active table, since a chat holds one at a time.
    """
    if old_id == new_id:
        raise ValueError("a chat cannot migrate to its own id")
    async with db.transaction():
        old = await db.fetchone("SELECT * FROM chats WHERE chat_id = ?", (old_id,))
        if old is None:
            moved = await db.fetchone(
                "SELECT new_chat_id FROM chat_migrations WHERE old_chat_id = ?", (old_id,)
            )
            if moved is not None and moved[0] == new_id:
                new = await get_chat(db, new_id)
                if new is not None:
                    return new
            raise NotFound(f"No chat {old_id} to migrate.")
        clash = await db.fetchone(
            """SELECT COUNT(DISTINCT chat_id) FROM tables
               WHERE chat_id IN (?, ?) AND status IN ('open', 'playing')""",
            (old_id, new_id),
        )
        if clash is not None and clash[0] > 1:
            raise StorageError(
                f"Cannot move chat {old_id} to {new_id}: both have an active table. "
                f"Stop one of them and try again."
            )
        now = time.time()
        await db.execute(
            """INSERT INTO chats (chat_id, title, language, default_preset, settings, time_zone,
                                  created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (chat_id) DO UPDATE SET
                   language = excluded.language,
                   default_preset = excluded.default_preset,
                   settings = excluded.settings,
                   time_zone = excluded.time_zone,
                   created_at = MIN(chats.created_at, excluded.created_at),
                   updated_at = excluded.updated_at""",
            (new_id, old["title"], old["language"], old["default_preset"], old["settings"], old["time_zone"],
             old["created_at"], now),
        )
        await db.execute(
            "UPDATE tables SET chat_id = ?, updated_at = ? WHERE chat_id = ?", (new_id, now, old_id)
        )
        await db.execute("UPDATE hand_results SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
        # The league's seasons follow the group; seasons the new id had made meanwhile give way to them.
        if await db.fetchone("SELECT 1 FROM seasons WHERE chat_id = ?", (old_id,)) is not None:
            await db.execute("DELETE FROM seasons WHERE chat_id = ?", (new_id,))
            await db.execute("UPDATE seasons SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
        await db.execute("DELETE FROM chats WHERE chat_id = ?", (old_id,))
        # Earlier moves into the old id now lead straight to the new one.
        await db.execute(
            "UPDATE chat_migrations SET new_chat_id = ? WHERE new_chat_id = ?", (new_id, old_id)
        )
        await db.execute(
            """INSERT INTO chat_migrations (old_chat_id, new_chat_id, migrated_at) VALUES (?, ?, ?)
               ON CONFLICT (old_chat_id) DO UPDATE SET
                   new_chat_id = excluded.new_chat_id, migrated_at = excluded.migrated_at""",
            (old_id, new_id, now),
        )
        new = await get_chat(db, new_id)
    assert new is not None
    return new


async def resolve_chat_id(db: Database, chat_id: int) -> int:
    """The id a chat lives under now: ``chat_id`` itself unless it moved to a supergroup."""
    row = await db.fetchone(
        "SELECT new_chat_id FROM chat_migrations WHERE old_chat_id = ?", (chat_id,)
    )
    return int(row[0]) if row is not None else chat_id


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)
