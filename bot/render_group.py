"""The group's messages: the table message (lobby, then play) and hand results.

Pure functions of the table and the engine's spectator view: they never see
a hidden card, so they cannot show one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks, story
from bot.clocks import time_left, window_clock
from bot.i18n import Translator
from bot.labels import (
    cards_label,
    flag_phrase,
    level_label,
    name_html,
    preset_label,
    seat_label,
    signed,
    trump_phrase,
)
from bot.model import PACES, RETURNS, Table, hidden_choosable
from engine.hand import Trick, side_of
from engine.match import HandRecord
from engine.ruleset import ALIASES, RULESETS, Ruleset, get_ruleset
from engine.views import HandView


def seat_name(tr: Translator, table: Table, seat: int) -> str:
    """The name shown for a seat: the person, 🤖 AI, or an empty-seat mark."""
    info = table.seats[seat]
    if info is None:
        return tr("(empty)")
    if info.is_ai:
        return "🤖 " + tr("AI")
    return name_html(info.name) + (" 🤖" if info.timed_out else "")


def who(tr: Translator, table: Table, seat: int) -> str:
    """A seat's name where no seat label stands beside it: AI seats get theirs (``东 🤖 AI``)."""
    info = table.seats[seat]
    name = seat_name(tr, table, seat)
    return f"{seat_label(tr, seat)} {name}" if info is not None and info.is_ai else name


def room(tr: Translator, ruleset: Ruleset) -> str:
    """The room's name as players know it (decision 1), or "" where the preset has none.

    盐城 is the 暗炒 room and 南通 the 明炒 room; a flag-hand preset is a 扛旗
    room, whatever its bidding.  新炒地皮, 池州 and 安徽 have no room name:
    明炒/暗炒 would name another region's room.  A table's own choice of
    bidding, where it differs from its preset's, is named too (「扛旗 · 暗炒」).
    """
    words = [tr("flag hand")] if ruleset.after_ace == "flag_hand" else []
    hidden = ruleset.hidden_bidding
    named = ALIASES.get("暗炒" if hidden else "明炒") == ruleset.name  # the room alias of decision 1
    if named or hidden != get_ruleset(ruleset.name).hidden_bidding:
        words.append(tr("hidden bids") if hidden else tr("open bids"))
    return " · ".join(words)


def room_title(tr: Translator, ruleset: Ruleset) -> str:
    """「盐城（暗炒）」, 「扬州/镇江（扛旗）」, 「安徽」: the preset, with its room where it has one."""
    mode = room(tr, ruleset)
    name = preset_label(tr, ruleset)
    return tr("{preset} ({mode})", preset=name, mode=mode) if mode else name


def header(tr: Translator, table: Table) -> str:
    """炒地皮 · 盐城（暗炒）· 第 2 局."""
    parts = [tr("Chao Di Pi"), room_title(tr, table.settings.ruleset())]
    if table.between_hands is not None and table.match is not None:
        # The match has dealt the next hand already; while the table reads the result, the header names the
        # hand that ended (under it: 「本局结束……」 or 「下一局马上开始」), not the one that has not begun
        # (after a restart in the pause the result is not in memory: the hand before the next one).
        ended = table.last_result.number if table.last_result is not None else table.match.hand.setup.number - 1
        parts.append(tr("hand {n}", n=ended))
    elif table.match is not None:
        parts.append(tr("hand {n}", n=table.match.hand.setup.number))
    return "<b>" + " · ".join(parts) + "</b>"


