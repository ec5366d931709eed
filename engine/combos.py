"""Combinations: singles, pairs, tractors, 5-10-K, throws (RULES.md §2.7).

A play is split into :class:`Component` values by :func:`decompose`: longest
tractors first (highest first among equals), then pairs, then singles.  A
lead is classified by :func:`classify` into a :class:`Shape`.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.cards import ALL_CARDS, Card
from engine.frozen import builder
from engine.trump import TRUMP, TrumpContext

ComponentKind = Literal["single", "pair", "tractor"]
ShapeKind = Literal["single", "pair", "tractor", "ftk", "ftk2", "throw"]


@dataclass(frozen=True, slots=True)
class Component:
    """One unit of a play: a single, a pair, or a tractor of ``pairs`` pairs."""

    kind: ComponentKind
    cards: tuple[Card, ...]
    top: int
    """Comparison key within the group: the card's order (single, pair) or the
    tractor position of the top pair (tractor)."""

    @property
    def pairs(self) -> int:
        """Number of pairs: 0 for a single, 1 for a pair, the length of a tractor."""
        return len(self.cards) // 2 if self.kind != "single" else 0

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.cards)


_COMPONENT = builder(Component)
"""A :class:`Component` from all its fields (built for every card of a split: :func:`decompose`)."""


@dataclass(frozen=True, slots=True)
class Structure:
    """What a play offers to match a lead: its tractors (longest first) and its pairs."""

    tractors: tuple[int, ...]
    """Tractor lengths in pairs, longest first."""
    pairs: int
    """Pairs counted including those inside tractors."""

    @property
    def loose_pairs(self) -> int:
        """Pairs that are not part of a tractor."""
        return self.pairs - sum(self.tractors)


@dataclass(frozen=True, slots=True)
class Shape:
    """A classified lead: its group, kind and components."""

    kind: ShapeKind
    group: str
    """``"T"`` or the plain suit that followers must follow."""
    cards: tuple[Card, ...]
    components: tuple[Component, ...]
    structure: Structure = field(init=False, repr=False, compare=False)
    """Tractors and pairs of the lead (5-10-K counts as singles, its pair form as pairs); asked of every follow."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "structure", structure_of(self.components))


def structure_of(components: Iterable[Component]) -> Structure:
    """The :class:`Structure` of some components."""
    tractors: list[int] = []
    pairs = 0
    for comp in components:
        if comp.kind == "tractor":
            tractors.append(comp.pairs)
        pairs += comp.pairs
    tractors.sort(reverse=True)
    return Structure(tuple(tractors), pairs)


# --- tractors ----------------------------------------------------------------

def _longest_run(ctx: TrumpContext, pair_cards: Sequence[Card]) -> list[Card]:
    """The longest tractor among distinct pair cards (highest top among equals).

    Returns its cards (one per pair) from top to bottom, or a single card (or
    nothing) when no two pairs are adjacent.
    """
    by_pos: dict[int, list[Card]] = {}
    for card in pair_cards:
        for pos in ctx.positions(card):
            by_pos.setdefault(pos, []).append(card)
    if not by_pos:
        return [pair_cards[0]] if pair_cards else []
    best: list[Card] = []
    best_top = -1
    for top in sorted(by_pos, reverse=True):
        if top + 1 in by_pos:
            continue  # not the top of a maximal run
        run: list[Card] = []
        used: set[Card] = set()
        pos = top
        while pos in by_pos:
            choice = next((c for c in by_pos[pos] if c not in used), None)
            if choice is None:
                break
            run.append(choice)
            used.add(choice)
            pos -= 1
        if len(run) > len(best) or (len(run) == len(best) and top > best_top):
            best, best_top = run, top
    return best


def _run_top(ctx: TrumpContext, run: Sequence[Card]) -> int:
    """Top position of a run given from top to bottom."""
    if len(run) == 1:
        return max(ctx.positions(run[0]), default=0)
    # The top card's position that sits right above the second card's.
    below = set(ctx.positions(run[1]))
    return next(p for p in ctx.positions(run[0]) if p - 1 in below)


