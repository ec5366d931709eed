"""The optional compiled engine (setup.py, ``CHAODIPI_MYPYC=1``): it builds, imports, and plays as the pure code.

The engine is built with mypyc into a wheel from a copy of the tree (as
deploy/Dockerfile builds it: this checkout gets no compiled module), the
wheel is unpacked as pip installs it, and the same script runs there twice:
once as it comes, importing the compiled modules, and once with a finder
that reads only the sources (the pure engine, as everywhere no compiled
module was built).  Both print which file each engine module came from,
whether any compiled module counts as stale (`chaodipi run` would refuse to start), the checksums of
fixed-seed hands (random legal and casual tallies, a strong player's plays)
and whether a view, its ruleset, the strong player and its action survive
pickling (the bot hands them to its search workers).
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]

_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".*_cache", ".hypothesis", "mutants", "*.db", "*.db-*", "*.db.*", "tests",
                                     "bench", "*.so")

_PLAY = """
import hashlib, importlib, importlib.machinery as machinery, json, math, pathlib, pickle, random, sys

root, mode = sys.argv[1], sys.argv[2]
if mode == "pure":  # the copy's sources only, as if no compiled module had been built
    sources = machinery.FileFinder.path_hook((machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES))

    def source_only(path):
        if not path.startswith(root):
            raise ImportError(path)
        return sources(path)

    sys.path_hooks.insert(0, source_only)
    sys.path_importer_cache.clear()
sys.path.insert(0, root)

from engine.ai import DEFAULT_CANDIDATES, DEFAULT_DEALS, StrongPlayer, casual_action, random_action
from engine.compiled import stale_builds
from engine.hand import Hand, HandSetup
from engine.ruleset import RULESETS
from engine.selfplay import duel, self_play
from engine.views import view_for

files = {}
for path in sorted(pathlib.Path(root, "engine").rglob("*.py")):
    name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
    files[name] = importlib.import_module(name).__file__.removeprefix(root + "/")

def tallies(player, hands):
    digest = hashlib.sha256()
    for name in sorted(RULESETS):
        tally = self_play(RULESETS[name], hands, 13, player=player)
        tally.seconds = 0.0
        digest.update(repr(tally).encode())
    return digest.hexdigest()[:16]

plays = hashlib.sha256()
strong_player = StrongPlayer(deals=2, budget=math.inf, candidates=4)  # the same search in both

def strong(view, ruleset, rng):
    action = strong_player(view, ruleset, rng)
    plays.update(repr(action).encode())
    return action

duel(RULESETS["yancheng"], 1, 5, strong, casual_action, names=("strong", "casual"))

hand = Hand(HandSetup(RULESETS["anhui"], 7))
view = view_for(hand, min(hand.to_act()))
action = StrongPlayer(deals=0)(view, RULESETS["anhui"])
things = (view, RULESETS["anhui"], action)
player = pickle.loads(pickle.dumps(StrongPlayer(deals=3, budget=1.0)))
print(json.dumps({
    "files": files, "random": tallies(random_action, 6), "casual": tallies(casual_action, 1),
    "strong": plays.hexdigest()[:16], "pickled": pickle.loads(pickle.dumps(things)) == things,
    "player": [player.deals, player.budget], "default_deals": DEFAULT_DEALS,
    "default_candidates": DEFAULT_CANDIDATES, "stale": stale_builds(),
}))
"""


def _c_compiler() -> str | None:
    """The C compiler Python's extensions are built with, if it is installed."""
    command = (sysconfig.get_config_var("CC") or "cc").split()
    return shutil.which(command[0]) if command else None


def _play(root: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _PLAY, str(root), mode], cwd=root, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.long
def test_the_compiled_engine_imports_and_plays_the_pure_engines_hands(tmp_path: Path) -> None:
    if _c_compiler() is None:
        pytest.skip("no C compiler found: mypyc cannot build the compiled engine here (the pure engine serves)")
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=_NOT_SOURCE)
    env = {**os.environ, "CHAODIPI_MYPYC": "1"}
    # The wheel the Docker image installs (deploy/Dockerfile), unpacked as pip installs it: away from the
    # checkout, its sources and builds given the times of their unpacking.
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", "dist",
                            "."], cwd=source, env=env, capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    (wheel,) = (source / "dist").glob("chaodipi-*.whl")
    installed = tmp_path / "site"
    with zipfile.ZipFile(wheel) as unpacked:
        unpacked.extractall(installed)

    compiled, pure = _play(installed, "compiled"), _play(installed, "pure")
    assert compiled.pop("stale") == [] and pure.pop("stale") == []  # `chaodipi run` starts from it
    names = {path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
             for path in runpy.run_path(str(REPO / "setup.py"), run_name="compiled_list")["COMPILED"]}
    assert names and names <= compiled["files"].keys()
    for name, path in compiled["files"].items():
        assert path.endswith(".py") is (name not in names), (name, path)
    assert all(path.endswith(".py") for path in pure["files"].values())
    assert compiled.pop("files") != pure.pop("files")
    # Compiled, a search samples 44 deals of 6 plays by default (less CPU than 16 of 4 cost at 0823a46); pure, 16 of 4.
    assert (compiled.pop("default_deals"), pure.pop("default_deals")) == (44, 16)
    assert (compiled.pop("default_candidates"), pure.pop("default_candidates")) == (6, 4)
    assert compiled == pure and compiled["pickled"] is True and compiled["player"] == [3, 1.0]
