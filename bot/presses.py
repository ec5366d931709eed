"""What each seat's keyboard holds between presses: the selected cards, the copy of a card that was ticked,
a selection lost to a restart, and the last press that acted.

One :class:`Presses` per table, changed only by the tables service's one
call for a request (:mod:`bot.tables.perform`) and by the service when a
move or a hand's end clears it; the private keyboard's renderer
(:mod:`bot.render_private`) reads it.  Nothing else sets it: the methods
below are the only way in, and what they hand out are copies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.cards import Card


class Presses:
    """A table's keyboard state, by seat."""

    def __init__(self) -> None:
        self._selected: dict[int, Counter[Card]] = {}
        self._ticks: dict[int, dict[Card, set[int]]] = {}
        self._lost: set[int] = set()
        self._done: dict[int, tuple[str, str, str]] = {}

    # --- the selection -----------------------------------------------------------------------------
    def selected(self, seat: int) -> Counter[Card]:
        """The cards this seat has selected (a copy)."""
        return Counter(self._selected.get(seat, ()))

    def ticks(self, seat: int, card: Card) -> frozenset[int] | None:
        """Which copies of ``card`` the seat ticked (its buttons ``0``, ``1``), while they say how many are
        selected; None when the selection came some other way (a hint): the first copies are shown ticked."""
        ticks = self._ticks.get(seat, {}).get(card)
        if ticks is None or len(ticks) != self._selected.get(seat, Counter())[card]:
            return None
        return frozenset(ticks)

    def toggle(self, seat: int, card: Card, copy: int, held: int) -> None:
        """The seat tapped copy ``copy`` of ``card`` (it holds ``held``): ticked if it was not, else unticked;
        the copy pressed is the one ticked (two ♣4 buttons)."""
        selected = self._selected.setdefault(seat, Counter())
        ticks = self._ticks.setdefault(seat, {}).setdefault(card, set())
        if len(ticks) != selected[card]:  # selected some other way (a hint): the first copies
            ticks.clear()
            ticks.update(range(selected[card]))
        if copy in ticks:
            ticks.discard(copy)
            selected[card] -= 1
            if selected[card] <= 0:
                del selected[card]
        elif selected[card] < held:
            ticks.add(copy)
            selected[card] += 1
        self._lost.discard(seat)

    def replace(self, seat: int, cards: Iterable[Card]) -> None:
        """The seat's selection becomes ``cards`` (a hint, a test's set-up)."""
        self._selected[seat] = Counter(cards)
        self._ticks.pop(seat, None)
        self._lost.discard(seat)

    def clear(self, seat: int) -> None:
        """Nothing selected for this seat (its move was made, it pressed Clear, it left)."""
        self._selected.pop(seat, None)
        self._ticks.pop(seat, None)

    def clear_all(self) -> None:
        """Nothing selected anywhere (a hand is over)."""
        self._selected.clear()
        self._ticks.clear()

    # --- a restart -----------------------------------------------------------------------------------
    def restarted(self) -> None:
        """The bot restarted: every seat's selection was lost, which a press with nothing selected is told."""
        self._lost = set(range(4))

    def lost(self, seat: int) -> bool:
        """True, once, if a restart lost this seat's selection since it last selected anything."""
        if seat not in self._lost:
            return False
        self._lost.discard(seat)
        return True

    def touched(self, seat: int) -> None:
        """The seat changed its selection: a restart's loss no longer needs telling."""
        self._lost.discard(seat)

    # --- the last press that acted -------------------------------------------------------------------
    def acted(self, seat: int, version: str, button: str, after: str) -> None:
        """The seat's press (``button`` on a keyboard of ``version``) made a move; ``after`` is the seat's
        version then."""
        self._done[seat] = (version, button, after)

    def already(self, seat: int, version: str, button: str, current: str) -> bool:
        """True for the press that made the seat's last move, pressed again while nothing else changed."""
        return self._done.get(seat) == (version, button, current)
