"""Words an expert would change (issue 55, item 7; decisions 17 and 18), each as a scenario of the text.

The seeds that first showed these lines are played again in ``tests/bot/test_demo.py``; here each wording is
checked on the engine's own records (:mod:`tests.bot.story_cases`) or on a record the engine made, with one
of its numbers changed to reach a row no short rigged hand reaches.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from bot import story
from bot.i18n import translator
from bot.labels import hands_phrase
from bot.messages import refusal
from bot.render_group import phase_lines, seat_name
from bot.render_private import render_hand
from engine.bidding import BidRecord
from engine.cards import Card
from engine.errors import IllegalActionError
from engine.hand import Action
from engine.ruleset import RULESETS
from engine.scoring import Adjustment
from engine.views import view_for
from tests.bot import builders as T
from tests.bot import story_cases as C
from tests.engine.rig import cards, full_deal, new_hand

ZH, EN = translator("zh"), translator("en")


def _lines(case: C.Case, lang: str) -> list[str]:
    return story.result_lines(translator(lang), case.record, case.match.ruleset.laps, case.hand.tricks[-1])[2:]


def test_passing_a_does_not_say_bao_zhuang_twice() -> None:
    """「南北保庄 / 南北打 A 保庄，过A…」 said 保庄 twice: the deal line says it, the move line what A brings."""
    zh, en = _lines(C.passed_a_flag_owed(), "zh"), _lines(C.passed_a_flag_owed(), "en")
    assert zh[2:4] == ["南北保庄", "南北打过A，下一局扛旗"]
    assert en[2:4] == ["N–S keep the deal (保庄)", "N–S won at A: past A, they owe the flag hand (扛旗)"]
    assert sum(line.count("保庄") for line in zh) == 1


def test_anhuis_end_bonus_is_paid_by_each_loser() -> None:
    zh = _lines(C.anhui_end_bonus(), "zh")
    assert "东西打 Q，按级别每人另扣 2 积分；南北每人 +2" in zh


def test_a_jump_beyond_the_printed_rows_shows_its_arithmetic_for_the_attackers_too() -> None:
    """The tables print up to 160–165 (+8); a bigger jump is 「类推」 and is shown as p and its rule."""
    case = C.plain_rise()
    result = case.record.result
    assert result is not None and result.outcome is not None
    outcome = replace(result.outcome, levels=11, dealer_score=-12, attacker_score=12)
    record = replace(case.record, result=replace(result, attacker_points=190, outcome=outcome))
    zh = story.result_lines(ZH, record, 3)
    en = story.result_lines(EN, record, 3)
    assert zh[zh.index("东西上台") + 1] == "p = 190：每多 10 分多升 1 级，共升 11 级"
    assert en[en.index("E–W take the deal (上台)") + 1] == "p = 190: each 10 points more is one level more, 11 levels in all"
    # Within the printed rows (p = 100: +2) there is nothing to explain.
    assert not any(line.startswith("p = ") for line in _lines(case, "zh"))


def test_a_shut_out_is_da_guang_and_a_total_of_zero_with_points_taken_is_not() -> None:
    """A 0 with nothing captured is 大光; the same 0 reached by 50 from tricks and 逼红5 −50 is a total with its
    parts and the row it counts as (amended decision 18)."""
    case = C.stopped_at_a()
    assert _lines(case, "zh")[0] == "抓分方共得 0 分。大光！"
    result = case.record.result
    assert result is not None
    forced = C.red5_forced().record.result
    assert forced is not None
    penalty = replace(forced.adjustments[0], points=-50)
    record = replace(case.record, result=replace(result, trick_points=50, adjustments=(penalty,)))
    assert story.points_line(ZH, record) == "抓分方出牌得 50 分，逼红5 −50，合计 0 分（按 0 分算，庄家方升 9 级）。"
    assert story.points_line(EN, record) == ("Attackers scored 50 from tricks, 逼红5 −50: 0 points in all "
                                             "(counted as 0 points: the dealer side rises 9 levels).")


def _bid(seat: int, text: str, step: str, **kw: object) -> BidRecord:
    values: dict[str, object] = {"trump": "C", "kind": "steal", "stood": True, "final": False}
    values.update(kw)
    return BidRecord(seat, tuple(cards(text)), step, **values)  # type: ignore[arg-type]


def test_no_space_before_a_full_width_bracket() -> None:
    """「南 ♣2♣2 （不够大，不算）」 had a space before the bracket."""
    low = _bid(2, "2C 2C", "C2", kind="override", stood=False)
    assert story.bid_words(ZH, low) == "南 ♣2♣2（不够大，不算）"
    assert story.bid_words(EN, low) == "S ♣2♣2 (too low, did not count)"
    failed = _bid(2, "2D 2D", "D2", stood=False, points=-80)
    assert story.bid_words(ZH, failed) == "南 ♦2♦2 抄底失败（−80）"


def test_a_negative_score_on_the_table_message_has_a_minus_sign() -> None:
    """「抓分方 -80 分」 used an ASCII hyphen; every other number uses −."""
    table = T.playing("yancheng", tricks=0)
    view = replace(table.view(None), trick_points=0, adjustments=(Adjustment("failed_steal", 1, -80),))
    assert view.attacker_points == -80
    zh = phase_lines(ZH, table, view)
    assert any("· 抓分方 −80 分" in line for line in zh)
    assert not any("-80" in line for line in zh + phase_lines(EN, table, view))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_flipped_joker_names_the_hands_takeover_score(lang: str) -> None:
    """新炒地皮/池州: a joker turned up makes a no-trump hand taken over at 60; the flip's line says so."""
    case = C.flip_joker()
    view = view_for(case.hand, None)
    assert view.threshold == 60 and case.record.result is not None and case.record.result.threshold == 60
    text = story.flip_news(translator(lang), view, case.match.ruleset.threshold)
    assert text == ("无人亮主，翻底：小王（定主）；打无主；本局抓分方 60 分上台" if lang == "zh" else
                    "Nobody bid: the kitty turned up SJ (sets the trump); no trump; "
                    "this hand the attackers take the deal at 60 points")
    plain = C.flip_open()  # a flip that leaves the takeover at 80 says nothing of it
    assert "60" not in story.flip_news(translator(lang), view_for(plain.hand, None), plain.match.ruleset.threshold)


