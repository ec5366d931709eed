"""Why the bot made each Bot API call, read from the fake server's side: by kind and by reason.

The fake Telegram sees only the calls; the reason is read from what the call
did to the chat, which a person would see too: the chat (a group or a private
chat), the message (the table message, a hand message, a nudge, a result) and
what changed between the message's previous version and this one.  Nothing in
the bot is tagged, so production pays nothing for it.

Kinds: ``send`` (sendMessage, sendPhoto …), ``edit`` (editMessage…),
``answer`` (answerCallbackQuery), ``pin`` (pin/unpinChatMessage), ``delete``,
``other``.

Reasons:

* ``own press``: a button answer, or an edit of a hand message its reader
  pressed a button of since its previous version.
* ``next mover``: an edit of a hand message that now asks its reader to move
  (Play/▶, Bury, Don't steal, or Pass while they have not passed) and did not
  before.
* ``waiting player``: another edit of a hand message: the table changed (a bid,
  the kitty, a trick's end) for someone who neither pressed nor must move now.
* ``turn line``: an edit whose only change is the line naming who is to move
  (the thinking line, at real time after 15 s of thinking), shown or taken
  away; in a hand message, one that adds or removes a "… to play" line.
* ``clock``: an edit whose only change is a clock reading (「⏳ 亮主还剩 N 秒」).
* ``group line``: any other edit of the group's table message (a trick, a
  phase, a hand's end).
* ``table message``: the table message sent (the lobby, a repost at a hand's
  start), its old copy deleted, a pin or an unpin.
* ``nudge``: a private "your turn" or away notice, and its deletion; the
  group's ⏰ reminder.
* ``result``: a hand's result (the group's announcement, a private result line,
  the hand message's last edit).
* ``new hand``: a hand message sent (each hand's first).
* ``other``: the rest (bid reveals and other news in the group, replies to
  commands, ...).

Both languages the bot speaks are recognised (the texts come from its own
catalogue).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bot import callbacks
from bot.i18n import translator

from .fake_telegram.recording import CallRecord
from .fake_telegram.state import Message, State

KINDS = ("send", "edit", "answer", "pin", "delete", "other")
REASONS = ("next mover", "own press", "waiting player", "group line", "turn line", "clock", "table message",
           "nudge", "result", "new hand", "other")
SKIPPED = {"getupdates", "getchatmember", "getme", "setmycommands", "deletewebhook", "setchatmenubutton",
           "getchat", "setmydescription", "setmyshortdescription", "setmyname", "getmycommands"}
"""Calls no play causes (polling, start-up, membership checks): left out of the tally."""


def _pattern(template: str) -> re.Pattern[str]:
    """A template of the catalogue (``"{who} to play"``) as a regex searching a line."""
    parts = re.split(r"\{[a-z_]+\}", template)
    return re.compile(".+?".join(re.escape(p) for p in parts))


def _patterns(*msgids: str) -> list[re.Pattern[str]]:
    return [_pattern(translator(lang)(msgid)) for lang in ("en", "zh") for msgid in msgids]


NAMES_MOVER = _patterns("{who} to play", "Your move", "Kitty buried. {who} may steal it or pass.")
"""Lines naming who is to move (the thinking line), in a trick or a steal round."""
TURN_LINES = NAMES_MOVER + _patterns("Trick {n}: {plays} …", "Trick {n}: {who} leads",
                                     "Kitty buried: from {who}, each player in turn may steal it or pass.")
"""Lines that change when the thinking line shows or goes (the trick card by card, or who leads)."""
RESULTS = _patterns("Hand {n} is over", "Hand {n} is over; the next hand comes as a new message.", "Hand {n}: attackers {p} points · {deal} · you {score} 积分",
                    "Hand {n} is over, and so is the match.",
                    "Hand {n}: {deal}")
NUDGES = _patterns("Your turn · {what} · {title}",
                   "You ran out of time at the table in {title}: the AI plays for you until you are back.",
                   "⏰ {who}: the table is waiting for your move {left}.")
CLOCK = "⏳"


def kind(method: str) -> str:
    """send, edit, answer, pin, delete or other."""
    m = method.lower()
    if m == "answercallbackquery":
        return "answer"
    if m.startswith("edit"):
        return "edit"
    if m.startswith("send"):
        return "send"
    if m in ("pinchatmessage", "unpinchatmessage", "unpinallchatmessages"):
        return "pin"
    if m.startswith("delete"):
        return "delete"
    return "other"


def _any(patterns: list[re.Pattern[str]], text: str | None) -> bool:
    return bool(text) and any(p.search(text or "") for p in patterns)


def _ops(markup: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(op, keyboard version) of every hand button in a keyboard."""
    out = []
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    for row in rows if isinstance(rows, list) else ():
        for button in row:
            data = callbacks.decode(button.get("callback_data")) if isinstance(button, dict) else None
            if data is not None and data.kind == "H":
                out.append((data.op, data.version))
    return out


def asks_to_move(markup: dict[str, Any] | None) -> str | None:
    """What a hand keyboard asks its reader to do now: play, bury, steal, bid (not passed yet), or None."""
    ops = dict(_ops(markup))
    if "play" in ops or "go" in ops:
        return "play"
    if "bury" in ops:
        return "bury"
    if "nosteal" in ops:
        return "steal"
    if "pass" in ops and not ops["pass"].endswith("p"):
        return "bid"
    return None


def _is_hand(markup: dict[str, Any] | None) -> bool:
    """A private hand message's keyboard (its card and move buttons; the group's 🃏 button is op peek)."""
    return any(op != "peek" for op, _ in _ops(markup))


def _changed(before: str | None, after: str | None) -> set[str]:
    """The lines in one version and not the other."""
    old, new = (before or "").splitlines(), (after or "").splitlines()
    return set(old).symmetric_difference(new)


