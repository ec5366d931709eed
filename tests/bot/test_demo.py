"""``chaodipi demo``: the strong AI by default, the live notices where they happen, and the result lines of
the seeds that first showed what an expert would question (played with the casual AI, which repeats a seed
exactly and answers at once)."""

from __future__ import annotations

import io
import random

import pytest

from bot import demo
from bot.cli import _parser
from engine.ai import Strength
from engine.hand import Action
from engine.ruleset import Ruleset
from engine.views import HandView


def _play(lang: str = "zh", **kwargs: object) -> str:
    out = io.StringIO()
    demo.play(lang=lang, out=out, strength="casual", **kwargs)  # type: ignore[arg-type]
    return out.getvalue()


def _hand(text: str, n: int, lang: str) -> list[str]:
    """The result lines of hand ``n``, up to the blank line after them."""
    lines = text.split("\n")
    start = lines.index(f"第 {n} 局结束" if lang == "zh" else f"Hand {n} is over")
    return lines[start:lines.index("", start)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_seed_24_red_fives_are_told_as_they_happen_and_the_total_with_its_parts(lang: str) -> None:
    """盐城, hand 1: 逼红5 twice in trick 3; the attackers took 85 from tricks, −100 for 逼红5: −15 in all,
    and 上天入地 decides the hand, so neither 大光 nor a level row is said."""
    text = _play(lang, seed=24)
    lines = text.split("\n")
    trick3 = next(i for i, line in enumerate(lines) if line.startswith(("第 3 轮：", "Trick 3:")))
    assert lines[trick3 + 1:trick3 + 3] == (
        ["逼红5：西（抓分方）的 ♥5 被逼出，抓分方 −50", "逼红5：东（抓分方）的 ♥5 被逼出，抓分方 −50"] if lang == "zh" else
        ["Red five forced out (逼红5): W (attackers) had to play ♥5 and lost the trick, attackers −50",
         "Red five forced out (逼红5): E (attackers) had to play ♥5 and lost the trick, attackers −50"])
    result = _hand(text, 1, lang)
    assert result[1] == ("抓分方出牌得 85 分，逼红5 −100，合计 −15 分。" if lang == "zh"
                         else "Attackers scored 85 from tricks, 逼红5 −100: −15 points in all.")
    assert result[5] == ("上天入地：东西到 A（第 3 圈），南北回到 2（第 1 圈）" if lang == "zh"
                         else "Heaven and earth (上天入地): E–W go to A (lap 3), N–S back to 2 (lap 1)")
    assert not any("大光" in line for line in result)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_anhui_seed_7_hand_12_names_the_end_bonus(lang: str) -> None:
    result = _hand(_play(lang, preset="anhui", seed=7, whole_match=True), 12, lang)
    assert result[1:] == ([
        "抓分方共得 60 分。",
        "底牌 ♠2♦2♣2♠3♣3♣6♦7♣8：抠底 ×2 = 0 分。",
        "南北保庄",
        "南北打过A，赢得比赛",
        "东西打 Q，按级别每人另扣 2 积分；南北每人 +2",
        "积分：北 +4  东 −4  南 +4  西 −4",
        "南北 打 A  ·  东西 打 Q",
    ] if lang == "zh" else [
        "Attackers scored 60 points.",
        "Kitty ♠2♦2♣2♠3♣3♣6♦7♣8: 抠底 (kitty capture) ×2 = 0 points.",
        "N–S keep the deal (保庄)",
        "N–S won at A: past A, they win the match",
        "E–W at Q pay 2 积分 more each for their level; N–S +2 each",
        "积分: N +4  E −4  S +4  W −4",
        "N–S at A  ·  E–W at Q",
    ])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_yangzhou_seed_7_hand_8_keeps_the_flag(lang: str) -> None:
    result = _hand(_play(lang, preset="yangzhou", seed=7, whole_match=True), 8, lang)
    assert result[3:5] == ([
        "南北上台，已过 A，仍要扛旗",
        "积分：北 +5  东 −5  南 +5  西 −5（上台 1 + 按表 4 级）",
    ] if lang == "zh" else [
        "N–S take the deal (上台); having passed A, they still owe the flag hand (扛旗)",
        "积分: N +5  E −5  S +5  W −5 (上台 1 + 4 levels by the table)",
    ])
    assert result[-1] == ("南北 扛旗（无主）  ·  东西 打 7" if lang == "zh" else "N–S flag hand (no trump)  ·  E–W at 7")


def test_room_labels_of_the_three_presets_without_a_room() -> None:
    for preset, name in (("xin", "新炒地皮"), ("chizhou", "池州"), ("anhui", "安徽")):
        first = _play(preset=preset, seed=1).split("\n")[0]
        assert first == f"炒地皮 · {name} · 第 1 局"


def test_the_demo_plays_the_strong_ai_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """The strength reaches every AI decision (the casual AI plays underneath, to keep the test quick)."""
    asked: set[str] = set()
    choose = demo.choose_action

    def spy(view: HandView, ruleset: Ruleset, rng: random.Random | None = None,
            strength: Strength = "casual") -> Action:
        asked.add(strength)
        return choose(view, ruleset, rng, "casual")

    monkeypatch.setattr(demo, "choose_action", spy)
    args = _parser().parse_args(["demo"])
    assert args.ai == "strong"
    demo.play(seed=1, out=io.StringIO(), strength=args.ai)
    assert asked == {"strong"}
    asked.clear()
    demo.play(seed=1, out=io.StringIO(), strength=_parser().parse_args(["demo", "--ai", "casual"]).ai)
    assert asked == {"casual"}


def test_a_contested_reveal_is_printed_once() -> None:
    """盐城 seed 7: 北 ♠2, then 东's red-five pair: the reveal is in the table message, not printed again."""
    text = _play(seed=7)
    reveals = [line for line in text.split("\n") if line.startswith("亮主经过：")]
    assert reveals == ["亮主经过：北 ♠2 → 东 红5对（选♣）反主；主 ♣"]


# --- issue 55: the words an expert would change (decisions 17 and 18), in the seeds that showed them ---------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_yangzhou_seed_1_a_failed_flag_hand_passes_to_a_side_past_a(lang: str) -> None:
    """Hands 15–18: both sides have passed A; the takers have no level to play: not 「仍打 扛旗（无主）」."""
    text = _play(lang, preset="yangzhou", seed=1, whole_match=True)
    for n, side in ((15, 1), (16, 0), (17, 1), (18, 0)):
        pair = {"zh": ("南北", "东西"), "en": ("N–S", "E–W")}[lang][side]
        assert (f"扛旗失败，{pair}上台；{pair}已过 A，坐庄时要扛旗" if lang == "zh" else
                f"The flag hand failed: {pair} take the deal; {pair} have passed A and play the flag hand (扛旗) "
                f"when they deal") in _hand(text, n, lang)
    assert "仍打 扛旗" not in text and "still at 扛旗" not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_anhui_seed_4_hand_8_names_the_score_of_the_change_of_dealer(lang: str) -> None:
    """85 points: not 「80 分换庄」."""
    result = _hand(_play(lang, preset="anhui", seed=4, whole_match=True), 8, lang)
    assert result[1] == ("抓分方共得 85 分。" if lang == "zh" else "Attackers scored 85 points.")
    assert result[3] == ("东西上台（85 分，换庄不升级）" if lang == "zh" else
                         "E–W take the deal (上台) with 85 points: the dealer changes (换庄), no level gained")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_seed_3_hand_1_a_total_of_zero_with_points_taken_is_no_da_guang(lang: str) -> None:
    """50 from tricks, 逼红5 −50: players say 大光 only when nothing was captured (amended decision 18)."""
    result = _hand(_play(lang, seed=3, whole_match=True), 1, lang)
    assert result[1] == ("抓分方出牌得 50 分，逼红5 −50，合计 0 分（按 0 分算，庄家方升 9 级）。" if lang == "zh" else
                         "Attackers scored 50 from tricks, 逼红5 −50: 0 points in all "
                         "(counted as 0 points: the dealer side rises 9 levels).")
    assert not any("大光" in line for line in result)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_chizhou_seed_1_hand_7_is_a_kitty_capture_with_its_jifen_parts(lang: str) -> None:
    """池州's J/A rule is 「J 抠底」, not 南通's 「J到底」; the 积分 show the levels removed and the table's part."""
    result = _hand(_play(lang, preset="chizhou", seed=1, whole_match=True), 7, lang)
    assert result[3:6] == ([
        "东西上台（80 分，换庄不升级）",
        "J 抠底：南北退回打 2",
        "积分：北 −10  东 +10  南 −10  西 +10（降 9 级 + 按表 1）",
    ] if lang == "zh" else [
        "E–W take the deal (上台) with 80 points: the dealer changes (换庄), no level gained",
        "J captured the kitty: N–S go back to 2",
        "积分: N −10  E +10  S −10  W +10 (9 levels removed + 1 by the table)",
    ])
    assert not any("J到底" in line for line in result)
