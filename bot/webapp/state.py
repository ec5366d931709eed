"""What the web app shows one seat: built from that seat's engine view and nothing else.

The hand, bids, kitty and tricks come from :func:`engine.views.view_for` for
the asking seat (so another seat's cards cannot be in it); the status text is
the one of the private hand message; the page's words are the catalogue's,
in the player's language.  While the person is away (the AI plays for them)
the state holds no card at all, as their frozen hand message.  Whether the
asker still holds the seat is the caller's to check, under the table's lock.
"""

from __future__ import annotations

from typing import Any, Final

from bot.i18n import Translator
from bot.labels import seat_label
from bot.model import Table
from bot.render_group import pause_line, render_result, seat_name
from bot.render_private import one_tap_bids, render_hand, sorted_hand
from bot.untrusted import shown
from engine.trump import trump_context
from engine.views import HandView

WORDS: Final = (
    "Bid", "Steal", "Pass", "Don't steal", "Hint", "Clear", "Your turn", "Play {cards}", "Play (select cards)",
    "Bid {cards}", "Bid (select cards)", "Steal {cards}", "Steal (select cards)", "Bury ({n}/8)", "no-trump",
    "Replay", "Trick {n}", "Previous", "Next", "Close", "Waiting for the match to start.", "The table is closed.",
    "Reconnecting…", "Last trick", "Choose the trump:", "Kitty", "Attackers' points", "I'm back",
    "You no longer hold this seat.", "This page has expired: open it again from Telegram.", "level {level}",
    "📈 League page", "This page has expired: open the address chaodipi play printed again.",
    "You have no seat at a table now. In a group, send /newgame to open a table or /join to take a seat; "
    "it then opens here.",
    "This table is not yours: you hold no seat at it.", "Open the table in {title}",
    "Something went wrong; try again.", "▶️ Next hand",
)
"""The page's words, sent translated (templates keep their ``{placeholders}`` for the page to fill)."""


def words(tr: Translator) -> dict[str, str]:
    """The page's words in the reader's language."""
    return {msgid: tr(msgid) for msgid in WORDS}


def mode(view: HandView, seat: int) -> str | None:
    """The action of the moment for this seat, as the keyboard offers it (bot.render_private.action_rows)."""
    if view.phase == "bidding":
        return "bid"
    if view.phase == "stealing" and view.turn == seat:
        return "steal"
    if view.phase == "burying" and view.kitty_holder == seat:
        return "bury"
    if view.phase == "playing" and view.turn == seat:
        return "play"
    return None


def seat_state(tr: Translator, table: Table, seat: int, group_title: str,
               last_hand_id: int | None = None) -> dict[str, Any]:
    """Everything the page draws for ``seat``, JSON-ready."""
    seats = [{"label": seat_label(tr, s), "name": seat_name(tr, table, s),
              "ai": info is not None and info.is_ai} for s, info in enumerate(table.seats)]
    state: dict[str, Any] = {
        "table": table.id, "chat": table.chat_id, "seat": seat, "lang": tr.lang, "status": table.status,
        "title": shown(group_title), "seats": seats, "words": words(tr), "deadline": table.deadline,
        "last_hand_id": last_hand_id, "view": None, "hand": [], "groups": [], "mode": None,
        "version": table.version(seat), "info": "", "last_result": None, "seq": 0, "away": False, "taps": [],
        "next_deal": None,
    }
    info = table.seats[seat]
    if info is not None and info.timed_out and table.playing:
        # Like the frozen hand message: while the AI plays for them, no card of the seat (the page offers
        # 「我回来了」, which brings them back).
        state.update(away=True, info=tr("The AI plays for you until you are back."))
        return state
    if table.match is None:
        state["info"] = tr("Waiting for the match to start.") if table.status == "open" else tr("The table is closed.")
        return state
    if table.playing and table.between_hands is not None:
        # The table reads the last hand's result: nothing of the next deal yet (the hand messages show it when
        # the pause ends too); at the relaxed and daily paces 「下一局」 starts it, as under the table message.
        state.update(info=pause_line(tr, table), seq=len(table.match.hand.events), last_result=last_result(tr, table),
                     next_deal=str(table.match.deals) if table.settings.pace != "realtime" else None)
        return state
    view = table.view(seat)
    cards = sorted_hand(table, view)
    trump = view.trump if view.trump_known else view.my_bid_trump
    ctx = trump_context(table.settings.ruleset(), view.level, trump if view.level is not None else None)
    text, _keyboard = render_hand(tr, table, seat, group_title)
    now = mode(view, seat) if table.status == "playing" else None
    state.update(
        # The bids (or steals) the rules would take now, each one tap, as on the keyboard.
        taps=[[str(c) for c in cards] for cards in one_tap_bids(table, view)] if now in ("bid", "steal") else [],
        view=view.to_dict(), hand=[str(c) for c in cards], groups=[ctx.group(c) for c in cards],
        mode=now, info=text, seq=len(table.match.hand.events),
        last_result=last_result(tr, table),
    )
    return state


def last_result(tr: Translator, table: Table) -> str | None:
    """The last hand's result as the group was told it: someone who left is named (their seat is the AI's by
    now, and the seat's name would say the AI left)."""
    record = table.last_result
    if record is None:
        return None
    escaped = record.result.escaped if record.result is not None else None
    leaver = table.left.get(escaped) if escaped is not None else None
    return render_result(tr, table, record, leaver=leaver.name if leaver is not None else None)
