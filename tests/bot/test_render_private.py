"""A player's private hand message: text and keyboard, in each moment of a hand and each language.

The keyboard shows exactly the seat's cards (trumps first, then each suit,
high to low, at most six a row), marks the selection, and ends with the
actions that fit the moment for that seat.  The text shows what this seat
may know and nothing of any other seat's cards.
"""

from __future__ import annotations

from collections import Counter

import pytest
from telegram import InlineKeyboardMarkup

from bot import callbacks
from bot.callbacks import parse_tap
from bot.i18n import Translator, translator
from bot.labels import card_label, cards_label
from bot.model import Table
from bot.render_private import one_tap_plays, peek_text, render_hand
from engine.cards import Card
from engine.hand import Action, Hand
from engine.trump import TRUMP, trump_context
from engine.views import view_for
from tests.bot import builders as T
from tests.bot.checks import (
    CARD_ROW,
    SUIT,
    assert_keyboard_limits,
    assert_telegram_html,
    buttons,
    card_labels,
    decode_button,
    labels,
    without_cards,
)

SEATS = {"zh": ("北", "东", "南", "西"), "en": ("N", "E", "S", "W")}
TITLE = {"zh": "炒地皮", "en": "Chao Di Pi"}
NO_TRUMP = {"zh": "无主", "en": "no-trump"}
SYM = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
GROUP_RAW = "Friends &amp; &lt;family&gt;"
YOUR_TURN = {"zh": "👉 轮到你了", "en": "👉 Your turn"}
YOUR_KITTY = {"zh": "你的底牌：", "en": "Your kitty: "}
STOLEN_KITTY = {"zh": "你扣的底牌被", "en": "The kitty you buried, stolen by "}
SELECTED = {"zh": "已选：", "en": "Selected: "}
GROUP_ORDER = ("T", "S", "H", "C", "D")


def tr_(lang: str) -> Translator:
    return translator(lang)


def trump_sym(trump: str | None, lang: str) -> str:
    return SYM[trump] if trump is not None else NO_TRUMP[lang]


# --- the checks every private message must pass -----------------------------------------------------

def private(table: Table, seat: int, lang: str) -> tuple[str, str, InlineKeyboardMarkup, list[callbacks.Callback]]:
    """Render a seat's hand message and check the invariants; returns (raw, plain, markup, decoded buttons)."""
    raw, markup = render_hand(tr_(lang), table, seat, T.GROUP_TITLE)
    plain = assert_telegram_html(raw)
    number = T.hand_of(table).setup.number
    you = f"你坐{SEATS['zh'][seat]}" if lang == "zh" else f"you sit {SEATS['en'][seat]}"
    hand_n = f"第 {number} 局" if lang == "zh" else f"hand {number}"
    assert raw.split("\n")[0] == f"<b>{TITLE[lang]} · {GROUP_RAW}</b> · {hand_n} · {you}"
    decoded = assert_keyboard_limits(markup, table.id)
    assert all(c.kind == "H" and c.version == (table.hand_version(seat) if c.op == "sel" else table.version(seat))
               for c in decoded)
    check_card_buttons(table, seat, lang, markup)
    check_no_leak(table, seat, lang, plain, markup)
    check_kitty_line(table, seat, lang, plain)
    check_your_turn(table, seat, lang, plain)
    return raw, plain, markup, decoded


def card_rows(markup: InlineKeyboardMarkup) -> list[list[tuple[str, Card, int]]]:
    """The rows of card buttons as (label without ✓, card, copy)."""
    rows = []
    for row in markup.inline_keyboard:
        decoded = [decode_button(b) for b in row]
        kinds = {c.op == "sel" for c in decoded}
        assert len(kinds) == 1, "a row mixes cards and actions"
        if kinds == {True}:
            rows.append([(b.text.removeprefix("✓").removeprefix("+"), Card.parse(c.arg[:-1]), int(c.arg[-1]))
                         for b, c in zip(row, decoded)])
    return rows


