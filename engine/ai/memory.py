"""What one seat knows during play, worked out from its view alone.

The AI never sees a :class:`engine.hand.Hand`; everything here comes from a
:class:`engine.views.HandView`: the seat's own cards, the cards played so
far, its own buried kitty, and who showed a void.  "Unseen" cards are the
ones that may still be in another player's hand (or in a kitty the seat did
not bury): every decision that asks "could someone beat this?" asks it of
the unseen cards pooled together, which is conservative.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

from engine.cards import ALL_CARDS, Card
from engine.combos import has_tractor_above
from engine.hand import Trick
from engine.ruleset import Ruleset
from engine.trump import TRUMP, TrumpContext, trump_context
from engine.views import HandView

GROUPS = (TRUMP, "S", "H", "D", "C")
"""Every suit-group name."""

BIG_TRUMP = 20
"""Trump orders from here up are the big trumps: level cards, jokers and the red five."""


def partner_of(seat: int) -> int:
    """The seat opposite (the partner)."""
    return (seat + 2) % 4


def same_side(a: int, b: int) -> bool:
    """True if two seats are partners (or the same seat)."""
    return a % 2 == b % 2


_CONTEXTS: dict[tuple[int, int | None, str | None], tuple[Ruleset, TrumpContext]] = {}


def context(ruleset: Ruleset, level: int | None, trump: str | None) -> TrumpContext:
    """:func:`engine.trump.trump_context`, keyed by the ruleset's identity.

    A frozen Ruleset hashes all its options on every lookup; the AI asks
    for a context at every decision, so it keeps its own small table (the
    ruleset is held in it, so its id cannot be reused while listed).
    """
    key = (id(ruleset), level, trump)
    hit = _CONTEXTS.get(key)
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    ctx = trump_context(ruleset, level, trump)
    if len(_CONTEXTS) >= 1024:
        _CONTEXTS.clear()
    _CONTEXTS[key] = (ruleset, ctx)
    return ctx


@lru_cache(maxsize=256)
def card_rows(ctx: TrumpContext) -> tuple[tuple[Card, str, int], ...]:
    """Each distinct card with its suit-group and order, in deck order."""
    return tuple((c, ctx.group(c), ctx.order(c)) for c in ALL_CARDS)


@lru_cache(maxsize=256)
def card_table(ctx: TrumpContext) -> dict[Card, tuple[str, int]]:
    """Each card's suit-group and order under a trump context (a plain dict: the AI's hot path)."""
    return {c: (ctx.group(c), ctx.order(c)) for c in ALL_CARDS}


def lead_group(ctx: TrumpContext, lead: Sequence[Card]) -> str:
    """The suit-group followers must follow for a lead.

    A lead is all of one group, except the plain-hearts 5-10-K completed by
    the red five (a trump), which is followed in hearts.
    """
    group_of = ctx.group
    first = group_of(lead[0])
    if len(lead) == 1:
        return first
    for c in lead:
        group = group_of(c)
        if group != first:
            return group if first == TRUMP else first
    return first


@dataclass(slots=True)
class Memory:
    """A seat's knowledge in the play phase."""

    ctx: TrumpContext
    seat: int
    hand: tuple[Card, ...]
    unseen: dict[Card, int]
    """Cards that may be in another hand or an unknown kitty, with copies (only positive counts)."""
    voids: tuple[frozenset[str], ...]
    """For each seat, the suit-groups it has shown it no longer holds."""
    counts: dict[str, int]
    """Unseen cards per suit-group."""
    tops: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per group once asked: the highest order among unseen cards, and among those with both copies unseen (-1 if none)."""

    def unseen_count(self, group: str) -> int:
        """How many unseen cards are of this group."""
        return self.counts[group]

    def max_unseen_order(self, group: str) -> int:
        """The highest order among unseen cards of a group (-1 if none)."""
        return self._tops(group)[0]

    def max_unseen_pair_order(self, group: str) -> int:
        """The highest order of a card of this group with both copies unseen (-1 if none)."""
        return self._tops(group)[1]

    def tops_of(self, group: str) -> tuple[int, int]:
        """:meth:`max_unseen_order` and :meth:`max_unseen_pair_order` of a group, asked together."""
        return self._tops(group)

    def _tops(self, group: str) -> tuple[int, int]:
        found = self.tops.get(group)
        if found is None:
            high = high_pair = -1
            unseen = self.unseen
            for c, order in _ranked(self.ctx)[group]:
                n = unseen.get(c)
                if n:
                    if high < 0:
                        high = order
                    if n == 2:
                        high_pair = order
                        break
            found = self.tops[group] = (high, high_pair)
        return found

    def unseen_tractor_beats(self, group: str, pairs: int, top: int) -> bool:
        """True if a ``pairs``-pair tractor topping ``top`` could be cut from the unseen pairs.

        The same test the engine applies to a thrown tractor (every window,
        an ace pair at either end), so a throw judged safe here stands.
        """
        table = card_table(self.ctx)
        pair_cards = [c for c, n in self.unseen.items() if n >= 2 and table[c][0] == group]
        if len(pair_cards) < pairs:
            return False
        return has_tractor_above(self.ctx, pair_cards, pairs, top)

    def may_be_void(self, seat: int, group: str, need: int = 1) -> bool:
        """True if ``seat`` may be unable to follow ``need`` cards of ``group``.

        Known voids count; so does a group that has nearly run out, since
        its few unseen cards may all sit elsewhere.
        """
        if group in self.voids[seat]:
            return True
        return self.counts[group] < 3 * need

    def may_hold(self, seat: int, group: str) -> bool:
        """False only if the seat has shown a void in the group, or no unseen card is in it."""
        if group in self.voids[seat]:
            return False
        return self.counts[group] > 0


@dataclass(frozen=True, slots=True)
class _Played:
    """What is left unplayed, and the voids shown, after one finished trick."""

    trick: weakref.ref[Trick]
    before: Trick | None
    ctx: TrumpContext
    left: dict[Card, int]
    """Copies of each card not yet played (only positive counts, in deck order)."""
    counts: dict[str, int]
    """Cards not yet played per suit-group."""
    voids: tuple[frozenset[str], ...]


_PLAYED: dict[int, _Played] = {}
"""The running totals by the id of their last trick.  An entry holds its trick weakly and goes when the
trick is freed, that is when its hand is (a finished hand, a search rollout): the cache holds the tricks
of the hands still being played and nothing more, however many hands a bot hosts."""


def _forget(key: int, trick: weakref.ref[Trick]) -> None:
    """Drop the entry of a freed trick (unless the key already holds a newer trick's entry)."""
    entry = _PLAYED.get(key)
    if entry is not None and entry.trick is trick:
        del _PLAYED[key]


@lru_cache(maxsize=256)
def _whole_deck(ctx: TrumpContext) -> tuple[dict[Card, int], dict[str, int]]:
    """Both copies of every card, and the cards per suit-group: what is left before the first trick."""
    counts = dict.fromkeys(GROUPS, 0)
    for _c, group, _order in card_rows(ctx):
        counts[group] += 2
    return {c: 2 for c in ALL_CARDS}, counts


@lru_cache(maxsize=256)
def _ranked(ctx: TrumpContext) -> dict[str, tuple[tuple[Card, int], ...]]:
    """Each suit-group's distinct cards with their orders, strongest first."""
    rows = sorted(card_rows(ctx), key=lambda row: -row[2])
    return {g: tuple((c, order) for c, group, order in rows if group == g) for g in GROUPS}


def _take(ctx: TrumpContext, cards: Iterable[Card], left: dict[Card, int], counts: dict[str, int]) -> None:
    """Count ``cards`` as seen: one copy each off ``left`` and off its group's count."""
    group = ctx.group
    get = left.get
    for c in cards:
        n = get(c)
        if n is None:
            continue
        if n == 1:
            del left[c]
        else:
            left[c] = n - 1
        counts[group(c)] -= 1


def _with_voids(ctx: TrumpContext, plays: Sequence[tuple[int, Sequence[Card]]],
                voids: tuple[frozenset[str], ...]) -> tuple[frozenset[str], ...]:
    """``voids`` with those one trick's followers showed (a card off the led group) added."""
    group_of = ctx.group
    group = lead_group(ctx, plays[0][1])
    out = list(voids)
    for seat, played in plays[1:]:
        if group not in out[seat]:
            for c in played:
                if group_of(c) != group:
                    out[seat] = out[seat] | {group}
                    break
    return tuple(out)


def _played_through(ctx: TrumpContext, tricks: Sequence[Trick]) -> tuple[dict[Card, int], dict[str, int],
                                                                         tuple[frozenset[str], ...]]:
    """Cards left unplayed (per card and per group) and voids shown after these finished tricks.

    Every seat's view holds the same Trick objects, so the running totals
    are kept per trick (checked by identity, never by id alone) and each
    decision only adds the tricks it has not seen yet.  The totals returned
    are shared: copy before changing them.
    """
    if not tricks:
        left, counts = _whole_deck(ctx)
        return left, counts, (frozenset(), frozenset(), frozenset(), frozenset())
    last = tricks[-1]
    before = tricks[-2] if len(tricks) >= 2 else None
    key = id(last)
    entry = _PLAYED.get(key)
    if entry is not None and entry.trick() is last and entry.before is before and entry.ctx is ctx:
        return entry.left, entry.counts, entry.voids
    left, counts, voids = _played_through(ctx, tricks[:-1])
    left, counts = dict(left), dict(counts)
    _take(ctx, [c for _s, cards in last.plays for c in cards], left, counts)
    done = _with_voids(ctx, last.plays, voids)
    _PLAYED[key] = _Played(weakref.ref(last, partial(_forget, key)), before, ctx, left, counts, done)
    return left, counts, done


def build_memory(view: HandView, ctx: TrumpContext) -> Memory:
    """Work out unseen cards, shown voids and per-group figures from a seat's view."""
    assert view.viewer is not None
    played_left, played_counts, voids = _played_through(ctx, view.tricks)
    left = dict(played_left)
    counts = dict(played_counts)
    if view.current:
        voids = _with_voids(ctx, view.current, voids)
        _take(ctx, [c for _s, cards in view.current for c in cards], left, counts)
    _take(ctx, view.hand, left, counts)
    if view.kitty is not None and view.kitty_holder == view.viewer:
        _take(ctx, view.kitty, left, counts)
    if 0 in view.hand_sizes and any(size == 0 for seat, size in enumerate(view.hand_sizes) if seat != view.viewer):
        everything = frozenset(GROUPS)
        voids = tuple(everything if size == 0 and seat != view.viewer else v
                      for seat, (v, size) in enumerate(zip(voids, view.hand_sizes)))
    return Memory(ctx, view.viewer, view.hand, left, voids, counts)


def points_of(cards: Iterable[Card]) -> int:
    """Point value of some cards."""
    return sum(c.points for c in cards)


class Knowledge:
    """Every seat's memory in a simulated hand, kept up to date play by play (the search's rollouts).

    :func:`build_memory` works a seat's memory out of its view afresh; a
    rollout asks for one at each of its plays, so this keeps each seat's
    unseen cards and per-group counts, and the voids shown, and changes them
    by what each play shows: :meth:`memory` is the memory :func:`build_memory`
    gives that seat's view (a test compares them play by play).  A memory
    it gives shares its tables: read it before the next play is told.
    """

    __slots__ = ("ctx", "unseen", "counts", "tops", "voids", "_others", "_memories")

    def __new__(cls, *_args: object) -> Knowledge:
        """An instance not yet initialised: :meth:`copy` fills one in without :meth:`__init__` (a class compiled
        by mypyc runs ``__init__`` in its allocator unless it has a ``__new__`` of its own)."""
        return object.__new__(cls)

    def __init__(self, ctx: TrumpContext, tricks: Sequence[Trick], current: Sequence[tuple[int, Sequence[Card]]],
                 hands: Sequence[Sequence[Card]], kitty: Sequence[Card], holder: int | None) -> None:
        """What each seat knows after ``tricks`` and the ``current`` trick, holding ``hands``; ``holder``
        (if any) knows the ``kitty``."""
        left, counts, voids = _played_through(ctx, tricks)
        left, counts = dict(left), dict(counts)
        if current:
            voids = _with_voids(ctx, current, voids)
            _take(ctx, [c for _s, cards in current for c in cards], left, counts)
        self.ctx = ctx
        self.voids = list(voids)
        self.unseen: list[dict[Card, int]] = []
        self.counts: list[dict[str, int]] = []
        for seat in range(4):
            unseen, per_group = dict(left), dict(counts)
            _take(ctx, hands[seat], unseen, per_group)
            if seat == holder:
                _take(ctx, kitty, unseen, per_group)
            self.unseen.append(unseen)
            self.counts.append(per_group)
        self.tops: list[dict[str, tuple[int, int]]] = [{}, {}, {}, {}]
        """Each seat's :attr:`Memory.tops`, kept while no card of the group is played."""
        self._link()

    def _link(self) -> None:
        tables = list(zip(self.unseen, self.counts, self.tops))
        self._others = [(tables[1], tables[2], tables[3]), (tables[2], tables[3], tables[0]),
                        (tables[3], tables[0], tables[1]), (tables[0], tables[1], tables[2])]
        """For each seat, the other seats' unseen cards, counts and tops: what a card it plays changes."""
        self._memories = [Memory(self.ctx, s, (), self.unseen[s], (), self.counts[s], self.tops[s]) for s in range(4)]
        """Each seat's memory, its hand and voids set at each :meth:`memory`."""

    def copy(self) -> Knowledge:
        """The same knowledge, to be told other plays (its tables copied)."""
        other = Knowledge.__new__(Knowledge)
        other.ctx = self.ctx
        other.voids = list(self.voids)
        other.unseen = [dict(unseen) for unseen in self.unseen]
        other.counts = [dict(counts) for counts in self.counts]
        other.tops = [dict(tops) for tops in self.tops]
        other._link()
        return other

    def memory(self, seat: int, hands: Sequence[Sequence[Card]]) -> Memory:
        """The seat's memory, the four seats holding ``hands`` (the same object at every call for the seat: read it
        before the next)."""
        voids = tuple(self.voids)
        if not (hands[0] and hands[1] and hands[2] and hands[3]):
            sizes = [len(h) for h in hands]
            everything = frozenset(GROUPS)
            voids = tuple(everything if size == 0 and other != seat else v
                          for other, (v, size) in enumerate(zip(voids, sizes)))
        mem = self._memories[seat]
        mem.hand = tuple(hands[seat])
        mem.voids = voids
        return mem

    def played(self, seat: int, cards: Sequence[Card], lead: Sequence[Card] | None) -> None:
        """Tell every seat that ``seat`` played ``cards``, following ``lead`` (None: it led)."""
        group_of = self.ctx.group
        if len(cards) == 1:  # a single card (most plays)
            card = cards[0]
            group = group_of(card)
            for unseen, counts, tops in self._others[seat]:
                n = unseen.get(card)
                if n is not None:
                    if n == 1:
                        del unseen[card]
                    else:
                        unseen[card] = n - 1
                    counts[group] -= 1
                    if group in tops:
                        del tops[group]
            if lead is not None:
                led = group_of(lead[0]) if len(lead) == 1 else lead_group(self.ctx, lead)
                if led != group and led not in self.voids[seat]:
                    self.voids[seat] = self.voids[seat] | {led}
            return
        groups = [group_of(c) for c in cards]
        for unseen, counts, tops in self._others[seat]:
            for c, group in zip(cards, groups):
                n = unseen.get(c)
                if n is None:
                    continue
                if n == 1:
                    del unseen[c]
                else:
                    unseen[c] = n - 1
                counts[group] -= 1
                if group in tops:
                    del tops[group]
        if lead is not None:
            led = lead_group(self.ctx, lead)
            if led not in self.voids[seat]:
                for g in groups:
                    if g != led:
                        self.voids[seat] = self.voids[seat] | {led}
                        break
