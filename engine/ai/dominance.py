"""Follows no expert would play, dropped before the search compares the rest (issue 47).

The search judges a play by the hands it plays out in a few sampled worlds.
A follow that gives the opponents 10 points, or spends a joker on a trick
the partner already holds, loses its cost in every world, yet the hands
played out after it differ so much that 16 of them seldom show it: such a
gift was as likely as not to be searched into play.  Where the trick's
outcome is certain from what the seat knows, these follows are dominated,
whatever the rest of the hand brings:

* the opponents take the trick unless this seat wins it: a losing follow
  that gives 5 points or more where a *cheap* follow (no more trumps; in
  place of the cards kept, no big trump, ace or top card) gives fewer; and
  a losing follow on a trick of 10 points or more where a sure winning
  follow needs no joker or red five (nor, where the last trick's J/A rule
  applies at this level, a level card, which is kept for that trick);
* the partner is sure to take the trick: a follow with more jokers or red
  fives than the fewest a legal follow holds; and, before the end of the
  hand, a trump that takes the trick from the partner where another follow
  would not.

Where neither side is sure of the trick, or the opponents take it unless
this seat wins it, points put at risk for nothing are dominated too (the
expert's kinds of issue 56, ``bench/blunders.py``):

* a follow with 10 points or more that wins the trick as it stands but not
  for sure, where a cheap follow with 10 points fewer wins it as well (a 10
  second to a lead where a 7 wins as well);
* a follow with the red five that does not win the trick as it stands (so
  it can neither win nor save points), where a follow holds fewer;
* a losing follow with 10 points more than the cheap follow, fed onto the
  partner's winning play where a later opponent may simply follow higher
  (an unseen higher card, pair or tractor of the led group), or thrown
  second onto the opponents' lead (the partner, last, would have to beat
  both opponents).  A feed that only a ruff could beat is left to the
  search: whether the last opponent is void is what the sampled worlds
  weigh.

And a lead of 10 points or more into a plain group an opponent has shown
void in (and may ruff), where the search has other leads or a pointless card
to lead (:func:`prune_leads`).

The follows and leads that replace them (the cheapest such discard, the
cheapest sure win, the cheap follow doing the same job, the lowest pointless
lead) join the candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.ai.following import beatable, outranked, winning_follows
from engine.ai.memory import BIG_TRUMP, Memory, lead_group, points_of, same_side
from engine.ai.prices import distinct, power
from engine.cards import ACE, Card
from engine.combos import Shape, classify
from engine.hints import cheapest_follow
from engine.tricks import trick_winner_in
from engine.trump import TRUMP, TrumpContext

_Wins = Callable[[Sequence[Card]], bool]
"""Whether a follow takes the trick as it stands."""

GIFT = 5
"""Points a losing follow may give beyond a cheap one before it is dropped."""

WORTH_WINNING = 10
"""Trick points from which a sure, joker-free win is never let go."""

AT_RISK = 10
"""Points a follow (or a lead) may put at risk beyond a cheap one doing the same job before it is dropped."""

_LATE = 5
"""Cards in hand from which taking the lead from the partner may be worth a trump (the last tricks)."""


def prune_follows(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]],
                  candidates: list[list[Card]]) -> list[list[Card]]:
    """The candidates without the dominated follows, with what replaces them (never empty; the first kept first)."""
    ctx = mem.ctx
    hand = list(mem.hand)
    lead = list(current[0][1])
    if len(hand) == len(lead):
        return candidates
    shape = classify(ctx, lead)
    assert shape is not None
    plays = [list(cards) for _s, cards in current]
    seats = [s for s, _c in current]
    later = [(seats[0] + i) % 4 for i in range(len(current) + 1, 4)]
    opponents = [s for s in later if not same_side(s, mem.seat)]
    partner = [s for s in later if same_side(s, mem.seat)]
    winner = trick_winner_in(ctx, plays)
    me = len(plays)

    def wins(play: Sequence[Card]) -> bool:
        return trick_winner_in(ctx, plays + [list(play)]) == me

    if same_side(seats[winner], mem.seat):
        if beatable(mem, shape, plays, winner, opponents):
            # A feed: worth its points only if the partner's play holds; not where a later opponent may simply
            # follow higher (a ruff the seat cannot foresee is left to the search).
            feed_at_risk = outranked(mem, shape, plays[winner], winner, opponents)
            return _at_risk(mem, shape, lead, hand, plays, opponents, candidates, wins, feed_at_risk)
        return _partners_trick(mem, lead, hand, candidates, wins)
    if beatable(mem, shape, plays, winner, partner):
        # Second to the opponents' lead, the partner last: points thrown on are theirs unless the partner beats
        # both opponents.
        return _at_risk(mem, shape, lead, hand, plays, opponents, candidates, wins, True)
    return _lost_unless_won(mem, shape, lead, hand, plays, opponents, candidates, wins)


def prune_leads(mem: Memory, candidates: list[list[Card]]) -> list[list[Card]]:
    """The candidate leads without those of :data:`AT_RISK` points or more into a plain group an opponent has shown
    void in and may ruff; if none is left, the lowest pointless card (if the hand holds one, else all of them)."""
    ctx = mem.ctx
    opponents = ((mem.seat + 1) % 4, (mem.seat + 3) % 4)

    def into_void(play: Sequence[Card]) -> bool:
        group = lead_group(ctx, play)
        return group != TRUMP and points_of(play) >= AT_RISK and any(
            group in mem.voids[o] and mem.may_hold(o, TRUMP) for o in opponents)

    kept = [p for p in candidates if not into_void(p)]
    if kept:
        return kept
    pointless = [c for c in mem.hand if not c.points]
    return [[min(pointless, key=lambda c: power(ctx, c))]] if pointless else candidates


def _at_risk(mem: Memory, shape: Shape, lead: list[Card], hand: list[Card], plays: list[list[Card]],
             opponents: list[int], candidates: list[list[Card]], wins: _Wins, feed_at_risk: bool) -> list[list[Card]]:
    """Neither side is sure of the trick: drop a win put at risk with points where a lighter one wins as well, the
    red five spent for nothing, and (``feed_at_risk``: the trick's points are likely enough the opponents') a losing
    follow with points where a cheap one gives fewer."""
    lighter = _Lighter(mem, shape, lead, hand, plays, opponents, wins)
    kept: list[list[Card]] = []
    extra: list[list[Card]] = []
    for play in candidates:
        alt = lighter.instead(play)
        if alt is None and feed_at_risk and not wins(play):
            alt = lighter.cheap_loss(play)
        if alt is not None:
            extra.append(alt)
        else:
            kept.append(play)
    return distinct(kept + extra)


class _Lighter:
    """The lighter follow doing a play's job, where the play puts points or the red five at risk for nothing."""

    def __init__(self, mem: Memory, shape: Shape, lead: list[Card], hand: list[Card], plays: list[list[Card]],
                 opponents: list[int], wins: _Wins) -> None:
        self.mem, self.shape, self.lead, self.hand, self.plays = mem, shape, lead, hand, plays
        self.opponents, self.wins = opponents, wins
        self._winners: list[list[Card]] | None = None
        self._cheap: list[Card] | None = None

    def instead(self, play: list[Card]) -> list[Card] | None:
        """A win put at risk with :data:`AT_RISK` points or more (a later opponent may beat it) where a cheap
        follow with that many fewer wins the trick as it stands too; or the red five spent where it does not win,
        where a follow holds fewer: the follow to play instead (else None)."""
        mem, ctx = self.mem, self.mem.ctx
        points = points_of(play)
        won = self.wins(play)
        if points >= AT_RISK and won and beatable(mem, self.shape, self.plays + [play], len(self.plays),
                                                  self.opponents):
            if self._winners is None:  # the same job: a cheap follow that wins the trick as it stands too
                self._winners = winning_follows(mem, self.shape, self.lead, self.hand, self.plays)
            alt = next((w for w in self._winners if points - points_of(w) >= AT_RISK and cheap_instead(mem, w, play)),
                       None)
            if alt is not None:
                return alt
        fives = _red_fives(ctx, play)
        if fives and not won:
            sparing = cheapest_follow(ctx, self.lead, self.hand,
                                      lambda c: power(ctx, c) + (1000.0 if ctx.is_red_five(c) else 0.0))
            if _red_fives(ctx, sparing) < fives:
                return sparing
        return None

    def cheap_loss(self, play: list[Card]) -> list[Card] | None:
        """The cheap follow (dearest cards kept) if it gives :data:`AT_RISK` points fewer than ``play``, else None."""
        if self._cheap is None:
            self._cheap = cheapest_follow(self.mem.ctx, self.lead, self.hand, lambda c: _dearness(self.mem, c))
        cheap = self._cheap
        if points_of(play) - points_of(cheap) >= AT_RISK and cheap_instead(self.mem, cheap, play):
            return cheap
        return None


