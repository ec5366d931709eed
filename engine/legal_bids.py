"""The bids a seat may make now, asked from its own view: what the AI players bid from.

:func:`accepted_bid` states, from the bidder's view alone, what the hand
would make of a bid, through the same rule the hand applies
(:func:`engine.bidding.judge_bid`).  Everything it needs is in the view: the
bidder's own bids are never hidden from the bidder, the kinds and seats of
everyone's bids are public, and in open bidding the standing bid is the
latest one.  Under hidden bidding the view cannot tell whether the bidder's
single still stands, so it offers the pair of that single only as the
look-back or reinforcement it may be (the hand also takes it as an ordinary
pair there, decision 15).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.bidding import judge_bid, needs_choice, read_step
from engine.cards import RED_FIVE, SUITS, Card
from engine.counting import tally
from engine.errors import IllegalActionError
from engine.ruleset import Ruleset
from engine.views import BidView, HandView


@dataclass(frozen=True, slots=True)
class BidOption:
    """A bid the engine would accept now: its cards, the trump choice, the step and the trump it names."""

    cards: tuple[Card, ...]
    choice: str | None
    step: str
    kind: str
    trump: str | None


def own_bids(view: HandView, seat: int) -> list[tuple[int, BidView]]:
    """The seat's own bids in the view, each with its place in the bid history."""
    return [(i, b) for i, b in enumerate(view.bids) if b.seat == seat]


def accepted_bid(view: HandView, ruleset: Ruleset, cards: Sequence[Card], choice: str | None,
                 *, steal: bool) -> BidOption | None:
    """The bid these cards would make for the viewer now, or None if the engine would refuse it."""
    return _BidContext(view, ruleset, steal).accepted(cards, choice)


class _BidContext:
    """What the bid rule asks of the viewer's bids so far, worked out once for every bid it may make now."""

    __slots__ = ("view", "ruleset", "steal", "last_own", "someone_since", "may_look_back", "shown", "standing_step")

    def __init__(self, view: HandView, ruleset: Ruleset, steal: bool) -> None:
        r = ruleset
        seat = view.viewer
        assert seat is not None
        own = own_bids(view, seat)
        last_index, last_own = own[-1] if own else (-1, None)
        someone_since = last_own is not None and any(b.seat != seat for b in view.bids[last_index + 1:])
        # Decision 15: open bidding shows whether the single stood right before the standing
        # override; hidden bidding does not, and there the engine takes the pair either way.
        right = last_index == len(view.bids) - 2 if not r.hidden_bidding else someone_since
        looked_back = any(b.kind == "look_back" for _i, b in own)
        shown: Counter[Card] = Counter()
        for _i, b in own:
            for card, n in Counter(b.cards or ()).items():
                shown[card] = max(shown[card], n)
        self.view, self.ruleset, self.steal = view, ruleset, steal
        self.last_own, self.someone_since, self.shown = last_own, someone_since, shown
        self.may_look_back = r.look_back and someone_since and right and not looked_back
        self.standing_step = view.bids[-1].step if not r.hidden_bidding and view.bids else None

    def accepted(self, cards: Sequence[Card], choice: str | None) -> BidOption | None:
        """:func:`accepted_bid` of these cards and trump choice."""
        view = self.view
        try:
            kind, step, trump = judge_bid(
                self.ruleset, view.level, cards, choice, steal=self.steal, hand=view.hand, shown=self.shown,
                opening=not view.bids, last_own=self.last_own, someone_since=self.someone_since,
                may_look_back=self.may_look_back, standing_step=self.standing_step, keep_single=False,
            )
        except IllegalActionError:
            return None
        return BidOption(tuple(cards), choice, step, kind, trump)


def bid_card_sets(ruleset: Ruleset, level: int | None, hand: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every set of cards in the hand that makes some bid step (singles and pairs)."""
    if level is None:
        return []
    red5 = ruleset.red5_trump
    out: list[tuple[Card, ...]] = []
    for card, n in tally(hand).items():
        # A level card (a joker's rank is none); else a joker or the red five, paired.
        if card.rank == level and not (red5 and card is RED_FIVE):
            out.append((card,))
            if n >= 2:
                out.append((card, card))
        elif n >= 2 and (card.is_joker or (red5 and card is RED_FIVE)):
            out.append((card, card))
    return [cards for cards in out if read_step(ruleset, level, cards) is not None]


def bid_options(view: HandView, ruleset: Ruleset, *, steal: bool) -> list[BidOption]:
    """All bids (with every trump choice) that the engine would accept from the viewer now."""
    return list(each_bid_option(view, ruleset, steal=steal))


def each_bid_option(view: HandView, ruleset: Ruleset, *, steal: bool) -> Iterator[BidOption]:
    """:func:`bid_options` one at a time, in the same order: a player who asks only whether there is one
    (and bids a quarter of the time) works out no more than the first."""
    sets = bid_card_sets(ruleset, view.level, view.hand)
    if not sets:
        return
    judge = _BidContext(view, ruleset, steal)
    for cards in sets:
        step = read_step(ruleset, view.level, cards)
        assert step is not None
        choices: tuple[str | None, ...] = (None,)
        if needs_choice(ruleset, step):
            choices = SUITS if step == "BJ2" else (*SUITS, None)
        for choice in choices:
            option = judge.accepted(cards, choice)
            if option is not None:
                yield option
