"""Frozen dataclasses built fast: an unfrozen twin with the same slots, turned into the frozen class.

A frozen dataclass's ``__init__`` sets each field through
``object.__setattr__`` (to get past its own guard), several times the cost
of a plain attribute store.  The engine builds a few kinds of them at every
decision of every hand (a view, its bids, the event of an action), so
:func:`builder` builds an unfrozen twin, whose slots are the same, and
changes the object's class to the frozen one (Python allows it between
classes of the same layout; not for a class with a weak-reference slot,
whose layout Python does not see as the same).  The result is an instance of the
frozen class like any other: equal, hashable, picklable, and as immutable.

A class compiled by mypyc (the optional build, ``setup.py``) has a
native layout no Python class shares, and its own constructor is already
fast: for it :func:`builder` returns the class itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, make_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def builder(cls: type[T]) -> Callable[..., T]:
    """A function taking ``cls``'s fields positionally (all of them, in order) and returning a ``cls``.

    ``cls`` is a frozen dataclass with slots and no weak-reference slot.
    """
    twin: Any = make_dataclass(f"_{cls.__name__}Built", [f.name for f in fields(cls)],  # type: ignore[arg-type]
                               slots=True, eq=False, repr=False)
    try:
        object.__new__(twin).__class__ = cls
    except TypeError:  # not the same layout: a compiled class
        return cls

    def build(*args: Any) -> T:
        obj = twin(*args)
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]

    build.__doc__ = f"A {cls.__name__} from all its fields, positionally (:func:`engine.frozen.builder`)."
    return build
