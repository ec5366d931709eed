"""The group's messages, as pure functions of a table: the lobby, the table message in each
moment of a hand, hand results and the end of the match — in 简体中文 and English.

The most important property: the group text never shows a card that is not
public at that moment (other hands, the kitty before the hand ends, hidden
bids before the reveal), nor, under hidden bidding, the trump before it is
revealed.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections import Counter

import pytest

from bot import callbacks
from bot.clocks import clock_span, time_left
from bot.i18n import translator
from bot.labels import card_label, cards_label
from bot.model import Seat, Table, TableSettings
from bot.render_group import (
    phase_lines,
    render_lobby,
    render_match_over,
    render_result,
    render_settings,
    render_table,
)
from bot.render_private import render_hand
from engine.cards import Card
from engine.hand import Hand
from engine.ruleset import RULESETS
from engine.views import view_for
from tests.bot import builders as T
from tests.bot.checks import (
    SUIT,
    assert_keyboard_limits,
    assert_telegram_html,
    buttons,
    card_labels,
    labels,
    without_cards,
)

SEATS = {"zh": ("北", "东", "南", "西"), "en": ("N", "E", "S", "W")}
MODE = {"zh": ("明炒", "暗炒"), "en": ("open bids", "hidden bids")}
TITLE = {"zh": "炒地皮", "en": "Chao Di Pi"}
NO_TRUMP = {"zh": "无主", "en": "no trump"}
TRUMP_IS = {"zh": ("主 {}", "打无主"), "en": ("Trump {}", "No trump")}
"""How a line says the trump: 「主 ♠」, or 「打无主」 (never 「主 无主」)."""
SYM = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
KITTY_SHOWN = re.compile(r"(底牌|[Kk]itty)\s*[：:]?\s*(?:[♠♥♦♣]|大王|小王|BJ|SJ)")
"""A line that lists kitty cards."""
EVE_RAW = "&lt;b&gt;Eve &amp; co&lt;/b&gt;"
EVE = "<b>Eve & co</b>"
AI = "🤖 AI"


def name(table: Table, seat: int) -> str:
    """A seat's name as the reader sees it."""
    info = table.seats[seat]
    assert info is not None
    return AI if info.is_ai else info.name


def who(table: Table, seat: int, lang: str) -> str:
    """A seat's name where no seat label stands beside it: an AI seat gets its seat (东 🤖 AI)."""
    info = table.seats[seat]
    assert info is not None
    return f"{SEATS[lang][seat]} {AI}" if info.is_ai else info.name


def trump_sym(trump: str | None, lang: str) -> str:
    return SYM[trump] if trump is not None else NO_TRUMP[lang]


def trump_is(trump: str | None, lang: str, *, capital: bool = True) -> str:
    """「主 ♠」 / 「打无主」, "Trump ♠" / "No trump" (lower case inside a sentence)."""
    text = TRUMP_IS[lang][0].format(SYM[trump]) if trump is not None else TRUMP_IS[lang][1]
    return text if capital or lang == "zh" else text[0].lower() + text[1:]


def play_line(plays: object, lang: str) -> str:
    return " → ".join(f"{SEATS[lang][s]} {cards_label(c, lang)}" for s, c in plays)  # type: ignore[attr-defined]


def secret_labels(hand: Hand, lang: str) -> set[str]:
    """Labels of cards the group must not see now: in the hands, the kitty, hidden bids — and not public."""
    public = set(labels(view_for(hand, None).visible_cards(), lang))
    hidden: list[Card] = [c for h in hand.hands for c in h]
    if not hand.over:
        hidden += hand.kitty
    if hand.ruleset.hidden_bidding and not hand.trump_decided:
        hidden += [c for b in hand.bids for c in b.cards]
    return set(labels(hidden, lang)) - public


def group(table: Table, lang: str, now: float | None = None) -> tuple[str, str]:
    """Render the table message and check what every table message must satisfy; returns (raw, plain)."""
    raw, markup = render_table(translator(lang), table, now)
    plain = assert_telegram_html(raw)
    decoded = assert_keyboard_limits(markup, table.id)
    assert [(c.kind, c.op) for c in decoded] == [("H", "peek")]
    assert_no_leak(table, lang, plain)
    if table.seats[0] is not None and not table.seats[0].is_ai:
        assert EVE_RAW in raw and "<b>Eve" not in raw
    return raw, plain


def assert_no_leak(table: Table, lang: str, plain: str) -> None:
    """Nothing hidden in a group text: every card label shown is public, as often as it is public."""
    hand = T.hand_of(table)
    view = view_for(hand, None)
    shown = card_labels(plain)
    public = labels(view.visible_cards(), lang)
    assert not shown - public, f"cards shown that are not public: {shown - public}\n{plain}"
    assert not set(shown) & secret_labels(hand, lang)
    if not hand.over:
        assert not KITTY_SHOWN.search(plain), plain
    if hand.ruleset.hidden_bidding and not hand.trump_decided:
        rest = without_cards(plain)
        assert not SUIT.search(rest), f"a suit (the trump?) shown before the reveal:\n{plain}"
        assert NO_TRUMP[lang] not in rest.lower()