def check_card_buttons(table: Table, seat: int, lang: str, markup: InlineKeyboardMarkup) -> None:
    hand = T.hand_of(table)
    view = view_for(hand, seat)
    rows = card_rows(markup)
    flat = [x for row in rows for x in row]
    # Exactly the seat's cards, each copy once, each label the card's own.
    assert len(flat) == len(hand.hands[seat]) == len(view.hand)
    assert Counter(label for label, _c, _n in flat) == labels(view.hand, lang)
    assert all(label == card_label(card, lang) for label, card, _n in flat)
    copies = Counter((card, n) for _l, card, n in flat)
    held = Counter(view.hand)
    assert set(copies) == {(card, n) for card, count in held.items() for n in range(count)}
    # Six a row, one suit-group a row, trumps first, then ♠ ♥ ♣ ♦, each high to low.
    trump = view.trump if view.trump_known else view.my_bid_trump
    ctx = trump_context(hand.ruleset, view.level, trump if view.level is not None else None)
    assert all(len(row) <= CARD_ROW for row in rows)
    for row in rows:
        assert len({ctx.group(card) for _l, card, _n in row}) == 1
    groups = [ctx.group(card) for _l, card, _n in flat]
    order = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
    assert len(order) == len(set(order)), f"a suit-group split: {order}"
    assert order == sorted(order, key=GROUP_ORDER.index)
    for (_la, first, _na), (_lb, second, _nb) in zip(flat, flat[1:]):
        if ctx.group(first) == ctx.group(second):
            assert ctx.order(first) >= ctx.order(second)
    # The selection is marked, the first copies first.
    selected = table.selected(seat)
    marked: Counter[Card] = Counter()
    for button in buttons(markup):
        c = decode_button(button)
        if c.op == "sel":
            card, n = Card.parse(c.arg[:-1]), int(c.arg[-1])
            assert button.text.startswith("✓") == (n < selected[card])
            marked[card] += button.text.startswith("✓")
    assert marked == +selected
    # While burying, the burier's cards that came from the kitty are marked + (and nothing else is).
    from_kitty = Counter(Card.parse(decode_button(b).arg[:-1]) for b in buttons(markup)
                         if decode_button(b).op == "sel" and b.text.removeprefix("✓").startswith("+"))
    assert from_kitty == Counter(view.picked_up)


def secret_labels(hand: Hand, seat: int, lang: str) -> set[str]:
    """Labels of cards this seat must not see now."""
    visible = set(labels(view_for(hand, seat).visible_cards(), lang))
    hidden = [c for s in range(4) if s != seat for c in hand.hands[s]]
    if not hand.over and not (hand.buried and hand.burier == seat):
        hidden += hand.kitty
    if hand.ruleset.hidden_bidding and not hand.trump_decided:
        hidden += [c for b in hand.bids if b.seat != seat for c in b.cards]
    return set(labels(hidden, lang)) - visible


def check_no_leak(table: Table, seat: int, lang: str, plain: str, markup: InlineKeyboardMarkup) -> None:
    hand = T.hand_of(table)
    view = view_for(hand, seat)
    visible = set(labels(view.visible_cards(), lang))
    shown = set(card_labels(plain)) | {x for b in buttons(markup) for x in card_labels(b.text)}
    assert shown <= visible, f"seat {seat} is shown {shown - visible}:\n{plain}"
    assert not shown & secret_labels(hand, seat, lang)
    if hand.ruleset.hidden_bidding and not hand.trump_decided:
        own = [b for b in hand.bids if b.seat == seat]
        allowed = {SYM[b.trump] for b in own if b.trump is not None}
        rest = without_cards(plain)
        assert set(SUIT.findall(rest)) <= allowed, f"seat {seat} sees a trump it may not know:\n{plain}"
        if not any(b.trump is None for b in own):
            assert NO_TRUMP[lang] not in rest
        assert ("主未定" if lang == "zh" else "trump not known yet") in plain


def check_kitty_line(table: Table, seat: int, lang: str, plain: str) -> None:
    hand = T.hand_of(table)
    kitty_lines = [line for line in plain.split("\n") if line.startswith(YOUR_KITTY[lang])]
    if hand.buried and hand.burier == seat and hand.phase in ("stealing", "playing"):
        assert kitty_lines == [YOUR_KITTY[lang] + cards_label(hand.kitty, lang)]
    else:
        assert not kitty_lines
    # A seat whose kitty was stolen is reminded of its 8 cards and who took the kitty since.
    stolen_lines = [line for line in plain.split("\n") if line.startswith(STOLEN_KITTY[lang])]
    mine = [i for i, (burier, _cards) in enumerate(hand.buries) if burier == seat]
    if mine and hand.burier != seat and not hand.over:
        takers = [SEATS[lang][s] for s, _cards in hand.buries[mine[-1] + 1:]]
        if hand.burier not in [s for s, _cards in hand.buries[mine[-1] + 1:]]:
            takers.append(SEATS[lang][hand.burier])
        assert len(stolen_lines) == 1
        line = stolen_lines[0]
        assert line.endswith(cards_label(hand.buries[mine[-1]][1], lang))
        assert all(f"{label} " in line for label in takers)
    else:
        assert not stolen_lines


