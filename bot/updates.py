"""The kinds of update the bot asks Telegram for: only what its handlers use.

Asking for every kind (``Update.ALL_TYPES``) brings edits, channel posts,
polls and reactions that nothing handles, each one a request and a trip
through the handlers; an edited message must never run a command anyway.
"""

from __future__ import annotations

from typing import Final

from telegram import Update

UPDATE_KINDS: Final[tuple[str, ...]] = (
    Update.MESSAGE,  # commands, and the service messages of a supergroup upgrade and a forum topic closed or reopened
    Update.CALLBACK_QUERY,  # every button
    Update.MY_CHAT_MEMBER,  # the bot added to a group, removed from it, blocked or started in private
)
"""The update kinds given to ``getUpdates`` and ``setWebhook`` as ``allowed_updates``."""
