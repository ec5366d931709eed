"""Bids: declaring trump (亮主), overriding (反主), reinforcing (加固),
look-back (回头望) and kitty steals (抄底) — RULES.md §2.6.1, §2.6.5, A2–A11, A40–A41.

:func:`read_bid` names the ladder step that some cards make; :func:`overrides`
says whether one step beats another under a ruleset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.cards import BIG_JOKER, RED_FIVE, SMALL_JOKER, SUITS, Card, format_cards, parse_cards
from engine.counting import copies, tally
from engine.errors import IllegalActionError
from engine.ruleset import Ruleset

BidKind = Literal["declare", "override", "reinforce", "look_back", "steal"]


@dataclass(frozen=True, slots=True)
class Bid:
    """One bid that was made: who, with which cards, the step, and the trump it names."""

    seat: int
    cards: tuple[Card, ...]
    step: str
    """The ladder step (``"single"``, ``"S2"``, ``"SJ2"``, ``"R52"``, ``"LB"`` …)."""
    trump: str | None
    """The trump suit it names, or None for no-trump."""
    kind: BidKind
    order: int
    """Position of the bid in the hand's bid history (0-based)."""

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form."""
        return {"seat": self.seat, "cards": format_cards(self.cards), "step": self.step,
                "trump": self.trump, "kind": self.kind, "order": self.order}


@dataclass(frozen=True, slots=True)
class BidRecord:
    """A bid or steal as the public bid history tells it (decision 17).

    Under hidden bidding (暗炒) the history is public once the steal rounds
    end; under open bidding from the first bid.
    """

    seat: int
    cards: tuple[Card, ...]
    step: str
    trump: str | None
    kind: BidKind
    """亮主 ``declare``, 反主 ``override``, 加固 ``reinforce``, 回头望 ``look_back``, 抄底 ``steal``."""
    stood: bool
    """True if it became the standing bid when it was made (it counted); a hidden bid lower than
    the standing one did not."""
    final: bool
    """True for the bid that set the trump (the standing bid at the end)."""
    points: int = 0
    """A failed steal's change to the attackers' score p (±80 in 盐城), else 0."""

    @property
    def failed_steal(self) -> bool:
        """True for a steal that did not stand."""
        return self.kind == "steal" and not self.stood

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form."""
        return {"seat": self.seat, "cards": format_cards(self.cards), "step": self.step, "trump": self.trump,
                "kind": self.kind, "stood": self.stood, "final": self.final, "points": self.points}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BidRecord:
        """The inverse of :meth:`to_dict`."""
        return cls(int(data["seat"]), tuple(parse_cards(data["cards"])), str(data["step"]), data["trump"],
                   data["kind"], bool(data["stood"]), bool(data["final"]), int(data.get("points", 0)))


def read_step(ruleset: Ruleset, level: int | None, cards: Sequence[Card]) -> str | None:
    """The ladder step these cards make, or None if they make no bid at all.

    A single level card (not the red five) makes ``"single"``; a pair of level
    cards of suit X makes ``"X2"``; joker pairs ``"SJ2"``/``"BJ2"``; a red-five
    pair ``"R52"`` in the red-five family.
    """
    if level is None:
        return None
    red5 = ruleset.red5_trump
    if len(cards) == 1:
        card = cards[0]
        if card.rank == level and not card.is_joker and not (red5 and card is RED_FIVE):
            return "single"
        return None
    if len(cards) != 2 or cards[0] is not cards[1]:
        return None
    card = cards[0]
    if card.rank == SMALL_JOKER:
        return "SJ2"
    if card.rank == BIG_JOKER:
        return "BJ2"
    if red5 and card is RED_FIVE:
        return "R52"
    if card.rank == level and card.suit is not None:
        return card.suit + "2"
    return None


def step_allowed(ruleset: Ruleset, step: str, *, steal: bool) -> bool:
    """True if the step may be bid at all (in the bidding window, or as a steal)."""
    if step == "single":
        return ruleset.single_bid and not steal
    if ruleset.bid_ladder is None:  # 安徽: level pairs, and joker pairs in steals
        if step in ("SJ2", "BJ2"):
            return steal
        return len(step) == 2 and step[0] in SUITS
    if step == "SJ2" and ruleset.small_joker_pair_bid == "steal_only" and not steal:
        return False
    if step == "BJ2" and ruleset.big_joker_pair_bid == "steal_only" and not steal:
        return False
    return step in ruleset.bid_ladder


def overrides(ruleset: Ruleset, new: str, old: str) -> bool:
    """True if a bid of step ``new`` beats a standing bid of step ``old``.

    A single never beats a single; the look-back beats everything and nothing
    beats it; 新炒地皮's ♣ pair also beats a big-joker pair; 安徽 has no ladder
    and any pair beats the standing bid.
    """
    if old == "LB":
        return False
    if new == "LB":
        return True
    ladder = ruleset.bid_ladder
    if ladder is None:
        return new != "single"
    if ruleset.club_pair_overrides_big_joker and new == "C2" and old == "BJ2":
        return True
    return ladder.index(new) > ladder.index(old)


def ranks_above(ruleset: Ruleset, new: Bid, old: Bid) -> bool:
    """True if ``new`` should stand over ``old`` when both were made (hidden bidding).

    With a ladder the higher step stands (an equal step leaves the earlier);
    without one (安徽) the later bid stands, unless it is a single: overrides
    need pairs (A41), as :func:`overrides` says.
    """
    if ruleset.bid_ladder is None:
        # 安徽: the latest pair stands; a single never stands over another bid (A41, A8).
        return new.step != "single" and new.order > old.order
    return overrides(ruleset, new.step, old.step)


