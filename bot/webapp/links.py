"""Ways into the web app from chat messages.

A group cannot hold a ``web_app`` button, so the result message links to
the bot's private chat (``t.me/<bot>?start=r<hand_id>``); /start then answers
with a button that opens the replay in the web app.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

import storage
from bot.i18n import Translator
from bot.service import Tables


async def replay_offer(tables: Tables, payload: str, tr: Translator) -> tuple[str, InlineKeyboardMarkup] | None:
    """For a ``r<hand_id>`` start payload: the text and the button opening that hand's replay."""
    public_url = tables.config.public_url
    if public_url is None or not payload.startswith("r") or not payload[1:].isdigit():
        return None
    hand = await storage.get_hand(tables.db, int(payload[1:]))
    if hand is None:
        return None
    button = InlineKeyboardButton(tr("🎞 Replay hand {n}", n=hand.number),
                                  web_app=WebAppInfo(f"{public_url}/app/?replay={hand.hand_id}"))
    return tr("Open the replay of hand {n} here:", n=hand.number), InlineKeyboardMarkup([[button]])
