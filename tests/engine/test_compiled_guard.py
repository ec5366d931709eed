"""A compiled engine module older than its source is found (engine.compiled), so nothing runs the old code."""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

from engine.compiled import built_modules, stale_builds, stale_message

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _tree(tmp_path: Path) -> Path:
    """A package directory with a built module beside each of two sources, and a source built never."""
    root = tmp_path / "engine"
    (root / "ai").mkdir(parents=True)
    for name in ("combos", "ai/memory", "hand"):
        (root / f"{name}.py").write_text("x = 1\n")
    for name in ("combos", "ai/memory"):
        (root / f"{name}{SUFFIX}").write_bytes(b"")
    (root / f"orphan{SUFFIX}").write_bytes(b"")  # no source beside it: not the engine's to judge
    return root


def _touch(path: Path, when: float) -> None:
    os.utime(path, (when, when))


def test_a_module_built_after_its_source_is_not_stale(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for name in ("combos", "ai/memory"):
        _touch(root / f"{name}.py", 1_000_000)
        _touch(root / f"{name}{SUFFIX}", 2_000_000)
    assert sorted(p.name for p in built_modules(root)) == ["combos.py", "memory.py"]
    assert stale_builds(root) == []


def test_a_source_changed_since_its_build_is_named_with_what_to_do(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _touch(root / "combos.py", 1_000_000)
    _touch(root / f"combos{SUFFIX}", 2_000_000)
    _touch(root / f"ai/memory{SUFFIX}", 1_000_000)
    _touch(root / "ai/memory.py", 2_000_000)  # edited (or pulled) after the build
    assert stale_builds(root) == [os.path.join("engine", "ai", "memory.py")]
    message = stale_message(stale_builds(root))
    assert "engine/ai/memory.py" in message and "build_ext --inplace" in message and "*.so" in message


def test_this_checkout_has_no_stale_build() -> None:
    """What tests/conftest.py refuses to run with (and `chaodipi run` to start with)."""
    assert stale_builds() == []
