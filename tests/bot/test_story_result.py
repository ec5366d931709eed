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
        "南北打过A，赢得比赛",
        "东西打 Q，按级别每人另扣 2 积分；南北每人 +2",
        "积分：北 +4  东 −4  南 +4  西 −4",
        "南北 打 A  ·  东西 打 Q",
    ]
    assert _lines(case, "en")[3:5] == [
        "N–S won at A: past A, they win the match",
        "E–W at Q pay 2 积分 more each for their level; N–S +2 each",
    ]


def test_a_total_below_zero_is_told_with_its_parts_not_as_da_guang() -> None:
    """保红5 takes the attackers to −100: the parts and the total; table B's rows end at −10, so the jump the
    tables give only by 「类推」 is told with its arithmetic (issue 55); 大光 is not said."""
    case = C.red5_kept()
    zh, en = _lines(case, "zh"), _lines(case, "en")
    assert zh[0] == "抓分方出牌得 0 分，保红5 −100，合计 −100 分。"
    assert en[0] == "Attackers scored 0 from tricks, 保红5 −100: −100 points in all."
    assert zh[3:6] == ["南北保庄", "p = −100：每少 10 分多升 1 级，共升 19 级",
                       "南北升 19 级，越过 A 进入第 2 圈：2（第 1 圈） → 8（第 2 圈）"]
    assert en[4] == "p = −100: each 10 points fewer is one level more, 19 levels in all"
    assert not any("大光" in line for line in zh + en)


def test_a_total_below_zero_names_the_row_it_counts_as() -> None:
    """Within the printed rows the total is told with the row it counts as, under either table: the same
    record with p = −10 (table B's −10 to −5 row: +10) and under table A (−10: +9)."""
    case = C.red5_kept()
    result = case.record.result
    assert result is not None and result.outcome is not None
    for table, levels in (("B", 10), ("A", 9)):
        outcome = replace(result.outcome, levels=levels, dealer_score=levels, attacker_score=-levels)
        setup = replace(case.record.setup, ruleset=case.record.setup.ruleset.replace(level_table=table))
        record = replace(case.record, setup=setup, result=replace(result, attacker_points=-10, outcome=outcome))
        assert story.points_line(translator("zh"), record) == (
            f"抓分方出牌得 0 分，保红5 −100，合计 −10 分（按 −10 分算，庄家方升 {levels} 级）。")
        assert story.points_line(translator("en"), record) == (
            f"Attackers scored 0 from tricks, 保红5 −100: −10 points in all "
            f"(counted as −10 points: the dealer side rises {levels} levels).")


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
    assert _lines(case, "zh")[2:4] == ["东西上台（80 分，换庄不升级）", "积分：北 −1  东 +1  南 −1  西 +1"]
    assert _lines(case, "en")[2:4] == ["E–W take the deal (上台) with 80 points: the dealer changes (换庄), "
                                       "no level gained", "积分: N −1  E +1  S −1  W +1"]
    assert story.private_result(translator("en"), case.record, 1, 3) == (
        "Hand 1: attackers 80 points · E–W take the deal (上台) with 80 points: the dealer changes (换庄), "
        "no level gained · you +1 积分")


def test_the_tricks_points_alone_are_not_repeated() -> None:
    """「（其中出牌得 120 分）」 said nothing when the total is the tricks' points."""
    case = C.flag_failed()
    assert _lines(case, "zh")[0] == "抓分方共得 120 分。"
    assert _lines(case, "en")[0] == "Attackers scored 120 points."
