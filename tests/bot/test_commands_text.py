"""Texts of /help, /stats and /leaderboard, and the command menus, in both languages (/rules: test_rules.py)."""

from __future__ import annotations

import re

import pytest

from bot.command_texts import (
    GROUP_COMMANDS, PRIVATE_COMMANDS, command_descriptions, help_text, leaderboard_text, menu, stats_text,
)
from bot.i18n import translator
from engine.ruleset import RULESETS
from storage import PartnershipStanding, PlayerStanding
from tests.bot.checks import assert_telegram_html

LANGS = ("zh", "en")


def lines_of(raw: str) -> list[str]:
    return assert_telegram_html(raw).split("\n")


# --- /help and the menus ----------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_help_names_every_preset_and_command(lang: str) -> None:
    plain = assert_telegram_html(help_text(translator(lang)))
    for r in RULESETS.values():
        assert r.name in plain and r.zh_name in plain
    for command in ("/newgame", "/join", "/leave", "/hand", "/rules", "/stats", "/leaderboard", "/lang", "/stop"):
        assert command in plain


@pytest.mark.parametrize("lang", LANGS)
def test_command_menus(lang: str) -> None:
    descriptions = command_descriptions(translator(lang))
    assert set(GROUP_COMMANDS) | set(PRIVATE_COMMANDS) <= set(descriptions)
    for names in (GROUP_COMMANDS, PRIVATE_COMMANDS):
        commands = menu(lang, names)
        assert [c.command for c in commands] == list(names)
        for c in commands:
            assert re.fullmatch(r"[a-z0-9_]{1,32}", c.command)
            assert 1 <= len(c.description) <= 256
    if lang == "zh":
        assert all(re.search(r"[\u4e00-\u9fff]", d) for d in descriptions.values())
    assert len(set(descriptions.values())) == len(descriptions)


# --- /stats and /leaderboard ---------------------------------------------------------------------------

def player(uid: int, name: str, jifen: int, hands: int = 10, won: int = 5) -> PlayerStanding:
    return PlayerStanding(uid, name, hands, won, jifen, dealer_hands=4, dealer_won=3, dealer_jifen=jifen - 2,
                          attacker_hands=hands - 4, attacker_won=won - 3, attacker_jifen=2)


PLAYERS = [
    player(1, "Alice", 12),
    player(2, "<b>Eve & co</b>", 3, 8, 4),
    player(3, "Bob <3", 0),
    player(4, "李雷", -7, 12, 3),
]


@pytest.mark.parametrize("lang", LANGS)
def test_stats_of_someone_with_hands(lang: str) -> None:
    raw = stats_text(translator(lang), PLAYERS, 2)
    text = lines_of(raw)
    assert raw.split("\n")[0].startswith("<b>&lt;b&gt;Eve &amp; co&lt;/b&gt;</b> · ")
    if lang == "zh":
        assert text == [
            "<b>Eve & co</b> · 第 2 名（共 4 人）",
            "积分 +3 · 共 8 局 · 赢 4 局",
            "做庄家方：4 局，赢 3 局，积分 +1",
            "做抓分方：4 局，赢 1 局，积分 +2",
        ]
    else:
        assert text == [
            "<b>Eve & co</b> · place 2 of 4",
            "积分 +3 · hands 8 · won 4",
            "As dealer side: 4 hands, won 3, 积分 +1",
            "As attackers: 4 hands, won 1, 积分 +2",
        ]


@pytest.mark.parametrize("lang", LANGS)
def test_stats_of_a_loser_and_of_a_stranger(lang: str) -> None:
    text = lines_of(stats_text(translator(lang), PLAYERS, 4))
    assert text[0] == ("李雷 · 第 4 名（共 4 人）" if lang == "zh" else "李雷 · place 4 of 4")
    assert text[1].startswith("积分 −7 · ")
    stranger = lines_of(stats_text(translator(lang), PLAYERS, 99))
    assert stranger == (["你在本群还没有打完过一局。"] if lang == "zh"
                        else ["You have not finished a hand in this group yet."])
    assert lines_of(stats_text(translator(lang), [], 1)) == stranger


@pytest.mark.parametrize("lang", LANGS)
def test_leaderboard(lang: str) -> None:
    pairs = [
        PartnershipStanding((1, 2), ("Alice", "<b>Eve & co</b>"), 6, 4, 18, 3, 2, 10, 3, 2, 8),
        PartnershipStanding((3, 4), ("Bob <3", "李雷"), 6, 2, -18, 3, 1, -10, 3, 1, -8),
    ]
    raw = leaderboard_text(translator(lang), PLAYERS, pairs)
    text = lines_of(raw)
    def hw(h: int, w: int) -> str:
        return f"{h} 局，赢 {w} 局" if lang == "zh" else f"{h} hands, {w} won"

    assert text == [
        "排行榜" if lang == "zh" else "League table",
        f"1. Alice · +12 · {hw(10, 5)}",
        f"2. <b>Eve & co</b> · +3 · {hw(8, 4)}",
        f"3. Bob <3 · 0 · {hw(10, 5)}",
        f"4. 李雷 · −7 · {hw(12, 3)}",
        "",
        "搭档排行" if lang == "zh" else "Partnerships",
        f"1. Alice & <b>Eve & co</b> · +18 · {hw(6, 4)}",
        f"2. Bob <3 & 李雷 · −18 · {hw(6, 2)}",
    ]
    assert "<b>Eve" not in raw and "Bob <3" not in raw


@pytest.mark.parametrize("lang", LANGS)
def test_leaderboard_shows_the_top_ten_and_top_five(lang: str) -> None:
    many = [player(i, f"P{i} & <x>", 100 - i) for i in range(1, 15)]
    pairs = [PartnershipStanding((i, i + 1), (f"P{i}", f"P{i + 1}"), 2, 1, 10 - i, 1, 1, 5, 1, 0, 5)
             for i in range(1, 9)]
    text = lines_of(leaderboard_text(translator(lang), many, pairs))
    ranked = [line for line in text if re.match(r"\d+\. ", line)]
    assert len(ranked) == 10 + 5
    assert ranked[9].startswith("10. P10 & <x> · +90")
    assert ranked[-1].startswith("5. P5 & P6 · +5")


@pytest.mark.parametrize("lang", LANGS)
def test_leaderboard_when_empty(lang: str) -> None:
    assert lines_of(leaderboard_text(translator(lang), [], [])) == (
        ["本群还没有打完的牌局。"] if lang == "zh" else ["No hands have been finished in this group yet."])
    text = lines_of(leaderboard_text(translator(lang), PLAYERS[:1], []))
    assert len(text) == 2


@pytest.mark.parametrize("lang", LANGS)
def test_long_leaderboard_fits_one_message(lang: str) -> None:
    """64-character names (Telegram's longest) full of characters to escape."""
    name = "&<>" * 21 + "x"
    many = [player(i, name, i) for i in range(30)]
    pairs = [PartnershipStanding((i, i + 1), (name, name), 1, 1, 1, 1, 1, 1, 0, 0, 0) for i in range(10)]
    assert_telegram_html(leaderboard_text(translator(lang), many, pairs))
    assert_telegram_html(stats_text(translator(lang), many, 5))
