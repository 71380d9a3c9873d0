"""The rooms of docs/ARCHITECTURE.md import only the rooms above them: no upward import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The order of docs/ARCHITECTURE.md's table: each room may import those before it.
ROOMS = ("dsl", "deals", "store", "sync", "serving", "site_builder", "bridgeshape_mirror")


def imported_rooms(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in ROOMS)
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
    rows = [line.split("`")[1].rstrip("/") for line in text.splitlines() if line.startswith("| `")]
    assert tuple(rows) == ROOMS


def test_the_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\nfrom site_builder.layout import LIST\nimport deals.rng\n", encoding="utf-8")
    assert imported_rooms(module) == {"site_builder", "deals"}


def test_the_readme_layout_names_every_module():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout") : readme.index("## Benchmarks")]
    missing = [
        str(path.relative_to(ROOT))
        for room in ROOMS
        for path in sorted((ROOT / room).rglob("*.py"))
        if path.name != "__init__.py" and f"`{path.name}`" not in layout
    ]
    assert missing == []
