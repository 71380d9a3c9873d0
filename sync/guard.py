"""The guard against mass removals: a run that would take away too many of the stored
convention pages is refused before anything is written.

Cron runs unattended; the one thing it must never do is replace a good mirror with a wrong
one. A mistyped template or category, the wrong wiki, or a truncated export all look, to a
sync, like "most pages were deleted". Real mass deletions are rare and an operator can
accept one on purpose (`allow_removals`).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from bridgeshape_mirror.store.errors import SuspiciousChange
from bridgeshape_mirror.store.refusal import MAX_PAGES, MAX_SHARE, is_mass_removal

def check_removals(
    gone: Set[int],
    stored: int,
    kept: int,
    mode: str,
    selection: Mapping[str, Any],
    previous: Mapping[str, Any] | None,
) -> None:
    """Raise SuspiciousChange when removing `gone` of the `stored` pages is a mass removal.
    `kept` is how many convention pages the source still has; `selection` is what this run
    asked for, `previous` what the last run did (the store's `selection`)."""
    if not is_mass_removal(len(gone), stored):
        return
    raise SuspiciousChange(
        f"refused: {len(gone)} of the {stored} stored convention pages would be removed "
        f"(more than {MAX_SHARE:.0%} and more than {MAX_PAGES}, or all of them): "
        f"{_why(kept, stored, mode, selection, previous)}; nothing was written",
        removed=len(gone),
        stored=stored,
    )


def _why(kept: int, stored: int, mode: str, selection: Mapping[str, Any], previous: Mapping[str, Any] | None) -> str:
    """What the run can tell about the cause, most telling first."""
    reasons = [
        f"the {name} changed from {previous.get(name)!r} to {selection.get(name)!r} since the last run"
        for name in ("source", "template", "parameter", "category")
        if previous is not None and previous.get(name) != selection.get(name)
    ]
    template = selection.get("template")
    category = selection.get("category")
    where = "the export" if mode == "dump" else "the wiki"
    if mode == "incremental":
        reasons.append("recent changes deleted or moved these pages, or took the template out of them")
    elif kept == 0 and category:
        reasons.append(f"{where} has no page in category {category!r} that uses template {template!r} (category empty?)")
    elif kept == 0:
        reasons.append(f"{where} has no page that uses template {template!r} (template not used by any page, or misspelt?)")
    elif mode == "dump":
        reasons.append(f"the export has {kept} convention pages where the store has {stored} (an older or partial export?)")
    else:
        reasons.append(f"the wiki lists {kept} pages using template {template!r} where the store has {stored}")
    return "; ".join(reasons)