def render_lobby(tr: Translator, table: Table, private_link: str) -> tuple[str, InlineKeyboardMarkup]:
    """The table message before the match: seats, settings, and the buttons to fill and start.

    ``private_link`` opens the bot's private chat for someone who must press Start first.
    """
    s = table.settings
    lines = [header(tr, table), ""]
    for seat in range(4):
        lines.append(f"{seat_label(tr, seat)}  {seat_name(tr, table, seat)}")
    lines.append(tr("Partners sit across: N+S against E+W."))
    lines.append("")
    pace = {"realtime": tr("real-time"), "relaxed": tr("relaxed"), "daily": tr("one move a day")}[s.pace]
    timeout = tr("the AI plays for you") if s.on_timeout == "ai" else tr("escape rules")
    lines.append(tr("Pace: {pace} · on timeout: {timeout}", pace=pace, timeout=timeout))
    waiting = [name for _seat, name in table.pending.values()]
    if waiting:
        names = ", ".join(name_html(name) for name in waiting)
        lines.append("")
        lines.append(tr("⚠️ {names}: open a private chat with me and press Start, so I can send you your cards.",
                        names=names))
    rows: list[list[InlineKeyboardButton]] = []
    rows.append([
        InlineKeyboardButton(tr("Sit {seat}", seat=seat_label(tr, seat)), callback_data=callbacks.lobby(table.id, "sit", str(seat)))
        for seat in range(4) if table.seats[seat] is None
    ])
    rows.append([
        InlineKeyboardButton(tr("Leave"), callback_data=callbacks.lobby(table.id, "leave")),
        InlineKeyboardButton(tr("+ AI"), callback_data=callbacks.lobby(table.id, "ai")),
        InlineKeyboardButton(tr("− AI"), callback_data=callbacks.lobby(table.id, "rmai")),
    ])
    rows.append([
        InlineKeyboardButton(tr("⚙️ Settings"), callback_data=callbacks.lobby(table.id, "set")),
        InlineKeyboardButton(tr("▶️ Start"), callback_data=callbacks.lobby(table.id, "start")),
    ])
    if waiting:
        rows.append([InlineKeyboardButton(tr("Open a private chat with me"),
                                          url=private_link)])
    return "\n".join(lines), InlineKeyboardMarkup([row for row in rows if row])


def setting_label(tr: Translator, key: str, value: str) -> str:
    """A setting's choice as its button and its confirmation say it (``preset``/``yangzhou`` → 扬州/镇江)."""
    labels = {
        "hidden": {"0": tr("open bids"), "1": tr("hidden bids")},
        "pace": {"realtime": tr("real-time"), "relaxed": tr("relaxed"), "daily": tr("one move a day")},
        "timeout": {"ai": tr("timeout: AI plays"), "escape": tr("timeout: escape")},
        "strength": {"casual": tr("AI: casual"), "strong": tr("AI: strong")},
        "returns": {"next": tr("back: next hand"), "now": tr("back: at once")},
    }
    if key == "preset":
        return preset_label(tr, value)
    return labels.get(key, {}).get(value, value)


