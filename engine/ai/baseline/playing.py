"""Leading and following for the AI.

Following builds a few legal candidates with :func:`engine.hints.cheapest_follow`
under different prices (discard cheaply, give points, win with the least)
and picks by the usual priorities: feed points to a partner who is sure to
win; otherwise win cheaply when the trick is worth it and the win will hold;
otherwise throw away low cards that carry no points.  Leading prefers safe
throws and sure winners, then a partner's ruff, drawing trumps with a long
trump holding, and finally a low card from a long plain suit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from engine.ai.baseline.memory import Memory, partner_of, points_of, same_side
from engine.cards import Card
from engine.combos import Component, Shape, classify, decompose, five_ten_king, tractors_in
from engine.errors import IllegalPlayError
from engine.follow import check_follow
from engine.hints import cheapest_follow
from engine.tricks import is_ruff, ruff_key, trick_winner_in
from engine.trump import TRUMP, TrumpContext

_BIG = 20  # orders from here up are level cards, jokers and the red five


# --- prices ---------------------------------------------------------------------------

def power(ctx: TrumpContext, card: Card) -> float:
    """What a card is worth keeping for its strength: trumps above every plain card."""
    order = ctx.order(card)
    if ctx.group(card) == TRUMP:
        return 30.0 + order + (10.0 if order >= _BIG else 0.0)
    return float(order)


def discard_cost(ctx: TrumpContext, hand_counts: Counter[Card]) -> Callable[[Card], float]:
    """Price for throwing cards away to an opponent: low, pointless, unpaired cards are cheapest."""
    def cost(card: Card) -> float:
        value = power(ctx, card) + 4.0 * card.points
        if hand_counts[card] >= 2:
            value += 6.0
        return value
    return cost


def feed_cost(ctx: TrumpContext, hand_counts: Counter[Card]) -> Callable[[Card], float]:
    """Price for playing to a partner's sure win: point cards are wanted, big trumps are not."""
    def cost(card: Card) -> float:
        value = power(ctx, card) - 4.5 * card.points
        if hand_counts[card] >= 2 and not card.points:
            value += 6.0
        return value
    return cost


def play_cost(ctx: TrumpContext, cards: Sequence[Card]) -> float:
    """What a play spends: the strength of its cards."""
    return sum(power(ctx, c) for c in cards)


# --- following --------------------------------------------------------------------------

def choose_follow(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]]) -> list[Card]:
    """The cards to play to a trick someone else led."""
    ctx = mem.ctx
    hand = list(mem.hand)
    seat = mem.seat
    lead = list(current[0][1])
    shape = classify(ctx, lead)
    assert shape is not None
    plays = [list(cards) for _s, cards in current]
    seats = [s for s, _c in current]
    later = [(seats[0] + i) % 4 for i in range(len(current) + 1, 4)]
    later_opponents = [s for s in later if not same_side(s, seat)]
    counts = Counter(hand)
    table_points = sum(points_of(p) for p in plays)
    winner = trick_winner_in(ctx, plays)
    partner_wins = same_side(seats[winner], seat)
    last_trick = len(hand) == len(lead)

    if partner_wins and not _beatable(mem, shape, plays, winner, later_opponents):
        return cheapest_follow(ctx, lead, hand, feed_cost(ctx, counts))
    if partner_wins and not (table_points >= 10 or last_trick):
        return cheapest_follow(ctx, lead, hand, discard_cost(ctx, counts))
    winners = _winning_follows(mem, shape, lead, hand, plays)
    secure = [w for w in winners if not _beatable(mem, shape, plays + [w], len(plays), later_opponents)]
    # Only wins that will hold are worth paying for: over an opponent, or over a
    # partner who may be beaten on a trick worth having (10+ points, or the last).
    if secure:
        best = min(secure, key=lambda w: play_cost(ctx, w))
        if _worth(ctx, best, table_points + points_of(best), last_trick):
            return best
    return cheapest_follow(ctx, lead, hand, discard_cost(ctx, counts))


