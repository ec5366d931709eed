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
