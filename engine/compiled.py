"""The optional compiled engine (``setup.py``, ``CHAODIPI_MYPYC=1``): which modules are built, which are stale, and
the mark (:func:`mypyc_attr`) that keeps a compiled module's records Python classes.

Python imports a compiled module (``combos.cpython-311-x86_64-linux-gnu.so``)
before the source of the same name, so a module built before its source last
changed plays the old code, silently.  :func:`stale_builds` finds them by
modification time (a ``git pull`` or an edit makes the source newer); the bot
refuses to start and the tests refuse to run while any is left, saying which.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:  # the play install (`pip install -e .`) brings no mypy, nor compiles anything

        def mypyc_attr(*_names, **_attrs):
            """mypyc's class marks, meaning nothing to pure Python: the class itself."""
            return lambda cls: cls

ROOT = Path(__file__).resolve().parent
"""The engine package's directory."""


def built_modules(root: Path = ROOT) -> dict[Path, Path]:
    """Each compiled module under ``root`` (the engine's directory), by the source file it was built from."""
    out: dict[Path, Path] = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for built in root.rglob("*" + suffix):
            source = built.with_name(built.name[: -len(suffix)] + ".py")
            if source.exists():
                out[source] = built
    return out


def stale_builds(root: Path = ROOT) -> list[str]:
    """The sources (relative to ``root``'s parent) changed since their compiled module was built, sorted.

    Only in a checkout (``setup.py`` beside the engine), where a source can be edited or pulled after its build:
    a compiled wheel (``CHAODIPI_MYPYC=1 pip wheel``) installs its sources and builds together, with times of
    pip's choosing.
    """
    if not (root.parent / "setup.py").exists():
        return []
    return sorted(str(source.relative_to(root.parent)) for source, built in built_modules(root).items()
                  if source.stat().st_mtime > built.stat().st_mtime)


def stale_message(stale: list[str]) -> str:
    """What to do about stale compiled modules (for the bot's and the tests' refusal)."""
    return (f"the compiled engine is older than its source for {', '.join(stale)}: build it again with "
            "`CHAODIPI_MYPYC=1 .venv/bin/python setup.py build_ext --inplace`, or delete the engine's *.so files "
            "to run the pure Python code")


def is_compiled(module: ModuleType) -> bool:
    """Was ``module`` loaded from a compiled module rather than its source?"""
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