def _worth(ctx: TrumpContext, play: Sequence[Card], points: int, last_trick: bool) -> bool:
    """Is winning this trick with ``play`` worth what it spends?"""
    if last_trick or points >= 10:
        return True
    trumps = [c for c in play if ctx.group(c) == TRUMP]
    if not trumps:
        return True  # a plain card that wins costs nothing and takes the lead
    if max(ctx.order(c) for c in trumps) >= _BIG:
        return False  # big trumps are not spent on a trick worth under 10
    return points >= 5 or len(play) >= 2


def _winning_follows(mem: Memory, shape: Shape, lead: list[Card], hand: list[Card],
                     plays: list[list[Card]]) -> list[list[Card]]:
    """Legal follows that would win the trick as it stands (cheapest first, a handful at most)."""
    ctx = mem.ctx
    group = shape.group
    n = len(lead)
    mine = [c for c in hand if ctx.group(c) == group]
    win_index = trick_winner_in(ctx, plays)
    best = plays[win_index]
    # A lead may mix groups (the red five in a plain-hearts 5-10-K); only a follower's winning play is a ruff.
    ruffed = win_index != 0 and any(ctx.group(c) != group for c in best)
    if len(mine) >= n:
        if ruffed or shape.kind in ("throw", "ftk", "ftk2"):
            return []  # a follow never beats a ruff, a throw or a 5-10-K
        cands = _shaped_candidates(ctx, shape, mine)
        if shape.kind in ("single", "pair"):
            floor = ctx.order(best[0])
            cands = [c for c in cands if ctx.order(c[0]) > floor]
    elif mine or group == TRUMP:
        return []  # a part-follow is a discard; no trumps to follow trumps
    else:
        trumps = [c for c in hand if ctx.group(c) == TRUMP]
        if len(trumps) < n:
            return []
        cands = _ruff_candidates(ctx, shape, trumps)
        if ruffed and shape.kind in ("single", "pair"):
            floor = ruff_key(ctx, shape, best)[0]
            cands = [c for c in cands if ctx.order(c[0]) > floor]
    index = len(plays)
    out: list[list[Card]] = []
    for cand in cands:
        full = _complete(ctx, lead, hand, cand)
        if full is not None and trick_winner_in(ctx, plays + [full]) == index:
            out.append(full)
            if len(out) >= 3:
                break
    return out


def _complete(ctx: TrumpContext, lead: list[Card], hand: list[Card], core: list[Card]) -> list[Card] | None:
    """A legal follow that contains ``core`` (the cards meant to win), cheapest otherwise; None if none is found."""
    if len(core) == len(lead):
        try:
            check_follow(ctx, lead, hand, core)
            return core
        except IllegalPlayError:
            pass
    want = Counter(core)

    def cost(card: Card) -> float:
        return power(ctx, card) - (1000.0 if want[card] else 0.0)

    play = cheapest_follow(ctx, lead, hand, cost)
    if Counter(play) & want != want:
        return None
    return play


def _shaped_candidates(ctx: TrumpContext, shape: Shape, mine: list[Card]) -> list[list[Card]]:
    """Same-group plays of the lead's own shape, weakest first."""
    counts = Counter(mine)
    if shape.kind == "single":
        return [[c] for c in sorted(counts, key=ctx.order)]
    pairs = sorted((c for c, m in counts.items() if m >= 2), key=ctx.order)
    if shape.kind == "pair":
        return [[c, c] for c in pairs]
    k = shape.components[0].pairs
    out: list[list[Card]] = []
    for run, _top in tractors_in(ctx, pairs):
        for i in range(len(run) - k, -1, -1):  # lowest window first
            out.append([c for c in run[i:i + k] for _ in (0, 1)])
    return out


