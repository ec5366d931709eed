"""People and chats as the front ends ask about them: who someone is, their language, whether the bot can
write to them, a group's title and language.

The keyboard's handlers and the Mini App ask these here, so neither reaches
storage itself (the layout test holds them to it), and a language is looked
up one way wherever it is needed: the person's /lang choice, else
Telegram's language code.
"""

from __future__ import annotations

import storage
from bot.i18n import Translator, pick_language, translator


class People:
    """People and chats, over the database (see the module's docstring)."""

    def __init__(self, db: storage.Database) -> None:
        self.db = db

    async def get(self, user_id: int) -> storage.UserRecord | None:
        """What is stored of a person (None for someone the bot never met)."""
        return await storage.get_user(self.db, user_id)

    async def translator(self, user_id: int, language_code: str | None) -> Translator:
        """A person's language: their /lang choice, else Telegram's language code."""
        record = await storage.get_user(self.db, user_id)
        if record is not None and record.language:
            return translator(record.language)
        return translator(pick_language(language_code))

    async def remember(self, user_id: int, name: str, language_code: str | None) -> storage.UserRecord:
        """Store the person's name (and the language of their Telegram, if they chose none)."""
        record = await storage.get_user(self.db, user_id)
        language = record.language if record is not None and record.language else pick_language(language_code)
        return await storage.upsert_user(self.db, user_id, name, language=language)

    async def can_write(self, user_id: int) -> bool:
        """True if the person opened the private chat and has not blocked the bot since (as far as known)."""
        record = await storage.get_user(self.db, user_id)
        return record is not None and record.can_message_privately and not record.blocked

    async def set_language(self, user_id: int, language: str) -> None:
        """A person's /lang choice."""
        await storage.set_user_language(self.db, user_id, language)

    async def reachable(self, user_id: int) -> None:
        """The person opened the private chat (pressed Start): the bot may write to them."""
        await storage.set_user_reachability(self.db, user_id, can_message_privately=True, blocked=False)

    async def chat(self, chat_id: int) -> storage.ChatRecord | None:
        """What is stored of a group (None for one the bot never saw)."""
        return await storage.get_chat(self.db, chat_id)

    async def chat_language(self, chat_id: int) -> str | None:
        """The group's /lang choice, if it made one."""
        record = await storage.get_chat(self.db, chat_id)
        return record.language if record is not None and record.language else None

    async def remember_chat(self, chat_id: int, title: str) -> None:
        """Store the group (its title, as Telegram gives it now)."""
        await storage.upsert_chat(self.db, chat_id, title)

    async def set_chat_language(self, chat_id: int, title: str, language: str) -> None:
        """A group's /lang choice."""
        await storage.upsert_chat(self.db, chat_id, title)
        await storage.update_chat(self.db, chat_id, language=language)
