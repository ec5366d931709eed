"""The house's layout across its packages, read from the source: no import circle anywhere, imports one way.

Every import counts, those inside functions and under ``TYPE_CHECKING`` too,
as in bot/'s own layout test (:mod:`tests.bot.test_layout`, whose reader of
imports and circle finder this uses): a circle hidden in a function is still
a circle a newcomer must untangle.
"""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_layout import ROOT, circles, imported, module_name, resolve

PACKAGES = ("engine", "storage", "bot")


def house_files() -> list[Path]:
    """Every Python file of the three packages."""
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def house_graph() -> dict[str, set[str]]:
    """Module → the modules of the house it imports (a package's ``__init__`` counts as a file of its own)."""
    known = {module_name(path) for path in house_files()}
    graph: dict[str, set[str]] = {}
    for path in house_files():
        name = module_name(path)
        graph[name] = {target for imported_name, _ in imported(path)
                       if (target := resolve(imported_name, known))
                       and target != name and not name.startswith(target + ".")}
    return graph


def test_no_circle_in_engine_storage_or_bot() -> None:
    graph = house_graph()
    assert {"engine.hand", "engine.ai.baseline.bidding", "storage.db", "bot.tables.play"} <= graph.keys()
    assert circles(graph) == []


def test_imports_point_one_way() -> None:
    """bot → storage → engine, and bot → engine: the engine imports neither, storage never imports bot."""
    below = {"engine": ("storage", "bot"), "storage": ("bot",), "bot": ()}
    offenders = [f"{path.relative_to(ROOT)}:{line} {target}" for path in house_files()
                 for target, line in imported(path)
                 if target.split(".")[0] in below[module_name(path).split(".")[0]]]
    assert offenders == []
