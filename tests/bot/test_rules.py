"""/rules and docs/rules.md: each preset's rules as a player reads them, true to its options.

What each preset must say is spelled out here from RULES.md (§2–§3 and the
binding decisions), not read back from the Ruleset, so a sentence that does
not fit a preset fails its test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.command_texts import rules_text
from bot.i18n import translator
from bot.rules import rules_markdown
from engine.ruleset import RULESETS
from tests.bot.checks import assert_telegram_html

REPO = Path(__file__).resolve().parents[2]
LANGS = ("zh", "en")
R5 = ("yancheng", "yangzhou", "yangzhong", "nantong")
PLAIN = ("xin", "chizhou", "anhui")


def plain(preset: str, lang: str) -> str:
    """The whole /rules text of a preset, markup removed, pages joined."""
    pages = rules_text(translator(lang), RULESETS[preset])
    for page in pages:
        assert len(page) <= 4096  # Telegram's limit for one message
    return "\n".join(assert_telegram_html(page) for page in pages)


def says(preset: str, lang: str, text: str) -> bool:
    return text in plain(preset, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", RULESETS)
def test_every_preset_fits_in_messages_with_a_title(preset: str, lang: str) -> None:
    pages = rules_text(translator(lang), RULESETS[preset])
    for number, page in enumerate(pages, start=1):
        assert page.startswith("<b>") and len(page) <= 4096
        if len(pages) > 1:
            assert f"({number}/{len(pages)})</b>" in page.split("\n")[0]
    sections = {"zh": ["亮主", "扣底和抄底", "出牌", "牌型", "得分", "升级", "比赛结束", "逃跑"],
                "en": ["Bidding (亮主)", "Playing", "Combinations", "Points", "Levels (升级)", "The end of the match",
                       "Leaving (逃跑)"]}[lang]
    text = plain(preset, lang).split("\n")
    for section in sections:
        assert section in text, section


@pytest.mark.parametrize(("preset", "zh", "en"), [
    ("yancheng", "盐城（暗炒）· 规则", "Yancheng (hidden bids) · rules"),
    ("yangzhou", "扬州/镇江（扛旗）· 规则", "Yangzhou/Zhenjiang (flag hand) · rules"),
    ("yangzhong", "扬中（扛旗）· 规则", "Yangzhong (flag hand) · rules"),
    ("nantong", "南通/连云港（明炒）· 规则", "Nantong/Lianyungang (open bids) · rules"),
    ("xin", "新炒地皮 · 规则", "New Chao Di Pi · rules"),  # 明炒/暗炒 name 南通's and 盐城's rooms, not these
    ("chizhou", "池州 · 规则", "Chizhou · rules"),
    ("anhui", "安徽 · 规则", "Anhui · rules"),
])
def test_the_title_names_the_room(preset: str, zh: str, en: str) -> None:
    assert plain(preset, "zh").startswith(zh)
    assert plain(preset, "en").startswith(en)


@pytest.mark.parametrize("preset", RULESETS)
def test_red_five_only_where_it_exists(preset: str) -> None:
    r5 = preset in R5
    assert says(preset, "zh", "红5（♥5）永远是主，而且最大") == r5
    assert says(preset, "zh", "没有红5。") != r5
    assert says(preset, "en", "The red five (红5, ♥5) is always a trump") == r5
    assert says(preset, "zh", "红5对") == r5
    assert says(preset, "zh", "逼红5") == (preset == "yancheng")
    assert says(preset, "zh", "保红5") == (preset == "yancheng")


@pytest.mark.parametrize(("preset", "ladder"), [
    ("yancheng", "单张级牌 < ♣对 < ♦对 < ♠对 < ♥对 < 小王对 < 大王对 < 红5对 < 回头望"),
    ("yangzhou", "单张级牌 < ♦对 < ♣对 < ♥对 < ♠对 < 小王对 < 大王对 < 红5对"),
    ("yangzhong", "单张级牌 < ♦对 < ♣对 < ♥对 < ♠对 < 小王对 < 大王对 < 红5对"),
    ("nantong", "单张级牌 < ♦对 < ♣对 < ♥对 < ♠对 < 小王对 < 大王对 < 红5对 < 回头望"),
    ("xin", "单张级牌 < ♣对 < ♦对 < ♠对 < ♥对 < 小王对 < 大王对"),
    ("chizhou", "单张级牌 < ♣对 < ♦对 < ♠对 < ♥对 < 小王对 < 大王对"),
])
def test_the_bid_ladder(preset: str, ladder: str) -> None:
    assert says(preset, "zh", f"亮主从小到大：{ladder}（")
    assert says(preset, "zh", "回头望：") == (preset in ("yancheng", "nantong"))
    assert says(preset, "zh", "加固：") == (preset in ("xin", "chizhou"))
    assert says(preset, "zh", "例外：♣对可以反大王对。") == (preset in ("xin", "chizhou"))
    assert says(preset, "zh", "大王对：亮主的人选一门花色做主（不能无主）。") == (preset in ("xin", "chizhou"))


def test_anhui_bids_with_level_pairs_and_steals_with_jokers() -> None:
    assert says("anhui", "zh", "任意一对级牌都能反主，不分花色，以最后一次为准。")
    assert says("anhui", "zh", "对大王、对小王不能直接亮主，只能抄底打无主。")
    assert says("anhui", "zh", "任意主牌对都能抄底")
    assert not says("anhui", "zh", "亮主从小到大")
    assert says("anhui", "zh", "无人亮主：按次序每家翻一张底牌")


@pytest.mark.parametrize("preset", RULESETS)
def test_hidden_bids_and_failed_steals(preset: str) -> None:
    hidden = preset in ("yancheng", "anhui")
    assert says(preset, "zh", "暗炒：亮主、反主、抄底都不公开") == hidden
    assert says(preset, "zh", "抄底失败：") == (preset == "yancheng")
    assert says(preset, "zh", "每次 80 分：抓分方抄底失败，抓分方扣 80 分") == (preset == "yancheng")


@pytest.mark.parametrize("lang", LANGS)
def test_a_tables_choice_of_hidden_bids(lang: str) -> None:
    text = "\n".join(assert_telegram_html(p) for p in rules_text(translator(lang),
                                                                RULESETS["xin"].replace(hidden_bidding=True)))
    assert text.startswith("新炒地皮（暗炒）" if lang == "zh" else "New Chao Di Pi (hidden bids)")
    assert ("暗炒：亮主、反主、抄底都不公开" if lang == "zh" else "暗炒 (hidden bids): bids, overrides") in text
    assert ("抄底失败" if lang == "zh" else "failed steal") not in text  # 新炒地皮 has no failure rule


@pytest.mark.parametrize("preset", RULESETS)
def test_following_tractors_and_five_ten_king(preset: str) -> None:
    assert says(preset, "zh", "逼对：首家出对，有对必须出对") == (preset not in ("xin", "chizhou"))
    assert says(preset, "zh", "不逼对：") == (preset in ("xin", "chizhou"))
    hollow = preset in ("yangzhou", "yangzhong", "xin", "chizhou", "anhui")
    assert says(preset, "zh", "空心拖拉机：副牌可以隔过级牌相连") == hollow
    assert says(preset, "zh", "没有空心拖拉机") != hollow
    assert says(preset, "zh", "主牌里也一样。") == (preset == "anhui")  # decision 16: hollow in trump only in 安徽
    assert says(preset, "zh", "主牌顶端相连") == (preset == "anhui")
    assert says(preset, "zh", "5、10、K：同花色的5、10、K可以一起出") == (preset in R5)
    assert says(preset, "zh", "没有就必须出最大的三张主（逼大牌）") == (preset in ("yancheng", "yangzhou", "nantong"))
    assert says(preset, "zh", "但不逼大牌") == (preset == "yangzhong")
    assert says(preset, "zh", "红5可以和♥10、♥K组成5、10、K") == (preset in ("yancheng", "nantong"))


@pytest.mark.parametrize(("preset", "penalty"), [(p, 5 if p in ("xin", "chizhou") else 10) for p in RULESETS])
def test_throw_penalty(preset: str, penalty: int) -> None:
    assert says(preset, "zh", f"按这部分的张数每张罚 {penalty} 分")
    assert says(preset, "en", f"{penalty} points per card of that part")


@pytest.mark.parametrize("preset", RULESETS)
def test_kitty_and_level_table_in_words(preset: str) -> None:
    table_b = preset in R5
    assert says(preset, "zh", "80 分上台：抓分方得 80–85 分换庄不升级，每多 10 分升一级（90 分升 1 级）")
    shutout = "0 分大光升 9 级" if table_b else "0 分大光升 8 级"
    assert says(preset, "zh", f"不到 80 分庄家方保庄，每少 10 分升一级：70 分升 1 级，5 分升 8 级，{shutout}")
    assert says(preset, "en", "0 (大光): +9" if table_b else "0 (大光): +8")
    # Decision 18: 大光 is exactly 0; table B's extra level reaches below it.
    assert says(preset, "zh", "抓分方 0 分（大光）或 0 分以下，庄家方多升一级；大光只指抓分方出牌一分没得。") == table_b
    assert not says(preset, "zh", "大光（抓分方 0 分或更少）")
    assert says(preset, "zh", "单张 ×2，对 ×4，拖拉机每张 ×2（两对 ×8，三对 ×12）")
    assert says(preset, "zh", "最多 ×8。") == (preset == "anhui")
    assert says(preset, "zh", "60 分就上台") == (preset in ("xin", "chizhou"))


@pytest.mark.parametrize("preset", RULESETS)
def test_must_play_laps_flag_and_the_end(preset: str) -> None:
    must = preset in ("nantong", "chizhou", "anhui")
    assert says(preset, "zh", "必打：J、A。") == must
    assert says(preset, "en", "Must-play levels (必打): J and A.") == must
    assert says(preset, "zh", "一场比赛打 3 圈") == (preset == "yancheng")
    flag = preset in ("yangzhou", "yangzhong")
    assert says(preset, "zh", "扛旗：过A的一方要扛旗打一局无主，只有红5、大王、小王是主，不留底牌（每人 27 张），"
                              "抓分方要拿满 100 分才能上台。") == flag
    assert says(preset, "zh", "翻底定主的一局和扛旗局不能抄底。") == flag
    top = "第 3 圈的A" if preset == "yancheng" else "A"
    assert says(preset, "zh", f"升级最多升到{top}，不会越过")  # decision 13: the climb ends at A
    assert says(preset, "zh", f"打过{top}的一方赢得比赛。") == (preset in ("yancheng", "nantong", "xin", "chizhou"))
    assert says(preset, "zh", "打2扣 5，打3–6扣 4，打7–10扣 3，打J–K扣 2，打A扣 1") == (preset == "anhui")


@pytest.mark.parametrize(("preset", "zh"), [
    ("yancheng", "赢方直接到最后一圈打 A，输方回到第 1 圈打 2；赢方积分至少 16"),
    ("yangzhou", "抓分方用含有同花色5、10、K的牌型抠底：抓分方直接打 A，庄家方回到打 2；抓分方积分至少 16"),
    ("yangzhong", "抓分方用含有同花色5、10、K的牌型抠底：抓分方直接打 A，庄家方回到打 2；抓分方积分至少 16"),
    ("nantong", "抓分方用含有同花色5、10、K的牌型抠底：抓分方直接打 A，庄家方回到打 2；抓分方积分至少 13"),
])
def test_heaven_and_earth(preset: str, zh: str) -> None:
    assert says(preset, "zh", "上天入地：") and says(preset, "zh", zh)
    for other in PLAIN:
        assert not says(other, "zh", "上天入地")


def test_j_to_the_bottom() -> None:
    assert says("nantong", "zh", "J到底：庄家打J时")
    assert says("chizhou", "zh", "J、A 抠底：打J时，抓分方用单张J或一对J抠底，庄家方回到打 2；"
                                 "打A时，用单张A抠底回到打 J，用一对A抠底回到打 2。")
    for preset in ("yancheng", "yangzhou", "xin", "anhui"):
        assert not says(preset, "zh", "J到底") and not says(preset, "zh", "J、A 抠底")


@pytest.mark.parametrize("preset", RULESETS)
def test_escape(preset: str) -> None:
    anhui = preset == "anhui"
    assert says(preset, "zh", "扣 15；任何一方打到 J 以后扣 20") == anhui
    assert says(preset, "zh", "本局还没出牌之前离开，不扣分。") != anhui
    assert says(preset, "zh", "己方当时占优只扣 15") != anhui


def test_the_docs_page_is_what_the_code_writes() -> None:
    committed = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_markdown(), "docs/rules.md is stale: run  python -m bot.rules > docs/rules.md"
    for r in RULESETS.values():
        assert f"## {r.zh_name} · {r.en_name} (`{r.name}`)" in committed


def test_the_docs_page_is_written_by_python_m_bot_rules() -> None:
    done = subprocess.run([sys.executable, "-m", "bot.rules"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == rules_markdown()


def test_the_readme_links_the_rules_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/rules.md" in readme
    assert "design documents" not in readme


@pytest.mark.parametrize("lang", LANGS)
def test_a_tables_own_options_change_the_text(lang: str) -> None:
    """The text is written from the options, so a variant of a preset reads as that variant."""
    variant = RULESETS["yancheng"].replace(red5_above_big_joker=False, joker_tractor=False, ace_low_tractor=False,
                                           throw_penalty=20)
    text = "\n".join(assert_telegram_html(p) for p in rules_text(translator(lang), variant))
    if lang == "zh":
        assert "大王 > 红5 > 小王" in text and "红5 > 大王" not in text
        assert "小王对加大王对也算拖拉机" not in text and "A 只能接 K（KKAA），AA22 不算拖拉机。" in text
        assert "每张罚 20 分" in text
    else:
        assert "big joker > 红5 > small joker" in text
        assert "A small-joker pair and a big-joker pair also make one." not in text
        assert "20 points per card" in text
