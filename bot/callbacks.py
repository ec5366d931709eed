"""Compact ``callback_data`` for inline buttons (Telegram allows 1–64 bytes).

Every button names its table; buttons of a hand keyboard also carry the
seat's version (deal number, hand size, phase), so a button from an older
message is refused.  Formats::

    L:<table>:<op>[:<arg>]        lobby (seat, leave, add AI, start, settings)
    H:<table>:<version>:<op>[:<arg>]   a player's hand keyboard
    R:<table>                     "show the table again" (a refresh)
    B:<op>:<arg>                  the league's buttons in a group: ``lb`` a leaderboard's stretch
                                  (``cur``, ``all`` or a season's id), ``hist`` a page of /history

Anything else, or anything malformed, decodes to None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from bot.untrusted import MAX_ID, parse_int
from engine.cards import Card
from engine.errors import NotationError

MAX_BYTES: Final = 64

LOBBY_OPS: Final = frozenset({"sit", "leave", "ai", "rmai", "start", "set", "preset", "hidden", "pace", "returns",
                              "timeout", "strength", "back", "cancel", "return", "esc", "stay"})
HAND_OPS: Final = frozenset({"sel", "bid", "pass", "bury", "clear", "steal", "nosteal", "play", "go", "hint",
                             "trump", "tap", "peek", "next"})

LEAGUE_OPS: Final = frozenset({"lb", "hist"})

_TOKEN = re.compile(r"[A-Za-z0-9_.\-]{1,24}")


@dataclass(frozen=True, slots=True)
class Callback:
    """A decoded button press."""

    kind: str
    """``"L"`` lobby, ``"H"`` hand, ``"R"`` refresh, ``"B"`` the league (whose table is 0: it names none)."""
    table: int
    op: str = ""
    arg: str = ""
    version: str = ""

    def encode(self) -> str:
        """The ``callback_data`` string; raises ValueError if it would exceed 64 bytes."""
        if self.kind == "R":
            parts = ["R", str(self.table)]
        elif self.kind == "B":
            parts = ["B", self.op, self.arg]
        elif self.kind == "L":
            parts = ["L", str(self.table), self.op] + ([self.arg] if self.arg else [])
        else:
            parts = ["H", str(self.table), self.version, self.op] + ([self.arg] if self.arg else [])
        data = ":".join(parts)
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback_data too long: {data!r}")
        return data


def lobby(table: int, op: str, arg: str = "") -> str:
    """``callback_data`` of a lobby button."""
    return Callback("L", table, op, arg).encode()


def hand(table: int, version: str, op: str, arg: str = "") -> str:
    """``callback_data`` of a hand-keyboard button."""
    return Callback("H", table, op, arg, version).encode()


def tap_arg(act: str, cards: tuple[Card, ...]) -> str:
    """The argument of a one-tap bid or steal button (op ``tap``): ``bid-2D`` (a card), ``steal-BJBJ`` (a pair)."""
    return f"{act}-{''.join(str(card) for card in cards)}"


def parse_tap(arg: str) -> tuple[str, tuple[Card, ...]] | None:
    """A one-tap button's move (``"bid"`` or ``"steal"``) and cards (one card, or two copies of one), or None
    for an argument :func:`tap_arg` never writes."""
    act, _, text = arg.partition("-")
    if act not in ("bid", "steal"):
        return None
    half = len(text) // 2
    pair = len(text) % 2 == 0 and text[:half] == text[half:]
    try:
        card = Card.parse(text[:half] if pair else text)
    except NotationError:
        return None
    cards = (card, card) if pair else (card,)
    return (act, cards) if tap_arg(act, cards) == arg else None


def refresh(table: int) -> str:
    """``callback_data`` of a refresh button."""
    return Callback("R", table).encode()


def league(op: str, arg: str) -> str:
    """``callback_data`` of a league button (a leaderboard's stretch, a page of history)."""
    return Callback("B", 0, op, arg).encode()


def decode(data: str | None) -> Callback | None:
    """Parse ``callback_data``; None for anything not made by :func:`lobby`, :func:`hand`, :func:`refresh` or
    :func:`league`."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    parts = data.split(":")
    if any(not _TOKEN.fullmatch(p) for p in parts) or len(parts) < 2:
        return None
    kind = parts[0]
    if kind == "B":
        return Callback("B", 0, parts[1], parts[2]) if len(parts) == 3 and parts[1] in LEAGUE_OPS else None
    table = parse_int(parts[1], 0, MAX_ID)
    if table is None:
        return None
    if kind == "R" and len(parts) == 2:
        return Callback("R", table)
    if kind == "L" and len(parts) in (3, 4) and parts[2] in LOBBY_OPS:
        return Callback("L", table, parts[2], parts[3] if len(parts) == 4 else "")
    if kind == "H" and len(parts) in (4, 5) and parts[3] in HAND_OPS:
        return Callback("H", table, parts[3], parts[4] if len(parts) == 5 else "", parts[2])
    return None
