"""The built wheel, installed outside the source tree as an operator would: it carries its translations, the
chart's font, the Mini App's files and the migrations, and ``chaodipi`` runs from any folder.

The wheel is built offline from a copy of the tree (``--no-build-isolation``: the test extra's setuptools,
so no index is asked and the checkout gets no build/ or egg-info), installed with ``--no-deps`` into a new
environment in a temporary folder, whose dependencies come from this environment's site-packages through a
``.pth`` line (a folder named there is not a site folder: this checkout's editable install stays out).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# What the running bot reads from its package folders, besides the Python modules.
PACKAGE_DATA = [
    "bot/locale/zh_CN/LC_MESSAGES/chaodipi.po",
    "bot/league/fonts/ChaodipiSansSC-Regular.otf",
    "bot/league/fonts/OFL.txt",
    *(f"bot/webapp/static/{name}" for name in
      ("index.html", "app.js", "app.css", "signin.js", "league.html", "league.js", "league.css")),
    "storage/migrations.py",
]

# The copy of the tree to build from leaves out what is not source (and may be large or busy).
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".*_cache", ".hypothesis", "mutants", "*.db", "*.db-*", "*.db.*", "tests",
                                     "bench")


def _setuptools_builds_this_project() -> bool:
    try:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
    except importlib.metadata.PackageNotFoundError:
        return False
    return major >= 77  # pyproject's [build-system]: the SPDX licence string needs it


def _run(args: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_installed_outside_the_tree_carries_its_files_and_plays(tmp_path: Path) -> None:
    if not _setuptools_builds_this_project():
        pytest.skip("setuptools >= 77 is not in this environment: pip install -c constraints.txt -e '.[test]' again")
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=_NOT_SOURCE)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--no-build-isolation", "--no-index",
          "-w", dist, "-q"], cwd=tmp_path)
    (wheel,) = dist.glob("chaodipi-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = [name for name in PACKAGE_DATA if name not in names]
    assert not missing, missing
    assert not any(name.startswith(("tests/", "bench/")) for name in names)

    env_dir = tmp_path / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", env_dir], cwd=tmp_path)
    python = env_dir / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel],
         cwd=tmp_path)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    # From an empty folder, with nothing of this checkout on the path.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("TELEGRAM_", "CHAODIPI_", "PYTHON", "VIRTUAL_ENV"))}
    env = {**base, "PATH": f"{env_dir / 'bin'}{os.pathsep}{base.get('PATH', '')}"}
    chaodipi = env_dir / "bin" / "chaodipi"
    where = _run([python, "-c", "import bot, engine, storage; print(bot.__file__, engine.__file__, storage.__file__)"],
                 cwd=elsewhere, env=env).stdout.split()
    assert all(Path(path).is_relative_to(site) for path in where), where
    for name in PACKAGE_DATA:
        assert (site / name).is_file(), name

    version = _run([chaodipi, "--version"], cwd=elsewhere, env=env).stdout.strip()
    assert version == f"chaodipi {importlib.metadata.version('chaodipi')}" and "unknown" not in version

    english = _run([chaodipi, "demo", "--seed", "1", "--lang", "en", "--ai", "casual"], cwd=elsewhere, env=env)
    assert "Trick 1:" in english.stdout and "Hand 1 is over" in english.stdout
    chinese = _run([chaodipi, "demo", "--seed", "1", "--lang", "zh", "--ai", "casual"], cwd=elsewhere, env=env)
    assert "第 1 局结束" in chinese.stdout  # from the .po catalogue in the wheel

    # The migrations bring a new database to the schema this checkout's code expects.
    check = ("import asyncio, sys\n"
             "from storage.db import Database\n"
             "from storage.migrations import schema_version\n"
             "async def main():\n"
             "    db = await Database.open('new.db')\n"
             "    print(await schema_version(db))\n"
             "    await db.close()\n"
             "asyncio.run(main())\n")
    installed = int(_run([python, "-c", check], cwd=elsewhere, env=env).stdout)
    from storage.migrations import SCHEMA_VERSION
    assert installed == SCHEMA_VERSION > 0
