"""What the update being handled has done so far: whether it stored a move.

The error handler answers a press that failed; "nothing changed" is only
true if the update stored nothing.  :func:`begin` runs first for every
update (in the update's own task); the tables service calls
:func:`stored` once an action is in the log; :func:`did_store` tells the
error handler.
"""

from __future__ import annotations

import contextvars

_STORED: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar("chaodipi_stored", default=None)


def begin() -> None:
    """An update's handling starts: nothing stored yet."""
    _STORED.set([False])


def stored() -> None:
    """An action of this update is in the log."""
    cell = _STORED.get()
    if cell is not None:
        cell[0] = True


def did_store() -> bool:
    """True if the update being handled stored an action."""
    cell = _STORED.get()
    return cell is not None and cell[0]
