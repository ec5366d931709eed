"""A player's move, the one path shared by the hand keyboard and the web app.

The caller holds ``table.lock``.  The service checks the action with the
engine, appends it to the hand's log, applies it; then the player's selection
is cleared and the deadline, the AI seats and every message follow
(:meth:`bot.service.Tables.after_change`).  Whether the press came from a
button or from the Mini App, the same lines run, so the two always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from bot.model import Table
from bot.service import Tables
from engine.cards import Card
from engine.hand import Action

MoveKind = Literal["bid", "pass", "bury", "steal", "pass_steal", "play"]


async def make_move(tables: Tables, table: Table, seat: int, kind: MoveKind, cards: Sequence[Card],
                    trump: str | None) -> list[Any]:
    """Check, store and apply one move for ``seat``; raises the engine's or the service's refusal.

    Returns the engine's outputs (its event first: a failed throw's notice is in its ``info``)."""
    outputs = await tables.act(table, Action(kind, seat, tuple(cards), trump))
    table.selected(seat).clear()
    tables.after_change(table, actor=seat)
    return outputs
