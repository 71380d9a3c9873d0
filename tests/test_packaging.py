"""An installed copy (not editable) holds every package of the source tree: pyproject's list
of packages names each folder with an `__init__.py`."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("dsl", "deals", "store", "sync", "serving", "site_builder", "bridgeshape_mirror")


def test_pyproject_lists_every_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for room in ROOMS
        for init in (ROOT / room).rglob("__init__.py")
    }
    assert found - listed == set()
