"""Following for the AI: the candidate plays to a trick someone else led.

Following builds a few legal candidates with :func:`engine.hints.cheapest_follow`
under different prices (discard cheaply, give points, win with the least)
and picks by the usual priorities: feed points to a partner who is sure to
win; otherwise win cheaply when the trick is worth it and the win will hold;
otherwise throw away low cards that carry no points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from engine.ai.memory import BIG_TRUMP, Memory, points_of, same_side
from engine.ai.prices import ENDGAME, discard_cost, distinct, feed_cost, keeping_red_five, play_cost, power, powers
from engine.cards import Card
from engine.combos import Shape, classify, decompose, five_ten_king, tractors_in
from engine.counting import tally
from engine.errors import IllegalPlayError
from engine.follow import check_follow, legal_follows
from engine.hints import cheapest_follow
from engine.tricks import is_ruff, ruff_key, trick_winner_in
from engine.trump import TRUMP, TrumpContext

LATER_OPPONENTS: dict[tuple[int, int, int], tuple[int, ...]] = {
    (first, played, seat): tuple(s for s in ((first + i) % 4 for i in range(played + 1, 4)) if not same_side(s, seat))
    for first in range(4) for played in range(1, 4) for seat in range(4)
}
"""The opponents of ``seat`` still to play after it, by the trick's first seat and the plays made before it."""


def follow_candidates(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]],
                      limit: int | None = None) -> list[list[Card]]:
    """Distinct legal follows worth comparing, the heuristic's choice first (``limit`` of them at most).

    The others are the cheapest discard, the best feed to a partner and the
    cheapest wins (secure or not): the plays a search chooses among.  With
    ``limit`` 1 only the follows the choice needs are built: the same choice,
    at a fraction of the work (the rollouts' follows to a single or a pair
    make it faster still: :func:`single_choice`, :func:`engine.ai.pair_follow.pair_choice`).
    """
    ctx = mem.ctx
    hand = list(mem.hand)
    seat = mem.seat
    lead = list(current[0][1])
    shape = classify(ctx, lead)
    assert shape is not None
    plays = [list(cards) for _s, cards in current]
    seats = [s for s, _c in current]
    later_opponents = LATER_OPPONENTS[seats[0], len(current), seat]
    group = shape.group
    mine = [c for c in hand if ctx.group(c) == group]
    # A single's follow is the cheapest card of the group (or of the hand): only those cards' copies are priced.
    single = len(lead) == 1
    counts = tally((mine or hand) if single else hand)
    table_points = sum([c.points for p in plays for c in p])
    winner = trick_winner_in(ctx, plays)
    partner_wins = same_side(seats[winner], seat)
    last_trick = len(hand) == len(lead)
    choice: list[Card] | None = None
    feed: list[Card] | None = None
    winners: list[list[Card]] | None = None
    if partner_wins and not beatable(mem, shape, plays, winner, later_opponents):
        choice = feed = [min(mine or hand, key=feed_cost(ctx, counts))] if single else \
            cheapest_follow(ctx, lead, hand, feed_cost(ctx, counts))
    elif not (partner_wins and not (table_points >= 10 or last_trick)):
        winners = winning_follows(mem, shape, lead, hand, plays, winner, mine)
        secure = [w for w in winners if not beatable(mem, shape, plays + [w], len(plays), later_opponents)]
        if keeping_red_five(mem):
            secure = [w for w in secure if not any(ctx.is_red_five(c) for c in w)]
        # Only wins that will hold are worth paying for: over an opponent, or over a
        # partner who may be beaten on a trick worth having (10+ points, or the last).
        if secure:
            best = min(secure, key=lambda w: play_cost(ctx, w))
            if _worth(ctx, best, table_points + points_of(best), last_trick, len(hand)):
                choice = _spare_red_five(mem, best, secure)
    if choice is not None and limit == 1:
        return [choice]
    discard = [min(mine or hand, key=discard_cost(ctx, counts))] if single else \
        cheapest_follow(ctx, lead, hand, discard_cost(ctx, counts))
    if limit == 1:
        return [discard]
    if feed is None:
        feed = cheapest_follow(ctx, lead, hand, feed_cost(ctx, counts))
    if winners is None:
        winners = winning_follows(mem, shape, lead, hand, plays, mine=mine)
    return distinct([choice or discard, discard, feed, *winners])[:limit]


