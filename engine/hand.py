"""One hand of 炒地皮 as a state machine (RULES.md §2.6, binding decisions 4–7).

Phases: ``bidding`` → ``burying`` ⇄ ``stealing`` → ``playing`` → ``finished``
(or ``redeal`` when hand 1 has no bid, ``abandoned`` when a player escapes).
The flag hand (扛旗) starts in ``playing``.

Every action has three forms, as in pokerkit: ``check_x`` raises a typed
error with a reason a player can read, ``can_x`` answers yes or no, and
``x`` applies it and returns the :class:`Event` that the log stores.  The
state is a pure function of the setup (ruleset, seed, levels …) and the list
of actions: :meth:`Hand.replay` rebuilds it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from engine.bidding import Bid, BidKind, BidRecord, judge_bid, ranks_above
from engine.cards import RED_FIVE, Card, deal, format_cards, parse_cards
from engine.combos import Shape
from engine.compiled import mypyc_attr
from engine.counting import remove_cards
from engine.errors import IllegalActionError
from engine.follow import check_follow, check_lead, red_fives_forced
from engine.frozen import builder
from engine.notices import Notice, RedFive, ThrowFailed
from engine.ruleset import Ruleset
from engine.scoring import Adjustment, trick_points
from engine.settle import red_fives_forced_out, red_fives_kept, score_last_trick
from engine.special import HandResult, score_escape
from engine.throws import judge_throw, throw_penalty
from engine.tricks import trick_winner_in
from engine.trump import TrumpContext, trump_context

Phase = Literal["bidding", "burying", "stealing", "playing", "finished", "redeal", "abandoned"]
ActionKind = Literal["bid", "pass", "close", "bury", "steal", "pass_steal", "play", "escape"]
KITTY_SIZE = 8


def side_of(seat: int) -> int:
    """The partnership of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def next_seat(seat: int) -> int:
    """The next seat in turn order (counter-clockwise, decision 10)."""
    return (seat + 1) % 4


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything a hand starts from besides its actions."""

    ruleset: Ruleset
    seed: int
    number: int = 1
    """Hand number within the match, from 1."""
    levels: tuple[int, int] = (2, 2)
    """Level rank of side 0 (seats 0, 2) and side 1 (seats 1, 3)."""
    dealer_side: int | None = None
    """The dealer side; None when the bids decide it (the first hand)."""
    previous_dealer: int | None = None
    """Last hand's dealer: first to flip, and the fall-back dealer."""
    flag: bool = False
    """The flag hand (扛旗): no-trump, no level rank, no kitty, θ = flag threshold."""
    flag_dealer: int | None = None
    """Who deals the flag hand."""

    def __post_init__(self) -> None:
        if self.dealer_side is None and self.levels[0] != self.levels[1] and not self.flag:
            raise IllegalActionError(
                "When the bids choose the dealer side, both sides must be at the same level.",
                code="bad_setup",
            )
        if self.flag and self.flag_dealer is None:
            raise IllegalActionError("A flag hand needs its dealer.", code="bad_setup")

    @property
    def level(self) -> int | None:
        """The hand's level rank L (None in the flag hand)."""
        if self.flag:
            return None
        return self.levels[self.dealer_side if self.dealer_side is not None else 0]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "ruleset": self.ruleset.to_dict(), "seed": self.seed, "number": self.number,
            "levels": list(self.levels), "dealer_side": self.dealer_side,
            "previous_dealer": self.previous_dealer, "flag": self.flag, "flag_dealer": self.flag_dealer,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandSetup:
        """The inverse of :meth:`to_dict`."""
        return cls(
            ruleset=Ruleset.from_dict(data["ruleset"]), seed=int(data["seed"]), number=int(data["number"]),
            levels=(int(data["levels"][0]), int(data["levels"][1])), dealer_side=data["dealer_side"],
            previous_dealer=data["previous_dealer"], flag=bool(data["flag"]), flag_dealer=data["flag_dealer"],
        )


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True)
class Action:
    """A player's (or the clock's) action: the input that the log replays."""

    kind: ActionKind
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    trump: str | None = None
    """The bidder's choice of trump for a red-five or big-joker pair (None: no-trump)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.cards:
            out["cards"] = format_cards(self.cards)
        if self.trump is not None:
            out["trump"] = self.trump
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        """The inverse of :meth:`to_dict`."""
        return cls(data["kind"], data.get("seat"), tuple(parse_cards(data.get("cards", ""))), data.get("trump"))


class EventInfo(TypedDict, total=False):
    """What an action did besides itself, each key only where it applies (the JSON of :meth:`Event.to_dict`)."""

    bid: BidKind
    """The kind of bid or steal made."""
    closed: bool
    """The bidding closed."""
    dealer: int | None
    """Who deals, once the bidding closed."""
    redeal: bool
    """Nobody bid in the first hand: it is dealt again."""
    flipped: str
    """The kitty cards turned to set the trump (nobody bid)."""
    trump: str | None
    """The trump the hand is played in, once it is known."""
    revealed: list[dict[str, object]]
    """Every bid, shown when hidden bidding ends."""
    throw_failed: bool
    """A throw was judged failed (甩牌失败)."""
    played: str
    """The cards a failed throw really played."""
    penalty: int
    """A failed throw's change to the attackers' score p."""
    trick: int
    """The trick (1-based) this play finished."""
    winner: int
    """Who won it."""
    points: int
    """The points in it."""
    hand_over: bool
    """It was the hand's last trick."""
    escaped: int
    """The seat that left the hand (逃跑)."""


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True)
class Event:
    """What one action did: the action itself and its consequences (``info``)."""

    seq: int
    """1-based position in the hand's log."""
    action: Action
    info: EventInfo
    """Consequences, e.g. the cards a throw really played, a trick's winner, the close of bidding."""
    notices: tuple[Notice, ...] = ()
    """The public facts this action told (a failed throw, red fives forced out or kept), in order."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the notices in ``info``, last)."""
        info: dict[str, object] = dict(self.info)
        if self.notices:
            info["notices"] = [n.to_dict() for n in self.notices]
        return {"seq": self.seq, **self.action.to_dict(), "info": info}