def _ruff_candidates(ctx: TrumpContext, shape: Shape, trumps: list[Card]) -> list[list[Card]]:
    """Trump plays that could ruff the lead, weakest first."""
    n = len(shape.cards)
    counts = Counter(trumps)
    if shape.kind == "ftk":
        ftk = [c for c in counts if c.suit == ctx.trump and c.rank in (5, 10, 13)]
        return [ftk] if len(ftk) == 3 and five_ten_king(ctx, ftk) is not None else []
    if shape.kind == "ftk2":
        ftk = [c for c in counts if c.suit == ctx.trump and c.rank in (5, 10, 13) and counts[c] >= 2]
        return [[c for c in ftk for _ in (0, 1)]] if len(ftk) == 3 else []
    if shape.kind == "single":
        return [[c] for c in sorted(counts, key=ctx.order)]
    pairs = sorted((c for c, m in counts.items() if m >= 2), key=ctx.order)
    if shape.kind == "pair":
        return [[c, c] for c in pairs]
    if shape.kind == "tractor":
        return _shaped_candidates(ctx, shape, trumps)
    # A throw: match its tractors and pairs with the cheapest trumps, then a stronger version.
    out: list[list[Card]] = []
    for strong in (False, True):
        built = _build_ruff(ctx, shape, counts, strong)
        if built is not None and len(built) == n and is_ruff(ctx, shape, built):
            out.append(built)
    return out


def _build_ruff(ctx: TrumpContext, shape: Shape, counts: Counter[Card], strong: bool) -> list[Card] | None:
    pool = Counter(counts)
    want = shape.structure
    chosen: list[Card] = []
    for k in want.tractors:
        pairs = [c for c, m in pool.items() if m >= 2]
        windows = [run[i:i + k] for run, _t in tractors_in(ctx, pairs) for i in range(len(run) - k + 1)]
        if not windows:
            return None
        pick = (max if strong else min)(windows, key=lambda w: sum(ctx.order(c) for c in w))
        for c in pick:
            pool[c] -= 2
            chosen += [c, c]
    for _ in range(want.loose_pairs):
        pairs = [c for c, m in pool.items() if m >= 2]
        if not pairs:
            return None
        c = (max if strong else min)(pairs, key=ctx.order)
        pool[c] -= 2
        chosen += [c, c]
    rest = sorted(pool.elements(), key=lambda c: power(ctx, c))
    need = len(shape.cards) - len(chosen)
    if strong and need:
        # The ruff key of a singles throw is the highest card: put the best one in.
        top = rest[-1]
        rest = [top] + rest[:-1]
    chosen += rest[:need]
    return chosen if len(chosen) == len(shape.cards) else None


def _beatable(mem: Memory, shape: Shape, plays: list[list[Card]], winner: int, later: list[int]) -> bool:
    """Could one of the later opponents beat the winning play, given the unseen cards?"""
    if not later:
        return False
    ctx = mem.ctx
    if shape.group == TRUMP and shape.kind in ("ftk", "ftk2"):
        return False
    win = plays[winner]
    group = shape.group
    n = len(shape.cards)
    ruffed = winner != 0 and any(ctx.group(c) != group for c in win)
    for seat in later:
        can_follow = mem.may_hold(seat, group) and group not in mem.voids[seat]
        if not ruffed and can_follow and _follow_beats(mem, shape, win):
            return True
        if group != TRUMP and mem.may_be_void(seat, group, n) and mem.may_hold(seat, TRUMP):
            if _ruff_could_beat(mem, shape, win if ruffed else None):
                return True
    return False


def _follow_beats(mem: Memory, shape: Shape, win: list[Card]) -> bool:
    """Could unseen cards of the lead's group beat ``win`` by following with the lead's shape?"""
    ctx = mem.ctx
    group = shape.group
    if shape.kind == "single":
        return mem.max_unseen_order(group) > ctx.order(win[0])
    if shape.kind == "pair":
        return mem.max_unseen_pair_order(group) > ctx.order(win[0])
    if shape.kind == "tractor":
        comps = decompose(ctx, win)
        return mem.unseen_tractor_beats(group, comps[0].pairs, comps[0].top)
    return False


