"""What the web app accepts from a request (bot.webapp.inputs): ids, JSON depth and a move's shape."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from bot.untrusted import MAX_ID
from bot.webapp.inputs import move_of, nonce_of, parse_chat_id, parse_id, too_deep
from engine.cards import Card


def reason(exc: web.HTTPException) -> str:
    assert exc.text is not None
    return str(json.loads(exc.text)["error"])


@pytest.mark.parametrize("raw", ["1", "42", str(MAX_ID), "0007"])
def test_ascii_ids_within_sqlites_range_are_ids(raw: str) -> None:
    assert parse_id(raw, "table") == int(raw)


@pytest.mark.parametrize("raw", ["0", "²", "١٢", "１２", "-1", "+1", " 1", "1.0", "1e3", "", str(MAX_ID + 1),
                                 "99999999999999999999", "1" * 5000, "0x10"])
def test_anything_else_is_400_naming_what(raw: str) -> None:
    with pytest.raises(web.HTTPBadRequest) as caught:
        parse_id(raw, "hand")
    assert reason(caught.value) == "not a hand id"


@pytest.mark.parametrize("raw", ["%C2%B2", "²", "--5", "-", "", "0", "-0", "99999999999999999999", str(2**63),
                                 str(-(2**63)), "-١٢", " -5", "-5 "])
def test_a_group_id_is_ascii_digits_after_one_minus_within_sqlites_range(raw: str) -> None:
    with pytest.raises(web.HTTPBadRequest) as caught:
        parse_chat_id(raw)
    assert reason(caught.value) == "not a group id"
    assert parse_chat_id("-1001234567890") == -1001234567890 and parse_chat_id(str(-MAX_ID)) == -MAX_ID


def test_depth_counts_brackets_outside_strings() -> None:
    assert not too_deep('{"op": "play", "cards": ["5H", "BJ"]}', 2)
    assert too_deep('{"cards": [["5H"]]}', 2)
    assert not too_deep('{"version": "[[[[[[{{{{"}', 2)  # inside a string
    assert not too_deep('{"version": "\\"[[[["}', 2)  # an escaped quote does not end the string
    assert too_deep("[" * 100_000 + "]" * 100_000, 2)


def move(**fields: object) -> dict[str, object]:
    body: dict[str, object] = {"op": "play", "cards": ["5H", "10S"], "trump": None, "version": "1.25.p",
                               "nonce": "0123456789abcdef"}
    body.update(fields)
    return body


def test_a_well_formed_move() -> None:
    checked = move_of(move())
    assert checked.op == "play" and checked.cards == (Card.parse("5H"), Card.parse("10S"))
    assert checked.trump is None and checked.version == "1.25.p" and checked.nonce == "0123456789abcdef"
    assert move_of(move(op="pass", cards=None)).cards == ()


@pytest.mark.parametrize(("fields", "why"), [
    ({"op": 5}, "op"), ({"op": "cheat"}, "op"), ({"cards": 5}, "cards"), ({"cards": True}, "cards"),
    ({"cards": "5H"}, "cards"), ({"cards": [1]}, "cards"), ({"cards": ["XX"]}, "cards"),
    ({"cards": ["5H"] * 34}, "cards"), ({"cards": ["5555"]}, "cards"), ({"trump": 5}, "trump"),
    ({"trump": "Z"}, "trump"), ({"trump": ["S"]}, "trump"), ({"version": 5}, "version"),
    ({"version": "1" * 41}, "version"), ({"version": "1.2 3"}, "version"),
])
def test_a_move_of_the_wrong_shape_is_400_naming_the_field(fields: dict[str, object], why: str) -> None:
    with pytest.raises(web.HTTPBadRequest) as caught:
        move_of(move(**fields))
    assert reason(caught.value) == f"not a move: {why}"


@pytest.mark.parametrize("nonce", [None, 5, "short", "n" * 65, "with spaces!", "ünïcødé-12345", ["0123456789"]])
def test_a_malformed_nonce_is_400_not_a_replay(nonce: object) -> None:
    with pytest.raises(web.HTTPBadRequest) as caught:
        nonce_of({"nonce": nonce} if nonce is not None else {})
    assert reason(caught.value) == "the nonce is missing or malformed"
