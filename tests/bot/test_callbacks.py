"""callback_data: compact, round-trips, at most 64 bytes, and anything forged or malformed decodes to None."""

from __future__ import annotations

import pytest

from bot import callbacks
from bot.callbacks import HAND_OPS, LOBBY_OPS, MAX_BYTES, Callback, decode
from engine.cards import ALL_CARDS

BIG_TABLE = 2**63 - 1
"""The largest table id SQLite can hand out."""


# --- round trips ------------------------------------------------------------------------------

def test_formats_are_the_documented_ones() -> None:
    assert callbacks.lobby(7, "sit", "2") == "L:7:sit:2"
    assert callbacks.lobby(7, "start") == "L:7:start"
    assert callbacks.hand(7, "3.25.d", "sel", "10H1") == "H:7:3.25.d:sel:10H1"
    assert callbacks.hand(7, "0", "peek") == "H:7:0:peek"
    assert callbacks.refresh(7) == "R:7"


@pytest.mark.parametrize("op", sorted(LOBBY_OPS))
@pytest.mark.parametrize("arg", ["", "0", "3", "yancheng", "realtime", "escape"])
def test_lobby_round_trip(op: str, arg: str) -> None:
    data = callbacks.lobby(BIG_TABLE, op, arg)
    assert decode(data) == Callback("L", BIG_TABLE, op, arg)


@pytest.mark.parametrize("op", sorted(HAND_OPS))
@pytest.mark.parametrize("version", ["0", "1.25.d", "12.33.u", "999.1.p"])
def test_hand_round_trip(op: str, version: str) -> None:
    for arg in ("", "BJ0", "10H1", "bid-NT", "steal-S"):
        data = callbacks.hand(BIG_TABLE, version, op, arg)
        assert decode(data) == Callback("H", BIG_TABLE, op, arg, version)


def test_refresh_round_trip() -> None:
    assert decode(callbacks.refresh(0)) == Callback("R", 0)
    assert decode(callbacks.refresh(BIG_TABLE)) == Callback("R", BIG_TABLE)


def test_every_card_button_fits_and_round_trips() -> None:
    for card in ALL_CARDS:
        for copy in (0, 1):
            data = callbacks.hand(BIG_TABLE, "999.33.u", "sel", f"{card}{copy}")
            assert len(data.encode()) <= MAX_BYTES
            cb = decode(data)
            assert cb is not None and cb.arg == f"{card}{copy}" and cb.version == "999.33.u"


def test_the_longest_real_button_fits() -> None:
    """Table id as large as SQLite goes, a long version and the longest op/arg pair the keyboards use."""
    data = callbacks.hand(BIG_TABLE, "99999.33.u", "nosteal")
    assert len(data.encode()) <= MAX_BYTES
    data = callbacks.hand(BIG_TABLE, "99999.33.u", "trump", "steal-NT")
    assert len(data.encode()) <= MAX_BYTES
    data = callbacks.lobby(BIG_TABLE, "preset", "yangzhong")
    assert len(data.encode()) <= MAX_BYTES


def test_encode_refuses_more_than_64_bytes() -> None:
    with pytest.raises(ValueError):
        callbacks.lobby(1, "sit", "x" * 64)
    with pytest.raises(ValueError):
        callbacks.hand(1, "v" * 40, "sel", "y" * 24)
    exactly = "L:1:sit:" + "x" * (MAX_BYTES - len("L:1:sit:"))
    assert len(Callback("L", 1, "sit", "x" * (MAX_BYTES - 8)).encode()) == MAX_BYTES == len(exactly)


# --- refusals ---------------------------------------------------------------------------------

MALFORMED = [
    None, "", ":", "::", "L", "H", "R", "R:", "R::", "X:1", "X:1:sit",
    "l:1:sit",                       # kinds are upper case
    "L:1", "L:1:", "L::sit", "L:1:sit:", "L:1::2",
    "L:abc:sit", "L:-1:sit", "L:+1:sit", "L:1.5:sit", "L: 1:sit", "L:١:sit", "L:0x1:sit",
    "L:1:fly", "L:1:SIT", "L:1:play",  # a hand op is not a lobby op
    "L:1:sit:2:3",                   # injected extra field
    "L:1:sit:2:start",
    "H:1:sel:AS0",                   # version missing
    "H:1:1.25.d:start",              # a lobby op is not a hand op
    "H:1:1.25.d:sel:AS0:play",       # injection of an action after the card
    "H:1:1.25.d:sel:AS0:",
    "H:1:1.25.d:unknown",
    "H:1:1.25.d",
    "R:1:sit", "R:1:2", "R:x",
    "L:1:sit:a b", "L:1:sit:<b>", "L:1:sit:ä", "L:1:sit:a/b", "L:1:sit:a;b", "L:1:sit:'1'",
    "L:1:sit\n", "L:1:preset:xin\n", "R:1\n", "H:1:1.25.d:sel:AS0\n", "L:1:sit:2\r\n",
    "L:1:sit\t", " L:1:sit", "L:1:sit ",
    "H:1:1.25.d:sel:" + "A" * 25,    # a field longer than 24
    "L:1:sit:" + "x" * 60,           # over 64 bytes
    "R:" + "1" * 70,
    "L:1:sit:\x00", "L\x00:1:sit",
]


@pytest.mark.parametrize("data", MALFORMED)
def test_malformed_or_forged_data_decodes_to_none(data: str | None) -> None:
    assert decode(data) is None


def test_non_ascii_that_fits_in_chars_but_not_in_bytes() -> None:
    data = "L:1:sit:" + "é" * 30  # 38 characters, 68 bytes
    assert len(data) <= MAX_BYTES < len(data.encode())
    assert decode(data) is None


def test_decoded_fields_are_plain_tokens() -> None:
    """Whatever decodes carries only ASCII letters, digits and ``_ . -`` in its text fields."""
    import re

    token = re.compile(r"[A-Za-z0-9_.\-]*")
    samples = ["L:1:sit:2", "H:5:1.25.d:sel:10H1", "H:5:1.25.d:trump:bid-NT", "R:9"]
    for data in samples:
        cb = decode(data)
        assert cb is not None
        for text in (cb.op, cb.arg, cb.version):
            assert token.fullmatch(text), text
