"""``setWebhook`` for the fake Telegram, added by the tests that need it.

The fake Bot API only polls; in webhook mode the bot registers its URL and
secret with ``setWebhook``, which this records so a test can check them.
"""

from __future__ import annotations

from typing import Any

from .fake_telegram import FakeTelegram


def accept_set_webhook(server: FakeTelegram) -> list[dict[str, Any]]:
    """Make ``server`` answer ``setWebhook``; returns the list each call's parameters go to."""
    calls: list[dict[str, Any]] = []

    async def set_webhook(p: Any) -> bool:
        calls.append({"url": p.get_str("url"), "secret_token": p.get_str("secret_token")})
        return True

    server.api.handlers["setwebhook"] = set_webhook
    return calls
