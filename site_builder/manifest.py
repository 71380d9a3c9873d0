"""`api/manifest.json`: everything a client needs in one request (issue 11). Every page with
its status, revision, scenarios (labels and probabilities) and its files with their SHA-256,
so a client downloads only the files whose digest changed. Its schema is
`schemas/manifest.json`; `schemaVersion` grows only when a field changes meaning.

It is made last, from the files of this build (rendered, or reused with the digest the
mirror holds), and carries the status's `builtAt`; it is left out of the status's content
key (it is a function of the files and of that time)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from bridgeshape_mirror.deals.outcome import ScenarioDeals
from bridgeshape_mirror.store.version import VERSION

from . import layout
from .analysis import PageAnalysis
from .page_files import DEAL_FILES
from .publish import Reused
from .status import GENERATOR

SCHEMA_VERSION = 1


def _sha256(data: bytes | Reused) -> str:
    return data.digest if isinstance(data, Reused) else hashlib.sha256(data).hexdigest()


def page_paths(
    a: PageAnalysis,
    title_path: PurePosixPath | None,
    files: Mapping[PurePosixPath, bytes | Reused],
    scripts: Sequence[PurePosixPath] = (),
) -> list[PurePosixPath]:
    """The files of page `a` in this build: get by page id and by title, deals JSON, PBN,
    LIN, each scenario's scripts (`scripts`: the page's, from `scripts_by_page`), the convention page."""
    pid = a.page.page_id
    fixed = [layout.get_by_pageid(pid), title_path, *(f.path(pid) for f in DEAL_FILES)]
    # `<n>.dlr`, `<n>.tcl`, `<n>.bridgechamp.txt`: by scenario, then by suffix
    ordered = sorted(scripts, key=lambda p: (int(p.name.split(".", 1)[0]), p.name.split(".", 1)[1]))
    return [p for p in fixed if p is not None and p in files] + ordered + [layout.convention_html(pid)]


def scripts_by_page(files: Mapping[PurePosixPath, bytes | Reused]) -> dict[int, list[PurePosixPath]]:
    """The script files of the build by page id, in one pass (a pass per page was quadratic:
    1,500 pages took minutes)."""
    found: dict[int, list[PurePosixPath]] = {}
    root = layout.script(0, 1, ".dlr").parts[0]
    for path in files:
        parts = path.parts
        if len(parts) == 3 and parts[0] == root and parts[1].isdigit():
            found.setdefault(int(parts[1]), []).append(path)
    return found


def _scenario(o: ScenarioDeals) -> dict[str, Any]:
    out: dict[str, Any] = {"index": o.index, "label": o.label, "probability": o.probability.value, "probability_exact": o.probability.exact}
    if o.levels is not None:  # a levelled set: its classes, their natural shares and boards
        classes = [{"class": c.name, "natural_share": float(c.natural_share), "boards": c.boards} for c in o.levels.classes]
        out["levels"] = {"by": o.levels.by, "classes": classes}
    return out


def manifest_document(
    analyses: Sequence[PageAnalysis],
    deals: Mapping[int, Sequence[ScenarioDeals]],
    title_paths: Mapping[int, PurePosixPath],
    files: Mapping[PurePosixPath, bytes | Reused],
    built_at: str | None,
) -> dict[str, Any]:
    pages = []
    scripts = scripts_by_page(files)
    for a in sorted(analyses, key=lambda a: (a.page.title, a.page.page_id)):
        pid = a.page.page_id
        pages.append(
            {
                "pageId": pid,
                "title": a.page.title,
                "revid": a.served_revid,
                "status": a.status.value,
                "scenarios": [_scenario(o) for o in deals.get(pid, ())],
                "files": [{"path": str(p), "sha256": _sha256(files[p])} for p in page_paths(a, title_paths.get(pid), files, scripts.get(pid, ())) if p in files],
            }
        )
    return {
        "schemaVersion": SCHEMA_VERSION,
        "generator": {"name": GENERATOR, "version": VERSION},
        "builtAt": built_at,
        "pages": pages,
    }
