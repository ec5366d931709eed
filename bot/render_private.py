"""A player's private hand message: what they need to decide, and their cards as buttons.

Built from the engine's view for that seat only, so it shows the player's own
hand and bids and nothing of anyone else's.
"""

from __future__ import annotations

import time
from collections import Counter

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot import callbacks
from bot.i18n import Translator
from bot.labels import (
    and_list,
    card_label,
    cards_label,
    flag_phrase,
    level_label,
    name_html,
    seat_label,
    trump_label,
    trump_phrase,
)
from bot.model import Table
from bot.render_group import phase_lines, seat_name
from engine.ai import choose_action
from engine.bidding import needs_choice, read_step
from engine.cards import Card
from engine.combos import sort_cards
from engine.follow import legal_follows
from engine.legal_bids import each_bid_option
from engine.trump import TRUMP, trump_context
from engine.views import HandView, view_for

ROW = 6
"""Card buttons per row: six read well on a phone (eight is Telegram's limit)."""

FROM_KITTY = "+"
"""Marks, while the dealer buries, the card buttons that came from the kitty."""


def sorted_hand(table: Table, view: HandView) -> list[Card]:
    """The hand in display order: trumps first, then each plain suit, high to low.

    Under hidden bidding the player sorts by the trump of their own bid.
    """
    trump = view.trump if view.trump_known else view.my_bid_trump
    ctx = trump_context(table.settings.ruleset(), view.level, trump if view.level is not None else None)
    return sort_cards(ctx, view.hand)


def hand_keyboard(tr: Translator, table: Table, seat: int, view: HandView) -> InlineKeyboardMarkup:
    """Card buttons (tap to select) and the action buttons of the moment."""
    version, hand_version = table.version(seat), table.hand_version(seat)
    selected = table.selected(seat)
    cards = sorted_hand(table, view)
    trump = view.trump if view.trump_known else view.my_bid_trump
    ctx = trump_context(table.settings.ruleset(), view.level, trump if view.level is not None else None)
    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    group: str | None = None
    seen: Counter[Card] = Counter()
    held = Counter(cards)
    picked = Counter(view.picked_up)
    for card in cards:
        card_group = ctx.group(card)
        if row and (len(row) == ROW or card_group != group):
            rows.append(row)
            row = []
        group = card_group
        copy = seen[card]
        seen[card] += 1
        ticks = table.presses.ticks(seat, card)
        chosen = copy in ticks if ticks is not None else copy < selected[card]
        mark = "✓" if chosen else ""
        if copy >= held[card] - picked[card]:  # the last copies of a card are the ones from the kitty
            mark += FROM_KITTY
        # A card button needs only the hand's version: a bid or a pass elsewhere leaves it as it was.
        row.append(InlineKeyboardButton(mark + card_label(card, tr.lang),
                                        callback_data=callbacks.hand(table.id, hand_version, "sel", f"{card}{copy}")))
    if row:
        rows.append(row)
    rows += action_rows(tr, table, seat, view, version)
    return InlineKeyboardMarkup(rows)


