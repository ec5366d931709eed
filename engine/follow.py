"""Legal leads and legal follows (RULES.md §2.7–2.8, rules F1–F4).

``check_follow`` raises :class:`IllegalPlayError` with a ``code`` naming the
rule a player broke; ``is_legal_follow`` is its boolean form.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb

from engine.cards import RED_FIVE, Card, format_cards
from engine.combos import Shape, classify, five_ten_king, tractors_in
from engine.counting import copies, has, holds
from engine.errors import CardsNotHeldError, IllegalPlayError
from engine.trump import TRUMP, TrumpContext


def check_lead(ctx: TrumpContext, hand: Sequence[Card], cards: Sequence[Card]) -> Shape:
    """Check that ``cards`` may be led from ``hand``; return its shape.

    Any non-empty set of cards of one suit-group may be led (several
    components make a throw, whose validity is judged against the other
    hands by :func:`engine.throws.resolve_throw`).
    """
    if not cards:
        raise IllegalPlayError("Choose at least one card to lead.", code="empty_play")
    if not holds(hand, cards):
        missing = list((Counter(cards) - Counter(hand)).elements())
        raise CardsNotHeldError(format_cards(missing))
    shape = classify(ctx, cards)
    if shape is None:
        raise IllegalPlayError(
            f"{format_cards(cards)} mixes suits: a lead must be all of one suit, or all trumps.",
            code="lead_mixed_suits", cards=format_cards(cards),
        )
    return shape


def follow_profile(ctx: TrumpContext, lead: Shape, cards: Sequence[Card]) -> tuple[tuple[int, int], ...]:
    """How well ``cards`` (all of the lead's group) match the lead's pairs and tractors.

    For each lead tractor, longest first: ``(1, k)`` if a k-pair tractor can be
    taken (cut from a longer one if need be), else ``(0, m)`` with m the pairs
    taken instead (up to k).  Then ``(0, 1)`` or ``(0, 0)`` for each loose lead
    pair.  A follow must match the profile of the follower's whole group.
    """
    want = lead.structure
    counts = Counter(cards)
    pairs = {c for c, n in counts.items() if n >= 2}
    out: list[tuple[int, int]] = []
    for k in want.tractors:
        runs = [run for run, _top in tractors_in(ctx, pairs)]
        fitting = [run for run in runs if len(run) >= k]
        if fitting:
            run = min(fitting, key=len)  # best fit keeps longer tractors for later
            pairs -= set(run[:k])
            out.append((1, k))
            continue
        # No tractor long enough: take pairs, loose ones before tractor members.
        in_runs = {c for run in runs for c in run}
        ordered = sorted(pairs, key=lambda c: (c in in_runs, ctx.order(c)))
        taken = ordered[:k]
        pairs -= set(taken)
        out.append((0, len(taken)))
    for _ in range(want.loose_pairs):
        if pairs:
            pairs.discard(min(pairs, key=ctx.order))
            out.append((0, 1))
        else:
            out.append((0, 0))
    return tuple(out)


def check_follow(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], play: Sequence[Card],
                 *, held: bool = False) -> None:
    """Raise :class:`IllegalPlayError` unless ``play`` (from ``hand``) legally answers ``lead``.

    ``hand`` is the follower's hand before playing and includes ``play``;
    ``held`` says the caller built ``play`` from ``hand`` (it is not counted again).
    """
    if len(lead) == 1 and len(play) == 1:  # a single led and followed (most follows): F1 alone
        card = play[0]
        if not held and not has(hand, card):
            raise CardsNotHeldError(format_cards(play))
        group_of = ctx.group
        group = group_of(lead[0])
        if group_of(card) != group and any(group_of(c) == group for c in hand):
            raise _must_follow(group, 1)
        return
    if len(lead) == 2 and lead[0] is lead[1] and len(play) == 2 and _pair_follows(ctx, lead[0], hand, play, held):
        return  # a pair led and legally followed (the commonest lead after a single); the rest is checked below
    _check_follow(ctx, lead, hand, play, held)


def _pair_follows(ctx: TrumpContext, led: Card, hand: Sequence[Card], play: Sequence[Card], held: bool) -> bool:
    """True if ``play`` (two cards) surely answers a pair of ``led`` from ``hand`` (F1, F2); False: ask the
    general check (:func:`_check_follow`), which may accept it too, or says why not."""
    a, b = play
    if not held and not (copies(hand, a) >= 2 if a is b else has(hand, a) and has(hand, b)):
        return False
    group_of = ctx.group
    group = group_of(led)
    in_group = (group_of(a) == group) + (group_of(b) == group)
    if in_group == 2:  # F2 asks for a pair if the hand holds one in the group
        if a is b or not ctx.ruleset.pairs_must_follow:
            return True
        seen: set[Card] = set()
        for card in hand:
            if group_of(card) == group:
                if card in seen:
                    return False
                seen.add(card)
        return True
    return sum(1 for card in hand if group_of(card) == group) == in_group  # F1: all of the group's fewer than 2


def _check_follow(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], play: Sequence[Card],
                  held: bool) -> None:
    """:func:`check_follow` by the lead's shape, for any lead (a single's too: the fast path's reference)."""
    shape = classify(ctx, lead)
    if shape is None:
        raise IllegalPlayError("The lead is not a valid play.", code="bad_lead")
    n = len(lead)
    if len(play) != n:
        raise IllegalPlayError(
            f"Play exactly {n} card{'s' if n != 1 else ''}, as many as the lead.",
            code="wrong_count", count=n,
        )
    if not held and not holds(hand, play):
        raise CardsNotHeldError(format_cards((Counter(play) - Counter(hand)).elements()))
    group = shape.group
    if n == 1:  # a single (most follows): the suit-group's card if the hand has one
        if ctx.group(play[0]) != group and any(ctx.group(c) == group for c in hand):
            raise _must_follow(group, 1)
        return
    hand_g = [c for c in hand if ctx.group(c) == group]
    play_g = [c for c in play if ctx.group(c) == group]
    suit_name = "trumps" if group == TRUMP else group
    # F1: follow suit as far as possible.
    if len(hand_g) >= n:
        if len(play_g) != n:
            raise _must_follow(group, n)
    elif len(play_g) != len(hand_g):
        raise IllegalPlayError(
            f"You must play all your {suit_name} first.", code="must_follow_suit", group=group, count=len(hand_g),
        )
    if len(hand_g) < n:
        return  # every card of the group is played; nothing more to ask
    # F4: a trump-suit 5-10-K lead forces the highest trumps.
    if shape.kind in ("ftk", "ftk2") and group == TRUMP and ctx.ruleset.ftk_forces_highest:
        _check_forced_highest(ctx, shape, hand_g, play_g)
        return
    if shape.kind == "ftk":
        return  # a plain 5-10-K asks only for the suit (F1)
    # F2: pairs and tractors.
    if ctx.ruleset.pairs_must_follow and shape.structure.pairs:
        need = follow_profile(ctx, shape, hand_g)
        got = follow_profile(ctx, shape, play_g)
        for (need_t, need_n), (got_t, got_n) in zip(need, got):
            if (got_t, got_n) < (need_t, need_n):
                if need_t:
                    raise IllegalPlayError(
                        "You hold a tractor: you must follow with it.", code="must_follow_tractor",
                    )
                raise IllegalPlayError(
                    "You hold pairs: you must follow with them.", code="must_follow_pair",
                )


def _must_follow(group: str, n: int) -> IllegalPlayError:
    """F1's refusal: the hand holds ``n`` cards of the led group, and the play must be them."""
    suit_name = "trumps" if group == TRUMP else group
    return IllegalPlayError(f"You must follow with {n} {suit_name}.", code="must_follow_suit", group=group, count=n)


def _check_forced_highest(ctx: TrumpContext, shape: Shape, hand_t: Sequence[Card], play_t: Sequence[Card]) -> None:
    """F4: answer a trump 5-10-K with the other 5-10-K, or the highest trumps (pairs first for the pair form)."""
    counts = Counter(hand_t)
    if shape.kind == "ftk":
        ftk_cards = [c for c in counts if c.suit == ctx.trump and c.rank in (5, 10, 13)]
        ftk = sorted(ftk_cards, key=lambda c: c.rank)
        if len(ftk) == 3 and five_ten_king(ctx, ftk) is not None:
            if Counter(play_t) != Counter(ftk):
                raise IllegalPlayError(
                    "You hold the trump 5-10-K: you must play it.", code="must_play_ftk",
                )
            return
        required = sorted(hand_t, key=lambda c: -ctx.order(c))[: len(shape.cards)]
    else:
        pairs = sorted((c for c, n in counts.items() if n >= 2), key=lambda c: -ctx.order(c))[:3]
        rest = Counter(hand_t)
        for c in pairs:
            rest[c] -= 2
        fill = sorted(rest.elements(), key=lambda c: -ctx.order(c))[: len(shape.cards) - 2 * len(pairs)]
        required = [c for c in pairs for _ in (0, 1)] + fill
        play_pairs = sum(1 for n in Counter(play_t).values() if n >= 2)
        if play_pairs < len(pairs):
            raise IllegalPlayError("You hold trump pairs: you must follow with them.", code="must_follow_pair")
    if sorted(ctx.order(c) for c in play_t) != sorted(ctx.order(c) for c in required):
        raise IllegalPlayError(
            "A trump 5-10-K forces your highest trumps.", code="must_play_highest_trumps",
        )


def is_legal_follow(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], play: Sequence[Card]) -> bool:
    """True if ``play`` (from ``hand``, which includes it) legally answers ``lead``."""
    try:
        check_follow(ctx, lead, hand, play)
    except IllegalPlayError:
        return False
    return True