def _ruff_could_beat(mem: Memory, shape: Shape, ruff: list[Card] | None) -> bool:
    """Could unseen trumps ruff the lead (and, if ``ruff`` is given, beat that ruff)?"""
    ctx = mem.ctx
    want = shape.structure
    if shape.kind in ("ftk", "ftk2"):
        return False  # only the trump 5-10-K ruffs it: too rare to fear
    if want.tractors:
        top = -1 if ruff is None else ruff_key(ctx, shape, ruff)[1]
        return mem.unseen_tractor_beats(TRUMP, want.tractors[0], top)
    if want.pairs:
        top = -1 if ruff is None else ruff_key(ctx, shape, ruff)[0]
        return mem.max_unseen_pair_order(TRUMP) > top
    top = -1 if ruff is None else ruff_key(ctx, shape, ruff)[0]
    return mem.max_unseen_order(TRUMP) > top


# --- leading ----------------------------------------------------------------------------

def choose_lead(mem: Memory, *, dealer_side: bool, heaven_and_earth: bool) -> list[Card]:
    """The cards to lead."""
    ctx = mem.ctx
    hand = list(mem.hand)
    by_group: dict[str, list[Card]] = {}
    for c in hand:
        by_group.setdefault(ctx.group(c), []).append(c)
    if heaven_and_earth and len(hand) == 3 and five_ten_king(ctx, hand) is not None:
        return hand  # 上天入地: the last trick won with a 5-10-K
    if len(by_group) == 1 and len(hand) <= 3:
        return _end_lead(mem, hand, heaven_and_earth)
    options: list[tuple[float, list[Card]]] = []
    opponents = [s for s in range(4) if not same_side(s, mem.seat)]
    partner = partner_of(mem.seat)
    trumps = by_group.get(TRUMP, [])
    for group, cards in by_group.items():
        plain = group != TRUMP
        ruff_risk = plain and any(group in mem.voids[o] and mem.may_hold(o, TRUMP) for o in opponents)
        comps = decompose(ctx, cards)
        safe = [c for c in comps if not _component_beatable(mem, group, c)]
        if len(safe) >= 2 and not ruff_risk:
            throw = [card for comp in safe for card in comp.cards]
            shape = classify(ctx, throw)
            if shape is not None and shape.kind == "throw" and not any(
                    _component_beatable(mem, group, c) for c in shape.components):
                options.append((100.0 + len(throw) + (0 if plain else -20), throw))
        for comp in safe:
            if ruff_risk:
                continue
            base = {"tractor": 90.0, "pair": 75.0, "single": 55.0}[comp.kind]
            if not plain:
                base -= 25.0  # sure trump winners are better kept to draw trumps later
                if comp.kind == "single" and comp.top >= _BIG and not _red_five_at_risk(ctx, comp, trumps):
                    base -= 30.0  # a lone top trump guards the end; lead it only for want of better
            options.append((base + comp.size + points_of(comp.cards) / 5, list(comp.cards)))
        ftk = _five_ten_king_in(ctx, cards, hand)
        if ftk is not None:
            ftk_shape = classify(ctx, ftk)
            if ftk_shape is not None and ftk_shape.kind == "ftk":
                trump_ftk = ftk_shape.group == TRUMP
                if trump_ftk or not ruff_risk:
                    options.append((95.0 if trump_ftk else 70.0, ftk))
        if plain and not ruff_risk and group in mem.voids[partner] and mem.may_hold(partner, TRUMP):
            low = min(cards, key=lambda c: (c.points, ctx.order(c)))
            options.append((60.0 - low.points, [low]))
        if plain:
            options.extend(_low_leads(mem, group, cards, len(hand)))
    if trumps:
        options.extend(_trump_leads(mem, trumps, len(hand), dealer_side))
    if not options:
        low = min(hand, key=lambda c: (power(ctx, c) + 2.5 * c.points))
        return [low]
    return max(options, key=lambda o: o[0])[1]


def _red_five_at_risk(ctx: TrumpContext, comp: Component, trumps: list[Card]) -> bool:
    """A red five with two or fewer other trumps may be forced out by a trump pair lead (逼红5): cash it."""
    if not ctx.ruleset.red5_bonus or not ctx.is_red_five(comp.cards[0]):
        return False
    return sum(1 for c in trumps if not ctx.is_red_five(c)) <= 2