def lines(raw: str) -> list[str]:
    return assert_telegram_html(raw).split("\n")


# --- the header and the sides ------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_header_names_preset_mode_and_hand_number(preset: str, lang: str) -> None:
    table = T.bidding_fresh(preset)
    raw, plain = group(table, lang)
    r = RULESETS[preset]
    preset_name = r.zh_name if lang == "zh" else r.en_name
    number = "第 1 局" if lang == "zh" else "hand 1"
    mode = MODE[lang][r.hidden_bidding] if preset in ("yancheng", "nantong") else None  # the 暗炒 and 明炒 rooms
    if r.after_ace == "flag_hand":  # the 扛旗 room, never 明炒 (南通's room)
        mode = "扛旗" if lang == "zh" else "flag hand"
    if mode is None:  # 新炒地皮, 池州, 安徽: no room of the original platform bears their name
        preset_mode = preset_name
    else:
        preset_mode = f"{preset_name}（{mode}）" if lang == "zh" else f"{preset_name} ({mode})"
    assert raw.split("\n")[0] == f"<b>{TITLE[lang]} · {preset_mode} · {number}</b>"


@pytest.mark.parametrize("lang", T.LANGS)
def test_header_counts_hands(lang: str) -> None:
    table, record = T.finished("yangzhou")
    assert record.number == 1 and T.hand_of(table).setup.number == 2
    _raw, plain = group(table, lang)
    assert plain.split("\n")[0].endswith("第 2 局" if lang == "zh" else "hand 2")


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_table_choice_of_hidden_bids_shows_in_the_header(lang: str) -> None:
    table = T.bidding_fresh("xin", hidden=True)
    _raw, plain = group(table, lang)
    assert (f"（{MODE[lang][1]}）" if lang == "zh" else f"({MODE[lang][1]})") in plain.split("\n")[0]


@pytest.mark.parametrize("lang", T.LANGS)
def test_partners_sit_across_with_their_levels(lang: str) -> None:
    table = T.bidding_fresh("yangzhou")
    _raw, plain = group(table, lang)
    n, e, s, w = SEATS[lang]
    at = "打 2" if lang == "zh" else "at 2"
    assert plain.split("\n")[1] == f"{n} {EVE} ─ {s} Carol   {at}"
    assert plain.split("\n")[2] == f"{e} {AI} ─ {w} Dave   {at}"


@pytest.mark.parametrize("lang", T.LANGS)
def test_laps_levels_and_dealer_side(lang: str) -> None:
    table, _record = T.finished("yancheng")
    match = table.match
    assert match is not None
    _raw, plain = group(table, lang)
    side0, side1 = plain.split("\n")[1:3]
    for side, line in ((0, side0), (1, side1)):
        rank = match.sides[side].rank
        label = {11: "J", 12: "Q", 13: "K", 14: "A"}.get(rank, str(rank))
        assert (f"打 {label}" if lang == "zh" else f"at {label}") in line
        assert ("（第 1 圈）" if lang == "zh" else "(lap 1)") in line
        is_dealer = T.hand_of(table).dealer_side == side
        assert (("庄家方" if lang == "zh" else "dealer side") in line) == is_dealer


# --- bidding -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
def test_bidding_waits_for_everyone(lang: str) -> None:
    table = T.bidding_fresh("yancheng")
    _raw, plain = group(table, lang)
    assert plain.split("\n")[-1] == (
        "正在亮主：请在私聊里亮主或不亮。" if lang == "zh"
        else "Bidding is open: bid from your private chat, or pass.")


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yangzhou", "nantong", "chizhou"])
def test_open_bids_are_shown_with_their_trump(preset: str, lang: str) -> None:
    table, bid = T.bidding_with_bid(preset, second=True)
    hand = T.hand_of(table)
    _raw, plain = group(table, lang)
    text = plain.split("\n")
    words = {"declare": ("亮主", "declare"), "override": ("反主", "override"), "reinforce": ("加固", "reinforce"),
             "look_back": ("回头望", "look back")}
    for b in hand.bids:
        who = f"{SEATS[lang][b.seat]} {name(table, b.seat)}"
        cards = cards_label(b.cards, lang)
        trump = trump_is(b.trump, lang, capital=False)
        word = words[b.kind][lang == "en"]
        expected = f"{who}：{cards} {word} → {trump}。" if lang == "zh" else f"{who}: {cards} {word} → {trump}."
        assert expected in text
    # Who passed is not shown: a pass costs the group no edit.
    assert text[-1] == ("正在亮主：请在私聊里亮主或不亮。" if lang == "zh"
                        else "Bidding is open: bid from your private chat, or pass.")
    assert hand.passed == {1}


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize(("preset", "hidden"), [("yancheng", None), ("anhui", None), ("xin", True), ("yangzhou", True)])
def test_hidden_bids_show_only_that_someone_bid(preset: str, hidden: bool | None, lang: str) -> None:
    table, bid = T.bidding_with_bid(preset, hidden=hidden, second=True)
    hand = T.hand_of(table)
    assert hand.ruleset.hidden_bidding and len(hand.bids) == 2
    _raw, plain = group(table, lang)
    text = plain.split("\n")
    for b in hand.bids:
        who = f"{SEATS[lang][b.seat]} {name(table, b.seat)}"
        assert (f"{who} 亮主了。" if lang == "zh" else f"{who} made a bid.") in text
    assert not card_labels(plain), plain
    assert not SUIT.search(plain) and NO_TRUMP[lang] not in plain


