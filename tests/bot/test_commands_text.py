"""Texts of /help and /leaderboard, and the command menus, in both languages (/rules: test_rules.py; /stats and
the league's other texts: test_league_texts.py)."""

from __future__ import annotations

import re

import pytest

from bot.command_texts import GROUP_COMMANDS, PRIVATE_COMMANDS, command_descriptions, help_text, menu
from bot.i18n import translator
from bot.league.standings import rank, table_text
from engine.ruleset import RULESETS
from storage import LeagueLine, PartnershipStanding
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
    for command in ("/newgame", "/join", "/leave", "/hand", "/rules", "/stats", "/leaderboard", "/history", "/season",
                    "/lang", "/stop"):
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


# --- /leaderboard's caption ------------------------------------------------------------------------------

def player(uid: int, name: str, jifen: int, hands: int = 10, won: int = 5) -> LeagueLine:
    return LeagueLine(uid, name, hands, won, jifen, matches_won=0, escapes=0, dealer_hands=4, dealer_won=3,
                      dealer_jifen=jifen - 2, last_at=1000.0 + uid)


PLAYERS = [
    player(1, "Alice", 12),
    player(2, "<b>Eve & co</b>", 3, 8, 4),
    player(3, "Bob <3", 0),
    player(4, "李雷", -7, 12, 3),
]


@pytest.mark.parametrize("lang", LANGS)
def test_leaderboard(lang: str) -> None:
    pairs = [
        PartnershipStanding((1, 2), ("Alice", "<b>Eve & co</b>"), 6, 4, 18, 3, 2, 10, 3, 2, 8),
        PartnershipStanding((3, 4), ("Bob <3", "李雷"), 6, 2, -18, 3, 1, -10, 3, 1, -8),
    ]
    raw = table_text(translator(lang), "<b>Heading</b>", rank(PLAYERS, pairs, 8))
    text = lines_of(raw)
    def hw(h: int, w: int) -> str:
        return f"{h} 局，赢 {w} 局" if lang == "zh" else f"{h} hands, {w} won"

    assert text == [
        "Heading",
        f"1. Alice · +12 · {hw(10, 5)}",
        f"2. <b>Eve & co</b> · +3 · {hw(8, 4)}",
        f"3. Bob <3 · 0 · {hw(10, 5)}",
        f"4. 李雷 · −7 · {hw(12, 3)}",
        "搭档排行" if lang == "zh" else "Partnerships",
        f"1. Alice & <b>Eve & co</b> · +18 · {hw(6, 4)}",
        f"2. Bob <3 & 李雷 · −18 · {hw(6, 2)}",
        ("按积分排名，至少打满 8 局；同分依次比较赢的局数、赢得比赛的场数、逃跑次数（少者在前），再看谁先达到。" if lang == "zh"
         else "Ranked by 积分 with at least 8 hands; ties: hands won, matches won, fewer escapes, then who got "
              "there first."),
    ]
    assert "<b>Eve" not in raw and "Bob <3" not in raw
