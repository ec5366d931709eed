"""What one seat may see of a hand, and what a spectator (the group) may see.

Hidden information lives here and nowhere else: other players' hands, the
kitty (only its last burier sees it, everyone once the hand is over; a
seat whose kitty was stolen still knows the 8 cards it buried), and,
under hidden bidding (暗炒), the cards and trump of other players' bids until
the reveal.  Rendering works from these views only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.bidding import Bid, BidRecord
from engine.cards import Card, format_cards
from engine.compiled import mypyc_attr
from engine.frozen import builder
from engine.hand import KITTY_SIZE, Hand, Phase, Trick, side_of
from engine.notices import Notice, ThrowFailed
from engine.scoring import Adjustment
from engine.special import HandResult


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True)
class BidView:
    """A bid as the viewer may see it: ``cards``, ``step`` and ``trump`` are None when hidden."""

    seat: int
    kind: str
    cards: tuple[Card, ...] | None
    step: str | None
    trump: str | None
    hidden: bool


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True)
class HandView:
    """One viewer's view of a hand (``viewer`` None: a spectator, the group)."""

    viewer: int | None
    preset: str
    number: int
    phase: Phase
    flag: bool
    level: int | None
    levels: tuple[int, int]
    dealer: int | None
    dealer_side: int | None
    trump: str | None
    trump_known: bool
    """False while hidden bids keep trump secret (暗炒 before the reveal)."""
    my_bid_trump: str | None
    """Under hidden bidding, the trump named by the viewer's own latest bid."""
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, int, int, int]
    bids: tuple[BidView, ...]
    flipped: tuple[Card, ...]
    kitty: tuple[Card, ...] | None
    """The kitty, for its burier and at the end; None otherwise."""
    kitty_holder: int | None
    """Who buried (or is burying) the kitty."""
    to_act: tuple[int, ...]
    turn: int | None
    passed: tuple[int, ...]
    current: tuple[tuple[int, tuple[Card, ...]], ...]
    tricks: tuple[Trick, ...]
    trick_points: int
    adjustments: tuple[Adjustment, ...]
    threshold: int
    result: HandResult | None
    escaped: int | None
    bid_history: tuple[BidRecord, ...] | None = None
    """The public bid history: under hidden bidding None until the steal rounds end (decision 17)."""
    notices: tuple[Notice, ...] = ()
    """Public facts told as they happened: failed throws, 逼红5, 保红5."""
    picked_up: tuple[Card, ...] = ()
    """While the viewer buries: the 8 cards they took from the kitty (they are in ``hand`` too)."""
    flip_decider: int | None = None
    """When nobody bid: the index in ``flipped`` of the card that set the trump."""
    flipped_by: tuple[int | None, ...] = ()
    """Who turned each flipped card (None when the kitty is turned for everyone)."""
    passed_kitty: tuple[Card, ...] = ()
    """The 8 cards the viewer last buried, once another seat has stolen the kitty since (empty otherwise)."""
    kitty_takers: tuple[int, ...] = ()
    """The seats that took the kitty after the viewer's last bury: ``passed_kitty`` is in their hands or the kitty."""

    @property
    def last_trick(self) -> Trick | None:
        """The most recent finished trick."""
        return self.tricks[-1] if self.tricks else None

    def is_attacker(self, seat: int) -> bool:
        """True if the seat is on the attacking side (once the dealer side is known), as :meth:`Hand.is_attacker`."""
        return self.dealer_side is not None and side_of(seat) != self.dealer_side

    @property
    def attacker_points(self) -> int:
        """p as far as it is public: trick points plus adjustments (the result's p at the end)."""
        if self.result is not None:
            return self.result.attacker_points
        return self.trick_points + sum(a.points for a in self.adjustments)

    def visible_cards(self) -> list[Card]:
        """Every card this view shows, for tests that nothing hidden leaks."""
        out: list[Card] = list(self.hand) + list(self.flipped)
        for bid in self.bids:
            out += list(bid.cards or ())
        out += list(self.kitty or ())
        out += list(self.passed_kitty)
        for _seat, cards in self.current:
            out += list(cards)
        for trick in self.tricks:
            for _seat, cards in trick.plays:
                out += list(cards)
        if self.result is not None:
            out += list(self.result.kitty)
        for record in self.bid_history or ():
            out += list(record.cards)
        for notice in self.notices:
            if isinstance(notice, ThrowFailed):
                out += list(notice.thrown) + list(notice.beaten_with)
            else:
                out += list(notice.cards)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "viewer": self.viewer, "preset": self.preset, "number": self.number, "phase": self.phase,
            "flag": self.flag, "level": self.level, "levels": list(self.levels), "dealer": self.dealer,
            "dealer_side": self.dealer_side, "trump": self.trump, "trump_known": self.trump_known,
            "my_bid_trump": self.my_bid_trump, "hand": format_cards(self.hand), "hand_sizes": list(self.hand_sizes),
            "bids": [{"seat": b.seat, "kind": b.kind, "cards": None if b.cards is None else format_cards(b.cards),
                      "step": b.step, "trump": b.trump, "hidden": b.hidden} for b in self.bids],
            "flipped": format_cards(self.flipped),
            "kitty": None if self.kitty is None else format_cards(self.kitty),
            "kitty_holder": self.kitty_holder, "to_act": list(self.to_act), "turn": self.turn,
            "passed": list(self.passed),
            "current": [[s, format_cards(c)] for s, c in self.current],
            "tricks": [{"leader": t.leader, "winner": t.winner, "points": t.points,
                        "plays": [[s, format_cards(c)] for s, c in t.plays]} for t in self.tricks],
            "trick_points": self.trick_points,
            "adjustments": [{"reason": a.reason, "seat": a.seat, "points": a.points} for a in self.adjustments],
            "threshold": self.threshold, "result": None if self.result is None else self.result.to_dict(),
            "escaped": self.escaped,
            "bid_history": None if self.bid_history is None else [b.to_dict() for b in self.bid_history],
            "notices": [n.to_dict() for n in self.notices],
            "picked_up": format_cards(self.picked_up),
            "flip_decider": self.flip_decider, "flipped_by": list(self.flipped_by),
            "passed_kitty": format_cards(self.passed_kitty), "kitty_takers": list(self.kitty_takers),
        }


