"""What one seat knows during play, worked out from its view alone.

The AI never sees a :class:`engine.hand.Hand`; everything here comes from a
:class:`engine.views.HandView`: the seat's own cards, the cards played so
far, its own buried kitty, and who showed a void.  "Unseen" cards are the
ones that may still be in another player's hand (or in a kitty the seat did
not bury): every decision that asks "could someone beat this?" asks it of
the unseen cards pooled together, which is conservative.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import DECK, Card
from engine.combos import tractors_in
from engine.trump import TRUMP, TrumpContext
from engine.views import HandView

_DECK_COUNTS: Counter[Card] = Counter(DECK)


def partner_of(seat: int) -> int:
    """The seat opposite (the partner)."""
    return (seat + 2) % 4


def same_side(a: int, b: int) -> bool:
    """True if two seats are partners (or the same seat)."""
    return a % 2 == b % 2


def lead_group(ctx: TrumpContext, lead: Sequence[Card]) -> str:
    """The suit-group followers must follow for a lead.

    A lead is all of one group, except the plain-hearts 5-10-K completed by
    the red five (a trump), which is followed in hearts.
    """
    first = ctx.group(lead[0])
    if all(ctx.group(c) == first for c in lead):
        return first
    return next(ctx.group(c) for c in lead if ctx.group(c) != TRUMP)


@dataclass(slots=True)
class Memory:
    """A seat's knowledge in the play phase."""

    ctx: TrumpContext
    seat: int
    hand: tuple[Card, ...]
    unseen: Counter[Card]
    """Cards that may be in another hand or an unknown kitty, with copies."""
    voids: tuple[frozenset[str], ...]
    """For each seat, the suit-groups it has shown it no longer holds."""

    def unseen_in(self, group: str) -> list[Card]:
        """Unseen cards of one suit-group (copies repeated)."""
        ctx = self.ctx
        return [c for c, n in self.unseen.items() if ctx.group(c) == group for _ in range(n)]

    def unseen_count(self, group: str) -> int:
        """How many unseen cards are of this group."""
        ctx = self.ctx
        return sum(n for c, n in self.unseen.items() if ctx.group(c) == group)

    def max_unseen_order(self, group: str) -> int:
        """The highest order among unseen cards of a group (-1 if none)."""
        ctx = self.ctx
        return max((ctx.order(c) for c in self.unseen if ctx.group(c) == group), default=-1)

    def max_unseen_pair_order(self, group: str) -> int:
        """The highest order of a card of this group with both copies unseen (-1 if none)."""
        ctx = self.ctx
        return max((ctx.order(c) for c, n in self.unseen.items() if n >= 2 and ctx.group(c) == group), default=-1)

    def unseen_tractor_beats(self, group: str, pairs: int, top: int) -> bool:
        """True if the unseen cards hold a tractor of at least ``pairs`` pairs topping ``top``."""
        ctx = self.ctx
        pair_cards = [c for c, n in self.unseen.items() if n >= 2 and ctx.group(c) == group]
        return any(len(run) >= pairs and t > top for run, t in tractors_in(ctx, pair_cards))

    def may_be_void(self, seat: int, group: str, need: int = 1) -> bool:
        """True if ``seat`` may be unable to follow ``need`` cards of ``group``.

        Known voids count; so does a group that has nearly run out, since
        its few unseen cards may all sit elsewhere.
        """
        if group in self.voids[seat]:
            return True
        left = self.unseen_count(group)
        return left < 3 * need

    def may_hold(self, seat: int, group: str) -> bool:
        """False only if the seat has shown a void in the group, or no unseen card is in it."""
        if group in self.voids[seat]:
            return False
        return self.unseen_count(group) > 0


def build_memory(view: HandView, ctx: TrumpContext) -> Memory:
    """Work out unseen cards and shown voids from a seat's view."""
    assert view.viewer is not None
    unseen = _DECK_COUNTS.copy()
    unseen.subtract(view.hand)
    voids: list[set[str]] = [set(), set(), set(), set()]
    tricks: list[Sequence[tuple[int, Sequence[Card]]]] = [t.plays for t in view.tricks]
    if view.current:
        tricks.append(view.current)
    for plays in tricks:
        lead = plays[0][1]
        group = lead_group(ctx, lead)
        for index, (seat, cards) in enumerate(plays):
            unseen.subtract(cards)
            if index and any(ctx.group(c) != group for c in cards):
                voids[seat].add(group)
    if view.kitty is not None and view.kitty_holder == view.viewer:
        unseen.subtract(view.kitty)
    # The hand the seat holds cannot be elsewhere; negative counts would be a bug in the view.
    clean = Counter({c: n for c, n in unseen.items() if n > 0})
    for seat in range(4):
        if view.hand_sizes[seat] == 0 and seat != view.viewer:
            voids[seat].update(_ALL_GROUPS)
    return Memory(ctx, view.viewer, view.hand, clean, tuple(frozenset(v) for v in voids))


_ALL_GROUPS = (TRUMP, "S", "H", "D", "C")


def points_of(cards: Iterable[Card]) -> int:
    """Point value of some cards."""
    return sum(c.points for c in cards)