def render_settings(tr: Translator, table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The settings panel of a table in its lobby."""
    s = table.settings
    lines = [header(tr, table), "", tr("Choose the table's rules and pace:")]

    def choice(key: str, value: str, chosen: bool) -> InlineKeyboardButton:
        return InlineKeyboardButton(("✓ " if chosen else "") + setting_label(tr, key, value),
                                    callback_data=callbacks.lobby(table.id, key, value))

    rows: list[list[InlineKeyboardButton]] = []
    presets = list(RULESETS.values())
    for i in range(0, len(presets), 4):
        rows.append([choice("preset", r.name, r.name == s.preset) for r in presets[i:i + 4]])
    if hidden_choosable(s.preset):
        rows.append([choice("hidden", "0", not s.hidden_bidding), choice("hidden", "1", s.hidden_bidding)])
    rows.append([choice("pace", p, s.pace == p) for p in PACES])
    rows.append([choice("timeout", t, s.on_timeout == t) for t in ("ai", "escape")])
    rows.append([choice("strength", a, s.ai_strength == a) for a in ("casual", "strong")])
    rows.append([choice("returns", r, s.returns == r) for r in RETURNS])
    rows.append([InlineKeyboardButton(tr("« Back"), callback_data=callbacks.lobby(table.id, "back"))])
    return "\n".join(lines), InlineKeyboardMarkup(rows)


def _levels_lines(tr: Translator, table: Table, view: HandView) -> list[str]:
    assert table.match is not None
    out = []
    laps = table.settings.ruleset().laps
    for side in (0, 1):
        a, b = side, side + 2
        level = table.match.sides[side]
        text = f"{seat_label(tr, a)} {seat_name(tr, table, a)} ─ {seat_label(tr, b)} {seat_name(tr, table, b)}   "
        if level.at_flag:  # past A: the side plays (or owes) the flag hand, which has no level
            text += "🚩 " + flag_phrase(tr)
        else:
            text += tr("at {level}", level=level_label(level.rank))
            if laps > 1:
                text += tr(" (lap {lap})", lap=level.lap)
        if view.dealer_side == side:
            text += tr(" (dealer side)")
        out.append(text)
    return out


def _play_line(tr: Translator, plays: Sequence[tuple[int, Sequence[object]]], lang: str) -> str:
    return " → ".join(f"{seat_label(tr, seat)} {cards_label(cards, lang)}" for seat, cards in plays)  # type: ignore[arg-type]


def phase_lines(tr: Translator, table: Table, view: HandView, now: float | None = None, *,
                live: bool = False) -> list[str]:
    """What is happening now, as far as the group may know.

    While cards are played, ``live`` lines show the trick card by card and whose
    turn it is (for the player to move); otherwise the trick's lines change only
    when a trick is won, so the group's message is edited once a trick.
    """
    lang = tr.lang
    out: list[str] = []
    if view.phase == "bidding":
        history = view.bid_history or ()
        for i, bid in enumerate(view.bids):
            bidder = f"{seat_label(tr, bid.seat)} {seat_name(tr, table, bid.seat)}"
            if bid.hidden:
                out.append(tr("{who} made a bid.", who=bidder))
            elif i >= len(history):  # 暗炒: the viewer's own bid, before the reveal
                assert bid.cards is not None
                out.append(tr("{who} bid {cards} → {trump}.", who=bidder, cards=cards_label(bid.cards, lang),
                              trump=trump_phrase(tr, bid.trump, capital=False)))
            else:  # open bidding: each bid in the players' word as it happens (亮主, 反主, 加固, 回头望)
                out.append(tr("{who}: {bid} → {trump}.", who=bidder,
                              bid=story.bid_phrase(tr, history[i], first_word=True),
                              trump=trump_phrase(tr, history[i].trump, capital=False)))
        if view.viewer is None:  # who has passed is no news to the group: a pass costs no edit there
            out.append(tr("Bidding is open: bid from your private chat, or pass."))
        else:  # a player's own answer only: another's pass changes nothing in their message
            out.append(tr("You passed; a new bid asks you again.") if view.viewer in view.passed
                       else tr("Bidding is open: bid or pass."))
        out += window_clock(tr, table, "bidding")
    elif view.phase in ("burying", "stealing"):
        if view.flipped:
            out.append(story.flip_news(tr, view, table.settings.ruleset().threshold))
        for bid in view.bids:
            if bid.kind == "steal":
                bidder = f"{seat_label(tr, bid.seat)} {seat_name(tr, table, bid.seat)}"
                out.append(tr("{who} stole the kitty.", who=bidder) if bid.hidden else
                           tr("{who} stole the kitty with {cards}.", who=bidder, cards=cards_label(bid.cards or (), lang)))
        if view.trump_known and not view.flipped:  # the flip's line names the trump
            out.append(trump_phrase(tr, view.trump))
        if view.phase == "burying":
            assert view.kitty_holder is not None
            out.append(tr("You are burying the kitty.") if view.kitty_holder == view.viewer else
                       tr("{who} is burying the kitty.", who=who(tr, table, view.kitty_holder)))
        elif view.turn is not None and view.turn == view.viewer:  # told to the player it asks, in the second person
            out.append(tr("Kitty buried. You may steal it or pass.") + _since(tr, table, now))
            out += window_clock(tr, table, "stealing")
        elif view.turn is not None and table.settings.pace == "realtime" and table.steal_first is not None \
                and not table.thinking(time.time() if now is None else now):
            # Who the round asks first, at once, in a line that reads the same all round: a pass costs no edit
            # of the group's message or the waiting players' (the real-time budget); whose turn it is now
            # once they have thought a while, as in a trick.
            out.append(tr("Kitty buried: from {who}, each player in turn may steal it or pass.",
                          who=who(tr, table, table.steal_first)))
        elif view.turn is not None:  # at the slower paces at every turn: moves are minutes or hours apart
            out.append(tr("Kitty buried. {who} may steal it or pass.", who=who(tr, table, view.turn))
                       + _since(tr, table, now))
            out += window_clock(tr, table, "stealing")
    elif view.phase == "playing":
        told = story.table_news(tr, view, table.settings.ruleset())
        if told is not None:  # how the trump was set, while the first trick is played
            out.append(told)
        dealer = who(tr, table, view.dealer) if view.dealer is not None else "?"
        trump = flag_phrase(tr) if view.flag else trump_phrase(tr, view.trump)
        out.append(tr("{trump} · dealer {dealer} · attackers {points} points",
                      trump=trump, dealer=dealer,
                      points=signed(view.attacker_points) if view.attacker_points < 0 else view.attacker_points))
        number = len(view.tricks) + 1
        if live or table.settings.pace != "realtime" \
                or (view.turn is not None and table.thinking(time.time() if now is None else now)):
            # The player to move (or someone who has been thinking for a while: then everyone; at the
            # relaxed and daily paces everyone at every turn, moves being minutes or hours apart) sees the
            # trick card by card, and whose turn it is since when.
            if view.current:
                out.append(tr("Trick {n}: {plays} …", n=number, plays=_play_line(tr, view.current, lang)))
            if view.turn is not None:
                clock = _since(tr, table, now) + _deadline(tr, table, now)
                if view.turn != view.viewer:
                    out.append(tr("{who} to play", who=who(tr, table, view.turn)) + clock)
                elif clock:  # 「👉 轮到你了」 follows in the player's own message: here only how long they have
                    out.append(tr("Your move") + clock)
        elif view.turn is not None:
            leader = view.current[0][0] if view.current else view.turn
            out.append(tr("Trick {n}: {who} leads", n=number, who=who(tr, table, leader)))
        last = view.last_trick
        if last is not None:
            plays, seat = _play_line(tr, last.plays, lang), seat_label(tr, last.winner)
            if last.points and side_of(last.winner) != view.dealer_side:
                out.append(tr("Last trick: {plays} · {seat} won: attackers +{points}",
                              plays=plays, seat=seat, points=last.points))
            else:  # the dealer side's trick scores nothing for anyone
                out.append(tr("Last trick: {plays} · {seat} won", plays=plays, seat=seat))
    return out


CHINA: Final = timezone(timedelta(hours=8), "CST")
"""The players' clock (Jiangsu and Anhui; no daylight saving)."""


def _since(tr: Translator, table: Table, now: float | None) -> str:
    """「（14:03 起）」: when the turn began, at the slower paces (the real-time pace counts down instead)."""
    if table.settings.pace == "realtime" or table.turn_since <= 0:
        return ""
    began = datetime.fromtimestamp(table.turn_since, CHINA)
    today = datetime.fromtimestamp(time.time() if now is None else now, CHINA).date()
    if began.date() == today:
        return _aside(tr, tr("(since {time})", time=began.strftime("%H:%M")))
    return _aside(tr, tr("(since {month}/{day} {time})", month=began.month, day=began.day,
                         time=began.strftime("%H:%M")))


def _deadline(tr: Translator, table: Table, now: float | None) -> str:
    if table.deadline is None:
        return ""
    return _aside(tr, time_left(tr, table.deadline - (time.time() if now is None else now)))


def _aside(tr: Translator, bracketed: str) -> str:
    """A bracketed note after a line: a space before "(…)", none before a full-width 「（…）」."""
    return bracketed if bracketed.startswith("（") else " " + bracketed


def render_table(tr: Translator, table: Table, now: float | None = None) -> tuple[str, InlineKeyboardMarkup | None]:
    """The group's table message during a match (spectator view only)."""
    view = table.view(None)
    lines = [header(tr, table)] + _levels_lines(tr, table, view)
    if table.between_hands is not None:
        line = muted_line(tr, table) if table.silenced else paused_line(tr) if table.paused \
            else pause_line(tr, table, now)
        return "\n".join(lines + [line]), None if table.silenced else _next_hand_markup(tr, table)
    # Paused for want of anyone present: the next hand is dealt, and nothing moves until someone is back.
    # Muted (bot.muting), its topic closed (bot.topics): nothing moves by itself until the bot may write here again;
    # an edit may still show it.
    lines += [muted_line(tr, table)] if table.silenced else [paused_line(tr)] if table.paused \
        else phase_lines(tr, table, view, now)
    markup = InlineKeyboardMarkup([[
        InlineKeyboardButton(tr("🃏 My hand"), callback_data=callbacks.hand(table.id, "0", "peek")),
    ]])
    return "\n".join(lines), markup


def paused_line(tr: Translator) -> str:
    """A table paused for want of anyone present (the AI would play alone): how it goes on."""
    return tr("The table is paused: nobody is left playing. It resumes when someone comes back (/hand, or 「I'm back」) or takes a seat (/join); /stop closes it.")


def muted_line(tr: Translator, table: Table) -> str:
    """A table paused because the group does not let the bot send messages (:mod:`bot.muting`), or its forum
    topic is closed (:mod:`bot.topics`): how it goes on."""
    if table.topic_closed and not table.muted:
        return tr("The table is paused: this topic is closed. It goes on once an admin reopens it; /stop closes it.")
    return tr("The table is paused: I may not send messages here. It goes on once an admin lets me send messages again; /stop closes it.")


def pause_line(tr: Translator, table: Table, now: float | None = None) -> str:
    """Between hands: the next hand starts soon, or when someone presses 「下一局」.

    The real-time pause is a few seconds (``CHAODIPI_HAND_PAUSE``), shorter than a countdown in steps of ten
    and than the group message's edits: it says no number that would be wrong a moment later.
    """
    assert table.between_hands is not None
    if table.settings.pace == "realtime":
        return tr("The next hand starts in a moment.")
    left = time_left(tr, table.between_hands - (time.time() if now is None else now))
    return tr("The next hand starts when someone at the table presses 「Next hand」, or by itself when the time is up "
              "{left}.", left=left)


def _next_hand_markup(tr: Translator, table: Table) -> InlineKeyboardMarkup | None:
    """The 「下一局」 button at the relaxed and daily paces; it names the deal it starts."""
    if table.settings.pace == "realtime" or table.match is None:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(
        tr("▶️ Next hand"), callback_data=callbacks.hand(table.id, str(table.match.deals), "next"))]])


def render_result(tr: Translator, table: Table, record: HandRecord, last: Trick | None = None,
                  leaver: str | None = None) -> str:
    """The announcement of a finished hand (a new message: it is news), told from the engine's record.

    ``last`` is the hand's final trick, shown before the score; ``leaver`` the name of the person who
    escaped (their seat is the AI's by now).
    """
    escaped = record.result.escaped if record.result is not None else None

    def named(seat: int) -> str:
        if seat == escaped:  # the person who left (the AI sits there by now)
            return name_html(leaver) if leaver is not None else seat_name(tr, table, seat)
        return who(tr, table, seat)

    return story.result_text(tr, record, table.settings.ruleset().laps, last, who=named)


def render_match_over(tr: Translator, table: Table) -> str:
    """The announcement of the match's end."""
    assert table.match is not None and table.match.winner_side is not None
    side = table.match.winner_side
    names = f"{seat_name(tr, table, side)} &amp; {seat_name(tr, table, side + 2)}"
    scores = "  ".join(f"{seat_label(tr, s)} {signed(table.match.scores[s])}" for s in range(4))
    return "\n".join([
        "🏆 <b>" + tr("{names} win the match!", names=names) + "</b>",
        tr("Total 积分: {scores}", scores=scores),
    ])