_HAND_VIEW = builder(HandView)
"""A :class:`HandView` from its 35 fields (frozen, it would set each through ``object.__setattr__``)."""

_BID_VIEW = builder(BidView)
"""A :class:`BidView` from its fields."""


def _public_kind(kind: str, order: int) -> str:
    """What the others may know of a hidden bid: a declaration, an override or a steal.

    A reinforce or a look-back would tell them that the bidder holds both copies.
    """
    if kind == "steal":
        return "steal"
    return "declare" if order == 0 else "override"


def view_for(hand: Hand, viewer: int | None) -> HandView:
    """The view of ``viewer`` (a seat), or of a spectator when ``viewer`` is None."""
    trump_known = hand.trump_decided
    hidden = hand.ruleset.hidden_bidding and not trump_known
    hand_bids = hand.bids
    bids, my_bid_trump = _bid_views(hand_bids, hidden, viewer) if hand_bids else ((), None)
    phase = hand.phase
    # hand.turn, by the phase (asked of every view): the player's, the burier's, the next stealer's or nobody's.
    if phase == "playing":
        leader = hand.leader
        assert leader is not None
        turn: int | None = (leader + len(hand.current)) % 4
    else:
        turn = hand.turn if phase in ("burying", "stealing") else None
    flipped = hand.flipped
    hands = hand.hands
    setup = hand.setup
    burier = hand.burier
    kitty: tuple[Card, ...] | None = None
    if phase in _OVER_SHOWN:  # the kitty is shown once the hand is over, but for a redeal
        kitty = tuple(hand.kitty)
    elif hand.buried and viewer is not None and viewer == burier and phase in ("stealing", "playing"):
        kitty = tuple(hand.kitty)
    passed, takers = _passed_kitty(hand, viewer) if hand.buries else ((), ())
    flipped_cards, flipped_by = _flips(flipped) if flipped else ((), ())
    # Positional, in the order of HandView's fields (a view is built for every decision of a hand,
    # and 35 keywords cost more than the rest of the view): each line names its field.
    return _HAND_VIEW(
        viewer,  # viewer
        hand.ruleset.name,  # preset
        setup.number,  # number
        phase,  # phase
        setup.flag,  # flag
        hand.level,  # level
        setup.levels,  # levels
        hand.dealer,  # dealer
        hand.dealer_side,  # dealer_side
        hand.trump if trump_known else None,  # trump
        trump_known,  # trump_known
        my_bid_trump,  # my_bid_trump
        tuple(hands[viewer]) if viewer is not None else (),  # hand
        (len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])),  # hand_sizes
        bids,  # bids
        flipped_cards,  # flipped
        kitty,  # kitty
        burier,  # kitty_holder
        (0, 1, 2, 3) if phase == "bidding" else () if turn is None else (turn,),  # to_act: hand.to_act(), sorted
        turn,  # turn
        tuple(sorted(hand.passed)) if phase == "bidding" else (),  # passed
        tuple(hand.current),  # current
        tuple(hand.tricks),  # tricks
        hand.trick_points,  # trick_points
        tuple(hand.adjustments),  # adjustments
        hand.threshold,  # threshold
        hand.result,  # result
        hand.escaped,  # escaped
        None if hidden else hand.bid_history if hand_bids else (),  # bid_history (its own test first)
        tuple(hand.notices),  # notices
        # picked_up: taking the kitty appends its cards to the taker's hand, so while they bury they are its last 8.
        (tuple(hands[viewer][-KITTY_SIZE:]) if viewer is not None and viewer == burier and phase == "burying"
         else ()),
        hand.flip_decider,  # flip_decider
        flipped_by,  # flipped_by
        passed,  # passed_kitty
        takers,  # kitty_takers
    )