def check_your_turn(table: Table, seat: int, lang: str, plain: str) -> None:
    hand = T.hand_of(table)
    mine = hand.phase in ("burying", "stealing", "playing") and hand.turn == seat
    assert (YOUR_TURN[lang] in plain) == mine


def actions(decoded: list[callbacks.Callback]) -> list[str]:
    return [c.op for c in decoded if c.op != "sel"]


def action_texts(markup: InlineKeyboardMarkup) -> list[str]:
    return [b.text for b in buttons(markup) if decode_button(b).op != "sel"]


# --- bidding ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_bidding_keyboard_for_every_seat(preset: str, lang: str) -> None:
    table = T.bidding_fresh(preset)
    for seat in range(4):
        _raw, plain, markup, decoded = private(table, seat, lang)
        assert plain.split("\n")[1] == ("打 2 · 主未定" if lang == "zh" else "level 2 · trump not known yet")
        assert len(card_rows(markup)) >= 4
        taps = tap_sets(table, seat, steal=False)
        assert actions(decoded) == ["tap"] * len(taps) + ["bid", "pass", "clear"]
        assert offered_taps(decoded) == [("bid", cards) for cards in taps]
        assert action_texts(markup) == tap_texts("bid", taps, lang) + (
            ["亮主（先选牌）", "不亮", "清除"] if lang == "zh" else ["Bid (select cards)", "Pass", "Clear"])


def tap_sets(table: Table, seat: int, *, steal: bool) -> list[tuple[Card, ...]]:
    """The card sets (at most four) of every bid or steal the engine takes from the seat now: the pairs, then the
    single cards, each in the hand's order."""
    hand = T.hand_of(table)
    kind = "steal" if steal else "bid"
    out: list[tuple[Card, ...]] = []
    for card, n in Counter(hand.hands[seat]).items():
        for cards in [(card,), (card, card)][:n]:
            trumps = [None, "S", "H", "D", "C"]
            if cards not in out and any(hand.can(Action(kind, seat, cards, t)) for t in trumps):
                out.append(cards)
    return ([cards for cards in out if len(cards) == 2] + [cards for cards in out if len(cards) == 1])[:4]


def offered_taps(decoded: list[callbacks.Callback]) -> list[tuple[str, tuple[Card, ...]] | None]:
    """The move and cards of each ▶ bid or steal button, in the keyboard's order."""
    return [parse_tap(c.arg) for c in decoded if c.op == "tap"]


def tap_texts(act: str, taps: list[tuple[Card, ...]], lang: str) -> list[str]:
    """What the ▶ buttons of these card sets read (``act`` "bid" or "steal")."""
    verb = {"bid": {"zh": "亮主", "en": "Bid"}, "steal": {"zh": "抄底", "en": "Steal"}}[act][lang]
    return [f"▶ {verb} {cards_label(cards, lang)}" for cards in taps]


def test_a_bidding_seat_is_offered_each_bid_it_may_make_as_one_tap_and_a_seat_with_none_no_tap() -> None:
    seen = Counter[int]()
    for seed in range(12):
        table = T.bidding_fresh("yancheng", seed)
        for seat in range(4):
            _raw, _plain, _markup, decoded = private(table, seat, "en")
            taps = offered_taps(decoded)
            assert taps == [("bid", cards) for cards in tap_sets(table, seat, steal=False)]
            seen[min(len(taps), 2)] += 1
            seen[-1] += {len(cards) for _act, cards in taps} == {1, 2}  # pairs offered before singles
    assert seen[0] and seen[1] and seen[2] and seen[-1], seen  # seats with no bid, one, several, both kinds