# --- burying and stealing -----------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yancheng", "anhui"])
def test_hidden_burying_names_the_burier_and_not_the_trump(preset: str, lang: str) -> None:
    table = T.burying(preset)
    hand = T.hand_of(table)
    assert not hand.trump_decided
    _raw, plain = group(table, lang)
    burier = name(table, hand.burier)  # type: ignore[arg-type]
    assert plain.split("\n")[-1] == (f"{burier} 正在扣底。" if lang == "zh" else f"{burier} is burying the kitty.")
    assert not card_labels(plain)


@pytest.mark.parametrize("lang", T.LANGS)
def test_open_burying_shows_trump(lang: str) -> None:
    table = T.burying("yangzhou")
    hand = T.hand_of(table)
    assert hand.trump_decided
    _raw, plain = group(table, lang)
    assert trump_is(hand.trump, lang) in plain.split("\n")


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yancheng", "yangzhou", "xin"])
def test_the_steal_round_names_the_seat_it_asks_at_once(preset: str, lang: str) -> None:
    """Whose steal it is shows at once in the group and in every waiting player's message, not after 15 s
    of thinking: at the real-time pace the round's line names whom it asks first and reads the same all round
    (a pass costs no edit of every message); at the relaxed pace it names the seat asked at every turn.  The
    seat asked is told in the second person, never by its own name (issue 55)."""
    table = T.stealing(preset)
    hand = T.hand_of(table)
    assert hand.turn is not None
    table.steal_first = hand.turn  # the round begins (turns.arm_deadline)
    asking = who(table, hand.turn, lang)
    round_line = (f"扣底完毕：从 {asking} 起，每人依次可以抄底或不抄。" if lang == "zh"
                  else f"Kitty buried: from {asking}, each player in turn may steal it or pass.")
    assert group(table, lang)[1].split("\n")[-1] == round_line
    for seat in range(4):
        if seat != hand.turn and not table.seats[seat].is_ai:  # type: ignore[union-attr]
            assert round_line in render_hand(translator(lang), table, seat, "G")[0].split("\n")
    asked = render_hand(translator(lang), table, hand.turn, "G")[0]
    assert ("扣底完毕，轮到你抄底或不抄。" if lang == "zh" else "Kitty buried. You may steal it or pass.") in asked
    assert who(table, hand.turn, lang) not in asked.split("\n", 1)[1]
    T.step(table)
    if hand.phase == "stealing":  # the next seat asked: the round's line reads the same
        assert group(table, lang)[1].split("\n")[-1] == round_line
    table = T.stealing(preset)
    table.settings = dataclasses.replace(table.settings, pace="relaxed")
    table.steal_first = T.hand_of(table).turn
    assert T.hand_of(table).turn is not None
    named = (f"扣底完毕，等待 {asking} 抄底或不抄。" if lang == "zh" else f"Kitty buried. {asking} may steal it or pass.")
    assert group(table, lang)[1].split("\n")[-1].startswith(named[:-1])


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_hidden_steal_is_announced_without_its_cards(lang: str) -> None:
    table, thief, cards = T.stolen("yancheng")
    _raw, plain = group(table, lang)
    who = f"{SEATS[lang][thief]} {name(table, thief)}"
    assert (f"{who} 抄底了。" if lang == "zh" else f"{who} stole the kitty.") in plain.split("\n")
    assert not card_labels(plain)
    assert NO_TRUMP[lang] not in plain


