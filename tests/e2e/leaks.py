"""Checking that nothing hidden was ever shown: every message version against the hand at that moment.

:class:`Timeline` records the engine's hand after every change (with the
monotonic clock the fake server stamps message versions with).  Every
version of every bot message (the fake keeps each edit) and every popup is
then read card by card and checked against what its reader could know when
Telegram received it: their own cards (any they held so far in the hand),
the cards played, flipped and shown in public bids.  A version is rendered
before it reaches the server, and what may be known only grows during a
hand, so comparing with the state on arrival never flags a fair message.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.cards import BIG_JOKER, SMALL_JOKER, Card, rank_value
from engine.hand import Hand

from .fake_telegram import FakeTelegram
from .fake_telegram.markup import inline_buttons

CARD_LABEL = re.compile(r"([♠♥♦♣])(10|[2-9JQKA])|大王|小王|BJ|SJ")
_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def cards_in(text: str) -> Counter[Card]:
    """The cards a text names by their labels (``♠A``, ``♥10``, ``大王``/``BJ``, ``小王``/``SJ``)."""
    found: Counter[Card] = Counter()
    for match in CARD_LABEL.finditer(text):
        token = match.group(0)
        if token in ("大王", "BJ"):
            found[Card(BIG_JOKER)] += 1
        elif token in ("小王", "SJ"):
            found[Card(SMALL_JOKER)] += 1
        else:
            found[Card(rank_value(match.group(2)), _SUIT[match.group(1)])] += 1
    return found


@dataclass(frozen=True)
class Snapshot:
    """What was known at one moment of a hand."""

    at: float
    hand: int
    """The hand object's serial number (:meth:`Timeline.key`)."""
    held: tuple[Counter[Card], ...]
    public: Counter[Card]
    """Played and flipped cards, and the cards of every bid shown to all."""
    bids: tuple[tuple[int, Counter[Card]], ...]
    """Every bid so far (seat, cards), hidden or not."""
    hidden: bool
    """True while bids are hidden (暗炒 before the reveal)."""
    over: bool
    seed: int = 0
    """The deal's seed: the same deal rebuilt after a restart is another object with the same seed."""


@dataclass
class Leak:
    """A card someone saw before they could know it."""

    viewer: str
    at: float
    where: str
    text: str
    extra: Counter[Card]

    def __str__(self) -> str:
        cards = " ".join(f"{c}×{n}" for c, n in self.extra.items())
        return f"{self.viewer} saw {cards} too early in {self.where}: {self.text!r}"


@dataclass
class Timeline:
    """The states of the hands played while it was installed.

    Each hand object is known by a serial number of its own, not by ``id()`` alone: a hand freed (the bot's
    last match after a restart, a finished hand) leaves its address to a later object, and ``id()`` would then
    merge the two: the first hand's deal read as the later one's, so its own keyboards counted as leaks (two
    runs of ``bench/bench_seat_leaks.py`` in eight flagged 385 and 118 pieces that way, one of them on the
    code from before the change they were run for: a whole hand's keyboards, the first hand's own messages).
    So the timeline holds every hand it numbered, and no other object can take its address (a weak reference
    would not do: the compiled engine's ``Hand`` takes none).
    """

    snapshots: list[Snapshot] = field(default_factory=list)
    _serials: dict[int, tuple[Hand, int]] = field(default_factory=dict)
    _next: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def key(self, hand: Hand) -> int:
        """The hand object's serial number (given the first time it is asked)."""
        known = self._serials.get(id(hand))
        if known is None:
            known = self._serials[id(hand)] = (hand, next(self._next))
        return known[1]

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Record every hand dealt and every action applied from now on."""
        timeline = self
        original_init, original_apply = Hand.__init__, Hand.apply

        def init(hand: Hand, *args: object, **kwargs: object) -> None:
            original_init(hand, *args, **kwargs)  # type: ignore[arg-type]
            timeline.record(hand)

        def apply(hand: Hand, action: object) -> object:
            event = original_apply(hand, action)  # type: ignore[arg-type]
            timeline.record(hand)
            return event

        monkeypatch.setattr(Hand, "__init__", init)
        monkeypatch.setattr(Hand, "apply", apply)

    def record(self, hand: Hand) -> None:
        """Note the hand's state now."""
        hidden = hand.ruleset.hidden_bidding and not hand.trump_decided
        public: Counter[Card] = Counter(c for _seat, c in hand.flipped)
        for _seat, cards in hand.current:
            public.update(cards)
        for trick in hand.tricks:
            for _seat, cards in trick.plays:
                public.update(cards)
        bids = tuple((b.seat, Counter(b.cards)) for b in hand.bids)
        if not hidden:
            for _seat, shown in bids:
                public.update(shown)
        self.snapshots.append(Snapshot(time.monotonic(), self.key(hand), tuple(Counter(h) for h in hand.hands),
                                       public, bids, hidden, hand.over, hand.setup.seed))

    def of_hand(self, hand: Hand | int) -> list[Snapshot]:
        """The snapshots of one hand (or its serial number), oldest first."""
        key = hand if isinstance(hand, int) else self.key(hand)
        return [s for s in self.snapshots if s.hand == key]

    def allowed(self, hand: Hand | int, viewer: int | None, at: float) -> Counter[Card] | None:
        """How many of each card ``viewer`` (None: the group) could know of at ``at``; None once all is public."""
        known: Counter[Card] = Counter()
        current: Snapshot | None = None
        for snap in self.of_hand(hand):
            if snap.at > at:
                break
            current = snap
            if viewer is not None:
                known |= snap.held[viewer]  # every card they held so far
        if current is None:
            return Counter()
        if current.over:
            return None
        out = known + current.public
        if viewer is not None and current.hidden:
            for seat, cards in current.bids:
                if seat == viewer:
                    out |= cards
        return out

    def end(self, hand: Hand) -> float:
        """When the hand ended (or now, if it has not)."""
        for snap in self.of_hand(hand):
            if snap.over:
                return snap.at
        return time.monotonic()