@pytest.mark.parametrize("lang", T.LANGS)
def test_no_tap_while_cards_are_selected(lang: str) -> None:
    table = T.bidding_fresh("yancheng", 14)
    hand = T.hand_of(table)
    seat = next(s for s in range(4) if tap_sets(table, s, steal=False))
    table.presses.replace(seat, [hand.hands[seat][0]])
    _raw, _plain, _markup, decoded = private(table, seat, lang)
    assert actions(decoded) == ["bid", "pass", "clear"]


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_selected_bid_is_named_on_its_button(lang: str) -> None:
    table, _bid = T.bidding_with_bid("yangzhou")
    hand = T.hand_of(table)
    pair = T.level_bids(hand, 2, pair=True)[0]
    table.presses.replace(2, pair)
    _raw, plain, markup, decoded = private(table, 2, lang)
    label = cards_label(pair, lang)
    assert action_texts(markup)[:2] == ([f"亮主 {label}", "不亮"] if lang == "zh" else [f"Bid {label}", "Pass"])
    assert SELECTED[lang] + label in plain.split("\n")
    assert sum(b.text.startswith("✓") for b in buttons(markup)) == 2


@pytest.mark.parametrize("lang", T.LANGS)
def test_selecting_one_copy_of_a_pair_marks_one_button(lang: str) -> None:
    table = T.bidding_fresh("yancheng", 14)
    hand = T.hand_of(table)
    card = next(c for c, n in Counter(hand.hands[0]).items() if n == 2)
    table.presses.replace(0, [card])
    _raw, _plain, markup, _decoded = private(table, 0, lang)
    marked = [b for b in buttons(markup) if b.text.startswith("✓")]
    assert [b.text for b in marked] == ["✓" + card_label(card, lang)]
    assert decode_button(marked[0]).arg == f"{card}0"


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize(("preset", "card", "choices"), [
    ("yancheng", "5H", ["S", "H", "D", "C", "NT"]),
    ("yangzhou", "5H", ["S", "H", "D", "C", "NT"]),
    ("nantong", "5H", ["S", "H", "D", "C", "NT"]),
    ("xin", "BJ", ["S", "H", "D", "C"]),
    ("chizhou", "BJ", ["S", "H", "D", "C"]),
])
def test_a_pair_that_names_its_trump_offers_the_choices(preset: str, card: str, choices: list[str], lang: str) -> None:
    table, seat = T.pair_selected(preset, card)
    _raw, _plain, markup, decoded = private(table, seat, lang)
    pair = cards_label([Card.parse(card)] * 2, lang)
    verb = "亮主" if lang == "zh" else "Bid"
    trump_buttons = [(b.text, decode_button(b)) for b in buttons(markup) if decode_button(b).op == "trump"]
    assert [c.arg for _t, c in trump_buttons] == [f"bid-{x}" for x in choices]
    assert [t for t, _c in trump_buttons] == [
        f"{verb} {pair} → {SYM[x] if x != 'NT' else NO_TRUMP[lang]}" for x in choices]
    assert actions(decoded)[-2:] == ["pass", "clear"]
    # Each choice is an action the engine takes.
    hand = T.hand_of(table)
    for x in choices:
        assert hand.can(Action("bid", seat, (Card.parse(card),) * 2, None if x == "NT" else x))


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize(("preset", "card"), [("yancheng", "BJ"), ("xin", "SJ"), ("anhui", "BJ")])
def test_a_pair_without_a_choice_bids_directly(preset: str, card: str, lang: str) -> None:
    table, seat = T.pair_selected(preset, card)
    _raw, _plain, markup, decoded = private(table, seat, lang)
    assert actions(decoded) == ["bid", "pass", "clear"]
    pair = cards_label([Card.parse(card)] * 2, lang)
    assert action_texts(markup)[0] == (f"亮主 {pair}" if lang == "zh" else f"Bid {pair}")


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize(("preset", "hidden"), [("yancheng", None), ("anhui", None), ("xin", True), ("yangzhou", True)])
def test_hidden_bids_are_seen_by_their_bidder_only(preset: str, hidden: bool | None, lang: str) -> None:
    table, bid = T.bidding_with_bid(preset, hidden=hidden, second=True)
    hand = T.hand_of(table)
    assert len(hand.bids) == 2
    for seat in range(4):
        _raw, plain, markup, _decoded = private(table, seat, lang)
        text = plain.split("\n")
        for b in hand.bids:
            who = f"{SEATS[lang][b.seat]} {'<b>Eve & co</b>' if b.seat == 0 else T.NAMES[b.seat]}"
            if b.seat == seat:
                cards = cards_label(b.cards, lang)
                t = trump_sym(b.trump, lang)
                assert (f"{who} 亮 {cards} → 主 {t}。" if lang == "zh" else f"{who} bid {cards} → trump {t}.") in text
                if table.settings.hidden_bidding:  # what they bid, and that their keyboard sorts by it
                    assert text[2] == (f"你亮的主：{cards} → 主 {t}（手牌按此排列）" if lang == "zh"
                                       else f"Your bid: {cards} → trump {t} (your cards are sorted by it)")
                else:
                    assert text[2] == (f"你亮的主：{cards}" if lang == "zh" else f"Your bid: {cards}")
            else:
                assert (f"{who} 亮主了。" if lang == "zh" else f"{who} made a bid.") in text
        if seat in (1, 3):
            assert not card_labels(plain), plain
            assert not SUIT.search(plain)