@pytest.mark.parametrize("lang", T.LANGS)
def test_an_open_steal_shows_its_cards_and_the_new_trump(lang: str) -> None:
    table, thief, cards = T.stolen("nantong")
    hand = T.hand_of(table)
    _raw, plain = group(table, lang)
    who = f"{SEATS[lang][thief]} {name(table, thief)}"
    label = cards_label(cards, lang)
    assert (f"{who} 用 {label} 抄底。" if lang == "zh" else f"{who} stole the kitty with {label}.") in plain
    assert trump_is(hand.trump, lang) in plain.split("\n")


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_flipped_kitty_is_public(lang: str) -> None:
    table = T.flipped("yangzhou")
    hand = T.hand_of(table)
    _raw, plain = group(table, lang)
    mark = "（定主）" if lang == "zh" else " (sets the trump)"
    flipped = " ".join((f"{SEATS[lang][s]} " if s is not None else "") + card_label(c, lang)
                       + (mark if i == hand.flip_decider else "") for i, (s, c) in enumerate(hand.flipped))
    trump = trump_is(hand.trump, lang, capital=False)
    assert (f"无人亮主，翻底：{flipped}；{trump}" if lang == "zh"
            else f"Nobody bid: the kitty turned up {flipped}; {trump}") in plain.split("\n")


# --- playing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_playing_shows_trump_dealer_points_trick_leader_and_last_trick(preset: str, lang: str) -> None:
    table = T.playing(preset)
    hand = T.hand_of(table)
    view = view_for(hand, None)
    _raw, plain = group(table, lang)
    text = plain.split("\n")
    trump = trump_is(hand.trump, lang)
    dealer = who(table, hand.dealer, lang)  # type: ignore[arg-type]
    p = view.attacker_points
    assert text[3] == (f"{trump} · 庄家 {dealer} · 抓分方 {p} 分" if lang == "zh"
                       else f"{trump} · dealer {dealer} · attackers {p} points")
    n = len(hand.tricks) + 1
    # The trick's leader, not its cards nor whose turn: the group's message changes once a trick.
    leader = who(table, hand.current[0][0], lang)
    assert text[4] == (f"第 {n} 轮：{leader} 首出" if lang == "zh" else f"Trick {n}: {leader} leads")
    last = hand.tricks[-1]
    won, pts = SEATS[lang][last.winner], last.points
    plays = play_line(last.plays, lang)
    if pts and last.winner % 2 != hand.dealer_side:
        assert text[5] == (f"上一轮：{plays} · {won}家赢，抓分方得 {pts} 分" if lang == "zh"
                           else f"Last trick: {plays} · {won} won: attackers +{pts}")
    else:  # a trick the dealer side wins scores nothing: no 「得 N 分」
        assert text[5] == (f"上一轮：{plays} · {won}家赢" if lang == "zh" else f"Last trick: {plays} · {won} won")
    assert len(text) == 6


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_group_message_reads_the_same_until_the_trick_is_won(lang: str) -> None:
    table = T.make_table("yancheng", 3)
    T.advance(table, lambda h: h.phase == "playing" and len(h.tricks) == 2 and not h.current)
    hand = T.hand_of(table)
    first, _ = group(table, lang)
    while len(hand.tricks) == 2:
        seat = hand.turn
        assert seat is not None
        hand.apply(T.ai_action(table, seat))
        if len(hand.tricks) == 2:
            assert group(table, lang)[0] == first
    assert group(table, lang)[0] != first


@pytest.mark.parametrize("lang", T.LANGS)
def test_points_count_trick_points_and_adjustments(lang: str) -> None:
    table = T.make_table("yancheng", 3)
    T.advance(table, lambda h: h.phase == "playing" and h.trick_points > 0 and len(h.current) == 1)
    hand = T.hand_of(table)
    _raw, plain = group(table, lang)
    p = hand.attacker_points
    assert p > 0
    assert (f"抓分方 {p} 分" if lang == "zh" else f"attackers {p} points") in plain


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_new_trick_shows_no_current_line(lang: str) -> None:
    table = T.make_table("nantong", 3)
    T.advance(table, lambda h: h.phase == "playing" and len(h.tricks) == 3 and not h.current)
    _raw, plain = group(table, lang)
    assert "第 4 轮：" in plain or "Trick 4: " in plain  # who leads it, no card yet
    assert "…" not in plain
    assert ("上一轮" if lang == "zh" else "Last trick") in plain