def single_choice(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]],
                  mine: list[Card] | None = None) -> list[Card]:
    """:func:`follow_candidates`' choice (``limit`` 1) when a single was led, the rollouts' commonest decision
    (a test compares them on random positions).  ``mine``: the hand's cards of the led group, if the caller
    has them (in the hand's order).

    The same choice, made with the same tests in the same order, worked out on
    single cards without building the plays and shapes the general case needs.
    """
    ctx = mem.ctx
    group_of, order_of = ctx.group, ctx.order
    hand = mem.hand
    seat = mem.seat
    card = current[0][1][0]
    group = group_of(card)
    if mine is None:
        mine = [c for c in hand if group_of(c) == group]
    # The winner so far (tricks._single_winner) and the points on the table.
    best, best_group, best_order, table_points = 0, group, order_of(card), card.points
    for index in range(1, len(current)):
        card = current[index][1][0]
        table_points += card.points
        card_group = group_of(card)
        if card_group == best_group:
            order = order_of(card)
            if order > best_order:
                best, best_order = index, order
        elif card_group == TRUMP:
            best, best_group, best_order = index, TRUMP, order_of(card)
    first = current[0][0]
    later_opponents = LATER_OPPONENTS[first, len(current), seat]
    partner_wins = same_side(current[best][0], seat)
    last_trick = len(hand) == 1
    if partner_wins and not _single_beatable(mem, group, best_group != group, best_order, later_opponents):
        cards = mine or hand
        return [min(cards, key=feed_cost(ctx, tally(cards)))]
    if not (partner_wins and not (table_points >= 10 or last_trick)):
        ruffed = best_group != group  # a single's winner off the led group is a trump
        if mine:
            wins = [] if ruffed else sorted([c for c in dict.fromkeys(mine) if order_of(c) > best_order], key=order_of)
        elif group == TRUMP:
            wins = []
        else:
            wins = sorted(dict.fromkeys([c for c in hand if group_of(c) == TRUMP]), key=order_of)
            if ruffed:
                wins = [c for c in wins if order_of(c) > best_order]
        secure = [[c] for c in wins[:3]
                  if not _single_beatable(mem, group, len(current) != 0 and group_of(c) != group, order_of(c),
                                          later_opponents)]
        if keeping_red_five(mem):
            secure = [w for w in secure if not ctx.is_red_five(w[0])]
        if secure:
            prices = powers(ctx)
            win = min(secure, key=lambda w: prices[w[0]])  # play_cost of a single card
            if _worth(ctx, win, table_points + win[0].points, last_trick, len(hand)):
                return _spare_red_five(mem, win, secure)
    cards = mine or hand
    return [min(cards, key=discard_cost(ctx, tally(cards)))]


def _single_beatable(mem: Memory, group: str, ruffed: bool, win_order: int, later: Sequence[int]) -> bool:
    """:func:`beatable` for a single led (of ``group``), its winning card of order ``win_order`` a trump if ``ruffed``."""
    for seat in later:
        if not ruffed and mem.may_hold(seat, group) and group not in mem.voids[seat] \
                and mem.max_unseen_order(group) > win_order:
            return True
        if group != TRUMP and mem.may_be_void(seat, group, 1) and mem.may_hold(seat, TRUMP) \
                and mem.max_unseen_order(TRUMP) > (win_order if ruffed else -1):
            return True
    return False


def every_play(mem: Memory, current: Sequence[tuple[int, Sequence[Card]]], most: int) -> list[list[Card]] | None:
    """Every distinct play worth a search at the end of a hand, or None if there are more than ``most``.

    Following: every legal follow (:func:`engine.follow.legal_follows`).
    Leading: every single card, pair and tractor in the hand (a throw only
    as the heuristic proposes it).  With a few cards left a search can
    compare them all, and the last tricks decide the kitty.
    """
    ctx = mem.ctx
    hand = list(mem.hand)
    if current:
        follows = legal_follows(ctx, current[0][1], hand, most)
        return None if follows is None else [list(p) for p in follows]
    by_group: dict[str, list[Card]] = {}
    for c in hand:
        by_group.setdefault(ctx.group(c), []).append(c)
    plays: list[list[Card]] = []
    for cards in by_group.values():
        comps = decompose(ctx, cards)
        plays.extend(list(comp.cards) for comp in comps if comp.kind != "single")
        plays.extend([c] for c in dict.fromkeys(cards))
    plays = distinct(plays)
    return plays if len(plays) <= most else None