@pytest.mark.parametrize("lang", T.LANGS)
def test_the_bidder_sorts_by_the_trump_of_their_own_hidden_bid(lang: str) -> None:
    table, bid = T.bidding_with_bid("yancheng")
    suit = bid[0].suit
    hand = T.hand_of(table)
    _raw, _plain, markup, _decoded = private(table, 0, lang)
    flat = [c for row in card_rows(markup) for _l, c, _n in row]
    # Every card of the bid's suit sits among the trumps, before any plain suit.
    ctx = trump_context(hand.ruleset, 2, suit)
    n_trumps = sum(ctx.is_trump(c) for c in flat)
    assert all(ctx.is_trump(c) for c in flat[:n_trumps])
    of_suit = [c for c in hand.hands[0] if c.suit == suit]
    assert of_suit and all(c in flat[:n_trumps] for c in of_suit)
    # Seat 2, who has not bid, sorts with no trump suit: the bid's suit is a plain suit there.
    _raw, _plain, markup, _decoded = private(table, 2, lang)
    flat = [c for row in card_rows(markup) for _l, c, _n in row]
    plain_ctx = trump_context(hand.ruleset, 2, None)
    n_trumps = sum(plain_ctx.is_trump(c) for c in flat)
    assert all(plain_ctx.is_trump(c) for c in flat[:n_trumps])


@pytest.mark.parametrize("lang", T.LANGS)
def test_open_bids_are_seen_by_everyone(lang: str) -> None:
    table, _bid = T.bidding_with_bid("nantong", second=True)
    hand = T.hand_of(table)
    for seat in range(4):
        _raw, plain, _markup, _decoded = private(table, seat, lang)
        for b in hand.bids:
            assert cards_label(b.cards, lang) in plain


# --- burying and stealing ---------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_burying_keyboard(preset: str, lang: str) -> None:
    table = T.burying(preset)
    hand = T.hand_of(table)
    burier = hand.burier
    assert burier is not None
    for seat in range(4):
        _raw, _plain, markup, decoded = private(table, seat, lang)
        if seat == burier:
            assert len(hand.hands[seat]) == 33
            kitty = cards_label(hand.hands[seat][-8:], lang)  # the kitty, just taken into the hand
            assert ("底牌拿上来的 8 张（按钮上标 +）：" if lang == "zh" else "From the kitty (marked +): ") + kitty \
                in _plain.split("\n")
            assert sum(b.text.startswith("+") for b in buttons(markup)) == 8
            assert actions(decoded) == ["bury", "clear", "hint"]
            assert action_texts(markup) == (["扣底（0/8）", "清除", "提示"] if lang == "zh" else ["Bury (0/8)", "Clear", "Hint"])
        else:
            assert actions(decoded) == []
    # Select eight: the button counts them.
    table.presses.replace(burier, hand.hands[burier][:8])
    _raw, plain, markup, _decoded = private(table, burier, lang)
    assert action_texts(markup)[0] == ("扣底（8/8）" if lang == "zh" else "Bury (8/8)")
    assert sum(b.text.startswith("✓") for b in buttons(markup)) == 8


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yancheng", "yangzhou", "xin", "anhui"])
def test_stealing_keyboard_and_the_buriers_kitty(preset: str, lang: str) -> None:
    table = T.stealing(preset)
    hand = T.hand_of(table)
    for seat in range(4):
        _raw, plain, markup, decoded = private(table, seat, lang)
        if seat == hand.turn:
            taps = tap_sets(table, seat, steal=True)
            assert actions(decoded) == ["tap"] * len(taps) + ["steal", "nosteal", "clear"]
            assert offered_taps(decoded) == [("steal", cards) for cards in taps]
            assert action_texts(markup) == tap_texts("steal", taps, lang) + (
                ["抄底（先选牌）", "不抄", "清除"] if lang == "zh" else ["Steal (select cards)", "Don't steal", "Clear"])
        else:
            assert actions(decoded) == []
        assert (YOUR_KITTY[lang] in plain) == (seat == hand.burier)
        assert STOLEN_KITTY[lang] not in plain  # nobody has stolen yet


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yancheng", "anhui"])
def test_a_seat_that_may_steal_is_offered_each_steal_as_one_tap(preset: str, lang: str) -> None:
    table, thief = T.steal_turn(preset)
    _raw, _plain, markup, decoded = private(table, thief, lang)
    taps = tap_sets(table, thief, steal=True)
    assert taps and all(len(cards) == 2 for cards in taps)
    assert offered_taps(decoded) == [("steal", cards) for cards in taps]
    assert action_texts(markup)[:len(taps)] == tap_texts("steal", taps, lang)


