"""The story of a hand (decision 17), told from the engine's records, in 简体中文 and English.

Every case is a real hand driven through :class:`engine.match.Match`
(:mod:`tests.bot.story_cases`); the texts are checked line for line.
"""

from __future__ import annotations

import pytest

from bot import story
from bot.i18n import translator
from bot.labels import card_label, trump_phrase
from engine.bidding import BidRecord
from engine.cards import parse_cards
from engine.levels import MoveReason
from engine.notices import RedFive, ThrowFailed
from engine.views import view_for
from tests.bot import builders as T
from tests.bot import story_cases as C
from tests.engine.rig import cards, full_deal, new_hand

ZH, EN = translator("zh"), translator("en")


def _lines(case: C.Case, lang: str) -> list[str]:
    tr = translator(lang)
    return story.result_lines(tr, case.record, case.match.ruleset.laps, case.hand.tricks[-1])


# --- level moves as recorded ------------------------------------------------------------------------

def test_a_jump_stopped_at_a_names_the_table_and_the_stop() -> None:
    """南通 K, shut out: the table gives 9, A must be played — never 「升 9 级」 to a level past A."""
    case = C.stopped_at_a()
    assert case.record.moves[0].reason is MoveReason.MUST_PLAY
    zh, en = _lines(case, "zh"), _lines(case, "en")
    assert "抓分方共得 0 分。大光！" in zh
    assert "南北保庄" in zh
    assert "南北按表升 9 级，A 必打，停在 A（K → A）" in zh
    assert "N–S: the table gives 9 levels, but A must be played: stop at A (K → A)" in en
    assert "Attackers scored 0 points. Shut out (大光)!" in en
    assert zh[-1] == "南北 打 A  ·  东西 打 4"


def test_the_climb_ends_at_a_for_attackers() -> None:
    case = C.climb_ends_at_a()
    assert case.record.moves[1].reason is MoveReason.STOPPED_AT_ACE
    assert _lines(case, "zh")[4:6] == ["东西上台", "东西按表升 7 级，到 A 为止，停在 A（Q → A）"]
    assert _lines(case, "en")[4:6] == ["E–W take the deal (上台)",
                                       "E–W: the table gives 7 levels, the climb ends at A: Q → A"]


def test_a_must_play_j_stop() -> None:
    case = C.must_play_j()
    assert _lines(case, "zh") == [
        "<b>第 1 局结束</b>",
        "最后一轮：北 ♣2 → 东 ♣A → 南 ♣3 → 西 ♣4 · 东家赢",
        "抓分方出牌得 0 分，抠底 +50，合计 50 分。",
        "底牌 ♠10♥K♦5♥2♥3♥4♥6♠2：抠底 ×2 = 50 分。",
        "南北保庄",
        "南北按表升 3 级，J 必打，停在 J（10 → J）",
        "积分：北 +3  东 −3  南 +3  西 −3",
        "南北 打 J  ·  东西 打 4",
    ]
    assert "N–S: the table gives 3 levels, but J must be played: stop at J (10 → J)" in _lines(case, "en")


def test_a_failed_flag_hand_moves_nobody() -> None:
    """Today's wrong line said 「抓分方上台，升 2 级」: the flag side failed and nobody rose."""
    case = C.flag_failed()
    zh, en = _lines(case, "zh"), _lines(case, "en")
    assert "扛旗失败，东西上台，仍打 8" in zh
    assert "The flag hand failed: E–W take the deal, still at 8" in en
    assert not any("升" in line for line in zh)
    assert zh[-1] == "南北 扛旗（无主）  ·  东西 打 8"


def test_a_held_flag_hand_wins_the_match() -> None:
    case = C.flag_won()
    assert "南北扛旗成功，赢得比赛" in _lines(case, "zh")
    assert "N–S held the flag hand (扛旗) and win the match" in _lines(case, "en")


def test_passing_a_owes_the_flag_hand() -> None:
    case = C.passed_a_flag_owed()
    assert "南北打过A，下一局扛旗" in _lines(case, "zh")
    assert "N–S won at A: past A, they owe the flag hand (扛旗)" in _lines(case, "en")


def test_chizhou_ace_pair_demotion() -> None:
    case = C.chizhou_ace_pair()
    assert case.record.moves[0].reason is MoveReason.DEMOTED
    zh = _lines(case, "zh")
    assert zh[1:] == [
        "最后一轮：北 ♠3♠3 → 东 ♠A♠A → 南 ♠4♠4 → 西 ♠6♠6 · 东家赢",
        "抓分方出牌得 0 分，抠底 +80，合计 80 分。",
        "底牌 ♥A♥K♥K♥4♥6♥7♥8♥9：抠底 ×4 = 80 分。",
        "东西上台（80 分，换庄不升级）",
        "对A 抠底：南北退回打 2",
        "积分：北 −13  东 +13  南 −13  西 +13（降 12 级 + 按表 1）",
        "南北 打 2  ·  东西 打 7",
    ]
    assert "pair of A captured the kitty: N–S go back to 2" in _lines(case, "en")