def _strip_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class Classifier:
    """Reads the reason of each call from the fake's state (messages with their edit histories, presses)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._presses: dict[tuple[int, int], list[float]] | None = None

    def presses(self, chat_id: int, message_id: int) -> list[float]:
        """When a person pressed a button of this message (server clock)."""
        if self._presses is None:
            found: dict[tuple[int, int], list[float]] = {}
            for query in self.state.callback_queries.values():
                found.setdefault((query.chat_id, query.message_id), []).append(query.created_at)
            self._presses = found
        return self._presses.get((chat_id, message_id), [])

    def message(self, record: CallRecord) -> Message | None:
        message_id = record.params.get("message_id")
        if isinstance(record.result, dict):
            message_id = record.result.get("message_id", message_id)
        if record.chat_id is None or message_id is None:
            return None
        try:
            return self.state.messages.get(record.chat_id, {}).get(int(message_id))
        except (TypeError, ValueError):
            return None

    def reason(self, record: CallRecord) -> str:
        """Why the bot made this call (see the module's docstring)."""
        k = kind(record.method)
        if k == "answer":
            return "own press"
        if k == "pin":
            return "table message"
        group = record.is_group
        message = self.message(record)
        if k == "delete":
            text = message.text if message is not None else None
            if _any(NUDGES, text):
                return "nudge"
            return "table message" if group else "other"
        new_text, new_markup = self._new(record, message)
        if k == "send":
            if group:
                if _any(RESULTS, new_text):
                    return "result"
                if _any(NUDGES, new_text):
                    return "nudge"
                if any(op == "peek" for op, _ in _ops(new_markup)) or any(
                        d is not None and d.kind == "L" for d in self._decoded(new_markup)):
                    return "table message"
                return "other"
            if _is_hand(new_markup):
                return "new hand"
            if _any(NUDGES, new_text):
                return "nudge"
            return "result" if _any(RESULTS, new_text) else "other"
        if k != "edit":
            return "other"
        old_text, old_markup, old_at = self._old(record, message)
        changed = _changed(old_text, new_text)
        if changed and all(line.startswith(CLOCK) or not line.strip() for line in changed) \
                and new_markup == old_markup:
            return "clock"
        if group:
            if _any(RESULTS, new_text) and not _any(RESULTS, old_text):
                return "result"
            if changed and all(line.startswith(CLOCK) or _any(TURN_LINES, line) for line in changed):
                return "turn line"
            return "group line"
        if not _is_hand(new_markup) and not _is_hand(old_markup):
            return "result" if _any(RESULTS, new_text) else "other"
        if message is not None and any(old_at < at <= record.at for at in self.presses(message.chat_id,
                                                                                       message.message_id)):
            return "own press"
        if _any(RESULTS, new_text) and not _any(RESULTS, old_text):
            return "result"
        asked = asks_to_move(new_markup)
        if asked is not None and asked != asks_to_move(old_markup):
            return "next mover"
        if any(_any(NAMES_MOVER, line) for line in changed):
            return "turn line"
        return "waiting player"

    @staticmethod
    def _decoded(markup: dict[str, Any] | None) -> list[callbacks.Callback | None]:
        rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
        rows = rows if isinstance(rows, list) else []
        return [callbacks.decode(b.get("callback_data")) for row in rows for b in row if isinstance(b, dict)]

    @staticmethod
    def _new(record: CallRecord, message: Message | None) -> tuple[str | None, dict[str, Any] | None]:
        """The text and keyboard this call asked for (as shown, when Telegram took it)."""
        if isinstance(record.result, dict):
            return record.result.get("text") or record.result.get("caption"), record.result.get("reply_markup")
        text = record.params.get("text") or record.params.get("caption")
        markup = record.params.get("reply_markup")
        return (_strip_tags(text) if isinstance(text, str) else None,
                markup if isinstance(markup, dict) else None)

    @staticmethod
    def _old(record: CallRecord, message: Message | None) -> tuple[str | None, dict[str, Any] | None, float]:
        """The message's version before this call: text, keyboard, when it appeared."""
        if message is None:
            return None, None, float("-inf")
        before = [v for v in message.history if v.at < record.at]
        if not before:
            return None, None, float("-inf")
        return before[-1].text, before[-1].reply_markup, before[-1].at


def tally(records: Iterable[CallRecord], state: State) -> Counter[tuple[str, str]]:
    """Calls by (kind, reason); polling, start-up and membership checks left out."""
    classifier = Classifier(state)
    return Counter((kind(r.method), classifier.reason(r)) for r in records if r.method.lower() not in SKIPPED)


def per_play(counts: Counter[tuple[str, str]], plays: int) -> list[str]:
    """Lines of a report: calls per play by kind, then by reason (each with its kinds)."""
    n = max(1, plays)
    total = sum(counts.values())
    by_kind = Counter[str]()
    by_reason: dict[str, Counter[str]] = {}
    for (k, r), v in counts.items():
        by_kind[k] += v
        by_reason.setdefault(r, Counter())[k] += v
    lines = [f"calls per play ({plays} plays, {total} calls): {total / n:.2f}",
             "  by kind:   " + ", ".join(f"{k} {by_kind[k] / n:.2f}" for k in KINDS if by_kind[k])]
    cells = []
    for r in REASONS:
        if r in by_reason:
            split = " + ".join(f"{v / n:.2f} {k}" for k, v in by_reason[r].most_common())
            cells.append(f"{r} {sum(by_reason[r].values()) / n:.2f}"
                         + (f" ({split})" if len(by_reason[r]) > 1 else f" ({next(iter(by_reason[r]))})"))
    lines.append("  by reason: " + "; ".join(cells))
    return lines
