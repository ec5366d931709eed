"""Clear-cut blunders of play, judged against every legal alternative (issue 47), and what buries and steals do.

The judge sees the true deal (it is a referee, not a player), but a play
is called a blunder only where the player could know it: the last player
of a trick knows its outcome for each of its follows; the second and third
player only where no card it has not seen could change who wins (the
unseen cards and the voids shown, :func:`beatable`).  The kinds:

* ``gift`` — the opponents win the trick, and a *cheap* legal follow would
  have given 10 points or more fewer: one with no more trumps and, in
  place of the cards played, no big trump (level card, joker, red five),
  no ace and no top card (a card no unseen card of its group beats).
* ``lost`` — the opponents take a trick of 10 points or more that a legal
  follow without a joker or red five would have won for sure (in a hand at
  J or A where the last trick's J/A rule applies, without a level card
  either: those are kept for the last trick).
* ``joker`` — a joker or red five spent on a trick the partner was sure to
  win, where a legal follow held fewer of them.
* ``steal_partner`` (judged at each steal) — a steal of the partner's kitty
  that keeps the same trump.

The expert's kinds (issue 56), each judged where none of the kinds above
is, and counted only where it cost: the opponents took the trick
(:func:`judge_hand`; :func:`judge_play` and :func:`judge_lead` judge the
play alone), or for a stolen kitty, the dealer side won the last trick:

* ``points_early`` (second and third player, following the led group) —
  10 points or more played onto a trick the partner is not sure to win, and
  not a sure win, where a cheap legal follow (as for ``gift``) with 10
  points fewer does the same job: it wins the trick as it stands if the
  play did.
* ``discard_points`` — short in the led group, 10 points or more of
  another plain group thrown onto a trick the opponents are winning as it
  stands (and the play does not win it), where a ruff that wins the trick
  as it stands, or a cheap follow with 10 points fewer, was legal.
* ``void_lead`` (judged at each lead) — a plain lead of 10 points or more
  into a group an opponent has shown void in (and not void in trumps),
  holding a card worth 10 points fewer to lead.
* ``red_five`` — the red five played where it does not win the trick as it
  stands (so it cannot win it, nor save points), onto a trick the partner
  is not sure to win, where a legal follow held fewer red fives.
* ``stolen_kitty_trumps`` (judged at the end) — an attacker who stole the
  kitty and buried :data:`KITTY_AT_STAKE` points or more in it (they count
  only if the attackers win the last trick) spends a big trump within the
  first :data:`EARLY_TRICKS` tricks where a play without one was legal.

Each play kind is counted by the player's place in the trick (``.4`` the
last, ``.3`` and ``.2`` the third and second).  Besides the blunders, the
figures of the issue's table: the points the last player gave beyond the
least-points losing follow (``given.4``), the last player's higher trump
over a winning partner (``over_partner.4``), steals, the kitty's points
and aces buried by the dealer side, and its capture.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from engine.bidding import read_step, trump_of
from engine.cards import ACE, DECK, Card
from engine.combos import Shape, classify, decompose, has_tractor_above
from engine.follow import is_legal_follow
from engine.hand import Action, Hand, HandSetup
from engine.tricks import ruff_key, trick_winner_in
from engine.trump import TRUMP, TrumpContext

BIG = 20
"""Trump orders from here up: level cards, jokers and the red five."""

MOST_PLAYS = 4000
"""Legal follows tried at most in one position (beyond it the position is not judged: ``unjudged``)."""

KINDS = ("gift", "lost", "joker")
"""The kinds of play blunder, each counted as ``KIND.PLACE`` (place 4: the last player)."""

EXPERT_KINDS = ("points_early", "discard_points", "red_five")
"""The expert's kinds of follow (issue 56), each counted as ``KIND.PLACE``; ``void_lead`` and
``stolen_kitty_trumps`` are counted per hand without a place."""

KITTY_AT_STAKE = 40
"""Points in a kitty an attacker stole and buried from which its big trumps are kept for the last trick
(the issue's example buried 45)."""

EARLY_TRICKS = 4
"""Tricks from the start of the play in which a big trump spent counts as spent at once."""


# --- legal follows -----------------------------------------------------------------------

def multiset_combinations(counts: Sequence[tuple[Card, int]], k: int) -> Iterator[tuple[Card, ...]]:
    """Every multiset of ``k`` cards drawn from ``counts`` (card, copies), each once."""
    if k == 0:
        yield ()
        return
    if not counts:
        return
    (card, n), rest = counts[0], counts[1:]
    for take in range(min(n, k), -1, -1):
        for tail in multiset_combinations(rest, k - take):
            yield (card,) * take + tail


def legal_plays(ctx: TrumpContext, lead: Sequence[Card], hand: Sequence[Card]) -> list[tuple[Card, ...]] | None:
    """Every legal follow to ``lead`` from ``hand``, each set of cards once; None if there are too many to try."""
    shape = classify(ctx, lead)
    assert shape is not None
    n = len(lead)
    if len(hand) == n:
        return [tuple(hand)]
    in_group = [c for c in hand if ctx.group(c) == shape.group]
    if len(in_group) >= n:
        prefix: tuple[Card, ...] = ()
        pool = Counter(in_group)
    else:  # rule F1: every card of the group, then any cards
        prefix = tuple(in_group)
        pool = Counter(c for c in hand if ctx.group(c) != shape.group)
    out: list[tuple[Card, ...]] = []
    for tried, combo in enumerate(multiset_combinations(sorted(pool.items(), key=lambda x: x[0].sort_key),
                                                        n - len(prefix))):
        if tried >= MOST_PLAYS:
            return None
        play = prefix + combo
        if is_legal_follow(ctx, lead, hand, play):
            out.append(play)
    return out


# --- what the player knows ----------------------------------------------------------------

def unseen_by(hand: Hand, seat: int) -> Counter[Card]:
    """Cards ``seat`` has not seen: not in its hand, not played, not in a kitty it buried last."""
    out = Counter(DECK)
    out.subtract(hand.hands[seat])
    for trick in hand.tricks:
        for _s, cards in trick.plays:
            out.subtract(cards)
    for _s, cards in hand.current:
        out.subtract(cards)
    if hand.burier == seat:
        out.subtract(hand.kitty)
    return +out


def shown_voids(hand: Hand) -> list[set[str]]:
    """For each seat, the suit-groups it has shown it no longer holds (a card off the led group)."""
    ctx = hand.ctx
    voids: list[set[str]] = [set() for _ in range(4)]
    tricks = [t.plays for t in hand.tricks] + ([tuple(hand.current)] if hand.current else [])
    for plays in tricks:
        shape = classify(ctx, plays[0][1])
        assert shape is not None
        for seat, cards in plays[1:]:
            if any(ctx.group(c) != shape.group for c in cards):
                voids[seat].add(shape.group)
    return voids


def _top_order(ctx: TrumpContext, cards: Counter[Card], group: str, pairs: bool = False) -> int:
    orders = [ctx.order(c) for c, n in cards.items() if ctx.group(c) == group and (n >= 2 or not pairs)]
    return max(orders, default=-1)


def beatable(ctx: TrumpContext, lead: Shape, plays: Sequence[Sequence[Card]], later: Sequence[int],
             unseen: Counter[Card], voids: Sequence[set[str]]) -> bool:
    """Could one of the ``later`` seats beat the trick's winning play, from what the judged player has seen?

    Conservative: any seat may hold any unseen card of a group it has not
    shown void in, and may be void in any plain group.
    """
    winner = trick_winner_in(ctx, plays)
    win = plays[winner]
    group = lead.group
    if group == TRUMP and lead.kind in ("ftk", "ftk2"):
        return False  # the trump 5-10-K is the highest play
    ruffed = any(ctx.group(c) != group for c in win)
    for seat in later:
        if not ruffed and group not in voids[seat] and _follow_beats(ctx, lead, win, unseen):
            return True
        if group != TRUMP and TRUMP not in voids[seat] and _ruff_beats(ctx, lead, win if ruffed else None, unseen):
            return True
    return False


def _follow_beats(ctx: TrumpContext, lead: Shape, win: Sequence[Card], unseen: Counter[Card]) -> bool:
    if lead.kind == "single":
        return _top_order(ctx, unseen, lead.group) > ctx.order(win[0])
    if lead.kind == "pair":
        return _top_order(ctx, unseen, lead.group, pairs=True) > ctx.order(win[0])
    if lead.kind == "tractor":
        comp = decompose(ctx, win)[0]
        pair_cards = [c for c, n in unseen.items() if n >= 2 and ctx.group(c) == lead.group]
        return has_tractor_above(ctx, pair_cards, comp.pairs, comp.top)
    return False  # a throw or a 5-10-K is beaten only by a ruff


def _ruff_beats(ctx: TrumpContext, lead: Shape, ruff: Sequence[Card] | None, unseen: Counter[Card]) -> bool:
    trumps = Counter({c: n for c, n in unseen.items() if ctx.group(c) == TRUMP})
    if sum(trumps.values()) < len(lead.cards):
        return False
    if lead.kind in ("ftk", "ftk2"):
        return ruff is None and all(Card(r, ctx.trump) in trumps for r in (5, 10, 13)) if ctx.trump else False
    want = lead.structure
    key = ruff_key(ctx, lead, ruff)[0] if ruff is not None and not want.tractors else -1
    if want.tractors:
        top = ruff_key(ctx, lead, ruff)[1] if ruff is not None else -1
        pair_cards = [c for c, n in trumps.items() if n >= 2]
        return has_tractor_above(ctx, pair_cards, want.tractors[0], top)
    if want.pairs:
        return _top_order(ctx, trumps, TRUMP, pairs=True) > key
    return _top_order(ctx, trumps, TRUMP) > key


# --- judging one play ---------------------------------------------------------------------

def _cheap_instead(ctx: TrumpContext, alt: Sequence[Card], played: Sequence[Card], unseen: Counter[Card]) -> bool:
    """Is ``alt`` no dearer than ``played``: no more trumps, and no big trump, ace or top card in place of it?"""
    if sum(ctx.group(c) == TRUMP for c in alt) > sum(ctx.group(c) == TRUMP for c in played):
        return False
    for card in Counter(alt) - Counter(played):
        group, order = ctx.group(card), ctx.order(card)
        if order >= BIG or card.rank == ACE or _top_order(ctx, unseen, group) < order:
            return False
    return True


def _kept_for_last_trick(hand: Hand, card: Card) -> bool:
    """A joker, the red five, or (where the last trick's J/A rule applies at this level) a level card."""
    ctx = hand.ctx
    if card.is_joker or ctx.is_red_five(card):
        return True
    return hand.ruleset.j_to_bottom != "none" and hand.level in (11, ACE) and card.rank == hand.level


def _spends(hand: Hand, cards: Sequence[Card]) -> int:
    """Jokers and red fives in a play."""
    return sum(1 for c in cards if c.is_joker or hand.ctx.is_red_five(c))


def judge_play(hand: Hand, seat: int, cards: Sequence[Card]) -> Counter[str]:
    """The blunders (and the issue's other figures) of ``seat`` following with ``cards`` now.

    ``hand`` is the true state before the play; leads are not judged.
    """
    out: Counter[str] = Counter()
    if not hand.current or len(hand.hands[seat]) == len(cards):
        return out  # a lead, or the last cards: no choice to judge
    ctx = hand.ctx
    lead_cards = hand.current[0][1]
    lead = classify(ctx, lead_cards)
    assert lead is not None
    plays = [list(c) for _s, c in hand.current]
    place = len(plays) + 1
    later = [(seat + i) % 4 for i in range(1, 5 - place)]
    options = legal_plays(ctx, lead_cards, hand.hands[seat])
    if options is None:
        out["unjudged"] += 1
        return out
    unseen = unseen_by(hand, seat)
    voids = shown_voids(hand)
    partner_later = [s for s in later if s % 2 == seat % 2]
    opponents_later = [s for s in later if s % 2 != seat % 2]
    before = trick_winner_in(ctx, plays)
    partner_wins = hand.current[before][0] % 2 == seat % 2
    table = sum(c.points for p in plays for c in p)

    def wins(play: Sequence[Card]) -> bool:
        return trick_winner_in(ctx, plays + [list(play)]) == len(plays)

    def sure_win(play: Sequence[Card]) -> bool:
        return wins(play) and not beatable(ctx, lead, plays + [list(play)], opponents_later, unseen, voids)

    played_wins = wins(cards)
    points = sum(c.points for c in cards)
    opponents_sure = not partner_wins and not played_wins and not beatable(ctx, lead, plays, partner_later,
                                                                          unseen, voids)
    partner_sure = partner_wins and not beatable(ctx, lead, plays, opponents_later, unseen, voids)
    if opponents_sure:
        # The opponents take this trick for sure, whatever comes after.
        if any(points - sum(c.points for c in alt) >= 10 and _cheap_instead(ctx, alt, cards, unseen)
               for alt in options):
            out[f"gift.{place}"] += 1
        if table + points >= 10 and any(
                not any(_kept_for_last_trick(hand, c) for c in alt) and sure_win(alt) for alt in options):
            out[f"lost.{place}"] += 1
        if place == 4:
            losing = [sum(c.points for c in alt) for alt in options if not wins(alt)]
            out["given.4"] += points - min(losing)
    if partner_sure:
        # The partner takes this trick for sure: nothing of worth need go on it.
        if _spends(hand, cards) > min(_spends(hand, alt) for alt in options):
            out[f"joker.{place}"] += 1
        if place == 4 and played_wins and any(ctx.group(c) == TRUMP for c in cards) and not all(
                wins(alt) for alt in options):
            out["over_partner.4"] += 1
    if any(out[f"{kind}.{place}"] for kind in KINDS) or partner_sure:
        return out

    def cheaper(alt: Sequence[Card]) -> bool:
        """10 points fewer than the play, and no dearer (see :func:`_cheap_instead`)."""
        return points - sum(c.points for c in alt) >= 10 and _cheap_instead(ctx, alt, cards, unseen)

    short = sum(1 for c in hand.hands[seat] if ctx.group(c) == lead.group) < len(lead_cards)
    if short:
        thrown = sum(c.points for c in cards if ctx.group(c) not in (lead.group, TRUMP))
        if thrown >= 10 and not played_wins and not partner_wins and any(wins(alt) or cheaper(alt) for alt in options):
            out[f"discard_points.{place}"] += 1
    elif place < 4 and points >= 10 and not opponents_sure and not sure_win(cards) and any(
            cheaper(alt) and (wins(alt) or not played_wins) for alt in options):
        out[f"points_early.{place}"] += 1
    fives = _red_fives(hand, cards)
    if fives and not played_wins and fives > min(_red_fives(hand, alt) for alt in options):
        out[f"red_five.{place}"] += 1
    return out


def _red_fives(hand: Hand, cards: Sequence[Card]) -> int:
    """Red fives (where the red five is a trump) in a play."""
    return sum(1 for c in cards if hand.ctx.is_red_five(c))


def _big_trumps(hand: Hand, cards: Sequence[Card]) -> int:
    """Big trumps (level cards, jokers, the red five) in a play."""
    ctx = hand.ctx
    return sum(1 for c in cards if ctx.group(c) == TRUMP and ctx.order(c) >= BIG)


def judge_lead(hand: Hand, seat: int, cards: Sequence[Card]) -> Counter[str]:
    """``void_lead``: a plain lead of 10 points or more into a group an opponent has shown void in (not in trumps),
    holding a card worth 10 points fewer.  ``hand`` is the true state before the lead; follows are not judged."""
    out: Counter[str] = Counter()
    held = hand.hands[seat]
    if hand.current or len(held) == len(cards):
        return out
    ctx = hand.ctx
    shape = classify(ctx, cards)
    points = sum(c.points for c in cards)
    if shape is None or shape.group == TRUMP or points < 10:
        return out
    voids = shown_voids(hand)
    if any(shape.group in voids[o] and TRUMP not in voids[o] for o in ((seat + 1) % 4, (seat + 3) % 4)) and any(
            c.points <= points - 10 for c in held):
        out["void_lead"] += 1
    return out


def spent_big_trump(hand: Hand, seat: int, cards: Sequence[Card]) -> bool:
    """Does this play (``hand`` before it) hold a big trump where a legal play without one was possible?"""
    if not _big_trumps(hand, cards):
        return False
    held = hand.hands[seat]
    if not hand.current:
        return any(not _big_trumps(hand, [c]) for c in held)
    options = legal_plays(hand.ctx, hand.current[0][1], held)
    return options is not None and any(not _big_trumps(hand, alt) for alt in options)


def confirmed(pending: Sequence[tuple[int, str]], winner: int) -> Counter[str]:
    """The expert's kinds judged in a trick (each with the seat that played), counted where they cost: the
    trick's ``winner`` sits on the other side."""
    return Counter(key for seat, key in pending if seat % 2 != winner % 2)


def judge_stolen_kitty(hand: Hand, spent: Sequence[tuple[int, int]]) -> Counter[str]:
    """``stolen_kitty_trumps`` for a finished hand, given the (seat, trick) of each big trump spent by choice
    (:func:`spent_big_trump`): the attacker who buried the final kitty, 40 points or more, spent one early, and
    the dealer side won the last trick (the kitty's points were lost)."""
    out: Counter[str] = Counter()
    burier = hand.burier
    if burier is None or hand.dealer_side is None or burier % 2 == hand.dealer_side or not hand.buries:
        return out
    if hand.tricks and hand.tricks[-1].winner % 2 == hand.dealer_side \
            and sum(c.points for c in hand.buries[-1][1]) >= KITTY_AT_STAKE \
            and any(seat == burier and trick < EARLY_TRICKS for seat, trick in spent):
        out["stolen_kitty_trumps"] += 1
    return out


def judge_steal(hand: Hand, seat: int, cards: Sequence[Card], choice: str | None) -> Counter[str]:
    """``steals``, and ``steal_partner`` / ``steal_partner_same`` for a steal of the partner's kitty (keeping its trump)."""
    out: Counter[str] = Counter(steals=1)
    holder = hand.burier
    if holder is None or holder % 2 != seat % 2:
        return out
    out["steal_partner"] += 1
    before = hand.standing.trump if hand.standing is not None else hand.trump
    step = read_step(hand.ruleset, hand.level, cards)
    assert step is not None
    if trump_of(hand.ruleset, step, cards, choice) == before:
        out["steal_partner_same"] += 1
    return out


# --- buries and the kitty ------------------------------------------------------------------

def judge_bury(hand: Hand) -> Counter[str]:
    """The final kitty of a finished hand: points and aces the dealer side buried, the kitty captured, the last trick.

    A kitty with points captured by the attackers counts as ``captured``
    when the dealer side buried it, ``captured_own`` when an attacker who
    stole it did.

    A point card or ace buried to empty a plain suit that the burier later
    ruffed (a void the hand used) is counted apart (``…_for_void``).
    """
    out: Counter[str] = Counter()
    burier = hand.burier
    if burier is None or hand.dealer_side is None or not hand.buries or hand.result is None:
        return out
    ctx = hand.ctx
    result = hand.result
    dealers = burier % 2 == hand.dealer_side
    if result.kitty_bonus > 0:  # captured, with points
        out["captured" if dealers else "captured_own"] += 1
        out["capture_bonus" if dealers else "capture_bonus_own"] += result.kitty_bonus
    if not dealers:
        return out
    out["dealer_kitty"] += 1
    out["dealer_last_lost"] += hand.tricks[-1].winner % 2 != hand.dealer_side
    kitty = hand.buries[-1][1]
    held = list(kitty) + [c for t in hand.tricks for s, cs in t.plays if s == burier for c in cs]
    used = _voids_used(hand, burier, held)
    plain_pointless = sum(1 for c in held if ctx.group(c) != TRUMP and not c.points)
    for card in kitty:
        worth = card.points or (card.rank == ACE and ctx.group(card) != TRUMP)
        if not worth:
            continue
        suffix = "_for_void" if ctx.group(card) in used else ""
        if card.points:
            out["buried_points" + suffix] += card.points
            if plain_pointless >= 8:
                out["buried_points_with_8_low" + suffix] += card.points
        if card.rank == ACE and ctx.group(card) != TRUMP:
            out["buried_aces" + suffix] += 1
    return out


def _voids_used(hand: Hand, burier: int, held: Sequence[Card]) -> set[str]:
    """Plain groups the bury emptied (the burier held them, kept none) that it then ruffed."""
    ctx = hand.ctx
    kept = [c for t in hand.tricks for s, cs in t.plays if s == burier for c in cs]
    emptied = {ctx.group(c) for c in held} - {ctx.group(c) for c in kept} - {TRUMP}
    used: set[str] = set()
    for trick in hand.tricks:
        shape = classify(ctx, trick.plays[0][1])
        assert shape is not None
        for s, cs in trick.plays[1:]:
            if s == burier and shape.group in emptied and all(ctx.group(c) == TRUMP for c in cs):
                used.add(shape.group)
    return used


# --- a whole hand ----------------------------------------------------------------------------

def judge_hand(record: dict[str, Any]) -> Counter[str]:
    """Every judged figure of one finished hand (a line of ``engine.selfplay --json``), ``hands`` 1."""
    hand = Hand(HandSetup.from_dict(record["setup"]))
    out: Counter[str] = Counter(hands=1)
    spent: list[tuple[int, int]] = []
    pending: list[tuple[int, str]] = []  # the expert's kinds judged in the trick being played, by seat
    for event in record["events"]:
        action = Action.from_dict(event)
        if action.kind == "play":
            assert action.seat is not None
            judged = judge_play(hand, action.seat, action.cards) + judge_lead(hand, action.seat, action.cards)
            for key in list(judged):
                if key.split(".")[0] in (*EXPERT_KINDS, "void_lead"):
                    pending += [(action.seat, key)] * judged.pop(key)
            out += judged
            if len(hand.tricks) < EARLY_TRICKS and spent_big_trump(hand, action.seat, action.cards):
                spent.append((action.seat, len(hand.tricks)))
            tricks = len(hand.tricks)
            hand.apply(action)
            if len(hand.tricks) > tricks:
                out += confirmed(pending, hand.tricks[-1].winner)
                pending = []
            continue
        if action.kind == "steal":
            assert action.seat is not None
            out += judge_steal(hand, action.seat, action.cards, action.trump)
        hand.apply(action)
    out += judge_bury(hand)
    out += judge_stolen_kitty(hand, spent)
    return out
