"""What a person sends, read as hostile: one parser for every id and number, and text made safe to show.

Every id or number a person can send — a web path or query, a deep link's
payload, a button's ``callback_data``, a command's argument — is read by
:func:`parse_int` (or :func:`parse_id`, :func:`parse_chat_id`): ASCII digits
only (``str.isdigit`` accepts ``²`` and ``٣``, which ``int()`` then refuses
or reads), at most one leading minus, within SQLite's 64-bit range (a larger
number overflows SQLite's bind), else None.  The caller answers None with a
clear 4xx or a one-line reply; nothing here raises.

Every piece of text a person controls (a name, a group's title, a season's
name, a time zone) is shown through :func:`shown`: bidi controls dropped (a
U+202E in a name would turn the rest of a message around) and control
characters made spaces, before the renderer's own escaping (HTML, the
chart's text, which never reads ``$…$`` as maths).
"""

from __future__ import annotations

import re
from typing import Final

MAX_ID: Final = 2**63 - 1
"""The largest integer SQLite stores."""
MIN_INT: Final = -(2**63)
_INTEGER: Final = re.compile(r"-?[0-9]{1,19}")
"""ASCII digits only: ``[0-9]``, not ``\\d`` (which matches every script's digits)."""
BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that change the direction of the text around them."""
_ZONE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,30}(/[A-Za-z0-9_+\-]{1,30}){0,2}")
"""The shape of an IANA time zone name: ``UTC``, ``Asia/Shanghai``, ``America/Argentina/Buenos_Aires``."""
MAX_ZONE: Final = 64


def parse_int(text: str | None, low: int = MIN_INT, high: int = MAX_ID) -> int | None:
    """The integer ``text`` spells in ASCII digits (one leading minus at most), if it lies in ``low..high``;
    None for anything else: other scripts' digits, ``--5``, ``+5``, spaces, an empty string, out of range."""
    if text is None or _INTEGER.fullmatch(text) is None:
        return None
    value = int(text)
    return value if low <= value <= high else None


def parse_id(text: str | None) -> int | None:
    """A row id (a table, a hand, a season): a positive integer SQLite stores, else None."""
    return parse_int(text, 1, MAX_ID)


def parse_chat_id(text: str | None) -> int | None:
    """A chat's id (a group's is negative), non-zero and within SQLite's range, else None."""
    value = parse_int(text, -MAX_ID, MAX_ID)
    return value if value else None


def zone_name(text: str | None) -> str | None:
    """``text`` if it has the shape of a time zone's name (checked before any file is looked up: ``Asia`` is a
    folder, and a 300-character name is no file name), else None.  Whether the zone exists is
    :func:`storage.zone`'s to say."""
    if text is None or len(text) > MAX_ZONE or _ZONE.fullmatch(text) is None:  # no "." at all: no ".."
        return None
    return text


def shown(text: str) -> str:
    """``text`` as it may be shown: bidi controls dropped, other control characters (a newline in a name)
    made single spaces."""
    return "".join(" " if (ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0) else ch
                   for ch in text if ch not in BIDI_CONTROLS)
