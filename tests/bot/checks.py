"""Assertions shared by the rendering tests (not a test module).

* :func:`assert_telegram_html` — only the tags Telegram's HTML parse mode
  knows (b, i, u, s, code, pre, a), properly nested, and every ``<`` / ``&``
  of the text escaped; returns the text a reader sees.
* :func:`card_labels` — the card labels (``♠A``, ``♥10``, ``大王``, ``BJ`` …)
  a reader sees in a text.
* :func:`assert_keyboard_limits` — Telegram's limits on inline keyboards and
  the project's six-a-row layout, with every ``callback_data`` decodable.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.labels import card_label
from engine.cards import Card

MAX_TEXT = 4096
MAX_BUTTONS = 100
MAX_ROW = 8
CARD_ROW = 6

_TAG = re.compile(r'<(/?)([a-z]+)((?:\s+[a-z]+="[^"<>]*")*)\s*>')
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")
_ALLOWED = {"b", "i", "u", "s", "code", "pre", "a"}

CARD_LABEL = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|大王|小王|BJ|SJ")
SUIT = re.compile(r"[♠♥♦♣]")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def assert_telegram_html(text: str) -> str:
    """Check ``text`` is valid for ``parse_mode=HTML``; return it as the reader sees it."""
    assert text, "empty message"
    stack: list[str] = []
    plain: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "<":
            m = _TAG.match(text, i)
            assert m is not None, f"raw '<' at {i}: {text[max(0, i - 20):i + 20]!r}"
            closing, name, attrs = m.group(1), m.group(2), m.group(3)
            assert name in _ALLOWED, f"tag <{name}> is not Telegram HTML"
            if closing:
                assert stack and stack[-1] == name, f"</{name}> closes {stack[-1:] or 'nothing'}"
                stack.pop()
            else:
                if name == "a":
                    assert re.fullmatch(r'\s+href="[^"<>]+"', attrs), f"<a> needs exactly href: {attrs!r}"
                else:
                    assert not attrs, f"<{name}> takes no attributes"
                stack.append(name)
            i = m.end()
        elif ch == "&":
            m = _ENTITY.match(text, i)
            assert m is not None, f"raw '&' at {i}: {text[max(0, i - 20):i + 20]!r}"
            plain.append(html.unescape(m.group(0)))
            i = m.end()
        elif ch == ">":
            raise AssertionError(f"raw '>' at {i}: {text[max(0, i - 20):i + 20]!r}")
        else:
            plain.append(ch)
            i += 1
    assert not stack, f"unclosed tags {stack}"
    seen = "".join(plain)
    # Telegram's limit counts the text after entity parsing, in UTF-16 code units.
    assert 1 <= utf16_len(seen.strip()) <= MAX_TEXT, f"message of {utf16_len(seen)} units"
    return seen


def labels(cards: Iterable[Card], lang: str) -> Counter[str]:
    """The labels of some cards, counted."""
    return Counter(card_label(c, lang) for c in cards)


def card_labels(plain: str) -> Counter[str]:
    """The card labels a reader sees in a (plain) text, counted."""
    return Counter(CARD_LABEL.findall(plain))


def without_cards(plain: str) -> str:
    """The text with every card label removed (what is left may still name a suit: a trump)."""
    return CARD_LABEL.sub("", plain)


def buttons(markup: InlineKeyboardMarkup) -> list[InlineKeyboardButton]:
    """Every button of a keyboard, row by row."""
    return [b for row in markup.inline_keyboard for b in row]


def decode_button(button: InlineKeyboardButton) -> callbacks.Callback:
    """The decoded callback_data of a button (which must have one)."""
    data = button.callback_data
    assert isinstance(data, str)
    decoded = callbacks.decode(data)
    assert decoded is not None, data
    return decoded


def assert_keyboard_limits(markup: InlineKeyboardMarkup, table_id: int | None = None) -> list[callbacks.Callback]:
    """≤ 8 buttons a row, ≤ 100 in all, every callback_data ≤ 64 bytes and decodable; returns them decoded."""
    rows = markup.inline_keyboard
    assert all(1 <= len(row) <= MAX_ROW for row in rows), [len(r) for r in rows]
    assert len(buttons(markup)) <= MAX_BUTTONS
    decoded = []
    for b in buttons(markup):
        assert b.text and b.text.strip(), "a button without a label"
        if b.url is not None:
            assert b.url.startswith("https://t.me/")
            continue
        data = b.callback_data
        assert isinstance(data, str)
        assert 1 <= len(data.encode()) <= callbacks.MAX_BYTES, data
        cb = callbacks.decode(data)
        assert cb is not None, f"undecodable callback_data {data!r}"
        if table_id is not None:
            assert cb.table == table_id
        decoded.append(cb)
    return decoded
