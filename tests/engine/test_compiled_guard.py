"""A compiled engine module older than its source is found (engine.compiled), so nothing runs the old code."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

from engine.compiled import built_modules, stale_builds, stale_message

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _tree(tmp_path: Path) -> Path:
    """A package directory with a built module beside each of two sources, and a source built never."""
    root = tmp_path / "engine"
    (root / "ai").mkdir(parents=True)
    (tmp_path / "setup.py").write_text("")  # a checkout
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


def test_an_installed_wheel_is_never_stale(tmp_path: Path) -> None:
    """Installed from a compiled wheel (no ``setup.py`` beside the engine), a source newer than its build is pip's
    doing, not an edit: `chaodipi run` refused to start from such an install."""
    root = _tree(tmp_path)
    _touch(root / f"combos{SUFFIX}", 1_000_000)
    _touch(root / "combos.py", 2_000_000)
    assert stale_builds(root) == [os.path.join("engine", "combos.py")]
    (tmp_path / "setup.py").unlink()
    assert stale_builds(root) == []


def test_this_checkout_has_no_stale_build() -> None:
    """What tests/conftest.py refuses to run with (and `chaodipi run` to start with)."""
    assert stale_builds() == []


def test_the_engine_needs_no_mypy_to_run() -> None:
    """The play install brings no mypy: ``mypyc_attr`` (the records' mark for the compiled build) is then a mark
    that leaves the class as it is, and a hand plays and pickles as ever."""
    script = (
        "import pickle, random, sys\n"
        "sys.modules['mypy_extensions'] = None  # an import of it fails, as where it is not installed\n"
        "from engine.compiled import mypyc_attr\n"
        "class Record: pass\n"
        "assert mypyc_attr(native_class=False)(Record) is Record\n"
        "from engine.ai import random_action\n"
        "from engine.hand import Hand, HandSetup\n"
        "from engine.ruleset import RULESETS\n"
        "from engine.selfplay import play_hand\n"
        "from engine.views import view_for\n"
        "hand = play_hand(Hand(HandSetup(RULESETS['yancheng'], 7)), [random_action] * 4, random.Random(7))\n"
        "copy = pickle.loads(pickle.dumps(hand))\n"
        "assert copy.fingerprint() == hand.fingerprint() and view_for(copy, 0) == view_for(hand, 0)\n"
        "print('ok', hand.phase)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
