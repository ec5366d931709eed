"""The result lines an expert would question (decisions 13, 17 and 18), line for line in 简体中文 and English.

Each case is a real hand driven through :class:`engine.match.Match` with a
rigged deal (:mod:`tests.bot.story_cases`); the demo's seeds that first showed
these lines are played again in ``tests/bot/test_demo.py``.
"""

from __future__ import annotations

from dataclasses import replace

from bot import story
from bot.i18n import translator
from tests.bot import story_cases as C


def _lines(case: C.Case, lang: str) -> list[str]:
    """The result without its header and final trick (those lines do not change here)."""
    return story.result_lines(translator(lang), case.record, case.match.ruleset.laps, case.hand.tricks[-1])[2:]


def test_anhui_names_its_end_bonus() -> None:
    """p = 60 gives 2 积分 by table A; 东西 at Q pay 2 more each: the +4 is no longer silent."""
    case = C.anhui_end_bonus()
    assert case.record.bonus == (2, -2, 2, -2)
    assert _lines(case, "zh") == [
        "抓分方出牌得 0 分，抠底 +60，合计 60 分。",
        "底牌 ♠A♥10♥10♥K♥2♥3♥4♥6：抠底 ×2 = 60 分。",
        "南北保庄",
        "南北打 A 保庄，过A，赢得比赛",
        "东西打 Q，按级别另扣 2 积分；南北每人 +2",
        "积分：北 +4  东 −4  南 +4  西 −4",
        "南北 打 A  ·  东西 打 Q",
    ]
    assert _lines(case, "en")[3:5] == [
        "N–S held the deal at A: past A, they win the match",
        "E–W at Q pay 2 积分 more each for their level; N–S +2 each",
    ]


def test_a_total_below_zero_is_told_with_its_parts_not_as_da_guang() -> None:
    """保红5 takes the attackers to −100: the parts, the total and table B's extra level; 大光 is only 0."""
    case = C.red5_kept()
    zh, en = _lines(case, "zh"), _lines(case, "en")
    assert zh[0] == "抓分方出牌得 0 分，保红5 −100，合计 −100 分（0 分以下，庄家方多升一级）。"
    assert en[0] == ("Attackers scored 0 from tricks, 保红5 −100: −100 points in all "
                     "(below 0: the dealer side rises one level more).")
    assert not any("大光" in line for line in zh + en)


def test_the_extra_level_below_zero_is_table_bs() -> None:
    """Table A has no extra level below 0: the same record under table A names none."""
    case = C.red5_kept()
    setup = case.record.setup
    record = replace(case.record, setup=replace(setup, ruleset=setup.ruleset.replace(level_table="A")))
    line = story.points_line(translator("zh"), record)
    assert line == "抓分方出牌得 0 分，保红5 −100，合计 −100 分。"


def test_da_guang_is_a_total_of_exactly_zero() -> None:
    case = C.stopped_at_a()
    assert _lines(case, "zh")[0] == "抓分方共得 0 分。大光！"
    assert _lines(case, "en")[0] == "Attackers scored 0 points. Shut out (大光)!"


def test_heaven_and_earth_is_told_instead_of_a_level_row() -> None:
    case = C.heaven_and_earth()
    zh = _lines(case, "zh")
    assert zh[0] == "抓分方共得 50 分。"
    assert "上天入地：东西到 A（第 3 圈），南北回到 2（第 1 圈）" in zh
    assert not any(word in line for line in zh for word in ("大光", "保庄", "上台", "升"))


def test_a_side_past_a_takes_the_deal_still_owing_the_flag() -> None:
    """扬州: not 「按表升 4 级，到 A 为止，仍打 A」 while the standing shows 扛旗."""
    case = C.flag_owed_takeover()
    assert _lines(case, "zh") == [
        "抓分方出牌得 5 分，抠底 +120，合计 125 分。",
        "底牌 ♠8♥10♥10♥K♥K♠10♠10♥2：抠底 ×2 = 120 分。",
        "南北上台，已过 A，仍要扛旗",
        "积分：北 +5  东 −5  南 +5  西 −5（上台 1 + 按表 4 级）",
        "南北 扛旗（无主）  ·  东西 打 8",
    ]
    assert _lines(case, "en")[2:4] == [
        "N–S take the deal (上台); having passed A, they still owe the flag hand (扛旗)",
        "积分: N +5  E −5  S +5  W −5 (上台 1 + 4 levels by the table)",
    ]
    assert story.private_result(translator("zh"), case.record, 0, 1) == (
        "第 3 局：抓分方 125 分 · 南北上台，已过 A，仍要扛旗 · 你 +5 积分")


def test_the_takeovers_extra_point_is_explained() -> None:
    """「升 2 级」 but 「积分 +3」: the deal itself is worth 1."""
    case = C.plain_rise()
    assert _lines(case, "zh")[2:5] == ["东西上台", "东西升 2 级：5 → 7",
                                       "积分：北 −3  东 +3  南 −3  西 +3（上台 1 + 按表 2 级）"]
    assert _lines(case, "en")[2:5] == ["E–W take the deal (上台)", "E–W rise 2 levels: 5 → 7",
                                       "积分: N −3  E +3  S −3  W +3 (上台 1 + 2 levels by the table)"]


def test_eighty_points_change_the_dealer_without_a_level() -> None:
    case = C.change_of_dealer()
    assert _lines(case, "zh")[2:4] == ["东西上台（80 分换庄，不升级）", "积分：北 −1  东 +1  南 −1  西 +1"]
    assert _lines(case, "en")[2:4] == ["E–W take the deal (上台): 80 points change the dealer (换庄), no level gained",
                                       "积分: N −1  E +1  S −1  W +1"]
    assert story.private_result(translator("en"), case.record, 1, 3) == (
        "Hand 1: attackers 80 points · E–W take the deal (上台): 80 points change the dealer (换庄), "
        "no level gained · you +1 积分")


def test_the_tricks_points_alone_are_not_repeated() -> None:
    """「（其中出牌得 120 分）」 said nothing when the total is the tricks' points."""
    case = C.flag_failed()
    assert _lines(case, "zh")[0] == "抓分方共得 120 分。"
    assert _lines(case, "en")[0] == "Attackers scored 120 points."