_OVER_SHOWN = frozenset(("finished", "abandoned"))
"""The phases in which a hand is over and shows its kitty (a redeal shows none)."""

_FLIPS_SEEN: list[tuple[tuple[tuple[int | None, Card], ...], tuple[tuple[Card, ...], tuple[int | None, ...]]]] = []
"""The last flipped cards split (a hand's flips are set once, and then its every view shows them)."""


def _flips(flipped: tuple[tuple[int | None, Card], ...]) -> tuple[tuple[Card, ...], tuple[int | None, ...]]:
    """The flipped cards, and who turned each."""
    # The tuple is held in the entry, so its identity cannot pass to another while it is kept.
    if _FLIPS_SEEN and _FLIPS_SEEN[0][0] is flipped:
        return _FLIPS_SEEN[0][1]
    split = (tuple(c for _seat, c in flipped), tuple(seat for seat, _c in flipped))
    _FLIPS_SEEN[:] = [(flipped, split)]
    return split


_BIDS_SEEN: dict[int | None, tuple[list[Bid], int, bool, tuple[BidView, ...], str | None]] = {}
"""Per viewer, the last bids shown: the hand's list of bids, how many, whether hidden, their views and the viewer's
last bid's trump (a hand's bids change only in the bidding and steal rounds; a view is built at every decision)."""


def _bid_views(bids: list[Bid], hidden: bool, viewer: int | None) -> tuple[tuple[BidView, ...], str | None]:
    """The bids as ``viewer`` may see them, and the trump of the viewer's last bid (None if it made none)."""
    if not bids:
        return (), None
    seen = _BIDS_SEEN.get(viewer)
    # The list itself is held in the entry, so its identity cannot pass to another hand's list while listed;
    # a hand's bids are only ever appended to (immutable records).
    if seen is not None and seen[0] is bids and seen[1] == len(bids) and seen[2] == hidden:
        return seen[3], seen[4]
    views = tuple(
        _BID_VIEW(b.seat, _public_kind(b.kind, b.order), None, None, None, True)
        if hidden and b.seat != viewer else
        _BID_VIEW(b.seat, b.kind, b.cards, b.step, b.trump, False)
        for b in bids
    )
    own = [b for b in bids if b.seat == viewer]
    trump = own[-1].trump if own else None
    _BIDS_SEEN[viewer] = (bids, len(bids), hidden, views, trump)
    return views, trump


_PASSED_SEEN: dict[int, tuple[list[tuple[int, tuple[Card, ...]]], int, int | None,
                             tuple[tuple[Card, ...], tuple[int, ...]]]] = {}
"""Per viewer, the last :func:`_passed_kitty`: the hand's list of buries, how many, the burier, and the answer
(a hand's buries change only in the bury and steal rounds, and only by a bury appended)."""


def _passed_kitty(hand: Hand, viewer: int | None) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """The cards ``viewer`` last buried and the seats that took the kitty since, if any did."""
    buries = hand.buries
    if viewer is None or not buries or viewer == hand.burier:
        return (), ()
    seen = _PASSED_SEEN.get(viewer)
    if seen is not None and seen[0] is buries and seen[1] == len(buries) and seen[2] == hand.burier:
        return seen[3]
    found = _passed_kitty_of(hand, viewer)
    _PASSED_SEEN[viewer] = (buries, len(buries), hand.burier, found)
    return found


def _passed_kitty_of(hand: Hand, viewer: int) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """:func:`_passed_kitty`, worked out."""
    buries = hand.buries
    mine = [i for i, (seat, _cards) in enumerate(buries) if seat == viewer]
    if not mine:
        return (), ()
    takers = [seat for seat, _cards in buries[mine[-1] + 1:]]
    if hand.burier is not None and hand.burier not in takers:
        takers.append(hand.burier)  # still burying what it took
    return buries[mine[-1]][1], tuple(dict.fromkeys(takers))