@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", ["yancheng", "nantong"])
def test_a_seat_whose_kitty_was_stolen_sees_its_cards_and_the_stealer(preset: str, lang: str) -> None:
    table, thief, _cards = T.stolen(preset)
    hand = T.hand_of(table)
    buried = hand.buries[0][1]
    for seat in range(4):
        _raw, plain, _markup, _decoded = private(table, seat, lang)  # the generic check reads the line
        lines = [line for line in plain.split("\n") if line.startswith(STOLEN_KITTY[lang])]
        assert len(lines) == (seat == hand.buries[0][0])
    dealer = hand.buries[0][0]
    _raw, plain, _markup, _decoded = private(table, dealer, lang)
    line = next(line for line in plain.split("\n") if line.startswith(STOLEN_KITTY[lang]))
    assert SEATS[lang][thief] in line and line.endswith(cards_label(buried, lang))


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_red_five_steal_offers_the_choices(lang: str) -> None:
    table, thief, cards = T.stolen("yancheng")
    # Rebuild the moment before the steal, and select the pair.
    assert table.match is not None
    actions_so_far = table.match.hand.actions[:-1]
    table = T.make_table("yancheng", table.match.seed)
    for action in actions_so_far:
        table.match.apply(action)  # type: ignore[union-attr]
    hand = T.hand_of(table)
    assert hand.phase == "stealing" and hand.turn == thief
    table.presses.replace(thief, cards)
    _raw, _plain, markup, decoded = private(table, thief, lang)
    pair = cards_label(cards, lang)
    assert [c.arg for c in decoded if c.op == "trump"] == ["steal-S", "steal-H", "steal-D", "steal-C", "steal-NT"]
    steal = "抄底" if lang == "zh" else "Steal"
    assert f"{steal} {pair} → ♠" in action_texts(markup)
    assert actions(decoded)[-2:] == ["nosteal", "clear"]


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_hidden_steal_seen_from_each_seat(lang: str) -> None:
    table, thief, cards = T.stolen("yancheng")
    label = cards_label(cards, lang)
    for seat in range(4):
        _raw, plain, _markup, decoded = private(table, seat, lang)
        if seat == thief:
            assert label in plain
            assert actions(decoded) == ["bury", "clear", "hint"]
        else:
            assert f"{SEATS[lang][thief]} 🤖 AI " + ("抄底了。" if lang == "zh" else "stole the kitty.") in plain
            assert actions(decoded) == []


# --- playing ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
@pytest.mark.parametrize("preset", T.PRESETS)
def test_playing(preset: str, lang: str) -> None:
    table = T.playing(preset)
    hand = T.hand_of(table)
    t = trump_sym(hand.trump, lang)
    level = {11: "J", 12: "Q", 13: "K", 14: "A"}.get(hand.level, str(hand.level))  # type: ignore[arg-type]
    for seat in range(4):
        _raw, plain, markup, decoded = private(table, seat, lang)
        text = plain.split("\n")
        assert text[1] == (f"打 {level} · 主 {t}" if lang == "zh" else f"level {level} · trump {t}")
        ctx = trump_context(hand.ruleset, hand.level, hand.trump)
        n, trumps = len(hand.hands[seat]), sum(ctx.group(c) == TRUMP for c in hand.hands[seat])
        assert text[-1] == (f"{n} 张牌，{trumps} 张主" if lang == "zh" else f"{n} cards, {trumps} trumps")
        current = " → ".join(f"{SEATS[lang][s]} {cards_label(c, lang)}" for s, c in hand.current)
        # Only the player to move sees the trick: a play edits the mover's message and the next mover's.
        assert any(line.endswith(f"{current} …") for line in text) == (seat == hand.turn)
        if seat == hand.turn:
            plays = one_tap_plays(table, seat)
            assert actions(decoded) == ["go"] * len(plays) + ["play", "clear", "hint"]
            assert [c.arg for c in decoded if c.op == "go"] == [str(i) for i in range(len(plays))]
            # One tap plays what the hint would select (the AI's choice); a follower with a few legal
            # plays has each of them as one tap too.
            assert set(plays[0]) == set(T.ai_action(table, seat).cards)
            go = "▶ " + ("出牌 " if lang == "zh" else "Play ") + cards_label(T.ai_action(table, seat).cards, lang)
            assert action_texts(markup)[1:] == ["▶ " + cards_label(p, lang) for p in plays[1:]] + (
                ["出牌（先选牌）", "清除", "提示"] if lang == "zh" else ["Play (select cards)", "Clear", "Hint"])
            assert action_texts(markup)[0] == go
        else:
            assert actions(decoded) == []


