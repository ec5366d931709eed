"""Rigged decks and a tiny scenario language for hand and match tests.

Two ways to rig a hand (a :class:`engine.hand.Hand` deals only in its
constructor, and its ``hands`` / ``kitty`` lists are plain state):

* :func:`full_deal` places chosen cards with chosen seats (or in the kitty),
  fills everything else from the rest of the 108 cards, and keeps the deck
  whole: 25 cards a seat and 8 in the kitty.
* :func:`mini_deal` gives exact, short hands (a few cards each) for
  end-of-hand scenarios.  The engine ends a hand when every hand is empty,
  so a two-trick hand exercises the same kitty, special-scoring and
  level-change code as a 25-trick one, with every card under control.

Scenario steps are tuples in card notation::

    ("bid", 0, "2S 2S")            # a bid (a trump choice may follow: ("bid", 0, "5H 5H", "D"))
    ("pass", 1)                    # pass in the bidding
    ("close",)                     # the bidding timer runs out
    ("bury", 0, "3C 4C ...")       # bury 8
    ("steal", 2, "BJ BJ")          # steal the kitty
    ("pass_steal", 3)
    ("play", 0, "AS AS")
    ("escape", 1)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.cards import DECK, Card, format_cards, parse_cards
from engine.hand import Action, Event, Hand, HandSetup
from engine.ruleset import Ruleset, get_ruleset

Cards = str | Sequence[Card]
Step = tuple[Any, ...]

KITTY = "kitty"


def cards(text: Cards) -> list[Card]:
    """Cards from notation (or a list of cards, copied)."""
    return parse_cards(text) if isinstance(text, str) else list(text)


def fmt(cs: Iterable[Card]) -> str:
    """Cards in notation."""
    return format_cards(cs)


def assert_sub_deck(groups: Iterable[Sequence[Card]]) -> None:
    """No card appears more than twice across the groups (two decks)."""
    total: Counter[Card] = Counter()
    for g in groups:
        total.update(g)
    too_many = {str(c): n for c, n in total.items() if n > 2}
    assert not too_many, f"rig uses cards more than twice: {too_many}"


def full_deal(placed: Mapping[int | str, Cards], *, seed: int = 0,
              hand_size: int = 25, kitty_size: int = 8,
              kitty_order: Cards | None = None) -> tuple[list[list[Card]], list[Card]]:
    """Four hands and a kitty holding the whole deck, with ``placed`` cards where asked.

    ``placed`` maps a seat (0–3) or ``"kitty"`` to cards that must be there;
    the rest of the deck is shuffled (by ``seed``) into the free places.  The
    kitty keeps its placed cards first, in the order given.
    """
    want = {k: cards(v) for k, v in placed.items()}
    assert_sub_deck(want.values())
    rest = Counter(DECK)
    for cs in want.values():
        rest.subtract(cs)
    pool = list(rest.elements())
    random.Random(seed).shuffle(pool)
    hands: list[list[Card]] = []
    for seat in range(4):
        h = list(want.get(seat, []))
        assert len(h) <= hand_size, f"seat {seat} has too many placed cards"
        while len(h) < hand_size:
            h.append(pool.pop())
        hands.append(h)
    kitty = list(want.get(KITTY, []))
    while len(kitty) < kitty_size:
        kitty.append(pool.pop())
    assert not pool
    assert Counter(c for h in hands for c in h) + Counter(kitty) == Counter(DECK)
    return hands, kitty


def mini_deal(hands: Sequence[Cards], kitty: Cards = "") -> tuple[list[list[Card]], list[Card]]:
    """Exact short hands and kitty (checked: no card more than twice)."""
    hs = [cards(h) for h in hands]
    k = cards(kitty)
    assert len(hs) == 4
    assert_sub_deck(hs + [k])
    return hs, k


def rig(hand: Hand, hands: Sequence[Sequence[Card]], kitty: Sequence[Card]) -> Hand:
    """Overwrite a fresh hand's deal (before any action)."""
    assert not hand.events, "rig a hand before any action"
    hand.hands = [list(h) for h in hands]
    hand.kitty = list(kitty)
    return hand


def new_hand(ruleset: str | Ruleset = "yancheng", *, seed: int = 1, number: int = 1,
             levels: tuple[int, int] = (2, 2), dealer_side: int | None = None,
             previous_dealer: int | None = None, flag: bool = False, flag_dealer: int | None = None,
             deal: tuple[list[list[Card]], list[Card]] | None = None) -> Hand:
    """A hand from a setup, rigged with ``deal`` if given."""
    r = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    setup = HandSetup(r, seed, number, levels, dealer_side, previous_dealer, flag, flag_dealer)
    hand = Hand(setup)
    if deal is not None:
        rig(hand, *deal)
    return hand