def message_texts(server: FakeTelegram, chat_id: int) -> Iterator[tuple[float, str, str, bool]]:
    """(time, where, text, is_card_button) for every line and button of every version of the bot's messages."""
    for message in server.state.messages.get(chat_id, {}).values():
        if not message.from_bot:
            continue
        for index, version in enumerate(message.history):
            where = f"message {message.message_id} version {index}"
            for line in (version.text or "").split("\n"):
                yield version.at, where, line, False
            for row in inline_buttons(version.reply_markup):
                for button in row:
                    card_button = ":sel:" in (button.get("callback_data") or "")
                    yield version.at, where + " keyboard", button["text"], card_button


def find_leaks(server: FakeTelegram, timeline: Timeline, hand: Hand, viewers: Mapping[int, int | None]) -> list[Leak]:
    """Every card shown before its reader could know it, in the chats given (chat id → seat, None: the group).

    Each line of text and each button is checked on its own (a line never
    shows one card twice), and the card buttons of a keyboard together (they
    are the reader's hand).  Popups count for the person who saw them.
    """
    end = timeline.end(hand)
    leaks: list[Leak] = []

    def check(viewer: int | None, name: str, at: float, where: str, text: str, shown: Counter[Card]) -> None:
        if at >= end or not shown:
            return
        allowed = timeline.allowed(hand, viewer, at)
        if allowed is None:
            return
        extra = shown - allowed
        if extra:
            leaks.append(Leak(name, at, where, text, extra))

    for chat_id, viewer in viewers.items():
        name = "the group" if viewer is None else f"seat {viewer}"
        keyboards: dict[tuple[float, str], Counter[Card]] = {}
        for at, where, text, card_button in message_texts(server, chat_id):
            shown = cards_in(text)
            check(viewer, name, at, where, text, shown)
            if card_button:
                keyboards.setdefault((at, where), Counter()).update(shown)
        for (at, where), shown in keyboards.items():
            check(viewer, name, at, where, "(all card buttons)", shown)
        for query in server.state.callback_queries.values():
            if query.from_id == chat_id and query.answered and query.answer_text and query.answered_at is not None:
                check(viewer, name, query.answered_at, "a popup", query.answer_text, cards_in(query.answer_text))
    return leaks


@dataclass(frozen=True)
class Tenure:
    """A person's hold on a seat, from ``start`` until ``end`` (monotonic; None: to the end)."""

    seat: int
    start: float
    end: float | None = None


def _deal_of(version_markup: dict[str, object] | None) -> int | None:
    """The deal number a hand keyboard's buttons carry (``H:<table>:<deal>.<n>.<phase>:…``), if any."""
    for row in inline_buttons(version_markup):
        for button in row:
            data = button.get("callback_data") or ""
            parts = data.split(":")
            if len(parts) >= 4 and parts[0] == "H" and "." in parts[2]:
                return int(parts[2].split(".")[0])
    return None


@dataclass
class Scan:
    """What :func:`find_seat_leaks` read, and the leaks it found."""

    versions: int = 0
    """Message versions read."""
    popups: int = 0
    frames: int = 0
    """Web app stream events read (``state`` frames)."""
    leaks: list[Leak] = field(default_factory=list)