def action_rows(tr: Translator, table: Table, seat: int, view: HandView, version: str) -> list[list[InlineKeyboardButton]]:
    """The buttons that fit the moment for this seat."""
    sel = list(table.selected(seat).elements())
    label = cards_label(sel, tr.lang)
    ruleset = table.settings.ruleset()

    def button(text: str, op: str, arg: str = "") -> InlineKeyboardButton:
        return InlineKeyboardButton(text, callback_data=callbacks.hand(table.id, version, op, arg))

    clear = button(tr("Clear"), "clear")
    if view.phase in ("bidding", "stealing") and (view.phase == "bidding" or view.turn == seat):
        act, skip = ("bid", "pass") if view.phase == "bidding" else ("steal", "nosteal")
        step = read_step(ruleset, view.level, sel) if sel else None
        if step is not None and needs_choice(ruleset, step):
            choices: list[str | None] = ["S", "H", "D", "C"]
            if step == "R52":
                choices.append(None)
            verb = tr("Bid") if act == "bid" else tr("Steal")
            return [
                [button(f"{verb} {label} → {trump_label(tr, c)}", "trump", f"{act}-{c or 'NT'}") for c in choices[:3]],
                [button(f"{verb} {label} → {trump_label(tr, c)}", "trump", f"{act}-{c or 'NT'}") for c in choices[3:]],
                [button(tr("Pass") if act == "bid" else tr("Don't steal"), skip), clear],
            ]
        named = "Bid {cards}" if act == "bid" else "Steal {cards}"
        main = tr(named, cards=label)
        taps: list[list[InlineKeyboardButton]] = []
        if not sel:
            main = tr("Bid (select cards)") if act == "bid" else tr("Steal (select cards)")
            # One tap bids (or steals) with any set of cards the engine would accept now: the clock runs.
            offered = [button("▶ " + tr(named, cards=cards_label(cards, tr.lang)), "tap",
                              callbacks.tap_arg(act, cards)) for cards in one_tap_bids(table, view)]
            taps = [offered[i:i + 2] for i in range(0, len(offered), 2)]
        return taps + [[button(main, act), button(tr("Pass") if act == "bid" else tr("Don't steal"), skip)],
                       [clear]]
    if view.phase == "burying" and view.kitty_holder == seat:
        return [[button(tr("Bury ({n}/8)", n=len(sel)), "bury")], [clear, button(tr("Hint"), "hint")]]
    if view.phase == "playing" and view.turn == seat:
        main = tr("Play {cards}", cards=label) if sel else tr("Play (select cards)")
        rows = [[button(main, "play")], [clear, button(tr("Hint"), "hint")]]
        if not sel:  # one tap plays what the hint would select; selecting cards stays for any other play
            first, *others = one_tap_plays(table, seat)
            taps = [[button("▶ " + tr("Play {cards}", cards=cards_label(first, tr.lang)), "go", "0")]]
            if others:  # following with a few legal plays: each is one tap
                taps.append([button("▶ " + cards_label(play, tr.lang), "go", str(i))
                             for i, play in enumerate(others, 1)])
            rows[:0] = taps
        return rows
    return []


ONE_TAP = 4
"""The most one-tap plays a follower is offered (the hint's first); with more, the hint's alone."""


def one_tap_bids(table: Table, view: HandView) -> list[tuple[Card, ...]]:
    """The sets of cards (a card, or a pair) the ▶ buttons of the bidding or the viewer's steal turn offer: each
    the engine would accept as a bid or steal now (with some trump, where the cards leave it to choose), the
    pairs first (the bids that are hard to override), each kind in the hand's order, at most :data:`ONE_TAP`."""
    steal = view.phase == "stealing"
    found = dict.fromkeys(option.cards for option in each_bid_option(view, table.settings.ruleset(), steal=steal))
    return sorted(found, key=len, reverse=True)[:ONE_TAP]


def one_tap_plays(table: Table, seat: int) -> list[tuple[Card, ...]]:
    """The plays the ▶ buttons offer the seat to move: the hint's first (the engine AI's choice), then,
    when following with at most :data:`ONE_TAP` legal plays, the others.

    Both are deterministic, so a button pressed plays exactly the cards it showed.
    """
    assert table.match is not None
    hand = table.match.hand
    suggestion = choose_action(view_for(hand, seat), hand.ruleset).cards
    if not hand.current:  # a lead: any other lead is chosen card by card
        return [suggestion]
    ctx = hand.ctx
    first = tuple(sorted(suggestion, key=ctx.sort_key))
    found = legal_follows(ctx, hand.current[0][1], hand.hands[seat], ONE_TAP)
    return [first] + [play for play in found or () if play != first]