@pytest.mark.parametrize(("left", "zh", "en"), [
    (41.5, "（还剩 50 秒）", "(50 s left)"),
    (50, "（还剩 50 秒）", "(50 s left)"),
    (600, "（还剩 10 分钟）", "(10 min left)"),
    (3 * 3600 + 30, "（还剩 3 小时）", "(3 h left)"),
    (-5, "（还剩 0 秒）", "(0 s left)"),
    # Read a moment after a reminder's time or a pause's start (a timer wakes just after its time): the
    # reminder's 3 hours (daily) and 10 minutes (relaxed), the relaxed pause's hour, the daily pause's day.
    (3 * 3600 - 0.5, "（还剩 3 小时）", "(3 h left)"),
    (600 - 0.5, "（还剩 10 分钟）", "(10 min left)"),
    (3600 - 0.5, "（还剩 60 分钟）", "(60 min left)"),
    (86400 - 0.5, "（还剩 24 小时）", "(24 h left)"),
    (2 * 3600 - 0.5, "（还剩 2 小时）", "(2 h left)"),
])
def test_time_left_in_coarse_steps(left: float, zh: str, en: str) -> None:
    assert time_left(translator("zh"), left) == zh
    assert time_left(translator("en"), left) == en


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_countdown_does_not_change_the_text_every_few_seconds(lang: str) -> None:
    """Redrawing the mover's message within a step of ten seconds costs no edit (the text is the same)."""
    table = T.playing("yancheng")
    seat = T.hand_of(table).turn
    assert seat is not None
    now = 1_700_000_000.0
    table.deadline = now + 60
    tr = translator(lang)
    view = table.view(seat)
    shown = [phase_lines(tr, table, view, now + dt, live=True) for dt in (0.0, 3.0, 6.0, 9.0)]
    assert all(lines == shown[0] for lines in shown)
    assert any(line.endswith("（还剩 60 秒）" if lang == "zh" else "(60 s left)") for line in shown[0])


@pytest.mark.parametrize("lang", T.LANGS)
def test_flag_hand(lang: str) -> None:
    table = T.flag_hand("yangzhou")
    hand = T.hand_of(table)
    _raw, plain = group(table, lang)
    text = plain.split("\n")
    assert text[1].endswith("🚩 扛旗（无主）（庄家方）" if lang == "zh" else "🚩 flag hand (no trump) (dealer side)")
    assert "打 A" not in text[1] and "at A" not in text[1]
    assert "🚩" not in text[2]
    assert text[3].startswith("扛旗（无主） · " if lang == "zh" else "flag hand (no trump) · ")
    assert "主 无主" not in plain and "打 —" not in plain
    assert hand.setup.flag and hand.trump is None


# --- the whole hand, every moment ---------------------------------------------------------------

def sweep(table: Table) -> set[str]:
    """Render the group message after every action until the hand ends (and its result); returns the phases seen."""
    assert table.match is not None
    number = T.hand_of(table).setup.number
    phases: set[str] = set()
    for _ in range(400):
        hand = T.hand_of(table)
        if hand.setup.number != number or table.match.over:
            break
        phases.add(hand.phase)
        for lang in T.LANGS:
            group(table, lang)
        x = T.step(table).record
        if x is not None:
            for lang in T.LANGS:
                assert_telegram_html(render_result(translator(lang), table, x))
    else:
        raise AssertionError("the hand did not end")
    return phases


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("preset", T.PRESETS)
def test_no_hidden_card_in_the_group_at_any_moment(preset: str, seed: int) -> None:
    """A whole hand with the AI: the group text after every action."""
    phases = sweep(T.make_table(preset, seed))
    assert "bidding" in phases


@pytest.mark.parametrize(("preset", "hidden"), [("yancheng", None), ("anhui", None), ("xin", True), ("nantong", None)])
def test_no_hidden_card_after_bids_and_a_steal(preset: str, hidden: bool | None) -> None:
    """Two bids, then the AI; and a hand with a steal (hidden or open)."""
    table, _bid = T.bidding_with_bid(preset, hidden=hidden, second=True)
    assert {"bidding", "burying", "playing"} <= sweep(table)
    if RULESETS[preset].kitty_steal and hidden is None:
        table, _thief, _cards = T.stolen(preset)
        assert {"burying", "playing"} <= sweep(table)


def test_secret_labels_have_teeth() -> None:
    """The leak check compares against a real set of hidden cards."""
    table = T.playing("yancheng")
    hand = T.hand_of(table)
    secret = secret_labels(hand, "zh")
    assert len(secret) > 20
    shown = set(card_labels(render_table(translator("zh"), table)[0]))
    assert shown and not shown & secret


