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
        "南北打 A 保庄，过A，赢得比赛",
        "东西打 Q，按级别另扣 2 积分；南北每人 +2",
        "积分：北 +4  东 −4  南 +4  西 −4",
        "南北 打 A  ·  东西 打 Q",
    ] if lang == "zh" else [
        "Attackers scored 60 points.",
        "Kitty ♠2♦2♣2♠3♣3♣6♦7♣8: 抠底 (kitty capture) ×2 = 0 points.",
        "N–S keep the deal (保庄)",
        "N–S held the deal at A: past A, they win the match",
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