def trump_of(ruleset: Ruleset, step: str, cards: Sequence[Card], choice: str | None) -> str | None:
    """The trump a bid names; ``choice`` is the bidder's pick where the step lets them choose.

    Raises :class:`IllegalActionError` when a needed choice is missing or not allowed.
    """
    if step in ("single", "LB") or (len(step) == 2 and step[0] in SUITS):
        return cards[0].suit
    if step == "SJ2":
        return None
    if step == "BJ2":
        if ruleset.big_joker_pair_bid == "choose_suit":
            if choice not in SUITS:
                raise IllegalActionError(
                    "A big-joker pair names a trump suit: choose ♠, ♥, ♦ or ♣.", code="choose_suit",
                )
            return choice
        return None
    if step == "R52":
        if choice is not None and choice not in SUITS:
            raise IllegalActionError(
                "A red-five pair names a trump suit or no-trump.", code="choose_trump",
            )
        return choice
    raise IllegalActionError(f"{step} is not a bid.", code="not_a_bid")


def needs_choice(ruleset: Ruleset, step: str) -> bool:
    """True if the bidder picks the trump for this step (R5 pair; 新炒地皮's BJ pair)."""
    return step == "R52" or (step == "BJ2" and ruleset.big_joker_pair_bid == "choose_suit")


def available(hand: Sequence[Card], shown: Counter[Card], cards: Sequence[Card], reuse: Card | None = None) -> bool:
    """True if ``hand`` holds ``cards`` not yet shown in an earlier bid.

    ``reuse`` is a card the bid may show again (reinforce, look-back).
    """
    # Counting the hand's copies of the one or two cards asked is cheaper than counting the hand (the AI
    # players ask at nearly every bid they consider).
    for card, n in tally(cards).items():
        free = copies(hand, card) - shown[card] + (1 if card is reuse and shown[card] else 0)
        if free < n:
            return False
    return True


class SeenBid(Protocol):
    """An earlier bid as its own bidder sees it (an engine :class:`Bid`, or a view's bid)."""

    @property
    def step(self) -> str | None:
        """The ladder step it made."""

    @property
    def cards(self) -> tuple[Card, ...] | None:
        """The cards it showed."""


def judge_bid(ruleset: Ruleset, level: int | None, cards: Sequence[Card], choice: str | None, *, steal: bool,
              hand: Sequence[Card], shown: Counter[Card], opening: bool, last_own: SeenBid | None,
              someone_since: bool, may_look_back: bool, standing_step: str | None,
              keep_single: bool) -> tuple[BidKind, str, str | None]:
    """The kind, step and trump of a bid or steal, or raise :class:`IllegalActionError` saying why it is refused.

    The one statement of the bid rules (§2.6.1, A2–A11, decision 15), for the
    hand (:meth:`engine.hand.Hand.check_bid`) and for a seat asking from its
    view (:mod:`engine.legal_bids`).  The caller states what it knows:
    ``opening`` (no bid yet), the bidder's ``last_own`` bid and whether
    ``someone_since`` bid after it, whether the pair of that bid's single
    ``may_look_back`` (回头望), the ``standing_step`` a bid must beat (None
    under hidden bidding), and ``keep_single``: whether a pair that reuses the
    bidder's single but neither looks back nor reinforces may still show that
    single again as an ordinary pair (the hand: under hidden bidding with
    回头望, decision 15, since refusing it would tell the bidder their single
    fell; a view cannot tell and keeps to the bids it can be sure of).
    """
    r = ruleset
    step = read_step(r, level, cards)
    if step is None:
        raise IllegalActionError(
            f"{format_cards(cards)} is not a bid: bid with level cards (one, or a pair), "
            "a joker pair or a red-five pair.", code="not_a_bid", cards=format_cards(cards), steal=steal,
        )
    kind: BidKind = "steal" if steal else ("declare" if opening else "override")
    reuse: Card | None = None
    if (last_own is not None and last_own.step == "single" and last_own.cards
            and len(cards) == 2 and cards[0] is last_own.cards[0]):
        reuse = cards[0]
        if may_look_back:
            kind, step = "look_back", "LB"
        elif r.reinforce and not steal and not someone_since:
            kind = "reinforce"
        elif not keep_single:
            reuse = None
    if not available(hand, shown, cards, reuse):
        if Counter(cards) - Counter(hand):
            raise IllegalActionError(f"You do not hold {format_cards(cards)}.", code="cards_not_held",
                                     cards=format_cards(cards))
        raise IllegalActionError(
            "Those cards were shown in an earlier bid and cannot bid again.", code="card_already_shown",
        )
    if kind not in ("look_back", "reinforce"):
        if not step_allowed(r, step, steal=steal):
            raise IllegalActionError(
                "That bid is not allowed here." if not steal else "That bid cannot steal the kitty.",
                code="bid_not_allowed", step=step,
            )
        if last_own is not None and not someone_since and not steal:
            raise IllegalActionError(
                "You cannot override your own bid.", code="override_self",
            )
        if standing_step is not None and not overrides(r, step, standing_step):
            raise IllegalActionError(
                "Your bid must be higher than the standing bid.", code="bid_not_higher", step=step,
            )
    return kind, step, trump_of(r, step, cards, choice)
