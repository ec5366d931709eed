"""Deep links to a table (``t.me/<bot>?start=…``): unguessable, and only for the group's members.

A link names its table and carries a token, an HMAC of the table id keyed
by the bot's secret: a table id alone (they are small, consecutive numbers)
is not enough to take a seat.  The token is not the only guard: a link can
be forwarded, so :func:`is_member` asks Telegram whether the person is a
member of the table's group before seating them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Final

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

TOKEN_LENGTH: Final = 12
_PAYLOAD = re.compile(r"(?P<kind>[st])(?P<table>\d{1,18})_(?P<seat>[0-3]?)_?(?P<token>[0-9a-f]{12})")


@dataclass(frozen=True, slots=True)
class SeatLink:
    """What a deep link asks: a table, perhaps a seat, and the token that proves it came from the bot."""

    table_id: int
    seat: int | None
    token: str


def table_token(secret: str, table_id: int) -> str:
    """The table's link token (the same after a restart: it depends on the secret and the id only)."""
    digest = hmac.new(secret.encode(), f"table:{table_id}".encode(), hashlib.sha256).hexdigest()
    return digest[:TOKEN_LENGTH]


def payload(secret: str, table_id: int, seat: int | None = None) -> str:
    """The ``start`` payload: ``s<table>_<seat>_<token>`` for a seat, ``t<table>__<token>`` for the lobby."""
    kind = "t" if seat is None else "s"
    return f"{kind}{table_id}_{'' if seat is None else seat}_{table_token(secret, table_id)}"


def link(bot_username: str, secret: str, table_id: int, seat: int | None = None) -> str:
    """The ``t.me`` link that opens the private chat with that payload."""
    return f"https://t.me/{bot_username}?start={payload(secret, table_id, seat)}"


def parse(secret: str, text: str) -> SeatLink | None:
    """A payload's request if its token is the table's; None for anything else (forged, guessed, old)."""
    found = _PAYLOAD.fullmatch(text)
    if found is None:
        return None
    table_id = int(found["table"])
    if not hmac.compare_digest(found["token"], table_token(secret, table_id)):
        return None
    seat = int(found["seat"]) if found["seat"] else None
    return SeatLink(table_id, seat if found["kind"] == "s" else None, found["token"])


async def is_member(bot: Bot, chat_id: int, user_id: int) -> bool:
    """True if Telegram says this person belongs to the group (False if it cannot be asked)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    if member.status == ChatMemberStatus.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
