"""The optional compiled engine: with ``CHAODIPI_MYPYC=1`` the engine's hot modules are compiled by mypyc.

Everything else about the package is in pyproject.toml.  Without the
variable this is a plain ``setup()``: the pure-Python package that CI, the
README and the Docker image install.  With it (mypy, which ships mypyc, and a C
compiler needed)::

    CHAODIPI_MYPYC=1 python setup.py build_ext --inplace

writes a compiled module beside each source file of :data:`COMPILED` (and the
runtime they share at the top of the tree); Python imports a compiled module
before the source of the same name, and the source serves wherever none was
built.  Delete the ``*.so`` files (git ignores them) to go back to pure Python.
``CHAODIPI_MYPYC=1 pip wheel --no-build-isolation .`` builds the same as a
wheel for this Python and platform only.
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "engine/combos.py", "engine/counting.py", "engine/follow.py", "engine/tricks.py", "engine/trump.py",
    "engine/throws.py", "engine/settle.py", "engine/legal_bids.py", "engine/hints.py", "engine/frozen.py",
    "engine/hand.py", "engine/views.py",
    "engine/ai/bidding.py", "engine/ai/burying.py", "engine/ai/dominance.py",
    "engine/ai/drawing.py", "engine/ai/following.py", "engine/ai/leading.py", "engine/ai/memory.py",
    "engine/ai/pair_follow.py", "engine/ai/playing.py", "engine/ai/prices.py", "engine/ai/random_play.py",
    "engine/ai/rollout.py",
    "engine/ai/baseline/__init__.py", "engine/ai/baseline/bidding.py", "engine/ai/baseline/burying.py",
    "engine/ai/baseline/memory.py", "engine/ai/baseline/playing.py",
]
"""The modules mypyc compiles: the rules' hot paths and the AI.  ``Hand`` (the hand's state, checked and applied at
every action) and ``view_for`` are compiled, but the records they build stay Python classes, marked
``@mypyc_attr(native_class=False)`` (``engine.compiled.mypyc_attr``; a mark without meaning in pure Python): the
bot pickles them to its search workers and a compiled frozen dataclass does not unpickle, a compiled ``Trick``
takes no weak reference, and a compiled record is slower to build than :func:`engine.frozen.builder`'s (with the
records compiled too, random legal self-play ran at two thirds of the speed).  Left as Python, where compiling
would change what they do (README, "The compiled engine"): the cards (``Card`` orders by ``<``, so a compiled one
needs a written ``__hash__``, which costs the pure code a fifth of its speed); the other modules of records
(``ruleset``, ``bidding``, ``levels``, ``scoring``, ``special``, ``notices``);
``errors`` (a compiled exception loses the ``code`` it sets); ``match`` (mypyc fails on it); ``selfplay``
(a compiled module has no docstring, which its command line prints); ``engine.ai`` and ``engine.ai.search``
(the tests and the speed bench wrap their functions to pin and count the search's work, and a compiled caller
calls past the wrapper)."""

if __name__ == "__main__":
    if os.environ.get("CHAODIPI_MYPYC") == "1":
        try:
            from mypyc.build import mypycify
        except ImportError:  # the play install (`pip install -e .`) brings no mypy
            raise SystemExit("CHAODIPI_MYPYC=1 needs mypyc, which comes with mypy: install the test extra first, "
                             "`.venv/bin/pip install -c constraints.txt -e '.[test]'`.") from None
        setup(ext_modules=mypycify(COMPILED))
    else:
        setup()
