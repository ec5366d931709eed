"""bot/untrusted.py: the one parser of ids and numbers people send, and text made safe to show."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.labels import name_html
from bot.untrusted import MAX_ID, parse_chat_id, parse_id, parse_int, shown, zone_name

ODD = ["²", "٣", "１２", "۱", "--5", "-", "+5", " 5", "5 ", "5\n", "", "1e3", "0x10", "5.0", "1_000",
       "99999999999999999999", str(2**63), str(-(2**63) - 1), "9" * 300]


@pytest.mark.parametrize("text", ODD)
def test_anything_but_ascii_digits_within_range_is_none(text: str) -> None:
    assert parse_int(text) is None
    assert parse_id(text) is None
    assert parse_chat_id(text) is None


def test_ranges() -> None:
    assert parse_int("7", 0, 1000) == 7 and parse_int("1001", 0, 1000) is None and parse_int("-1", 0, 9) is None
    assert parse_id(str(MAX_ID)) == MAX_ID and parse_id("0") is None and parse_id("-3") is None
    assert parse_chat_id("-100123") == -100123 and parse_chat_id("0") is None and parse_chat_id("-0") is None
    assert parse_int(None) is None


@given(st.text(max_size=30))
def test_the_parser_never_raises_and_accepts_only_what_int_reads_the_same(text: str) -> None:
    value = parse_int(text)
    if value is not None:
        assert text.isascii() and text.strip() == text and int(text) == value
        assert -(2**63) <= value <= MAX_ID


@pytest.mark.parametrize("name", ["Asia", "Asia/", "../etc/passwd", "Asia/Shanghai/../..", "a" * 300,
                                  "Asia/" + "x" * 300, "上海", "", " ", "Asia Shanghai", "/etc/localtime"])
def test_time_zone_names_are_checked_before_any_file_is_looked_up(name: str) -> None:
    assert zone_name(name) is None or zone_name(name) == name  # a well-shaped name passes on to storage.zone
    if name in ("Asia/", "../etc/passwd", "Asia/Shanghai/../..", "a" * 300, "Asia/" + "x" * 300, "上海", "", " ",
                "Asia Shanghai", "/etc/localtime"):
        assert zone_name(name) is None


@pytest.mark.parametrize("name", ["Asia", "a" * 60, "Asia/Nowhere", "Etc"])
def test_a_well_shaped_name_that_is_no_zone_is_a_value_error_not_an_os_error(name: str) -> None:
    import storage

    with pytest.raises(ValueError):
        storage.zone(name)


def test_well_shaped_zones_pass() -> None:
    for name in ("UTC", "Asia/Shanghai", "America/Argentina/Buenos_Aires", "Etc/GMT+8", "Europe/London"):
        assert zone_name(name) == name


def test_shown_text_drops_bidi_controls_and_makes_control_characters_spaces() -> None:
    assert shown("Bob\u202eevil\u202c") == "Bobevil"
    assert shown("a\u2066b\u2069c\u200fd") == "abcd"
    assert shown("two\nlines\x00") == "two lines "
    assert shown("胡歌🎸 Zoë") == "胡歌🎸 Zoë"  # emoji and letters stay
    assert name_html("<b>\u202eBob</b>") == "&lt;b&gt;Bob&lt;/b&gt;"


def test_the_edges_of_what_is_shown_and_of_a_zones_length() -> None:
    assert shown(" a b ") == " a b "  # a space is no control character
    assert shown("a\x7fb\x9fc") == "a b c"  # DEL and the C1 controls are
    assert shown("a\xa0b") == "a\xa0b"  # a no-break space is text
    assert zone_name("A" + "b" * 30 + "/" + "c" * 30) is not None  # 62 characters, the shape allows it
    assert zone_name("A/" + "b" * 30 + "/" + "c" * 30) == "A/" + "b" * 30 + "/" + "c" * 30
    long = "A" + "b" * 30 + "/" + "c" * 30 + "/" + "d" * 30  # 93: past MAX_ZONE though the shape allows it
    assert len(long) > 64 and zone_name(long) is None
    assert zone_name(long[:64]) == long[:64]  # exactly MAX_ZONE: still a name