def _red_fives(ctx: TrumpContext, cards: Sequence[Card]) -> int:
    """Red fives (where the red five is a trump) in a play."""
    return sum(1 for c in cards if ctx.is_red_five(c))


def _spent(ctx: TrumpContext, cards: Sequence[Card]) -> int:
    """Jokers and red fives in a play."""
    return sum(1 for c in cards if c.is_joker or ctx.is_red_five(c))


def _partners_trick(mem: Memory, lead: list[Card], hand: list[Card], candidates: list[list[Card]],
                    wins: _Wins) -> list[list[Card]]:
    ctx = mem.ctx
    sparing = cheapest_follow(ctx, lead, hand, lambda c: power(ctx, c) + (1000.0 if _spent(ctx, [c]) else 0.0))
    least = _spent(ctx, sparing)
    kept = [p for p in candidates if _spent(ctx, p) <= least] or [sparing]
    if len(hand) > _LATE:
        under = [p for p in kept if not (wins(p) and any(ctx.group(c) == TRUMP for c in p))]
        if not under and not wins(sparing):
            under = [sparing]
        kept = under or kept
    return kept


def _lost_unless_won(mem: Memory, shape: Shape, lead: list[Card], hand: list[Card], plays: list[list[Card]],
                     opponents: list[int], candidates: list[list[Card]], wins: _Wins) -> list[list[Card]]:
    """The opponents take the trick unless this seat wins it: drop a sure win of worth let go, points given where a
    cheap follow gives fewer, a win put at risk with points where a lighter one wins as well, and the red five spent
    on a trick it does not win."""
    ctx = mem.ctx
    table = sum(points_of(p) for p in plays)
    cheap = cheapest_follow(ctx, lead, hand, lambda c: _dearness(mem, c))
    sure = [w for w in winning_follows(mem, shape, lead, hand, plays)
            if not beatable(mem, shape, plays + [w], len(plays), opponents) and not any(_kept(mem, c) for c in w)]
    lighter = _Lighter(mem, shape, lead, hand, plays, opponents, wins)
    kept: list[list[Card]] = []
    extra: list[list[Card]] = []
    for play in candidates:
        points = points_of(play)
        if wins(play):
            instead = lighter.instead(play)  # a win put at risk with points where a lighter one wins as well
            if instead is not None:
                extra.append(instead)
            else:
                kept.append(play)
        elif sure and table + points >= WORTH_WINNING:
            extra.append(sure[0])  # a sure win of 10 points or more let go: take it
        elif points - points_of(cheap) >= GIFT and cheap_instead(mem, cheap, play):
            extra.append(cheap)  # points given where a cheap follow gives fewer
        elif (instead := lighter.instead(play)) is not None:
            extra.append(instead)  # the red five spent on a trick it does not win
        else:
            kept.append(play)
    return distinct(kept + extra)