@pytest.mark.parametrize("lang", T.LANGS)
def test_selected_cards_to_play(lang: str) -> None:
    table = T.playing("yangzhou")
    hand = T.hand_of(table)
    seat = hand.turn
    assert seat is not None
    play = T.ai_action(table, seat).cards
    table.presses.replace(seat, play)
    _raw, plain, markup, _decoded = private(table, seat, lang)
    label = cards_label(play, lang)
    assert action_texts(markup)[0] == (f"出牌 {label}" if lang == "zh" else f"Play {label}")
    assert sum(b.text.startswith("✓") for b in buttons(markup)) == len(play)
    assert (SELECTED[lang] + label) in plain.split("\n")


@pytest.mark.parametrize("lang", T.LANGS)
def test_flag_hand(lang: str) -> None:
    table = T.flag_hand("yangzhou")
    hand = T.hand_of(table)
    for seat in range(4):
        _raw, plain, markup, _decoded = private(table, seat, lang)
        assert plain.split("\n")[1] == ("扛旗（无主）" if lang == "zh" else "flag hand (no trump)")
        first = [c for row in card_rows(markup) for _l, c, _n in row][0]
        held_trumps = [c for c in hand.hands[seat] if c.is_joker or c == Card.parse("5H")]
        if held_trumps:
            assert first in held_trumps


@pytest.mark.parametrize("lang", T.LANGS)
def test_after_the_match_no_cards_and_no_actions(lang: str) -> None:
    table, _record = T.match_over("nantong")
    for seat in range(4):
        _raw, _plain, markup, decoded = private(table, seat, lang)
        assert decoded == [] and not markup.inline_keyboard


# --- every moment ------------------------------------------------------------------------------------

def sweep(table: Table) -> None:
    """Render every seat's message after every action until the hand ends."""
    assert table.match is not None
    number = T.hand_of(table).setup.number
    for _ in range(400):
        hand = T.hand_of(table)
        if hand.setup.number != number or table.match.over:
            return
        for seat in range(4):
            for lang in T.LANGS:
                private(table, seat, lang)
        if T.step(table).record is not None:
            return
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("seed", [21, 22])
@pytest.mark.parametrize("preset", T.PRESETS)
def test_no_other_seats_card_at_any_moment(preset: str, seed: int) -> None:
    sweep(T.make_table(preset, seed))


@pytest.mark.parametrize(("preset", "hidden"), [("yancheng", None), ("anhui", None), ("xin", True)])
def test_no_other_seats_card_with_hidden_bids_and_a_steal(preset: str, hidden: bool | None) -> None:
    table, _bid = T.bidding_with_bid(preset, hidden=hidden, second=True)
    sweep(table)
    if hidden is None:
        table, _thief, _cards = T.stolen(preset)
        sweep(table)


def test_selections_survive_the_sweep() -> None:
    """With a selection held by every seat (as a player mid-choice would), the checks still hold."""
    table = T.make_table("yancheng", 23)
    for _ in range(120):
        hand = T.hand_of(table)
        if hand.over or hand.setup.number != 1:
            break
        for seat in range(4):
            table.presses.replace(seat, hand.hands[seat][:3])
            for lang in T.LANGS:
                private(table, seat, lang)
        T.step(table)


# --- the peek popup, long titles, versions ----------------------------------------------------------