def test_heaven_and_earth_with_laps() -> None:
    case = C.heaven_and_earth()
    assert "上天入地：东西到 A（第 3 圈），南北回到 2（第 1 圈）" in _lines(case, "zh")
    assert "Heaven and earth (上天入地): E–W go to A (lap 3), N–S back to 2 (lap 1)" in _lines(case, "en")
    assert _lines(case, "zh")[-2] == "积分：北 −16  东 +16  南 −16  西 +16"


def test_a_lap_wrap_shows_both_laps() -> None:
    case = C.lap_wrap()
    assert "南北升 4 级，越过 A 进入第 2 圈：Q（第 1 圈） → 3（第 2 圈）" in _lines(case, "zh")
    assert "N–S rise 4 levels, across A into lap 2: Q (lap 1) → 3 (lap 2)" in _lines(case, "en")
    assert not any("过A" in line for line in _lines(case, "zh"))  # decision 13: 过A is winning at A


def test_a_plain_rise_is_the_tables_number() -> None:
    case = C.plain_rise()
    assert _lines(case, "zh")[4:6] == ["东西上台", "东西升 2 级：5 → 7"]
    assert _lines(case, "en")[4:6] == ["E–W take the deal (上台)", "E–W rise 2 levels: 5 → 7"]


# --- penalties ----------------------------------------------------------------------------------------

def test_failed_throw_notice_and_result_line() -> None:
    case = C.throw_failed()
    (notice,) = case.hand.notices
    assert isinstance(notice, ThrowFailed)
    assert story.notice_text(ZH, notice, 0) == "北 甩牌失败：♦A♦Q♦Q 里 ♦Q♦Q 被 东 ♦K♦K 管住，只出 ♦Q♦Q，抓分方 +20"
    assert story.notice_text(EN, notice, 0) == (
        "N failed a throw: of ♦A♦Q♦Q, ♦Q♦Q is beaten by E with ♦K♦K; only ♦Q♦Q is played, attackers +20")
    assert "甩牌失败（北，庄家方）：抓分方 +20" in _lines(case, "zh")
    assert "failed throw by N (dealer side): attackers +20" in _lines(case, "en")


def test_red_five_forced_notice_and_result_line() -> None:
    case = C.red5_forced()
    (notice,) = case.hand.notices
    assert isinstance(notice, RedFive) and notice.kind == "red5_forced"
    assert story.notice_text(ZH, notice, 0) == "逼红5：南（庄家方）的 ♥5 被逼出，抓分方 +50"
    assert story.notice_text(EN, notice, 0) == (
        "Red five forced out (逼红5): S (dealer side) had to play ♥5 and lost the trick, attackers +50")
    assert "逼红5（南，庄家方）：抓分方 +50" in _lines(case, "zh")
    # Whose red five was forced out — never "by S", which reads as if S forced it.
    assert "逼红5: the red five of S (dealer side) was forced out: attackers +50" in _lines(case, "en")


def test_red_five_kept_notice_and_result_line() -> None:
    case = C.red5_kept()
    (notice,) = case.hand.notices
    assert story.notice_text(ZH, notice, 0) == "保红5：北（庄家方）的 ♥5♥5 留到最后一轮，抓分方 −100"
    assert story.notice_text(EN, notice, 0) == (
        "Red five kept (保红5): N (dealer side) led ♥5♥5 in the last trick, attackers −100")
    zh = _lines(case, "zh")
    assert "保红5（北，庄家方）：抓分方 −100" in zh
    assert "保红5: the red five of N (dealer side) was kept to the last trick: attackers −100" in _lines(case, "en")


# --- bids ---------------------------------------------------------------------------------------------

def test_the_reveal_tells_every_bid_and_each_failed_steal() -> None:
    rigged = C.failed_steals()
    hand = rigged.match.hand
    history = view_for(hand, None).bid_history
    assert history is not None
    assert story.reveal(ZH, history, hand.trump) == (
        "亮主经过：北 ♥2♥2 → 东 ♦2♦2 抄底失败（−80） → 南 ♣2♣2 抄底失败（+80）；主 ♥")
    assert story.reveal(EN, history, hand.trump) == (
        "How the trump was bid: N ♥2♥2 → E ♦2♦2 failed steal (−80) → S ♣2♣2 failed steal (+80); trump ♥")
    case = C.finish(rigged)
    zh = _lines(case, "zh")
    assert "抄底失败（东，抓分方）：抓分方 −80" in zh and "抄底失败（南，庄家方）：抓分方 +80" in zh