def tractors_in(ctx: TrumpContext, pair_cards: Iterable[Card]) -> list[tuple[list[Card], int]]:
    """Split distinct pair cards into maximal tractors greedily (longest, then highest).

    Returns ``(run, top)`` for each tractor, ``run`` from top to bottom.
    Pairs left over are not returned.
    """
    # Cards hash by identity, so a set's order follows memory addresses: break
    # order ties (安徽's off-suit level pairs share one chain link) by the
    # card's fixed sort key, or the same play could split differently in
    # another process and a replayed failed throw force other cards.
    distinct = set(pair_cards)
    positions = ctx.positions
    held = {pos for card in distinct for pos in positions(card)}
    if not any(pos - 1 in held for pos in held):
        return []  # no two pairs side by side (most sets of pairs): no tractor
    remaining = sorted(distinct, key=lambda c: (-ctx.order(c), c.sort_key))
    out: list[tuple[list[Card], int]] = []
    while len(remaining) >= 2:
        run = _longest_run(ctx, remaining)
        if len(run) < 2:
            break
        out.append((run, _run_top(ctx, run)))
        taken = set(run)
        remaining = [c for c in remaining if c not in taken]
    return out


def tractor_above(ctx: TrumpContext, pair_cards: Iterable[Card], length: int, top: int) -> list[Card] | None:
    """The highest ``length``-pair tractor with a top position above ``top`` that can be cut from
    these pairs (its pair cards, top first), or None.

    Unlike :func:`tractors_in`, this looks at every window, so an ace pair
    that could sit at either end of a run is tried at both.
    """
    by_pos: dict[int, list[Card]] = {}
    for card in sorted(set(pair_cards), key=lambda c: c.sort_key):
        for pos in ctx.positions(card):
            by_pos.setdefault(pos, []).append(card)
    for high in sorted((p for p in by_pos if p > top), reverse=True):
        used: list[Card] = []
        for pos in range(high, high - length, -1):
            choice = next((c for c in by_pos.get(pos, ()) if c not in used), None)
            if choice is None:
                break
            used.append(choice)
        else:
            return used
    return None


def has_tractor_above(ctx: TrumpContext, pair_cards: Iterable[Card], length: int, top: int) -> bool:
    """True if some ``length``-pair tractor with a top position above ``top`` can be cut from these pairs."""
    return tractor_above(ctx, pair_cards, length, top) is not None


def is_run(ctx: TrumpContext, pair_cards: Sequence[Card]) -> bool:
    """True if these distinct pair cards form exactly one tractor."""
    if len(pair_cards) < 2 or len(set(pair_cards)) != len(pair_cards):
        return False
    return len(_longest_run(ctx, pair_cards)) == len(pair_cards)


# --- decomposition -------------------------------------------------------------

def split(ctx: TrumpContext, cards: Sequence[Card]) -> list[Component]:
    """:func:`decompose` of cards split once (a random player's suit-group): the same components, not kept in
    the table of splits, where a split asked once would only push out one asked again and again."""
    if len(cards) == 1:
        return [_singles(ctx)[cards[0]]]
    return _decompose(ctx, cards)


def decompose(ctx: TrumpContext, cards: Iterable[Card]) -> list[Component]:
    """Split cards of one suit-group into components, greedily.

    Longest tractors first (highest first among equals), then pairs (highest
    first), then singles (highest first).
    """
    seq = cards if isinstance(cards, (list, tuple)) else list(cards)
    if len(seq) == 1:  # the commonest play by far: a single
        return [_singles(ctx)[seq[0]]]
    # A seat's cards of a group stay the same over many decisions (those of the groups not played to),
    # and the split is a pure function of the context and the card sequence; Components are immutable.
    key = (ctx, tuple(seq))
    found = _SPLITS.get(key)
    if found is None:
        found = _SPLITS[key] = tuple(_decompose(ctx, seq))
        if len(_SPLITS) > _SPLITS_LIMIT:
            _SPLITS.popitem(last=False)  # the oldest
    return list(found)


