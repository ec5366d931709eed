"""Late-hand positions for AI scenario tests, with everything before them played out.

A short rigged hand (:func:`tests.engine.rig.mini_hand`) leaves most of the
deck unaccounted for, so a seat reasoning about unseen cards would think
almost any card could be anywhere.  :func:`late_position` builds the real
thing instead: a full 25-card deal whose first tricks are *filler*, every
one led and won by the dealer with cards of one suit-group that every seat
follows, so that the position reached holds exactly the chosen cards and
everyone knows as much as they would at that point of a real hand (the
other seats' cards are the only unseen ones, plus the kitty for non-buriers).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.cards import DECK, Card
from engine.hand import Action, Hand
from engine.ruleset import get_ruleset
from engine.trump import trump_context

from tests.engine.rig import Cards, cards, mini_hand


def late_position(preset: str, final: Sequence[Cards], kitty: Cards, *, trump: str = "S", level: int = 2) -> Hand:
    """A hand at the first lead after the filler tricks: seat 0 deals and leads, holding ``final[0]``.

    ``final`` are the four hands at that point (equal sizes); ``kitty``
    holds the dealer's bid card (the level card of ``trump``) and at most a
    few more chosen cards: the rest of the kitty is made up so that the
    filler splits evenly.  Seat 0's filler cards are the highest of each
    group, so the dealer wins every filler trick and p is still 0.
    """
    finals = [cards(h) for h in final]
    size = len(finals[0])
    assert all(len(h) == size for h in finals)
    bid = Card(level, trump)
    chosen = cards(kitty)
    assert bid in chosen
    ctx = trump_context(get_ruleset(preset), level, trump)
    rest = Counter(DECK)
    rest.subtract(Counter(c for h in finals for c in h))
    rest.subtract(chosen)
    assert all(n >= 0 for n in rest.values()), "a card is used more than twice"
    by_group: dict[str, list[Card]] = {}
    for c in sorted(rest.elements(), key=lambda c: (ctx.order(c), c.sort_key)):
        by_group.setdefault(ctx.group(c), []).append(c)
    # The kitty takes each group's remainder (lowest cards first), then whole fours, to split evenly.
    made = list(chosen)
    for group in sorted(by_group):
        extra = len(by_group[group]) % 4
        made += by_group[group][:extra]
        by_group[group] = by_group[group][extra:]
    for group in sorted(by_group):
        while len(made) < 8 and len(by_group[group]) >= 4:
            made += by_group[group][:4]
            by_group[group] = by_group[group][4:]
    assert len(made) == 8, f"the filler does not split evenly: kitty would hold {len(made)}"
    filler: list[list[Card]] = [[] for _ in range(4)]
    for group_cards in by_group.values():
        quarter = len(group_cards) // 4
        filler[0] += group_cards[-quarter:] if quarter else []
        for i, c in enumerate(group_cards[: len(group_cards) - quarter]):
            filler[1 + i % 3].append(c)
    plays = [finals[s] + filler[s] for s in range(4)]
    assert all(len(p) == 25 for p in plays), [len(p) for p in plays]
    hand = mini_hand(preset, plays=plays, kitty=made, bid=[bid], dealer=0, number=2, levels=(level, level),
                     dealer_side=0, previous_dealer=0)
    while any(filler):
        lead = max(filler[0], key=lambda c: (ctx.order(c), c.sort_key))
        group = ctx.group(lead)
        for seat in range(4):
            card = lead if seat == 0 else min((c for c in filler[seat] if ctx.group(c) == group), key=ctx.order)
            filler[seat].remove(card)
            hand.apply(Action("play", seat, (card,)))
        assert hand.tricks[-1].winner == 0
    return hand