@pytest.mark.parametrize(("preset", "zh", "en"), [
    ("yancheng", "这些牌不能抄底：抄底要用一对级牌、一对王或一对红5。",
     "Those cards cannot steal the kitty: a steal needs a pair of level cards, a joker pair or a red-five pair."),
    ("xin", "这些牌不能抄底：抄底要用一对级牌或一对王。",
     "Those cards cannot steal the kitty: a steal needs a pair of level cards or a joker pair."),
    ("anhui", "这些牌不能抄底：抄底要用一对级牌或一对王。",
     "Those cards cannot steal the kitty: a steal needs a pair of level cards or a joker pair."),
])
def test_a_refused_steal_talks_about_stealing(preset: str, zh: str, en: str) -> None:
    """Not 「这些牌不能亮主：请用级牌…」 in the steal round."""
    hand = new_hand(preset, deal=full_deal({0: "2S 2S", 1: "3H 3H"}))
    hand.bid(0, cards("2S 2S"))
    hand.apply(Action("close"))
    hand.apply(Action("bury", 0, tuple([c for c in hand.hands[0] if c.rank != 2][:8])))
    with pytest.raises(IllegalActionError) as err:
        hand.apply(Action("steal", 1, tuple(cards("3H 3H"))))
    ruleset = RULESETS[preset]
    assert refusal(ZH, err.value, ruleset) == zh
    assert refusal(EN, err.value, ruleset) == en


# --- issue 55, item 6: wrong or stale lines ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_player_to_move_is_told_in_the_second_person(lang: str) -> None:
    """Not 「轮到 北 Bob」 in Bob's own message: the mover reads that it is their move, and how long they have."""
    table = T.playing("yancheng")
    hand = T.hand_of(table)
    assert hand.turn is not None
    table.deadline = time.time() + 45
    text = render_hand(translator(lang), table, hand.turn, T.GROUP_TITLE)[0]
    assert ("轮到你（还剩 50 秒）" if lang == "zh" else "Your move (50 s left)") in text
    name = seat_name(translator(lang), table, hand.turn)
    assert (f"轮到 {name}" if lang == "zh" else f"{name} to play") not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_trump_and_one_card_are_singular(lang: str) -> None:
    """「1 trumps」, 「1 hands」: a count of one is said in the singular."""
    table = T.playing("yancheng")
    hand = T.hand_of(table)
    assert hand.turn is not None and hand.trump is not None
    hand.hands[hand.turn] = [Card.parse("BJ")]  # the last card, a trump
    text = render_hand(translator(lang), table, hand.turn, T.GROUP_TITLE)[0]
    assert ("1 张牌，1 张主" if lang == "zh" else "1 card, 1 trump") in text.split("\n")
    assert hands_phrase(translator(lang), 1) == ("1 局" if lang == "zh" else "1 hand")
    assert hands_phrase(translator(lang), 12) == ("12 局" if lang == "zh" else "12 hands")


def test_a_name_and_also_bid_are_spaced() -> None:
    """「Bob也亮了主」 missed the space every other line puts after a name."""
    assert ZH("{who} bid too: which bid stands is told after the steal rounds (暗炒).", who="东 Bob").startswith(
        "东 Bob 也亮了主：")