def test_the_reveal_names_a_steal_that_stood_and_a_red_five_choice() -> None:
    h = [BidRecord(0, tuple(parse_cards("2C")), "single", "C", "declare", True, False),
         BidRecord(3, tuple(parse_cards("5H 5H")), "R52", "C", "override", True, False),
         BidRecord(1, tuple(parse_cards("2S 2S")), "S2", "S", "steal", True, True),
         BidRecord(2, tuple(parse_cards("2D 2D")), "D2", "D", "steal", False, False, -80)]
    assert story.reveal(ZH, h, "S") == "亮主经过：北 ♣2 → 西 红5对（选♣）反主 → 东 ♠2♠2 抄底 → 南 ♦2♦2 抄底失败（−80）；主 ♠"
    assert story.reveal(EN, h, "S") == ("How the trump was bid: N ♣2 → W red-five pair (chose ♣) override → "
                                        "E ♠2♠2 steal → S ♦2♦2 failed steal (−80); trump ♠")


def test_open_bids_are_named_as_they_happen() -> None:
    """南通 (open): 亮主, 反主, 回头望 — each bid in the players' word."""
    h = new_hand("nantong", deal=full_deal({0: "2S 2S", 3: "BJ BJ"}))
    h.bid(0, cards("2S"))
    h.bid(3, cards("BJ BJ"))
    h.bid(0, cards("2S 2S"))
    history = view_for(h, None).bid_history
    assert history is not None
    assert [story.bid_words(ZH, r, first_word=True) for r in history] == ["北 ♠2 亮主", "西 大王对 反主", "北 ♠2♠2 回头望"]
    assert [story.bid_words(EN, r, first_word=True) for r in history] == [
        "N ♠2 declare", "W big-joker pair override", "N ♠2♠2 look back"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_flipped_kitty_names_the_card_that_set_the_trump(lang: str) -> None:
    v = view_for(T.hand_of(T.flipped("yangzhou")), None)
    assert v.flip_decider is not None
    decider = v.flipped[v.flip_decider]
    assert decider.suit == v.trump or (decider.is_joker and v.trump is None)
    tr = translator(lang)
    text = story.flip(tr, v.flipped, v.flipped_by, v.flip_decider, v.trump)
    mark = "（定主）" if lang == "zh" else " (sets the trump)"
    assert card_label(decider, lang) + mark in text and text.count(mark) == 1
    assert text.endswith(("；" if lang == "zh" else "; ") + trump_phrase(tr, v.trump, capital=False))


def test_a_flip_in_turn_names_who_turned_each_card() -> None:
    cards_ = tuple(parse_cards("3C 7D 2S"))
    assert story.flip(ZH, cards_, (1, 2, 3), 2, "S") == "无人亮主，翻底：东 ♣3 南 ♦7 西 ♠2（定主）；主 ♠"
    assert story.flip(EN, cards_, (None, None, None), 0, "C") == (
        "Nobody bid: the kitty turned up ♣3 (sets the trump) ♦7 ♠2; trump ♣")


# --- private chat ------------------------------------------------------------------------------------

def test_private_result_is_one_line() -> None:
    case = C.flag_failed()
    zh = story.private_result(ZH, case.record, 1, 1)
    assert zh == "第 2 局：抓分方 120 分 · 扛旗失败，东西上台，仍打 8 · 你 +3 积分"
    assert "\n" not in story.private_result(EN, case.record, 0, 1)


# --- between hands ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("pace", ["realtime", "relaxed", "daily"])
def test_the_table_message_between_hands(pace: str, lang: str) -> None:
    """Real-time: the next hand starts in a moment, no button and no seconds (the pause is 4 s: 「还剩 10 秒」
    lasted 2–4 s, issue 55); otherwise a 「下一局」 button that names the deal it starts, and the time left."""
    from dataclasses import replace

    from bot import callbacks
    from bot.render_group import render_table

    table = T.make_table("nantong")
    table.settings = replace(table.settings, pace=pace)
    table.between_hands = 1000.0 + 3
    text, markup = render_table(translator(lang), table, now=1000.0)
    last = text.split("\n")[-1]
    if pace == "realtime":
        assert last == ("下一局马上开始。" if lang == "zh" else "The next hand starts in a moment.")
        assert markup is None
    else:
        assert ("点「下一局」" in last) if lang == "zh" else ("presses 「Next hand」" in last)
        assert markup is not None
        (button,), = markup.inline_keyboard
        assert button.text == ("▶️ 下一局" if lang == "zh" else "▶️ Next hand")
        assert table.match is not None
        data = callbacks.decode(str(button.callback_data))
        assert data is not None and data.op == "next" and data.version == str(table.match.deals)