def render_hand(tr: Translator, table: Table, seat: int, group_title: str,
                app_url: str | None = None) -> tuple[str, InlineKeyboardMarkup]:
    """The private hand message of one seat (with a button opening the web app at ``app_url``)."""
    view = table.view(seat)
    lines = ["<b>" + tr("Chao Di Pi") + " · " + name_html(group_title) + "</b> · "
             + tr("hand {n}", n=view.number) + " · " + tr("you sit {seat}", seat=seat_label(tr, seat))]
    level = tr("level {level}", level=level_label(view.level))
    if view.flag:
        lines.append(flag_phrase(tr))
    elif view.trump_known:
        lines.append(level + " · " + trump_phrase(tr, view.trump, capital=False))
    else:
        lines.append(level + " · " + tr("trump not known yet"))
        lines += _own_bid(tr, table, seat, view)
    if view.phase != "playing" or view.turn == seat:
        # While cards are played, only the player to move needs the trick (the group's message
        # shows it trick by trick): a play edits the mover's message and the next mover's only.
        lines += phase_lines(tr, table, view, live=True)
    elif table.settings.pace != "realtime" or table.thinking(time.time()):
        # Someone has been at their turn a while (or moves are minutes or hours apart): everyone sees whose.
        lines += phase_lines(tr, table, view)
    if view.picked_up:
        lines.append(tr("From the kitty (marked {mark}): {cards}", mark=FROM_KITTY,
                        cards=cards_label(view.picked_up, tr.lang)))
    if view.kitty is not None and view.phase != "finished":
        lines.append(tr("Your kitty: {cards}", cards=cards_label(view.kitty, tr.lang)))
    if view.passed_kitty and view.phase != "finished":
        takers = and_list(tr, [seat_display(tr, table, s) for s in view.kitty_takers])
        lines.append(tr("The kitty you buried, stolen by {seats}: {cards}", seats=takers,
                        cards=cards_label(view.passed_kitty, tr.lang)))
    if seat in view.to_act and view.phase != "bidding":
        lines.append("👉 <b>" + tr("Your turn") + "</b>")
    sel = list(table.selected(seat).elements())
    if sel:
        lines.append(tr("Selected: {cards}", cards=cards_label(sel, tr.lang)))
    if view.phase == "playing" and view.trump_known:
        lines.append(_trump_count(tr, table, view))
    keyboard = hand_keyboard(tr, table, seat, view)
    if app_url is not None:
        keyboard = InlineKeyboardMarkup((*keyboard.inline_keyboard,
                                         (InlineKeyboardButton(tr("🃏 Open the table"), web_app=WebAppInfo(app_url)),)))
    return "\n".join(lines), keyboard


def _own_bid(tr: Translator, table: Table, seat: int, view: HandView) -> list[str]:
    """What the player may know of the trump before it is told: their own bid, and (hidden bidding) that
    others bid too, so that which bid stands is not known yet; the keyboard sorts by their own bid."""
    own = [b for b in view.bids if b.seat == seat and not b.hidden and b.cards is not None]
    if not own:
        return []
    mine = own[-1]
    assert mine.cards is not None
    if not table.settings.hidden_bidding:
        return [tr("Your bid: {cards}", cards=cards_label(mine.cards, tr.lang))]
    lines = [tr("Your bid: {cards} → {trump} (your cards are sorted by it)", cards=cards_label(mine.cards, tr.lang),
                trump=trump_phrase(tr, mine.trump, capital=False))]
    others = sorted({b.seat for b in view.bids if b.seat != seat})
    if others:
        lines.append(tr("{who} bid too: which bid stands is told after the steal rounds (暗炒).",
                        who=and_list(tr, [seat_display(tr, table, s) for s in others])))
    else:
        lines.append(tr("The trump is told to the table after the steal rounds (暗炒)."))
    return lines


def _trump_count(tr: Translator, table: Table, view: HandView) -> str:
    ctx = trump_context(table.settings.ruleset(), view.level, view.trump)
    trumps = sum(1 for c in view.hand if ctx.group(c) == TRUMP)
    return tr("{cards}, {trumps}", cards=tr("1 card") if len(view.hand) == 1 else tr("{n} cards", n=len(view.hand)),
              trumps=tr("1 trump") if trumps == 1 else tr("{n} trumps", n=trumps))


def peek_text(tr: Translator, table: Table, seat: int) -> str:
    """A short popup with the player's own hand (for the group's 🃏 button)."""
    view = table.view(seat)
    cards = sorted_hand(table, view)
    return (tr("Your hand") + ": " + cards_label(cards, tr.lang, " "))[:195]


def seat_display(tr: Translator, table: Table, seat: int) -> str:
    """``北 Alice``."""
    return f"{seat_label(tr, seat)} {seat_name(tr, table, seat)}"