@mypyc_attr(native_class=False)  # a record (see setup.py)
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Trick:
    """A finished trick (weakly referable: the AI keeps running totals per trick only while it lives)."""

    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    """(seat, cards) in play order."""
    winner: int
    points: int


_OVER = frozenset(("finished", "redeal", "abandoned"))
"""The phases of a hand that is over."""

_EVENT = builder(Event)
"""An :class:`Event` from all its fields (built at every action)."""


class Hand:
    """The state of one hand; drive it with actions, read it through views."""

    def __init__(self, setup: HandSetup) -> None:
        self.setup = setup
        self.ruleset = setup.ruleset
        self.level: int | None = setup.level
        self.phase: Phase = "bidding"
        hands, kitty = deal(setup.seed, 0 if setup.flag else KITTY_SIZE)
        self.hands: list[list[Card]] = hands
        self.kitty: list[Card] = kitty
        self.dealer: int | None = None
        self.dealer_side: int | None = setup.dealer_side
        self.trump: str | None = None
        self.trump_decided = False
        self.bids: list[Bid] = []
        self.shown: list[Counter[Card]] = [Counter() for _ in range(4)]
        self.passed: set[int] = set()
        self.standing: Bid | None = None
        self.look_back_right: tuple[int, Card] | None = None
        """The seat (and card) that may look back (回头望) against the standing bid, if any."""
        self.stood: list[bool] = []
        """For each bid, whether it became the standing bid when made."""
        self.steal_points: dict[int, int] = {}
        """Failed hidden steals' change to p, by bid order (set at the reveal)."""
        self.flipped: tuple[tuple[int | None, Card], ...] = ()
        self.flip_decider: int | None = None
        """When nobody bid: the index in :attr:`flipped` of the card that set the trump (decision 17)."""
        self.steals_allowed = self.ruleset.kitty_steal
        self.threshold = self.ruleset.threshold
        self.burier: int | None = None
        self.buried = False
        self.buries: list[tuple[int, tuple[Card, ...]]] = []
        """Every bury of the hand in order: the seat and its 8 cards (a stolen kitty's are known to its burier)."""
        self.steal_queue: list[int] = []
        self.leader: int | None = None
        self.current: list[tuple[int, tuple[Card, ...]]] = []
        self.tricks: list[Trick] = []
        self.trick_points = 0
        self.adjustments: list[Adjustment] = []
        self._pending_red5: list[tuple[int, int]] = []
        self.notices: list[Notice] = []
        """Public facts told as they happen: failed throws, 逼红5, 保红5 (decision 17)."""
        self.result: HandResult | None = None
        self.escaped: int | None = None
        self.events: list[Event] = []
        self._bid_history: tuple[tuple[int, int | None, int], tuple[BidRecord, ...]] | None = None
        """The last :attr:`bid_history`, with the bid count, the standing bid and the failed steals it was made for."""
        self._ctx: TrumpContext | None = None
        """The last trump context :attr:`ctx` gave (asked for at every play: a cache lookup hashes the ruleset)."""
        if setup.flag:
            self._start_flag_hand()

    # --- derived state -----------------------------------------------------------
    @property
    def ctx(self) -> TrumpContext:
        """The trump context of the hand (provisional until trump is decided)."""
        cached = self._ctx
        if cached is not None and cached.level == self.level and cached.trump == self.trump \
                and cached.ruleset is self.ruleset:
            return cached
        self._ctx = cached = trump_context(self.ruleset, self.level, self.trump)
        return cached

    @property
    def actions(self) -> list[Action]:
        """The actions applied so far, in order."""
        return [e.action for e in self.events]

    @property
    def attacker_points(self) -> int:
        """The attackers' score p so far: trick points plus adjustments (the kitty comes at the end)."""
        if self.result is not None:
            return self.result.attacker_points
        return self.trick_points + sum(a.points for a in self.adjustments)

    @property
    def bid_history(self) -> tuple[BidRecord, ...] | None:
        """The public bid history (decision 17), or None while hidden bids are still secret.

        Under hidden bidding (暗炒) it is public from the end of the steal
        rounds; under open bidding from the first bid.
        """
        if self.ruleset.hidden_bidding and not self.trump_decided:
            return None
        final = self.standing.order if self.standing is not None else None
        # Every view asks for it: the records change only with a bid (the standing one included) or a reveal.
        key = (len(self.bids), final, len(self.steal_points))
        if self._bid_history is not None and self._bid_history[0] == key:
            return self._bid_history[1]
        history = tuple(
            BidRecord(b.seat, b.cards, b.step, b.trump, b.kind, self.stood[b.order], b.order == final,
                      self.steal_points.get(b.order, 0))
            for b in self.bids
        )
        self._bid_history = (key, history)
        return history

    def is_attacker(self, seat: int) -> bool:
        """True if the seat is on the attacking side (once the dealer side is known)."""
        return self.dealer_side is not None and side_of(seat) != self.dealer_side

    @property
    def turn(self) -> int | None:
        """The one seat whose move it is, or None in bidding (everyone) and at the end."""
        if self.phase == "burying":
            return self.burier
        if self.phase == "stealing":
            return self.steal_queue[0]
        if self.phase == "playing":
            assert self.leader is not None
            return (self.leader + len(self.current)) % 4
        return None

    def to_act(self) -> set[int]:
        """The seats that may act now (all four in bidding)."""
        if self.phase == "bidding":
            return {0, 1, 2, 3}
        turn = self.turn
        return set() if turn is None else {turn}

    def awaiting(self) -> list[int]:
        """The seats whose action the hand waits for: in bidding, those who have not passed since the last bid."""
        if self.phase == "bidding":
            return [s for s in range(4) if s not in self.passed]
        return sorted(self.to_act())

    @property
    def over(self) -> bool:
        """True once the hand is finished, redealt or abandoned."""
        return self.phase in _OVER

    @property
    def cards_played(self) -> bool:
        """True once any card has been played (escape before this is free)."""
        return bool(self.tricks or self.current)

    # --- generic check / apply ----------------------------------------------------
    def check(self, action: Action) -> None:
        """Raise a typed error with a reason if ``action`` is not allowed now."""
        self._check(action)

    def _check(self, action: Action) -> Shape | None:
        """:meth:`check`, returning a lead's shape (None for any other action), which applying it needs again."""
        kind = action.kind
        if kind == "close":
            if self.phase != "bidding":
                raise IllegalActionError("Bidding is not open.", code="wrong_phase")
            return None
        seat = action.seat
        if seat not in (0, 1, 2, 3):
            raise IllegalActionError("There is no such seat.", code="bad_seat")
        if self.phase in _OVER:  # self.over
            raise IllegalActionError("This hand is over.", code="hand_over")
        match kind:  # the commonest first
            case "play":
                return self._check_play(seat, action)
            case "pass":
                self._check_pass(seat, action)
            case "bid":
                self._check_bid(seat, action)
            case "bury":
                self._check_bury(seat, action)
            case "steal":
                self._check_steal(seat, action)
            case "pass_steal":
                self._check_pass_steal(seat, action)
            case "escape":
                pass  # a seated player may always leave
            case _:  # a kind from outside the log (the type says it cannot be, the input may)
                raise IllegalActionError("There is no such action.", code="bad_action", kind=str(kind))
        return None

    def can(self, action: Action) -> bool:
        """True if ``action`` is allowed now."""
        try:
            self.check(action)
        except IllegalActionError:
            return False
        except ValueError:
            return False
        return True

    def apply(self, action: Action) -> Event:
        """Check and apply an action; return its event (also appended to :attr:`events`)."""
        shape = self._check(action)
        notices = self.notices
        told = len(notices)
        info = self._do_play(action, shape) if action.kind == "play" else self._do(action)
        event = _EVENT(len(self.events) + 1, action, info, tuple(notices[told:]) if len(notices) > told else ())
        self.events.append(event)
        return event

    def _do(self, action: Action) -> EventInfo:
        """Apply a checked action but a play (:meth:`_do_play`); return its consequences."""
        match action.kind:  # the commonest first
            case "pass":
                return self._do_pass(action)
            case "bid":
                return self._do_bid(action)
            case "close":
                return self._do_close(action)
            case "bury":
                return self._do_bury(action)
            case "steal":
                return self._do_steal(action)
            case "pass_steal":
                return self._do_pass_steal(action)
            case _:  # "escape", the one kind left (apply sends a play to _do_play)
                return self._do_escape(action)

    def simulate_play(self, action: Action) -> None:
        """Apply a play without checking it or recording an event: for simulations only.

        The AI's rollouts play thousands of hands a decision with players
        that build legal plays by construction (a test replays rollouts
        through :meth:`apply` to hold them to it); anything from a person
        goes through :meth:`apply`.  An illegal play here corrupts the hand.
        """
        if action.kind != "play" or self.phase != "playing" or action.seat != self.turn:
            raise IllegalActionError("Only the seat to play may play.", code="not_your_turn")
        self._do_play(action)

    # --- named forms (check_x / can_x / x) -----------------------------------------
    def check_bid(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> None:
        """Raise unless the seat may bid (亮主/反主/加固/回头望) these cards now."""
        self.check(Action("bid", seat, tuple(cards), trump))

    def can_bid(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> bool:
        """True if the seat may bid these cards now."""
        return self.can(Action("bid", seat, tuple(cards), trump))

    def bid(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> Event:
        """Bid; ``trump`` is the choice for a red-five pair or a big-joker pair that names a suit."""
        return self.apply(Action("bid", seat, tuple(cards), trump))

    def check_pass(self, seat: int) -> None:
        """Raise unless the seat may pass in the bidding now."""
        self.check(Action("pass", seat))

    def can_pass(self, seat: int) -> bool:
        """True if the seat may pass in the bidding now."""
        return self.can(Action("pass", seat))

    def pass_bid(self, seat: int) -> Event:
        """Pass in the bidding; the fourth pass since the last bid closes it."""
        return self.apply(Action("pass", seat))

    def close(self) -> Event:
        """Close the bidding (the table's timer ran out)."""
        return self.apply(Action("close"))

    def check_bury(self, seat: int, cards: Sequence[Card]) -> None:
        """Raise unless the seat may bury these 8 cards now."""
        self.check(Action("bury", seat, tuple(cards)))

    def can_bury(self, seat: int, cards: Sequence[Card]) -> bool:
        """True if the seat may bury these cards now."""
        return self.can(Action("bury", seat, tuple(cards)))

    def bury(self, seat: int, cards: Sequence[Card]) -> Event:
        """Bury 8 cards as the kitty (扣底)."""
        return self.apply(Action("bury", seat, tuple(cards)))

    def check_steal(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> None:
        """Raise unless the seat may steal the kitty (抄底) with these cards now."""
        self.check(Action("steal", seat, tuple(cards), trump))

    def can_steal(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> bool:
        """True if the seat may steal with these cards now."""
        return self.can(Action("steal", seat, tuple(cards), trump))

    def steal(self, seat: int, cards: Sequence[Card], trump: str | None = None) -> Event:
        """Steal the kitty with a bid; the stealer then buries."""
        return self.apply(Action("steal", seat, tuple(cards), trump))

    def check_pass_steal(self, seat: int) -> None:
        """Raise unless it is the seat's turn to steal or pass."""
        self.check(Action("pass_steal", seat))

    def can_pass_steal(self, seat: int) -> bool:
        """True if the seat may decline to steal now."""
        return self.can(Action("pass_steal", seat))

    def pass_steal(self, seat: int) -> Event:
        """Decline to steal (不抄)."""
        return self.apply(Action("pass_steal", seat))

    def check_play(self, seat: int, cards: Sequence[Card]) -> None:
        """Raise unless the seat may play (lead or follow with) these cards now."""
        self.check(Action("play", seat, tuple(cards)))

    def can_play(self, seat: int, cards: Sequence[Card]) -> bool:
        """True if the seat may play these cards now."""
        return self.can(Action("play", seat, tuple(cards)))

    def play(self, seat: int, cards: Sequence[Card]) -> Event:
        """Play cards to the current trick (a failed throw plays only its forced part)."""
        return self.apply(Action("play", seat, tuple(cards)))

    def escape(self, seat: int) -> Event:
        """A player leaves mid-hand (逃跑): the hand is abandoned and scored by the escape rule."""
        return self.apply(Action("escape", seat))

    # --- bidding --------------------------------------------------------------------
    def _classify_bid(self, seat: int, cards: Sequence[Card], choice: str | None, *, steal: bool) -> Bid:
        """Work out what kind of bid this would be, or raise why it is refused (:func:`engine.bidding.judge_bid`)."""
        r = self.ruleset
        own = [b for b in self.bids if b.seat == seat]
        last_own = own[-1] if own else None
        someone_since = last_own is not None and any(b.seat != seat for b in self.bids[last_own.order + 1:])
        kind, step, trump = judge_bid(
            r, self.level, cards, choice, steal=steal, hand=self.hands[seat], shown=self.shown[seat],
            opening=not self.bids, last_own=last_own, someone_since=someone_since,
            may_look_back=bool(cards) and self.look_back_right == (seat, cards[0]),
            standing_step=self.standing.step if not r.hidden_bidding and self.standing is not None else None,
            keep_single=r.hidden_bidding and r.look_back,
        )
        return Bid(seat, tuple(cards), step, trump, kind, len(self.bids))

    def _check_bid(self, seat: int, action: Action) -> None:
        if self.phase != "bidding":
            raise IllegalActionError("Bidding is closed.", code="wrong_phase")
        self._classify_bid(seat, action.cards, action.trump, steal=False)

    def _record_bid(self, bid: Bid) -> None:
        self.bids.append(bid)
        shown = self.shown[bid.seat]
        for card, n in Counter(bid.cards).items():
            shown[card] = max(shown[card], n)
        r = self.ruleset
        stands = self.standing is None or not r.hidden_bidding or ranks_above(r, bid, self.standing)
        self.stood.append(stands)
        if stands:
            # 回头望 (decision 15): the seat whose single stood when this bid overrode it may look
            # back with the same card, and only while this override stands.
            fallen = self.standing
            self.look_back_right = (
                (fallen.seat, fallen.cards[0])
                if r.look_back and fallen is not None and fallen.step == "single" and fallen.seat != bid.seat
                else None
            )
            self.standing = bid

    def _do_bid(self, action: Action) -> EventInfo:
        assert action.seat is not None
        bid = self._classify_bid(action.seat, action.cards, action.trump, steal=False)
        self._record_bid(bid)
        self.passed = set()  # decision 4: all four, the bidder too, must pass after the last bid
        return {"bid": bid.kind}

    def _check_pass(self, seat: int, action: Action) -> None:
        if self.phase != "bidding":
            raise IllegalActionError("Bidding is closed.", code="wrong_phase")

    def _do_pass(self, action: Action) -> EventInfo:
        assert action.seat is not None
        self.passed.add(action.seat)
        if len(self.passed) == 4:
            return self._close_bidding()
        return {}

    def _do_close(self, action: Action) -> EventInfo:
        return self._close_bidding()

    def _close_bidding(self) -> EventInfo:
        r = self.ruleset
        if self.standing is not None:
            bid = self.standing
            self.trump = bid.trump
            if self.dealer_side is None:
                first = bid.seat
                if r.first_dealer == "first_level_bidder":
                    first = next((b.seat for b in self.bids
                                  if all(c.rank == self.level and not c.is_joker for c in b.cards)), bid.seat)
                self.dealer = first
                self.dealer_side = side_of(first)
            else:
                self.dealer = self._dealer_from(bid.seat)
            self.trump_decided = not r.hidden_bidding
            self._give_kitty(self.dealer)
            return {"closed": True, "dealer": self.dealer}
        if self.dealer_side is None and r.first_hand_no_bid == "redeal":
            self.phase = "redeal"
            return {"closed": True, "redeal": True}
        return self._flip_kitty()

    def _dealer_from(self, seat: int) -> int:
        """自放自打 / 上放下打 (A32): the setter deals if on the dealer side, else the next seat."""
        assert self.dealer_side is not None
        return seat if side_of(seat) == self.dealer_side else next_seat(seat)

    def _flip_kitty(self) -> EventInfo:
        """Trump from the kitty when nobody bid (§2.6.2, A12, A13); no steals follow."""
        r = self.ruleset
        level = self.level
        assert level is not None
        kitty = self.kitty
        first = self.setup.previous_dealer if self.setup.previous_dealer is not None else 0
        decider: int | None = None  # index into kitty
        trump: str | None
        if r.later_no_bid == "flip_in_turn" or (self.dealer_side is None and r.first_hand_no_bid == "flip_in_turn"):
            decider = next((i for i, c in enumerate(kitty) if c.rank == level and not c.is_joker), None)
            turned = len(kitty) if decider is None else decider + 1
            if decider is None:
                plain = [(i, c) for i, c in enumerate(kitty) if not c.is_joker]
                decider = max(plain, key=lambda ic: (ic[1].rank, -ic[0]))[0]
            trump = kitty[decider].suit
            flips: tuple[tuple[int | None, Card], ...] = tuple(
                ((first + i) % 4, c) for i, c in enumerate(kitty[:turned]))
            setter = (first + decider) % 4
        elif r.later_no_bid == "first_card":
            card = kitty[0]
            trump = card.suit
            decider = 0
            flips = ((None, card),)
            if card.is_joker and r.flipped_joker_threshold is not None:
                self.threshold = r.flipped_joker_threshold
            setter = first
        else:  # first_level_card
            red5 = r.red5_trump
            decider = next((i for i, c in enumerate(kitty)
                            if c.is_joker or (c.rank == level and not (red5 and c is RED_FIVE))), None)
            turned = len(kitty) if decider is None else decider + 1
            if decider is None:
                decider = next(i for i, c in enumerate(kitty) if not (red5 and c is RED_FIVE))
            trump = kitty[decider].suit
            flips = tuple((None, c) for c in kitty[:turned])
            setter = first
        self.flipped = flips
        self.flip_decider = decider
        self.trump = trump
        self.trump_decided = True
        self.steals_allowed = False
        if self.dealer_side is None:
            self.dealer = setter
            self.dealer_side = side_of(setter)
        else:
            self.dealer = self._dealer_from(setter)
        self._give_kitty(self.dealer)
        return {"closed": True, "flipped": format_cards(c for _, c in flips), "dealer": self.dealer,
                "trump": trump}

    def _give_kitty(self, seat: int) -> None:
        self.hands[seat] = self.hands[seat] + self.kitty
        self.kitty = []
        self.burier = seat
        self.phase = "burying"

    # --- bury and steal ----------------------------------------------------------------
    def _check_bury(self, seat: int, action: Action) -> None:
        if self.phase != "burying":
            raise IllegalActionError("It is not time to bury.", code="wrong_phase")
        if seat != self.burier:
            raise IllegalActionError("It is not your turn to bury.", code="not_your_turn")
        if len(action.cards) != KITTY_SIZE:
            raise IllegalActionError(f"Bury exactly {KITTY_SIZE} cards.", code="bury_count", count=KITTY_SIZE)
        remove_cards(self.hands[seat], action.cards)

    def _do_bury(self, action: Action) -> EventInfo:
        seat = action.seat
        assert seat is not None
        self.hands[seat] = remove_cards(self.hands[seat], action.cards)
        self.kitty = list(action.cards)
        self.buried = True
        self.buries.append((seat, tuple(action.cards)))
        if self.steals_allowed:
            self.phase = "stealing"
            self.steal_queue = [(seat + i) % 4 for i in (1, 2, 3)]
            return {}
        return self._start_play()

    def _check_steal(self, seat: int, action: Action) -> None:
        if self.phase != "stealing":
            raise IllegalActionError("It is not time to steal the kitty.", code="wrong_phase")
        if seat != self.steal_queue[0]:
            raise IllegalActionError("It is not your turn to steal or pass.", code="not_your_turn")
        self._classify_bid(seat, action.cards, action.trump, steal=True)

    def _do_steal(self, action: Action) -> EventInfo:
        seat = action.seat
        assert seat is not None
        bid = self._classify_bid(seat, action.cards, action.trump, steal=True)
        self._record_bid(bid)
        if not self.ruleset.hidden_bidding:
            self.trump = self.standing.trump if self.standing else bid.trump
        self.hands[seat] = self.hands[seat] + self.kitty
        self.kitty = []
        self.burier = seat
        self.phase = "burying"
        return {"bid": bid.kind}

    def _check_pass_steal(self, seat: int, action: Action) -> None:
        if self.phase != "stealing":
            raise IllegalActionError("It is not time to steal the kitty.", code="wrong_phase")
        if seat != self.steal_queue[0]:
            raise IllegalActionError("It is not your turn to steal or pass.", code="not_your_turn")

    def _do_pass_steal(self, action: Action) -> EventInfo:
        self.steal_queue.pop(0)
        if not self.steal_queue:
            return self._start_play()
        return {}

    def _start_play(self) -> EventInfo:
        info: EventInfo = {}
        r = self.ruleset
        if not self.trump_decided:
            # Reveal (暗炒): the highest bid of the hand sets trump; failed steals are scored (A11).
            assert self.standing is not None
            self.trump = self.standing.trump
            self.trump_decided = True
            info["revealed"] = [b.to_dict() for b in self.bids]
            for bid in self.bids:
                if bid.kind == "steal" and not self.stood[bid.order] and r.failed_steal_points:
                    delta = r.failed_steal_points if side_of(bid.seat) == self.dealer_side else -r.failed_steal_points
                    self.adjustments.append(Adjustment("failed_steal", bid.seat, delta))
                    self.steal_points[bid.order] = delta
        self.phase = "playing"
        self.leader = self.dealer
        info["trump"] = self.trump
        return info

    def _start_flag_hand(self) -> None:
        self.dealer = self.setup.flag_dealer
        assert self.dealer is not None
        self.dealer_side = side_of(self.dealer)
        self.threshold = self.ruleset.flag_threshold
        self.trump = None
        self.trump_decided = True
        self.steals_allowed = False
        self.phase = "playing"
        self.leader = self.dealer

    # --- play ------------------------------------------------------------------------
    def _check_play(self, seat: int, action: Action) -> Shape | None:
        """Raise unless the seat may play these cards now; return a lead's shape (None for a follow)."""
        if self.phase != "playing":
            raise IllegalActionError("It is not time to play cards.", code="wrong_phase")
        current = self.current
        assert self.leader is not None
        if seat != (self.leader + len(current)) % 4:  # self.turn in play
            raise IllegalActionError("It is not your turn.", code="not_your_turn")
        if not current:
            return check_lead(self.ctx, self.hands[seat], action.cards)
        check_follow(self.ctx, current[0][1], self.hands[seat], action.cards)
        return None

    def _do_play(self, action: Action, shape: Shape | None = None) -> EventInfo:
        """Apply a play; ``shape`` is a checked lead's (:meth:`_check_play`), None for one not checked or a follow."""
        seat = action.seat
        assert seat is not None and self.dealer_side is not None
        hand = self.hands[seat]
        info: EventInfo = {}
        played = action.cards
        if not self.current:
            # A single is never a throw (most leads); a play that was not checked is not checked here either.
            if shape is None and len(played) > 1:
                shape = check_lead(self.ctx, hand, played)
            if shape is not None and shape.kind == "throw":
                others = [(seat + i) % 4 for i in (1, 2, 3)]  # turn order: the first who can beat it is named
                judged = judge_throw(self.ctx, shape, [self.hands[s] for s in others])
            else:
                judged = None
            if judged is not None and judged.failed:
                assert judged.beaten_by is not None
                played = judged.played
                delta = throw_penalty(self.ruleset.throw_penalty, judged.penalty_cards, self.is_attacker(seat))
                self.adjustments.append(Adjustment("throw", seat, delta))
                notice = ThrowFailed(len(self.tricks) + 1, seat, tuple(action.cards), tuple(played),
                                     others[judged.beaten_by], judged.beaten_with, delta)
                self.notices.append(notice)
                info.update({"throw_failed": True, "played": format_cards(played), "penalty": delta})
            lead_cards: tuple[Card, ...] | None = None
        else:
            lead_cards = self.current[0][1]
        if self.ruleset.red5_bonus and RED_FIVE in played:  # cards are interned: `in` asks identity
            forced = red_fives_forced(self.ctx, lead_cards, hand, played)
            if forced:
                self._pending_red5.append((seat, forced))
        self.hands[seat] = remove_cards(hand, played)
        self.current.append((seat, tuple(played)))
        if len(self.current) == 4:  # the trick's last play, a follow: nothing told of it yet
            return self._finish_trick()
        return info

    def _finish_trick(self) -> EventInfo:
        assert self.leader is not None and self.dealer_side is not None
        ctx = self.ctx
        plays = [cards for _seat, cards in self.current]
        index = trick_winner_in(ctx, plays)
        winner = self.current[index][0]
        points = trick_points(plays)
        if self.is_attacker(winner):
            self.trick_points += points
        told: list[Notice] = []
        if self._pending_red5:
            for adjustment, count in red_fives_forced_out(self.ruleset, self._pending_red5, winner, self.dealer_side):
                self.adjustments.append(adjustment)
                told.append(RedFive("red5_forced", len(self.tricks) + 1, adjustment.seat, (RED_FIVE,) * count,
                                    adjustment.points))
            self._pending_red5 = []
        trick = Trick(self.leader, tuple(self.current), winner, points)
        self.tricks.append(trick)
        self.current = []
        self.leader = winner
        info: EventInfo = {"trick": len(self.tricks), "winner": winner, "points": points}
        if not any(self.hands):
            told += self._finish_hand()
            info["hand_over"] = True
        self.notices += told
        if self.result is not None:
            self.result = replace(self.result, notices=tuple(self.notices), bids=self.bid_history or ())
        return info

    def _finish_hand(self) -> list[Notice]:
        """Score the hand; return the 保红5 notice if the last trick told one."""
        assert self.dealer_side is not None and self.dealer is not None
        told: list[Notice] = []
        ctx = self.ctx
        last = self.tricks[-1]
        lead_seat, lead_cards = last.plays[0]
        kept = red_fives_kept(ctx, lead_seat, lead_cards, self.dealer_side)
        if kept is not None:
            self.adjustments.append(kept)
            told.append(RedFive("red5_kept", len(self.tricks), lead_seat, tuple(lead_cards), kept.points))
        self.result = score_last_trick(
            ctx, last.plays, last.winner, dealer_side=self.dealer_side, threshold=self.threshold,
            trick_points=self.trick_points, kitty=self.kitty, adjustments=self.adjustments,
            levels=self.setup.levels, flag=self.setup.flag,
        )
        self.phase = "finished"
        return told

    # --- escape -------------------------------------------------------------------------
    def _do_escape(self, action: Action) -> EventInfo:
        seat = action.seat
        assert seat is not None
        self.escaped = seat
        self.result = score_escape(
            self.ruleset, seat=seat, dealer_side=self.dealer_side, threshold=self.threshold,
            attacker_points=self.attacker_points, cards_played=self.cards_played, levels=self.setup.levels,
        )
        self.result = replace(self.result, notices=tuple(self.notices), bids=self.bid_history or ())
        self.phase = "abandoned"
        return {"escaped": seat}

    # --- replay -----------------------------------------------------------------------
    @classmethod
    def replay(cls, setup: HandSetup, actions: Sequence[Action]) -> Hand:
        """Rebuild a hand from its setup and actions (the event log)."""
        hand = cls(setup)
        for action in actions:
            hand.apply(action)
        return hand

    def to_dict(self) -> dict[str, Any]:
        """Setup and actions as JSON-ready data; :meth:`from_dict` replays them."""
        return {"version": 1, "setup": self.setup.to_dict(), "actions": [a.to_dict() for a in self.actions]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Hand:
        """Replay a hand from :meth:`to_dict` data."""
        if data.get("version") != 1:
            raise IllegalActionError("Unknown hand format version.", code="bad_version")
        return cls.replay(HandSetup.from_dict(data["setup"]), [Action.from_dict(a) for a in data["actions"]])

    def __reduce__(self) -> tuple[Callable[[HandSetup, dict[str, Any]], Hand], tuple[HandSetup, dict[str, Any]]]:
        """Copied and pickled as its attributes (compiled, a hand has no ``__dict__`` for :mod:`copy` to take)."""
        names: tuple[str, ...] | None = getattr(type(self), "__mypyc_attrs__", None)
        state = dict(vars(self)) if names is None else {name: getattr(self, name) for name in names}
        return (_restored, (self.setup, state))

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything that defines the state, for comparing a replay with the original."""
        return (
            self.phase, [tuple(h) for h in self.hands], tuple(self.kitty), self.dealer, self.dealer_side,
            self.trump, tuple(self.bids), tuple(self.tricks), tuple(self.current), tuple(self.adjustments),
            self.trick_points, self.result, tuple(self.events), tuple(self.steal_queue), self.burier,
        )


def _restored(setup: HandSetup, state: dict[str, Any]) -> Hand:
    """A hand with these attributes (:meth:`Hand.__reduce__`)."""
    hand = Hand(setup)
    for name, value in state.items():
        setattr(hand, name, value)
    return hand
