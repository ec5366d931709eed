"""Public facts a hand tells as they happen (decision 17): a failed throw, a red five forced out or kept.

Each notice is a frozen record of what the whole table may know at that
moment; :attr:`engine.hand.Hand.notices` lists them in order, every view
carries them, and the finished hand's result keeps them.  The bot announces
them; it never works them out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import Card, format_cards, parse_cards


@dataclass(frozen=True, slots=True)
class ThrowFailed:
    """甩牌失败: a throw with a component another player could beat (§2.11, A21, A39)."""

    trick: int
    """The trick the throw led (1-based)."""
    seat: int
    """The thrower."""
    thrown: tuple[Card, ...]
    """Every card the thrower put forward."""
    forced: tuple[Card, ...]
    """The component that was beaten and is all that is played (decision 12: the beatable one
    with the fewest cards, then the lowest, then the earliest)."""
    beaten_by: int
    """The first seat after the thrower that holds something higher than that component."""
    beaten_with: tuple[Card, ...]
    """What that seat holds that beats it (its highest such single, pair or tractor)."""
    points: int
    """The change to the attackers' score p (− for an attacker's failure, + for the dealer side's)."""

    kind: Literal["throw_failed"] = "throw_failed"

    @property
    def beaten(self) -> tuple[Card, ...]:
        """The component that was beaten (it is the forced one)."""
        return self.forced

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"kind": self.kind, "trick": self.trick, "seat": self.seat, "thrown": format_cards(self.thrown),
                "forced": format_cards(self.forced), "beaten_by": self.beaten_by,
                "beaten_with": format_cards(self.beaten_with), "points": self.points}


@dataclass(frozen=True, slots=True)
class RedFive:
    """逼红5 (red fives forced out, told when their trick is won) or 保红5 (kept to the last trick), A25."""

    kind: Literal["red5_forced", "red5_kept"]
    trick: int
    """The trick (1-based) in which the red fives were played."""
    seat: int
    """Whose red fives."""
    cards: tuple[Card, ...]
    """The red fives that count."""
    points: int
    """The change to the attackers' score p."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"kind": self.kind, "trick": self.trick, "seat": self.seat, "cards": format_cards(self.cards),
                "points": self.points}


Notice = ThrowFailed | RedFive
"""A public fact told when it happens."""


def notice_from_dict(data: Mapping[str, Any]) -> Notice:
    """The inverse of ``to_dict`` for either kind of notice."""
    if data["kind"] == "throw_failed":
        return ThrowFailed(int(data["trick"]), int(data["seat"]), tuple(parse_cards(data["thrown"])),
                           tuple(parse_cards(data["forced"])), int(data["beaten_by"]),
                           tuple(parse_cards(data["beaten_with"])), int(data["points"]))
    return RedFive(data["kind"], int(data["trick"]), int(data["seat"]), tuple(parse_cards(data["cards"])),
                   int(data["points"]))
