"""Deals chosen for the scenarios: seeds of ``Tables.rng`` whose first hand lets people bid and steal.

The bot seeds a match with ``Tables.rng.getrandbits(62)`` when Start is
pressed; a test that sets ``tables(app).rng = random.Random(n)`` first gets
the deal of :func:`find_plan`'s ``n``.  The search replays the hand with the
engine exactly as the people of the scenario will play it through the
buttons (the bids and the steal of the plan, passes otherwise, the hint for
every bury and play), so the plan is legal when the test plays it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from bot.model import TableSettings
from engine.ai import choose_action
from engine.bidding import needs_choice, read_step
from engine.cards import BIG_JOKER, SMALL_JOKER, Card
from engine.hand import Action, Hand
from engine.match import Match
from engine.views import view_for


@dataclass(frozen=True)
class Move:
    """A bid or a steal a person will make: which seat, which cards, and the trump choice if any."""

    seat: int
    cards: tuple[Card, ...]
    trump: str | None = None
    """The trump button to press when the cards need a choice ("S", "H", "D", "C" or "NT")."""


@dataclass
class Plan:
    """What the people of a scenario do in the first hand."""

    seed_index: int
    """``Tables.rng = random.Random(seed_index)`` deals this hand."""
    bids: list[Move] = field(default_factory=list)
    steal: Move | None = None
    dealer: int | None = None
    """Who buries first (the winner of the bidding)."""
    hand: Hand | None = None
    """The hand as the plan plays it to the end (for the test's expectations)."""

    @property
    def bidders(self) -> list[int]:
        """Seats that bid, in order."""
        return [m.seat for m in self.bids]


def rng_for(seed_index: int) -> random.Random:
    """The ``Tables.rng`` that deals the plan's hand."""
    return random.Random(seed_index)


def _bid_candidates(hand: Hand, seat: int) -> list[tuple[Card, ...]]:
    """Level-card bids this seat could show: pairs first, then singles."""
    level = hand.level
    held = Counter(hand.hands[seat])
    pairs = [(c, c) for c, n in held.items() if n == 2 and c.rank == level and c.suit is not None]
    singles = [(c,) for c, n in held.items() if c.rank == level and c.suit is not None]
    return sorted(pairs, key=str) + sorted(singles, key=str)


def _steal_candidates(hand: Hand, seat: int) -> list[tuple[tuple[Card, ...], str | None]]:
    """Pairs this seat could steal with (with a trump choice where the cards need one)."""
    held = Counter(hand.hands[seat])
    out: list[tuple[tuple[Card, ...], str | None]] = []
    for card, n in sorted(held.items(), key=lambda cn: str(cn[0])):
        if n < 2:
            continue
        cards = (card, card)
        step = read_step(hand.ruleset, hand.level, cards)
        if step is None:
            continue
        choice = "S" if needs_choice(hand.ruleset, step) else None
        if card.rank in (SMALL_JOKER, BIG_JOKER) or card.rank == hand.level or choice is not None:
            out.append((cards, choice))
    return out


def _hint(hand: Hand, seat: int) -> Action:
    return choose_action(view_for(hand, seat), hand.ruleset, random.Random(0))


def simulate(preset: str, seed_index: int, *, bidders: int = 1, steal: bool = True,
             hidden: bool | None = None) -> Plan | None:
    """Play the first hand as the scenario will; the plan, or None if this deal does not fit."""
    ruleset = TableSettings(preset, hidden).ruleset()
    match = Match(ruleset, rng_for(seed_index).getrandbits(62))
    hand = match.hand
    plan = Plan(seed_index)
    for seat in range(4):
        if len(plan.bids) == bidders:
            break
        for cards in _bid_candidates(hand, seat):
            step = read_step(ruleset, hand.level, cards)
            if step is None or needs_choice(ruleset, step):
                continue
            action = Action("bid", seat, cards)
            if hand.can(action):
                hand.apply(action)
                plan.bids.append(Move(seat, cards))
                break
    if len(plan.bids) < bidders:
        return None
    for seat in range(4):
        hand.apply(Action("pass", seat))
    plan.dealer = hand.burier
    if plan.dealer is None:  # nobody bid after all: a redeal
        return None
    while not hand.over:
        if hand.phase == "stealing" and steal and plan.steal is None:
            stealer = hand.turn
            assert stealer is not None
            for cards, choice in _steal_candidates(hand, stealer):
                action = Action("steal", stealer, cards, None if choice == "NT" else choice)
                if hand.can(action):
                    hand.apply(action)
                    plan.steal = Move(stealer, cards, choice)
                    break
            else:
                hand.apply(Action("pass_steal", stealer))
            continue
        if hand.phase == "stealing":
            assert hand.turn is not None
            hand.apply(Action("pass_steal", hand.turn))
            continue
        assert hand.turn is not None
        action = _hint(hand, hand.turn)
        hand.apply(action)
    if steal and plan.steal is None:
        return None
    if hand.phase != "finished":
        return None
    plan.hand = hand
    return plan


def find_plan(preset: str, *, bidders: int = 1, steal: bool = True, hidden: bool | None = None,
              start: int = 0, tries: int = 400) -> Plan:
    """The first deal from ``start`` on where ``bidders`` people can bid and (if asked) one can steal."""
    for n in range(start, start + tries):
        plan = simulate(preset, n, bidders=bidders, steal=steal, hidden=hidden)
        if plan is not None:
            return plan
    raise LookupError(f"no deal of {preset} in {tries} tries lets {bidders} people bid and one steal")