def cheap_instead(mem: Memory, alt: Sequence[Card], played: Sequence[Card]) -> bool:
    """Is ``alt`` no dearer than ``played``: no more trumps, and no big trump, ace or top card in place of it?"""
    ctx = mem.ctx
    if sum(ctx.group(c) == TRUMP for c in alt) > sum(ctx.group(c) == TRUMP for c in played):
        return False
    rest = list(played)
    for card in alt:
        if card in rest:
            rest.remove(card)
        elif _precious(mem, card):
            return False
    return True


def _precious(mem: Memory, card: Card) -> bool:
    """A big trump, an ace, or a top card (no unseen card of its group beats it)."""
    ctx = mem.ctx
    order = ctx.order(card)
    return order >= BIG_TRUMP or card.rank == ACE or mem.max_unseen_order(ctx.group(card)) < order


def _dearness(mem: Memory, card: Card) -> float:
    """The price of a card given away on a lost trick: a precious card dearest, then a trump, then points."""
    ctx = mem.ctx
    value = 50.0 * card.points + power(ctx, card)
    if _precious(mem, card):
        value += 2000.0
    if ctx.group(card) == TRUMP:
        value += 1000.0
    return value


def _kept(mem: Memory, card: Card) -> bool:
    """A card a sure win is not bought with: a joker, the red five, or a level card where the J/A rule waits."""
    ctx = mem.ctx
    if card.is_joker or ctx.is_red_five(card):
        return True
    level = ctx.level
    return ctx.ruleset.j_to_bottom != "none" and level in (11, ACE) and card.rank == level