def _spare_red_five(mem: Memory, best: list[Card], secure: list[list[Card]]) -> list[Card]:
    """Win with the red five rather than a bigger trump when it holds as well (habit 2: it would be forced out later).

    With the 逼红5 rule a red five kept among few trumps is forced out by a
    trump lead and costs the side; cashing it on a trick it wins is free.
    """
    ctx = mem.ctx
    if not ctx.ruleset.red5_bonus:
        return best
    fives = [w for w in secure if len(w) == 1 and ctx.is_red_five(w[0])]
    if fives and len(best) == 1 and ctx.group(best[0]) == TRUMP and ctx.order(best[0]) >= BIG_TRUMP:
        return fives[0]
    return best


def _worth(ctx: TrumpContext, play: Sequence[Card], points: int, last_trick: bool, hand_size: int) -> bool:
    """Is winning this trick with ``play`` worth what it spends? (habit 5: card economy)

    Big trumps (level cards, jokers, the red five) hold the end of the hand
    and the kitty: a single one is spent for 10 points or more, a pair of
    them only for 25 or more, until the end draws near.
    """
    if last_trick:
        return True
    trumps = [c for c in play if ctx.group(c) == TRUMP]
    if not trumps:
        return True  # a plain card that wins costs nothing and takes the lead
    big = sum(1 for c in trumps if ctx.order(c) >= BIG_TRUMP)
    if big and hand_size > ENDGAME:
        return points >= (25 if big >= 2 else 10)
    if points >= 10:
        return True
    if big:
        return False  # big trumps are not spent on a trick worth under 10
    return points >= 5 or len(play) >= 2


def winning_follows(mem: Memory, shape: Shape, lead: list[Card], hand: list[Card],
                    plays: list[list[Card]], win_index: int | None = None,
                    mine: list[Card] | None = None) -> list[list[Card]]:
    """Legal follows that would win the trick as it stands (cheapest first, a handful at most).

    ``win_index`` is the index of the play winning it so far, and ``mine`` the hand's cards of the
    lead's group, if the caller knows them already.
    """
    ctx = mem.ctx
    group = shape.group
    n = len(lead)
    if mine is None:
        mine = [c for c in hand if ctx.group(c) == group]
    if win_index is None:
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
    if n == 1:
        # A single: each candidate is a legal follow (of the group, or a trump when void in it) above the
        # winning card's order in the winning group, so it wins; this is what the loop below would find.
        return cands[:3]
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
    counts = tally(mine)
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
    counts = tally(trumps)
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


def _build_ruff(ctx: TrumpContext, shape: Shape, counts: Mapping[Card, int], strong: bool) -> list[Card] | None:
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


def beatable(mem: Memory, shape: Shape, plays: list[list[Card]], winner: int, later: Sequence[int]) -> bool:
    """Could one of the later opponents beat the winning play, given the unseen cards?"""
    if not later:
        return False
    group = shape.group
    if group == TRUMP and shape.kind in ("ftk", "ftk2"):
        return False
    win = plays[winner]
    ruffed = _ruffed(mem.ctx, group, win, winner)
    if not ruffed and _followed_higher(mem, shape, win, later):
        return True
    if group == TRUMP:
        return False
    n = len(shape.cards)
    return any(mem.may_be_void(seat, group, n) and mem.may_hold(seat, TRUMP) for seat in later) \
        and _ruff_could_beat(mem, shape, win if ruffed else None)


def outranked(mem: Memory, shape: Shape, win: list[Card], winner: int, later: Sequence[int]) -> bool:
    """Could one of the ``later`` seats beat the winning play ``win`` by following the lead's group (an unseen
    higher card, pair or tractor of it), not only by a ruff?"""
    return not _ruffed(mem.ctx, shape.group, win, winner) and _followed_higher(mem, shape, win, later)


def _ruffed(ctx: TrumpContext, group: str, win: list[Card], winner: int) -> bool:
    """Is the winning play a follower's ruff (cards outside the led group)?"""
    return winner != 0 and any(ctx.group(c) != group for c in win)


def _followed_higher(mem: Memory, shape: Shape, win: list[Card], later: Sequence[int]) -> bool:
    """May one of the ``later`` seats hold the lead's group, and could its unseen cards beat ``win`` following?"""
    return any(mem.may_hold(seat, shape.group) for seat in later) and _follow_beats(mem, shape, win)


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

