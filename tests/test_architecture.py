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
