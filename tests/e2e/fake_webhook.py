"""``setWebhook`` for the fake Telegram, added by the tests that need it.

The fake Bot API only polls; in webhook mode the bot registers its URL and
secret with ``setWebhook``, which this records so a test can check them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .fake_telegram import FakeTelegram
from .fake_telegram.errors import bad_request


def accept_set_webhook(server: FakeTelegram) -> list[dict[str, Any]]:
    """Make ``server`` answer ``setWebhook``; returns the list each call's parameters go to.

    Like Telegram, it refuses a URL that is not HTTPS, or on a port other than 80, 88, 443 and 8443.
    """
    calls: list[dict[str, Any]] = []

    async def set_webhook(p: Any) -> bool:
        url = p.get_str("url") or ""
        calls.append({"url": url, "secret_token": p.get_str("secret_token")})
        if not url.startswith("https://"):
            raise bad_request("Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        if (urlsplit(url).port or 443) not in (80, 88, 443, 8443):
            raise bad_request("Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
        return True

    server.api.handlers["setwebhook"] = set_webhook
    return calls