_SPLITS: OrderedDict[tuple[TrumpContext, tuple[Card, ...]], tuple[Component, ...]] = OrderedDict()
_SPLITS_LIMIT = 4096
"""Splits remembered (a few MiB at most); past it the oldest is forgotten (an OrderedDict drops its oldest at
once, where a dict's first entry is found past every slot left by those dropped before it)."""


_SINGLES: dict[TrumpContext, dict[Card, Component]] = {}
"""Per trump context, each card's single component (immutable: one object serves every split)."""

_SINGLE_AT: dict[tuple[Card, int], Component] = {}
"""Each card's single component by its order: one object serves every context that gives the card that order
(54 cards, each at a few orders; a process keeps hundreds of contexts, and the garbage collector walks all they hold)."""


def _singles(ctx: TrumpContext) -> dict[Card, Component]:
    """Each card's single component under ``ctx``."""
    found = _SINGLES.get(ctx)
    if found is None:
        if len(_SINGLES) >= 512:  # as many as trump_context keeps
            _SINGLES.clear()
        found = _SINGLES[ctx] = {c: _single_at(c, ctx.order(c)) for c in ALL_CARDS}
    return found


def _single_at(card: Card, order: int) -> Component:
    """The single component of ``card`` at this order."""
    key = (card, order)
    found = _SINGLE_AT.get(key)
    if found is None:
        found = _SINGLE_AT[key] = _COMPONENT("single", (card,), order)
    return found


def _decompose(ctx: TrumpContext, seq: Sequence[Card]) -> list[Component]:
    """:func:`decompose` of two cards or more, worked out."""
    order = ctx.order
    if len(set(seq)) == len(seq):  # no card twice (most of a hand's suit-groups): singles, highest first
        single = _singles(ctx)
        return [single[c] for c in sorted(seq, key=order, reverse=True)]
    counts: dict[Card, int] = {}
    for c in seq:
        counts[c] = counts.get(c, 0) + 1
    pair_cards = [c for c, n in counts.items() if n >= 2]
    comps: list[Component] = []
    for run, top in tractors_in(ctx, pair_cards) if len(pair_cards) >= 2 else ():
        comps.append(_COMPONENT("tractor", tuple(c for c in run for _ in (0, 1)), top))
        for c in run:
            counts[c] -= 2
    # Highest first; reverse=True keeps equal orders in the order found, as a key of -order does.
    for card in sorted([c for c, n in counts.items() if n >= 2], key=order, reverse=True):
        comps.append(_COMPONENT("pair", (card, card), order(card)))
        counts[card] -= 2
    single = _singles(ctx)
    comps.extend([single[c] for c in sorted([c for c, n in counts.items() for _ in range(n)], key=order, reverse=True)])
    return comps


def structure(ctx: TrumpContext, cards: Iterable[Card]) -> Structure:
    """Tractors and pairs of a play, by the greedy split."""
    return structure_of(decompose(ctx, cards))


def is_tractor(ctx: TrumpContext, cards: Sequence[Card]) -> bool:
    """True if the cards are exactly one tractor (two or more adjacent pairs of one group)."""
    if len(cards) < 4 or len(cards) % 2:
        return False
    counts = Counter(cards)
    if any(n != 2 for n in counts.values()):
        return False
    groups = {ctx.group(c) for c in counts}
    return len(groups) == 1 and is_run(ctx, list(counts))


# --- 5-10-K --------------------------------------------------------------------

