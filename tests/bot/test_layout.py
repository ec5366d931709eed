"""The house rules of bot/, read from the source: no import circles, one way into each package, no task
started outside the supervisor.

Every import counts, those inside functions and under ``TYPE_CHECKING`` too: a
circle hidden in a function is still a circle a newcomer must untangle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def bot_files() -> list[Path]:
    return sorted(BOT.rglob("*.py"))


def imported(path: Path) -> Iterator[tuple[str, int]]:
    """Every module name an import in the file names (``from a import b`` gives ``a`` and ``a.b``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            yield base, node.lineno
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno


def resolve(target: str, known: set[str]) -> str:
    """The longest known module a dotted name starts with ('' if none)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target


def import_graph() -> dict[str, set[str]]:
    """Module → the bot modules it imports (a package's ``__init__`` counts as a file of its own)."""
    known = {module_name(path) for path in bot_files()}
    graph: dict[str, set[str]] = {}
    for path in bot_files():
        name = module_name(path)
        edges = set()
        for target, _ in imported(path):
            target = resolve(target, known)
            if target and target != name and not name.startswith(target + "."):
                edges.add(target)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_checker_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_two_files_of_bot_import_each_other_directly_or_through_others() -> None:
    assert circles(import_graph()) == []


def test_storage_is_reached_through_its_face_only() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{line} {target}" for path in bot_files()
                 for target, line in imported(path) if target.startswith("storage.")
                 and target.split(".")[1] in {p.stem for p in (ROOT / "storage").glob("*.py")}]
    assert offenders == []


def test_front_ends_ask_the_service_not_the_engine_or_storage() -> None:
    """The keyboard's handlers and the web app decide nothing themselves: no AI, bidding or hand rebuilding,
    no view of a seat they pick, no room of the service but its face.  Card values, the engine's error types
    and the view a renderer is handed are fine."""
    forbidden = ("engine.ai", "engine.bidding", "engine.match", "engine.hand", "engine.views.view_for",
                 "storage.")
    known = {module_name(path) for path in bot_files()}
    offenders = []
    for path in [*sorted((BOT / "handlers").glob("*.py")), *sorted((BOT / "webapp").glob("*.py"))]:
        for target, line in imported(path):
            room = resolve(target, known).startswith("bot.tables.")  # the service's rooms: its face only
            if target.startswith(forbidden) or room:
                offenders.append(f"{path.relative_to(ROOT)}:{line} {target}")
    assert offenders == []


def test_the_keyboard_side_and_the_web_app_do_not_import_each_other() -> None:
    graph = import_graph()
    for name, edges in graph.items():
        if name.startswith("bot.handlers"):
            assert not any(e.startswith("bot.webapp") for e in edges), name
        if name.startswith("bot.webapp"):
            assert not any(e.startswith("bot.handlers") for e in edges), name


def test_no_task_is_started_outside_the_supervisor() -> None:
    offenders = []
    for path in bot_files():
        if path.name == "tasks.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("create_task", "ensure_future"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_no_file_of_bot_is_over_four_hundred_lines() -> None:
    long = {str(path.relative_to(ROOT)): n for path in bot_files()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def test_the_front_ends_reach_storage_only_through_the_services() -> None:
    """Who may see or do what is decided behind the services (bot.tables, bot.league): neither the keyboard's
    handlers nor the Mini App import storage (function-level imports counted)."""
    found = {}
    for path in bot_files():
        name = module_name(path)
        if not name.startswith(("bot.handlers", "bot.webapp")):
            continue
        for target, line in imported(path):
            if target == "storage" or target.startswith("storage."):
                found.setdefault(str(path.relative_to(ROOT)), line)
    assert found == {}


MUTATORS = frozenset({"append", "add", "clear", "discard", "pop", "popitem", "remove", "setdefault", "update"})
"""Methods that change a list, set or dict in place."""
SERVICE_STATE = frozenset({"table", "seated", "each", "info", "tables", "house"})
"""The names the front ends give a table, its seats and the tables service."""


def _owned(node: ast.expr) -> bool:
    """True for an attribute reached from a table, a seat or the service (``self.tables.x`` included)."""
    names = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.value
    return isinstance(node, ast.Name) and (node.id in SERVICE_STATE or (node.id == "self" and "tables" in names))


def state_changes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Where a file sets an attribute of a table, a seat or the service (``table.lang = …``), or changes in
    place a collection one of them holds (``table.pending.clear()``)."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript) and _owned(target):
                yield node.lineno, ast.unparse(target)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS \
                and isinstance(node.func.value, ast.Attribute) and _owned(node.func.value):
            yield node.lineno, ast.unparse(node.func)


def test_the_checker_finds_a_change_of_shared_state() -> None:
    source = ("table.lang = 'en'\ninfo.seats[0] = None\ntable.pending.clear()\nself.tables.watchers.append(f)\n"
              "self.ok = 1\nlocal.append(1)\ncontext.bot_data.setdefault('x', 1)\ntable = None\n")
    assert [line for line, _ in state_changes(ast.parse(source))] == [1, 2, 3, 4]


def test_the_front_ends_change_no_table_state_of_their_own_accord() -> None:
    """A table, its seats and the service's registries have one owner, the tables service: the keyboard's
    handlers and the Mini App ask it (a request, a call) and never set a field themselves."""
    offenders = [f"{path.relative_to(ROOT)}:{line} {what}"
                 for path in [*sorted((BOT / "handlers").glob("*.py")), *sorted((BOT / "webapp").glob("*.py"))]
                 for line, what in state_changes(ast.parse(path.read_text(encoding="utf-8")))]
    assert offenders == []