# --- results --------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_hand_result(preset: str, lang: str) -> None:
    table, record = T.finished(preset)
    result = record.result
    assert result is not None
    raw = render_result(translator(lang), table, record)
    text = lines(raw)
    assert raw.startswith("<b>" + (f"第 {record.number} 局结束" if lang == "zh" else f"Hand {record.number} is over") + "</b>")
    p, t = result.attacker_points, result.trick_points
    shown_p = _signed(p) if p < 0 else p
    if p == t:  # the tricks' points only: the total alone (decision 18)
        assert text[1].startswith(f"抓分方共得 {shown_p} 分" if lang == "zh" else f"Attackers scored {shown_p} points")
    else:  # the total with its parts
        assert text[1].startswith(f"抓分方出牌得 {t} 分，" if lang == "zh" else f"Attackers scored {t} from tricks, ")
        assert (f"合计 {shown_p} 分" if lang == "zh" else f": {shown_p} points in all") in text[1]
    shutout = p == 0 and t == 0 and result.kitty_bonus == 0 and result.heaven_and_earth_side is None
    assert ("大光" in text[1]) == shutout  # amended decision 18: only when nothing was captured
    if p <= 0 and not shutout and lang == "zh" and result.outcome is not None and result.outcome.levels <= 10:
        assert f"（按 {shown_p} 分算，庄家方升 {result.outcome.levels} 级）" in text[1]
    kitty = cards_label(result.kitty, lang)
    assert Counter(card_labels(text[2])) == labels(result.kitty, lang)
    if result.kitty_multiplier:
        m, bonus = result.kitty_multiplier, result.kitty_bonus
        assert text[2] == (f"底牌 {kitty}：抠底 ×{m} = {bonus} 分。" if lang == "zh"
                           else f"Kitty {kitty}: 抠底 (kitty capture) ×{m} = {bonus} points.")
    else:
        assert text[2] == (f"底牌 {kitty}：庄家方保底。" if lang == "zh" else f"Kitty {kitty}: kept by the dealer side.")
    scores = "  ".join(f"{SEATS[lang][s]} {_signed(result.scores[s] + record.bonus[s])}" for s in range(4))
    assert any(line.startswith(f"积分：{scores}" if lang == "zh" else f"积分: {scores}") for line in text)
    after = text[-1]
    for side in (0, 1):
        rank = record.after[side].rank
        label = {11: "J", 12: "Q", 13: "K", 14: "A"}.get(rank, str(rank))
        pair = {"zh": ("南北", "东西"), "en": ("N–S", "E–W")}[lang][side]
        assert f"{pair} " + (f"打 {label}" if lang == "zh" else f"at {label}") in after
    outcome = result.outcome
    assert outcome is not None and result.dealer_side is not None
    pair = {"zh": ("南北", "东西"), "en": ("N–S", "E–W")}[lang]
    if outcome.dealer_keeps:
        deal = f"{pair[result.dealer_side]}保庄" if lang == "zh" else f"{pair[result.dealer_side]} keep the deal (保庄)"
    else:
        side = 1 - result.dealer_side
        deal = f"{pair[side]}上台" if lang == "zh" else f"{pair[side]} take the deal (上台)"
    assert any(line.startswith(deal) for line in text)  # 「东西上台（85 分，换庄不升级）」 for 80–85
    for move in record.moves:  # a plain rise says the table's number, and the levels it went between
        if move.reason is None and move.table:
            n = move.table
            assert any(line.startswith(f"{pair[move.side]}升 {n} 级：" if lang == "zh"
                                       else f"{pair[move.side]} rise {levels(n)}: ") for line in text)
    assert "Eve" not in raw or EVE_RAW in raw


def levels(n: int) -> str:
    return "1 level" if n == 1 else f"{n} levels"


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


@pytest.mark.parametrize("lang", T.LANGS)
def test_redeal_result(lang: str) -> None:
    table, record = T.redeal("yancheng")
    raw = render_result(translator(lang), table, record)
    assert lines(raw) == (["第 1 局结束", "无人亮主，重新发牌，级数不变。"] if lang == "zh"
                          else ["Hand 1 is over", "Nobody bid: the cards are dealt again; no level moves."])


@pytest.mark.parametrize("lang", T.LANGS)
def test_escape_result(lang: str) -> None:
    table, record = T.escaped("yancheng")
    assert record.result is not None
    points = _signed(record.result.scores[3])
    raw = render_result(translator(lang), table, record)
    assert lines(raw)[1] == (f"Dave 逃跑：{points} 积分。" if lang == "zh"
                             else f"Dave left the table (escape): {points} 积分.")
    assert not card_labels(assert_telegram_html(raw))


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["nantong", "yancheng", "anhui", "xin"])
def test_match_over(preset: str, lang: str) -> None:
    table, record = T.match_over(preset)
    match = table.match
    assert match is not None and match.winner_side is not None
    side = match.winner_side
    raw = render_match_over(translator(lang), table)
    text = lines(raw)
    names = f"{name(table, side)} & {name(table, side + 2)}"
    assert text[0] == (f"🏆 {names} 赢得比赛！" if lang == "zh" else f"🏆 {names} win the match!")
    scores = "  ".join(f"{SEATS[lang][s]} {_signed(match.scores[s])}" for s in range(4))
    assert text[1] == (f"总积分：{scores}" if lang == "zh" else f"Total 积分: {scores}")
    if side == 0:
        assert EVE_RAW in raw
    # The table message still renders once the match is over, and now it may show nothing hidden either.
    group(table, lang)
    # The last hand's result (the kitty is public now).
    result_raw = render_result(translator(lang), table, record)
    assert_telegram_html(result_raw)


# --- the lobby and the settings panel ----------------------------------------------------------

def lobby_table(**settings: object) -> Table:
    table = Table(id=T.TABLE_ID, chat_id=-100, creator_id=1, lang="zh", title=T.GROUP_TITLE,
                  settings=TableSettings(**settings))  # type: ignore[arg-type]
    table.seats = [Seat(1, T.NAMES[0]), None, Seat(None, "AI", is_ai=True), None]
    table.pending = {77: (3, "Mallory <script> & 'x'")}
    return table


