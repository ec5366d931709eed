"""Validation of ``reply_markup`` the way the Bot API checks inline keyboards."""

from __future__ import annotations

import json
import re
from typing import Any

from . import errors

MAX_BUTTONS = 100
MAX_PER_ROW = 8
MAX_CALLBACK_DATA_BYTES = 64
# Exactly one of these must be set on an inline button.
ACTION_FIELDS = (
    "callback_data",
    "url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "web_app",
    "login_url",
    "callback_game",
    "pay",
)
_URL_RE = re.compile(r"(?i)(https?://[^\s/?#]+[^\s]*|tg://[^\s]+)")


def parse_reply_markup(raw: object, *, inline_only: bool = False) -> dict[str, Any] | None:
    """Validate a ``reply_markup`` parameter and return it normalised, or None for none.

    An inline keyboard whose rows are all empty counts as no keyboard (that is how
    a bot removes buttons). ``inline_only`` is for edits, which accept nothing else.
    """
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise errors.bad_request(errors.MARKUP_NOT_JSON) from None
    if not isinstance(raw, dict):
        raise errors.bad_request(errors.MARKUP_NOT_OBJECT)
    if "inline_keyboard" not in raw:
        if inline_only:
            raise errors.bad_request(errors.INLINE_KEYBOARD_EXPECTED)
        return dict(raw)
    rows = raw["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise errors.bad_request(
            "Bad Request: field \"inline_keyboard\" of the InlineKeyboardMarkup "
            "must be an Array of Arrays"
        )
    total = sum(len(row) for row in rows)
    if total > MAX_BUTTONS or any(len(row) > MAX_PER_ROW for row in rows):
        raise errors.bad_request(errors.MARKUP_TOO_LONG)
    clean_rows = [[_check_button(button) for button in row] for row in rows if row]
    if not clean_rows:
        return None
    return {"inline_keyboard": clean_rows}


def _check_button(button: object) -> dict[str, Any]:
    if not isinstance(button, dict):
        raise errors.bad_request(
            "Bad Request: can't parse inline keyboard button: InlineKeyboardButton must be an Object"
        )
    text = button.get("text")
    if text is None:
        raise errors.bad_request(errors.BUTTON_NO_TEXT)
    if not isinstance(text, str):
        raise errors.bad_request(
            "Bad Request: can't parse inline keyboard button: Field \"text\" must be of type String"
        )
    actions = [field for field in ACTION_FIELDS if button.get(field) is not None]
    if not actions:
        raise errors.bad_request(errors.BUTTON_NO_ACTION)
    if "callback_data" in actions:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
            raise errors.bad_request(errors.BUTTON_DATA_INVALID)
    if "url" in actions:
        url = button["url"]
        if not isinstance(url, str) or not _URL_RE.fullmatch(url):
            raise errors.bad_request(errors.BUTTON_URL_INVALID)
    if "web_app" in actions:
        # Telegram opens web apps over HTTPS only (and only from private chats: see methods.py).
        url = button["web_app"].get("url") if isinstance(button["web_app"], dict) else None
        if not isinstance(url, str) or not url.startswith("https://"):
            raise errors.bad_request(errors.BUTTON_URL_INVALID)
    return {key: value for key, value in button.items() if value is not None}


def inline_buttons(markup: dict[str, Any] | None) -> list[list[dict[str, Any]]]:
    """The rows of an inline keyboard, or [] for a message without one."""
    if not markup or "inline_keyboard" not in markup:
        return []
    rows: list[list[dict[str, Any]]] = markup["inline_keyboard"]
    return rows