class SeatPermits:
    """What a person may see at a moment, given the seats they held and when.

    While they hold a seat, what that seat could know in the deal shown (a
    keyboard or a stream frame names its deal; else the deals under way
    then).  After a tenure ends, only what they knew when it ended and what
    the group sees: a later deal's hand, or the new occupant's cards, are
    leaks.
    """

    def __init__(self, timeline: Timeline, seed_of_deal: Callable[[int], int]) -> None:
        self.timeline = timeline
        self.seed_of_deal = seed_of_deal
        self.starts: dict[int, float] = {}
        self.seeds: dict[int, int] = {}
        for snap in timeline.snapshots:
            self.starts.setdefault(snap.hand, snap.at)
            self.seeds[snap.hand] = snap.seed

    def _hands_at(self, at: float) -> list[int]:
        """The two newest hand objects dealt by ``at`` (a render of the last deal may arrive after the next)."""
        dealt = sorted((start, hand) for hand, start in self.starts.items() if start <= at)
        return [hand for _start, hand in dealt[-2:]]

    def _candidates(self, moment: float, deal: int | None) -> list[int]:
        found = self._hands_at(moment)
        if deal is not None:
            wanted = self.seed_of_deal(deal)
            found = [h for h in found if self.seeds[h] == wanted]
        return found

    def allowed(self, tenures: Sequence[Tenure], at: float, deal: int | None) -> Counter[Card] | None:
        """How many of each card a reader with these tenures may see at ``at`` (None: everything, the
        hand is over)."""
        held = [t for t in tenures if t.start <= at]
        if not held:
            return Counter()
        tenure = held[-1]
        out: Counter[Card] = Counter()
        if tenure.end is not None and at >= tenure.end:
            # After leaving: what they knew when they left, and what the whole group sees now.
            for hand in self._candidates(at, deal):
                public = self.timeline.allowed(hand, None, at)
                if public is None:
                    return None
                out |= public
            moment = tenure.end
        else:
            moment = at
        for hand in self._candidates(moment, deal):
            known = self.timeline.allowed(hand, tenure.seat, moment)
            if known is None:
                return None
            out |= known
        return out


def frame_deal(state: Mapping[str, Any]) -> int | None:
    """The deal a web app state shows (its keyboard version starts with it; ``0``: no match yet)."""
    version = str(state.get("version") or "0")
    return int(version.split(".")[0]) if "." in version else None


def _notation_cards(text: str) -> Counter[Card]:
    found: Counter[Card] = Counter()
    for token in text.split():
        try:
            found[Card.parse(token)] += 1
        except ValueError:
            pass
    return found


def frame_pieces(state: Mapping[str, Any]) -> list[tuple[str, Counter[Card]]]:
    """Each part of a web app state that can name cards, with the cards it names: the hand, every card
    list of the engine's view, every line of the status text.  The last hand's result is left out: it is
    the group's announcement of a hand that is over."""
    pieces: list[tuple[str, Counter[Card]]] = [("hand", Counter(Card.parse(c) for c in state.get("hand") or []))]

    def walk(where: str, value: Any) -> None:
        if isinstance(value, str):
            shown = _notation_cards(value)
            if shown:
                pieces.append((f"{where}: {value}", shown))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{where}.{key}", item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(f"{where}[{index}]", item)

    walk("view", state.get("view"))
    for line in str(state.get("info") or "").split("\n"):
        pieces.append((line, cards_in(line)))
    return pieces


StreamFrames = tuple[Sequence[Tenure], Sequence[tuple[float, Mapping[str, Any]]]]
"""One web app stream: the tenure of the seat it was opened for, and its ``state`` frames (arrival time,
data)."""


def find_seat_leaks(server: FakeTelegram, timeline: Timeline, tenures: Mapping[int, list[Tenure]],
                    seed_of_deal: Callable[[int], int], streams: Sequence[StreamFrames] = ()) -> Scan:
    """Every card a person was shown that they could not know then, as seats changed hands (see
    :class:`SeatPermits`): every version of every message and every popup in each person's private chat
    (``tenures``: chat id → the seats that person held, and when), and every frame of the web app streams
    given (each with the tenure of the seat it was opened for)."""
    permits = SeatPermits(timeline, seed_of_deal)
    scan = Scan()

    def check(name: str, at: float, where: str, permitted: Counter[Card] | None,
              pieces: Sequence[tuple[str, Counter[Card]]]) -> None:
        if permitted is None:
            return
        for text, shown in pieces:
            extra = shown - permitted
            if extra:
                scan.leaks.append(Leak(name, at, where, text, extra))

    for chat_id, held in tenures.items():
        name = f"chat {chat_id}"
        for message in server.state.messages.get(chat_id, {}).values():
            if not message.from_bot:
                continue
            for index, version in enumerate(message.history):
                scan.versions += 1
                where = f"message {message.message_id} version {index}"
                pieces = [(line, cards_in(line)) for line in (version.text or "").split("\n")]
                keyboard: Counter[Card] = Counter()
                for row in inline_buttons(version.reply_markup):
                    for button in row:
                        shown = cards_in(button["text"])
                        pieces.append((button["text"], shown))
                        if ":sel:" in (button.get("callback_data") or ""):
                            keyboard.update(shown)
                pieces.append(("(all card buttons)", keyboard))
                check(name, version.at, where, permits.allowed(held, version.at, _deal_of(version.reply_markup)),
                      pieces)
        for query in server.state.callback_queries.values():
            if query.from_id == chat_id and query.answered and query.answer_text and query.answered_at is not None:
                scan.popups += 1
                check(name, query.answered_at, "a popup", permits.allowed(held, query.answered_at, None),
                      [(query.answer_text, cards_in(query.answer_text))])
    for number, (seats, frames) in enumerate(streams):
        for index, (at, state) in enumerate(frames):
            scan.frames += 1
            check(f"stream {number} (seat {seats[0].seat})", at, f"frame {index}",
                  permits.allowed(seats, at, frame_deal(state)), frame_pieces(state))
    return scan