@pytest.mark.parametrize("lang", T.LANGS)
def test_lobby(lang: str) -> None:
    table = lobby_table()
    raw, markup = render_lobby(translator(lang), table, "https://t.me/chaodipi_bot?start=t7__0123456789ab")
    plain = assert_telegram_html(raw)
    decoded = assert_keyboard_limits(markup, table.id)
    assert EVE_RAW in raw and "Mallory &lt;script&gt; &amp; 'x'" in raw
    text = plain.split("\n")
    n, e, s, w = SEATS[lang]
    empty = "（空位）" if lang == "zh" else "(empty)"
    assert text[2:6] == [f"{n}  {EVE}", f"{e}  {empty}", f"{s}  {AI}", f"{w}  {empty}"]
    sits = [c.arg for c in decoded if c.op == "sit"]
    assert sits == ["1", "3"]
    assert {c.op for c in decoded} == {"sit", "leave", "ai", "rmai", "set", "start"}
    urls = [b.url for b in buttons(markup) if b.url]
    assert urls == ["https://t.me/chaodipi_bot?start=t7__0123456789ab"]


@pytest.mark.parametrize("lang", T.LANGS)
def test_lobby_without_pending_has_no_link(lang: str) -> None:
    table = lobby_table()
    table.pending = {}
    raw, markup = render_lobby(translator(lang), table, "https://t.me/chaodipi_bot?start=t7__0123456789ab")
    assert_telegram_html(raw)
    assert not [b for b in buttons(markup) if b.url]
    assert "⚠️" not in raw


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_settings_panel(preset: str, lang: str) -> None:
    table = lobby_table(preset=preset, pace="daily", on_timeout="escape")
    raw, markup = render_settings(translator(lang), table)
    assert_telegram_html(raw)
    decoded = assert_keyboard_limits(markup, table.id)
    ticked = [b for b in buttons(markup) if b.text.startswith("✓ ")]
    presets = [callbacks.decode(b.callback_data) for b in ticked]  # type: ignore[arg-type]
    by_op = {c.op: c.arg for c in presets if c is not None}
    assert by_op["preset"] == preset
    assert by_op["pace"] == "daily" and by_op["timeout"] == "escape" and by_op["returns"] == "next"
    assert sorted(c.arg for c in decoded if c.op == "preset") == sorted(T.PRESETS)
    has_hidden_choice = any(c.op == "hidden" for c in decoded)
    assert has_hidden_choice == (preset not in ("yancheng", "nantong", "anhui"))
    if has_hidden_choice:
        assert by_op["hidden"] == ("1" if RULESETS[preset].hidden_bidding else "0")


def test_card_labels_are_short() -> None:
    """The labels the UX asks for: ♠A ♥10 大王/BJ 小王/SJ."""
    assert card_label(Card.parse("AS"), "zh") == "♠A"
    assert card_label(Card.parse("10H"), "en") == "♥10"
    assert [card_label(Card.parse(j), lang) for j in ("BJ", "SJ") for lang in ("zh", "en")] == ["大王", "BJ", "小王", "SJ"]


@pytest.mark.parametrize("lang", T.LANGS)
def test_longest_names_still_fit(lang: str) -> None:
    """Telegram names are at most 64 characters; full of characters to escape, every text stays valid."""
    table, record = T.finished("yancheng")
    longest = "&<>" * 21 + "x"
    for seat in (0, 2, 3):
        table.seats[seat].name = longest  # type: ignore[union-attr]
    table.seats[0].timed_out = True  # type: ignore[union-attr]
    plain = assert_telegram_html(render_table(translator(lang), table)[0])
    assert longest + " 🤖" in plain  # the AI plays for a person who timed out
    assert_telegram_html(render_result(translator(lang), table, record))
    T.advance(table, lambda h: h.phase == "playing" and len(h.current) == 3)
    assert_telegram_html(render_table(translator(lang), table)[0])


@pytest.mark.parametrize("preset", T.PRESETS)
def test_every_result_of_a_whole_match(preset: str) -> None:
    """A whole match with the AI: every hand's announcement (flag hands, J到底, 安徽's bonus …) and the end."""
    table = T.make_table(preset, 1)
    match = table.match
    assert match is not None
    for _ in range(20000):
        if match.over:
            break
        x = T.step(table).record
        if x is None:
            continue
        for lang in T.LANGS:
            plain = assert_telegram_html(render_result(translator(lang), table, x))
            if x.result is None:
                continue
            shown = card_labels(plain)
            assert shown == labels(x.result.kitty, lang)  # the kitty, and no other card
            if x.result.demoted_to is not None:
                jack = x.moves[x.result.dealer_side or 0].before.rank == 11
                assert ("J到底" if jack and preset == "nantong" else "抠底") in plain  # 池州: 「J 抠底」
            if x.setup.flag:
                assert not x.result.kitty
    assert match.over
    for lang in T.LANGS:
        assert_telegram_html(render_match_over(translator(lang), table))