def legal_follows(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card],
                  most: int) -> list[tuple[Card, ...]] | None:
    """Every legal follow to ``lead`` from ``hand``, each set of cards once (in ``ctx.sort_key`` order).

    None when there are more than ``most``, or too many to try cheaply: a
    player short in the lead's group may fill with any cards, and a long
    group holds many ways to follow a long lead.  The last cards of a hand are
    its one follow.
    """
    shape = classify(ctx, lead)
    if shape is None:
        return None
    n = len(lead)
    if len(hand) == n:
        return [tuple(sorted(hand, key=ctx.sort_key))]
    in_group = sorted((c for c in hand if ctx.group(c) == shape.group), key=ctx.sort_key)
    if len(in_group) < n or comb(len(in_group), n) > 40 * most:
        return None
    found: list[tuple[Card, ...]] = []
    for play in dict.fromkeys(combinations(in_group, n)):  # a card held twice gives a set twice
        if is_legal_follow(ctx, lead, hand, play):
            found.append(play)
            if len(found) > most:
                return None
    return found


def legal_follow_exists(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card], pool: Sequence[Card]) -> bool:
    """True if some legal follow to ``lead`` from ``hand`` uses only cards of ``pool`` (a part of ``hand``).

    Every candidate is judged by :func:`check_follow` itself.  A candidate is
    a choice of pairs (every set of the pool's pairs in the lead's group)
    filled with single cards taken highest first or lowest first: F1 asks
    only for counts, F2 only for the pairs a play holds, and F4 for the
    highest trumps, so these candidates reach every verdict the rules can give.
    """
    shape = classify(ctx, lead)
    if shape is None:
        return False
    n = len(lead)
    group = shape.group
    need_g = min(n, sum(1 for c in hand if ctx.group(c) == group))
    pool_g = [c for c in pool if ctx.group(c) == group]
    pool_off = [c for c in pool if ctx.group(c) != group]
    if len(pool_g) < need_g or len(pool_off) < n - need_g:
        return False
    off = pool_off[: n - need_g]
    counts = Counter(pool_g)
    pair_types = sorted((c for c, m in counts.items() if m >= 2), key=ctx.order)
    for size in range(min(len(pair_types), need_g // 2), -1, -1):
        for pairs in combinations(pair_types, size):
            singles = [c for c in counts if c not in pairs]
            fill = need_g - 2 * size
            if len(singles) < fill:
                continue
            for high_first in (True, False):
                chosen = sorted(singles, key=ctx.order, reverse=high_first)[:fill]
                if is_legal_follow(ctx, lead, hand, [c for c in pairs for _ in (0, 1)] + chosen + off):
                    return True
    return False


def red_fives_forced(ctx: TrumpContext, lead: Sequence[Card] | None, hand: Sequence[Card],
                     played: Sequence[Card]) -> int:
    """How many red fives in ``played`` (from ``hand``) the player could not have kept back (逼红5, A25).

    For a lead: all of them when the hand held nothing but red fives.  For a
    follow: the fewest red fives that any legal follow holds, as
    :func:`legal_follow_exists` finds with the follow rules themselves.
    """
    if not ctx.ruleset.red5_trump or RED_FIVE not in played:  # cards are interned: `in` asks identity
        return 0
    in_play = sum(1 for c in played if ctx.is_red_five(c))
    if not in_play:
        return 0
    if lead is None:
        return in_play if all(ctx.is_red_five(c) for c in hand) else 0
    others = [c for c in hand if not ctx.is_red_five(c)]
    fives = [c for c in hand if ctx.is_red_five(c)]
    for kept_in in range(in_play):
        if legal_follow_exists(ctx, lead, hand, others + fives[:kept_in]):
            return kept_in
    return in_play