def action(step: Step) -> Action:
    """The :class:`Action` of a scenario step."""
    kind = step[0]
    if kind == "close":
        return Action("close")
    seat = step[1]
    cs = tuple(cards(step[2])) if len(step) > 2 and step[2] is not None else ()
    trump = step[3] if len(step) > 3 else None
    return Action(kind, seat, cs, trump)


def run(hand: Hand, steps: Iterable[Step]) -> list[Event]:
    """Apply scenario steps in order; return their events."""
    return [hand.apply(action(s)) for s in steps]


def all_pass_bidding(first: int = 0) -> list[Step]:
    """Four passes (closes the window with no bid)."""
    return [("pass", (first + i) % 4) for i in range(4)]


def pass_steals(hand: Hand) -> list[Event]:
    """Everyone due in the steal round passes."""
    out = []
    while hand.phase == "stealing":
        out.append(hand.pass_steal(hand.steal_queue[0]))
    return out


def trick(leader: int, *plays: Cards) -> list[Step]:
    """The play steps of one trick, seats from ``leader`` in turn order."""
    return [("play", (leader + i) % 4, p) for i, p in enumerate(plays)]


def side_scores(dealer_side: int, dealer: int, attacker: int) -> tuple[int, int, int, int]:
    """积分 per seat when each dealer-side seat gets ``dealer`` and each attacker ``attacker``."""
    return tuple(dealer if s % 2 == dealer_side else attacker for s in range(4))  # type: ignore[return-value]


# --- short hands that reach the play quickly -------------------------------------------------

def mini_setup_steps(plays: Sequence[Cards], kitty: Cards, bid: Cards, dealer: int,
                     trump_choice: str | None = None, steals: bool = True
                     ) -> tuple[tuple[list[list[Card]], list[Card]], list[Step]]:
    """A short deal and the steps that bring it to the first lead.

    ``plays`` are the four hands as they will be once the kitty is buried;
    ``kitty`` is the buried kitty, which must hold the ``bid`` cards: the
    dealer bids them, the window is closed by the timer, the dealer picks up
    the kitty and buries exactly ``kitty`` (so the bid cards end in it), and
    everyone passes the steal round.
    """
    final = cards(kitty)
    bid_cards = cards(bid)
    assert len(final) == 8
    rest = Counter(final)
    rest.subtract(bid_cards)
    assert all(n >= 0 for n in rest.values()), "the kitty must hold the bid cards"
    hands = [cards(p) for p in plays]
    swap = hands[dealer][: len(bid_cards)]
    original_kitty = list(rest.elements()) + swap
    hands[dealer] = hands[dealer][len(bid_cards):] + bid_cards
    assert_sub_deck(hands + [original_kitty])
    steps: list[Step] = [("bid", dealer, bid, trump_choice), ("close",), ("bury", dealer, final)]
    if steals:
        steps += [("pass_steal", (dealer + i) % 4) for i in (1, 2, 3)]
    return (hands, original_kitty), steps


def mini_hand(ruleset: str | Ruleset, *, plays: Sequence[Cards], kitty: Cards, bid: Cards, dealer: int,
              trump_choice: str | None = None, **setup: Any) -> Hand:
    """A rigged short hand brought to its first lead (see :func:`mini_setup_steps`)."""
    deal, steps = mini_setup_steps(plays, kitty, bid, dealer, trump_choice)
    hand = new_hand(ruleset, deal=deal, **setup)
    run(hand, steps)
    assert hand.phase == "playing", hand.phase
    assert hand.dealer == dealer, (hand.dealer, dealer)
    return hand


def play_tricks(hand: Hand, *tricks: Sequence[Cards], apply: Any = None) -> list[Any]:
    """Play tricks; each lists the plays in turn order from the current leader."""
    do = apply or hand.apply
    out = []
    for t in tricks:
        leader = hand.turn
        assert leader is not None, "no one is to lead"
        for i, p in enumerate(t):
            out.append(do(Action("play", (leader + i) % 4, tuple(cards(p)))))
    return out


def rig_pickup(hand: Hand, plays: Sequence[Cards], kitty: Cards) -> list[Card]:
    """Once the dealer has picked up the kitty: give everyone their play cards, the dealer the kitty too.

    Used after a kitty flip, where the dealer is known only once the window closes.
    Returns the kitty to bury.
    """
    assert hand.phase == "burying" and hand.burier is not None
    hs = [cards(p) for p in plays]
    k = cards(kitty)
    assert_sub_deck(hs + [k])
    hs[hand.burier] = hs[hand.burier] + k
    hand.hands = hs
    return k


# --- a two-trick hand with a chosen attackers' score p ---------------------------------------

def _card(rank: int, suit: str | None) -> Card:
    return Card(rank, suit)