@pytest.mark.parametrize("lang", T.LANGS)
def test_peek_shows_only_ones_own_hand_and_fits_a_popup(lang: str) -> None:
    table = T.burying("yancheng")
    hand = T.hand_of(table)
    for seat in range(4):
        text = peek_text(tr_(lang), table, seat)
        assert len(text) <= 200
        prefix = "你的手牌: " if lang == "zh" else "Your hand: "
        assert text.startswith(prefix)
        assert card_labels(text) == labels(hand.hands[seat], lang)
        shown = text[len(prefix):].split(" ")  # one card between spaces: ♠10♠10 would read as one blur
        assert len(shown) == len(hand.hands[seat]) and all(len(card_labels(c)) == 1 for c in shown)


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_long_group_title_is_escaped_and_fits(lang: str) -> None:
    table = T.burying("yancheng")
    title = "<i>&" * 60
    raw, _markup = render_hand(tr_(lang), table, 0, title)
    plain = assert_telegram_html(raw)
    assert title in plain


def test_buttons_go_stale_after_a_move() -> None:
    """The version in every button changes with the seat's hand, so an old keyboard is refused."""
    table = T.playing("yancheng")
    hand = T.hand_of(table)
    seat = hand.turn
    assert seat is not None
    before = table.version(seat)
    table.match.apply(T.ai_action(table, seat))  # type: ignore[union-attr]
    after = table.version(seat)
    assert before != after
    _raw, _plain, _markup, decoded = private(table, seat, "zh")
    assert {c.version for c in decoded} <= {after}


@pytest.mark.parametrize("lang", T.LANGS)
def test_no_trump_reads_as_players_say_it(lang: str) -> None:
    table, _thief, _cards = T.stolen("nantong")  # a red-five pair stole the kitty for no trump
    assert T.hand_of(table).trump is None and T.hand_of(table).trump_decided
    for seat in range(4):
        _raw, plain, _markup, _decoded = private(table, seat, lang)
        assert plain.split("\n")[1] == ("打 2 · 打无主" if lang == "zh" else "level 2 · no trump")
        assert "主 无主" not in plain and "trump no-trump" not in plain


@pytest.mark.parametrize("lang", T.LANGS)
def test_another_seats_pass_or_play_leaves_a_message_as_it_was(lang: str) -> None:
    """Only what a player needs: another's pass, or a play that is not theirs to follow, changes nothing."""
    table = T.bidding_fresh("yancheng")
    before = [private(table, seat, lang)[:3] for seat in range(4)]
    T.hand_of(table).apply(Action("pass", 1))
    after = [private(table, seat, lang)[:3] for seat in range(4)]
    assert [a == b for a, b in zip(before, after)] == [True, False, True, True]
    assert ("你已不亮" if lang == "zh" else "You passed") in after[1][1]
    table = T.playing("yancheng")
    hand = T.hand_of(table)
    mover = hand.turn
    assert mover is not None
    before = [private(table, seat, lang)[:3] for seat in range(4)]
    hand.apply(T.ai_action(table, mover))
    after = [private(table, seat, lang)[:3] for seat in range(4)]
    changed = {seat for seat in range(4) if before[seat] != after[seat]}
    assert changed == {mover, hand.turn}  # the mover's message and the next mover's


@pytest.mark.parametrize("lang", T.LANGS)
def test_a_follower_with_a_few_legal_plays_has_each_as_one_tap(lang: str) -> None:
    """Following with two to four legal plays: the hint's first, then each other one, as ▶ buttons
    (a ▶ button's argument picks its play from the same list, worked out again when pressed)."""
    from engine.follow import is_legal_follow

    table = T.make_table("yancheng", 3)

    def few(hand: Hand) -> bool:
        if hand.phase != "playing" or not hand.current or hand.turn is None:
            return False
        return 2 <= len(one_tap_plays(table, hand.turn)) <= 4
    T.advance(table, few)
    hand = T.hand_of(table)
    seat = hand.turn
    assert seat is not None
    plays = one_tap_plays(table, seat)
    lead = hand.current[0][1]
    assert len(set(plays)) == len(plays)
    assert all(is_legal_follow(hand.ctx, lead, hand.hands[seat], play) for play in plays)
    _raw, _plain, markup, decoded = private(table, seat, lang)
    taps = [(b.text, decode_button(b).arg) for b in buttons(markup) if decode_button(b).op == "go"]
    assert [arg for _, arg in taps] == [str(i) for i in range(len(plays))]
    assert [text for text, _ in taps[1:]] == ["▶ " + cards_label(play, lang) for play in plays[1:]]