def _end_lead(mem: Memory, hand: list[Card], heaven_and_earth: bool) -> list[Card]:
    """Two or three cards of one group left: lead them all if they stand, keeping 5-10-K whole."""
    ctx = mem.ctx
    if heaven_and_earth and five_ten_king(ctx, hand) is not None:
        return hand
    group = ctx.group(hand[0])
    comps = decompose(ctx, hand)
    if len(comps) == 1 or not any(_component_beatable(mem, group, c) for c in comps):
        return hand
    # Lead the strongest component; the rest follows.
    return list(max(comps, key=lambda c: (c.size, c.top)).cards)


def _five_ten_king_in(ctx: TrumpContext, cards: list[Card], hand: list[Card]) -> list[Card] | None:
    """A 5-10-K among ``cards`` (one group), completed by the red five from ``hand`` where the ruleset allows."""
    if not ctx.ruleset.five_ten_king:
        return None
    by_suit: dict[str, dict[int, Card]] = {}
    for c in cards:
        if c.rank in (5, 10, 13) and c.suit is not None:
            by_suit.setdefault(c.suit, {})[c.rank] = c
    red_five = next((c for c in hand if ctx.is_red_five(c)), None)
    if red_five is not None and ctx.ruleset.red5_in_plain_ftk and "H" in by_suit:
        by_suit["H"].setdefault(5, red_five)  # a trump, yet it may complete plain hearts (A42)
    for ranks in by_suit.values():
        if len(ranks) == 3:
            ftk = [ranks[5], ranks[10], ranks[13]]
            if five_ten_king(ctx, ftk) is not None:
                return ftk
    return None


def _component_beatable(mem: Memory, group: str, comp: Component) -> bool:
    """Could any unseen cards beat this component, were it thrown?"""
    if comp.kind == "single":
        return mem.max_unseen_order(group) > comp.top
    if comp.kind == "pair":
        return mem.max_unseen_pair_order(group) > comp.top
    return mem.unseen_tractor_beats(group, comp.pairs, comp.top)


def _low_leads(mem: Memory, group: str, cards: list[Card], hand_size: int) -> list[tuple[float, list[Card]]]:
    """Low, pointless leads from a plain suit: longer suits first; a low pair drags out pairs."""
    ctx = mem.ctx
    counts = Counter(cards)
    out: list[tuple[float, list[Card]]] = []
    length = len(cards)
    singles = [c for c in counts if not c.points]
    if singles:
        low = min(singles, key=lambda c: (counts[c] >= 2, ctx.order(c)))
        out.append((20.0 + length - ctx.order(low) / 4, [low]))
    pairs = [c for c, m in counts.items() if m >= 2 and not c.points and ctx.order(c) <= 9]
    if pairs:
        low = min(pairs, key=ctx.order)
        out.append((22.0 + length - ctx.order(low) / 4, [low, low]))
    if not singles and not pairs:
        low = min(counts, key=lambda c: (c.points, ctx.order(c)))
        out.append((5.0, [low]))
    return out


def _trump_leads(mem: Memory, trumps: list[Card], hand_size: int, dealer_side: bool) -> list[tuple[float, list[Card]]]:
    """Drawing trumps: worth it with a long holding while opponents still hold some."""
    ctx = mem.ctx
    out: list[tuple[float, list[Card]]] = []
    outstanding = mem.unseen_count(TRUMP)
    counts = Counter(trumps)
    small = [c for c in counts if ctx.order(c) < _BIG and not c.points]
    long_holding = len(trumps) >= 6 and len(trumps) * 2 >= hand_size
    if outstanding and long_holding:
        pairs = [c for c in small if counts[c] >= 2]
        if pairs:
            low = min(pairs, key=ctx.order)
            out.append((45.0 + (5.0 if dealer_side else 0.0), [low, low]))
        elif small:
            low = min(small, key=ctx.order)
            out.append((35.0 + (5.0 if dealer_side else 0.0), [low]))
    if len(trumps) == hand_size:
        low = min(trumps, key=lambda c: (power(ctx, c) + 2.5 * c.points))
        out.append((10.0, [low]))
    return out
