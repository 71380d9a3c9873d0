"""The rooms of docs/ARCHITECTURE.md import only the rooms above them: no upward import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The order of docs/ARCHITECTURE.md's table: each room may import those before it.
ROOMS = ("dsl", "deals", "store", "sync", "serving", "site_builder", "bridgeshape_mirror")
#: The one installed package; the rooms are its sub-packages.
PACKAGE = "bridgeshape_mirror"


def imported_rooms(path: Path) -> set[str]:
    """The rooms a module imports: `bridgeshape_mirror.<room>` (every room is installed under
    that one package), or the package itself for its own modules (the CLI)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != PACKAGE else [f"{PACKAGE}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == PACKAGE:
                found.add(parts[1] if len(parts) > 1 and parts[1] in ROOMS else PACKAGE)
            elif parts[0] in ROOMS:
                found.add(parts[0])
    return found


def test_rooms_import_only_rooms_above_them():
    upward = []
    for rank, room in enumerate(ROOMS):
        allowed = set(ROOMS[: rank + 1])
        for path in sorted((ROOT / room).rglob("*.py")):
            for other in imported_rooms(path) - allowed:
                upward.append(f"{path.relative_to(ROOT)} imports {other}")
    assert upward == []


def test_the_table_lists_the_rooms_in_this_order():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rooms = text[: text.index("## Modules")]  # the first table: the rooms, top down
    rows = [line.split("`")[1].rstrip("/") for line in rooms.splitlines() if line.startswith("| `")]
    assert tuple(rows) == ROOMS


def test_the_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\nfrom bridgeshape_mirror.site_builder.layout import LIST\nimport bridgeshape_mirror.deals.drawing.rng\n", encoding="utf-8")
    assert imported_rooms(module) == {"site_builder", "deals"}


def test_the_architecture_names_every_module():
    architecture = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    layout = architecture[architecture.index("## Modules") :]
    missing = [
        str(path.relative_to(ROOT))
        for room in ROOMS
        for path in sorted((ROOT / room).rglob("*.py"))
        if path.name != "__init__.py" and f"`{path.name}`" not in layout
    ]
    assert missing == []


def test_the_readmes_exit_statuses_are_the_exit_codes():
    """Cron reads them: the README's table is `ExitCode`, status for status and name for name."""
    import re

    from bridgeshape_mirror.exit_codes import ExitCode

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Exit statuses") :].split("\n## ")[0]
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \|", table, flags=re.MULTILINE)
    assert [(int(status), name) for status, name in rows] == [(int(code), code.name) for code in ExitCode]


#: The sub-packages of deals/, in order: each imports only those before it, and the modules
#: at deals/'s top that all share (`errors`, `probability`); the modules above them (the
#: outcome, double dummy, formats, scripts) may import any.
DEALS_ORDER = ("boards", "rules", "counting", "drawing")
DEALS_BASE = ("errors", "probability")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts if parts[0] == PACKAGE else [PACKAGE, *parts])


def _library_modules() -> dict[str, Path]:
    return {_module_name(path): path for room in ROOMS for path in (ROOT / room).rglob("*.py")}


def runtime_imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The library's modules that `path` (module `name`) imports when it runs: at its top and
    inside its functions, not under `TYPE_CHECKING` (annotations only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node) for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module)
    return {m for m in found if m in modules and m != name}


def test_no_import_circle_anywhere_in_the_library():
    """No module imports, even inside a function, one that imports it back (lark's generated
    parser aside: its code, not ours)."""
    modules = _library_modules()
    graph = {
        name: runtime_imports(path, name, modules)
        for name, path in modules.items()
        if path.name != "generated_parser.py"
    }
    cycles, state, stack = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for other in sorted(graph.get(module, ())):
            if state.get(other) == "open":
                cycles.append(" -> ".join(stack[stack.index(other) :] + [other]))
            elif other not in state:
                visit(other)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == []


def test_the_deals_sub_packages_import_only_those_before_them():
    modules = _library_modules()
    wrong = []
    for name, path in sorted(modules.items()):
        parts = name.split(".")
        if len(parts) < 4 or parts[1] != "deals" or parts[2] not in DEALS_ORDER:
            continue
        allowed = set(DEALS_ORDER[: DEALS_ORDER.index(parts[2]) + 1]) | set(DEALS_BASE)
        for other in runtime_imports(path, name, modules):
            other_parts = other.split(".")
            if other_parts[1] == "deals" and len(other_parts) > 2 and other_parts[2] not in allowed:
                wrong.append(f"{name} imports {other}")
    assert wrong == []