def five_ten_king(ctx: TrumpContext, cards: Sequence[Card]) -> tuple[str, str, int] | None:
    """If the cards are exactly a same-suit 5-10-K (or its pair form), say so.

    Returns ``(suit, group, copies)``: the suit of the cards, the group that
    followers follow (``"T"`` for the trump-suit 5-10-K) and 1 or 2.  Returns
    None where the ruleset has no 5-10-K or the cards are not one.
    """
    r = ctx.ruleset
    if not r.five_ten_king or len(cards) not in (3, 6):
        return None
    copies = len(cards) // 3
    counts = Counter(cards)
    suit = cards[0].suit
    if suit is None or len(counts) != 3 or any(n != copies for n in counts.values()):
        return None
    if {c.rank for c in counts} != {5, 10, 13} or any(c.suit != suit for c in counts):
        return None
    groups = {ctx.group(c) for c in counts}
    if groups == {TRUMP}:
        return (suit, TRUMP, copies) if suit == ctx.trump else None
    if groups == {suit}:
        return (suit, suit, copies)
    # The red five completes a plain-hearts 5-10-K where the ruleset allows it (A42).
    if (r.red5_in_plain_ftk and suit == "H" and ctx.trump != "H"
            and all(ctx.group(c) == "H" for c in counts if c.rank != 5)
            and ctx.is_red_five(Card(5, "H"))):
        return (suit, "H", copies)
    return None


# --- classification --------------------------------------------------------------

def group_of(ctx: TrumpContext, cards: Sequence[Card]) -> str | None:
    """The one suit-group of the cards, or None if they span several."""
    groups = {ctx.group(c) for c in cards}
    return groups.pop() if len(groups) == 1 else None


_SHAPES: OrderedDict[tuple[TrumpContext, tuple[Card, ...]], Shape | None] = OrderedDict()
_SHAPES_LIMIT = 4096
"""Leads remembered; past it the oldest is forgotten (a few MiB at most, in a process that runs for weeks), as
in :data:`_SPLITS`."""


_SINGLE_SHAPES: dict[tuple[Card, str, int], Shape | None] = {}
"""A single's shape by its card, group and order (54 cards, each in a few groups at a few orders): kept apart
from :data:`_SHAPES`, where the singles led in each context would push out the other leads."""


def classify(ctx: TrumpContext, cards: Sequence[Card]) -> Shape | None:
    """Classify a lead; None if it is empty or spans several suit-groups.

    A lead of exactly a 5-10-K (or its pair form) is that combination, never a
    throw; several components of one group make a throw.
    """
    if len(cards) == 1:  # a single (most leads): its shape is the card's at its group and order, in any context
        card = cards[0]
        at = (card, ctx.group(card), ctx.order(card))
        single = _SINGLE_SHAPES.get(at)
        if single is None:
            single = _SINGLE_SHAPES[at] = _classify(ctx, (card,))
        return single
    # The same lead is classified again and again within a trick (each
    # follow check, the trick winner, hints); the answer is a pure function
    # of the context and the card sequence, and a Shape is immutable.
    key = (ctx, tuple(cards))
    try:
        return _SHAPES[key]
    except KeyError:
        pass
    shape = _classify(ctx, key[1])
    if len(_SHAPES) >= _SHAPES_LIMIT:
        _SHAPES.popitem(last=False)  # the oldest: a lead is asked about again within its trick
    _SHAPES[key] = shape
    return shape


def _classify(ctx: TrumpContext, cards: Sequence[Card]) -> Shape | None:
    if not cards:
        return None
    ftk = five_ten_king(ctx, cards)
    if ftk is not None:
        _suit, ftk_group, copies = ftk
        comps = decompose(ctx, cards)
        return Shape("ftk" if copies == 1 else "ftk2", ftk_group, tuple(cards), tuple(comps))
    group = group_of(ctx, cards)
    if group is None:
        return None
    comps = decompose(ctx, cards)
    if len(comps) == 1:
        kind: ShapeKind = comps[0].kind
    else:
        kind = "throw"
    return Shape(kind, group, tuple(cards), tuple(comps))


def sort_cards(ctx: TrumpContext, cards: Iterable[Card]) -> list[Card]:
    """Cards in display order: trumps first (strongest first), then each suit high to low."""
    return sorted(cards, key=ctx.sort_key)