def p_deal(p: int, *, level: int, dealer: int, bid_suit: str = "S") -> tuple[list[str], str, str]:
    """Play hands, buried kitty and bid card of a two-trick hand whose attackers score exactly ``p``.

    Trick 1: the dealer leads the top ♦ and wins it, no points.  Trick 2 (the
    last): for p > 0 the next seat wins with the top ♣ and captures the kitty
    (single ×2) while the dealer's partner and the other attacker drop ♣
    point cards; for p = 0 the dealer wins it with the top ♣.  No card of rank
    L is played, no ♥5, no 5-10-K: no special rule fires.  The dealer bids
    the L of ``bid_suit``, which ends in the kitty.
    """
    assert p >= 0 and p % 5 == 0
    d, a1, pd, a2 = dealer, (dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4
    lows = [r for r in (2, 3, 4, 6, 7, 8, 9) if r != level]
    top = 14 if level != 14 else 12
    bid = _card(level, bid_suit)
    plays: dict[int, list[Card]] = {s: [] for s in range(4)}
    plays[d].append(_card(top, "D"))
    for s, r in zip((a1, pd, a2), lows):
        plays[s].append(_card(r, "D"))
    point_ranks = [r for r in (5, 10) if r != level]
    kitty_zero = [_card(r, s) for s in ("H", "S") for r in lows[:4] if _card(r, s) is not bid]
    pool10 = [_card(r, s) for s in ("H", "S") for r in (10, 13) if r != level for _ in (0, 1)]
    pool5 = [_card(5, s) for s in ("D", "S") if level != 5 for _ in (0, 1)]
    if p == 0:
        plays[d].append(_card(top, "C"))
        for s, r in zip((a1, pd, a2), lows):
            plays[s].append(_card(r, "C"))
        kitty = [bid] + kitty_zero[:7]
        return [format_cards(plays[s]) for s in range(4)], format_cards(kitty), str(bid)
    options = [0] + [5 if r == 5 else 10 for r in point_ranks]
    for x in options:
        for y in options:
            tp = x + y
            rest = p - tp
            if rest < 0 or rest % 10:
                continue
            kp = rest // 2 - bid.points
            if kp < 0 or kp % 5:
                continue
            n10, n5 = kp // 10, (kp % 10) // 5
            if n10 > len(pool10) or n5 > len(pool5) or n10 + n5 > 7:
                continue
            plays[d].append(_card(lows[0], "C"))
            plays[a1].append(_card(top, "C"))

            def pick(v: int, fallback: int) -> Card:
                if v == 0:
                    return _card(fallback, "C")
                return _card(5 if v == 5 else 10, "C")

            plays[pd].append(pick(x, lows[1]))
            plays[a2].append(pick(y, lows[2]))
            kitty = [bid] + pool10[:n10] + pool5[:n5]
            kitty += kitty_zero[: 8 - len(kitty)]
            assert len(kitty) == 8
            return [format_cards(plays[s]) for s in range(4)], format_cards(kitty), str(bid)
    raise ValueError(f"p = {p} is out of this template's reach at level {level}")


def p_hand_steps(p: int, *, level: int, dealer: int, bid_suit: str = "S"
                 ) -> tuple[tuple[list[list[Card]], list[Card]], list[Step]]:
    """Deal and all steps (bidding to the last card) of a two-trick hand scoring ``p``."""
    plays, kitty, bid = p_deal(p, level=level, dealer=dealer, bid_suit=bid_suit)
    deal, steps = mini_setup_steps(plays, kitty, bid, dealer)
    hands = [cards(x) for x in plays]
    d = dealer
    order = [(d + i) % 4 for i in range(4)]
    steps += [("play", s, [hands[s][0]]) for s in order]
    last_leader = d
    steps += [("play", (last_leader + i) % 4, [hands[(last_leader + i) % 4][1]]) for i in range(4)]
    return deal, steps


def flag_plays(dealer: int, *, fail: bool) -> list[str]:
    """Four single tricks for a flag hand: the flag side wins all (p = 0), or the attackers take 120."""
    d, a1, pd, a2 = dealer, (dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4
    hands = {s: "" for s in range(4)}
    if fail:
        hands[d], hands[a1], hands[pd], hands[a2] = ("10S 10H 10D 10C", "AS AH AD AC",
                                                       "KS KH KD KC", "KS KH KD KC")
    else:
        hands[d], hands[a1], hands[pd], hands[a2] = ("AS AH AD AC", "KS KH KD KC",
                                                       "KS KH KD KC", "10S 10H 10D 10C")
    return [hands[s] for s in range(4)]


def flag_tricks(dealer: int, *, fail: bool) -> list[list[str]]:
    """The tricks that go with :func:`flag_plays`, each in turn order from its leader."""
    suits = ["S", "H", "D", "C"]
    if fail:
        first = ["10S", "AS", "KS", "KS"]
        rest = [[f"A{s}", f"K{s}", f"K{s}", f"10{s}"] for s in suits[1:]]  # led by next(dealer)
        return [first] + rest
    return [[f"A{s}", f"K{s}", f"K{s}", f"10{s}"] for s in suits]