# --- in sight (issue 55): the clocks of the timed windows, whose turn at once -------------------------------
CLOCK = {"zh": ("⏳ 亮主还剩 {}。", "⏳ 抄底还剩 {}。"), "en": ("⏳ Bidding closes in {}.", "⏳ Steal turn closes in {}.")}
SECONDS = {"zh": "{} 秒", "en": "{} s"}


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_bidding_shows_its_clock_in_the_group_and_in_every_bidders_message(lang: str) -> None:
    table = T.bidding_fresh("yancheng")
    table.deadline = 1000.0 + 45
    table.read_clock(1000.0)
    line = CLOCK[lang][0].format(SECONDS[lang].format(45))
    assert line in group(table, lang)[1].split("\n")
    for seat in range(4):
        if not table.seats[seat].is_ai:  # type: ignore[union-attr]
            assert line in render_hand(translator(lang), table, seat, "G")[0].split("\n")


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_clock_reads_the_same_between_two_readings(lang: str) -> None:
    """A redraw between two readings of the clock costs no edit: the figure is the last reading, not now's."""
    table = T.bidding_fresh("yancheng")
    table.deadline = time.time() + 45
    table.read_clock(time.time())
    before = group(table, lang)[1]
    table.deadline += 0.0  # nothing read again: the same text, whatever the time
    assert render_table(translator(lang), table, now=time.time() + 20)[0] == render_table(translator(lang), table)[0]
    table.read_clock(table.deadline - 20)  # the last stretch: one reading, one edit
    after = group(table, lang)[1]
    assert after != before and CLOCK[lang][0].format(SECONDS[lang].format(20)) in after.split("\n")


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_steal_turn_shows_its_clock(lang: str) -> None:
    table = T.stealing("yancheng")
    table.deadline = 1000.0 + 60
    table.read_clock(1000.0)
    hand = T.hand_of(table)
    assert hand.turn is not None
    line = CLOCK[lang][1].format(SECONDS[lang].format(60))
    assert line in group(table, lang)[1].split("\n")
    assert line in render_hand(translator(lang), table, hand.turn, "G")[0].split("\n")


def test_no_clock_without_a_deadline() -> None:
    table = T.bidding_fresh("yancheng")
    assert "⏳" not in group(table, "en")[1]


@pytest.mark.parametrize("pace", ["relaxed", "daily"])
def test_at_the_slow_paces_everyone_sees_whose_turn_it_is_at_every_turn(pace: str) -> None:
    table = T.playing("yancheng", tricks=2)
    table.settings = dataclasses.replace(table.settings, pace=pace)  # type: ignore[arg-type]
    T.step(table)
    hand = T.hand_of(table)
    assert hand.turn is not None and hand.current
    to_play = f"{who(table, hand.turn, 'en')} to play"
    assert any(line.startswith(to_play) for line in group(table, "en")[1].split("\n"))
    for seat in range(4):
        if seat != hand.turn and not table.seats[seat].is_ai:  # type: ignore[union-attr]
            text = render_hand(translator("en"), table, seat, "G")[0]
            assert any(line.startswith(to_play) for line in text.split("\n")), text


def test_a_late_bid_or_steal_is_told_its_window_closed() -> None:
    table = T.bidding_fresh("yancheng")
    old = table.version(0)
    assert table.window_closed(0, old, "bid") is None  # still open: not closed
    T.advance(table, lambda h: h.phase != "bidding")
    assert table.window_closed(0, old, "bid") == "bidding"
    assert table.window_closed(0, old, "pass") == "bidding"
    assert table.window_closed(0, old, "play") is None
    table = T.stealing("yancheng")
    hand = T.hand_of(table)
    assert hand.turn is not None
    seat, old = hand.turn, table.version(hand.turn)
    assert table.window_closed(seat, old, "steal") is None
    T.step(table)  # the seat asked answered (or the AI for it): its steal turn is over
    assert table.window_closed(seat, old, "pass_steal") == "stealing"


@pytest.mark.parametrize(("left", "zh", "en"), [
    (45, "45 秒", "45 s"),
    # A window's clock read a moment after the window began: the relaxed bidding's hour, the daily one's day.
    (3600 - 0.01, "60 分钟", "60 min"),
    (86400 - 0.01, "24 小时", "24 h"),
    (600 - 0.5, "10 分钟", "10 min"),
])
def test_a_clock_read_at_its_windows_start_says_the_time_the_pace_gives(left: float, zh: str, en: str) -> None:
    assert clock_span(translator("zh"), left) == zh
    assert clock_span(translator("en"), left) == en
