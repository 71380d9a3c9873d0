"""The last change a run refused (a mass removal of convention pages), kept beside the
state file, not in it: a refused run must leave the state store byte-identical, yet the
next build's `api/status.json` and the people reading it must learn that it happened.

The record is written when a run refuses, read by the build, and removed by the next run
that changes the store (the refusal is then over, one way or the other). What counts as a
mass removal is decided here too, once, for the sync (`sync.guard`) and the build alike.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import StateError


#: A run is refused when it would remove more than this share of the stored pages ...
MAX_SHARE = 0.10
#: ... and more than this many of them: small wikis may lose a page or three at a time.
MAX_PAGES = 3


def is_mass_removal(removed: int, stored: int) -> bool:
    """More than MAX_SHARE and more than MAX_PAGES of `stored`, or every stored page: a run
    that would leave the store empty is never routine (every page always counts)."""
    if removed == 0 or stored == 0:
        return False
    return removed == stored or (removed > MAX_SHARE * stored and removed > MAX_PAGES)


@dataclass(frozen=True)
class Refusal:
    """What was refused: `removed` of the `stored` convention pages would have gone, and why
    (`message`, the sentence the run ended with); `at` is an ISO 8601 UTC time."""

    at: str
    message: str
    removed: int
    stored: int


def refusal_path(state_path: str | os.PathLike[str]) -> Path:
    return Path(f"{state_path}.refused.json")


def record_refusal(state_path: str | os.PathLike[str], refusal: Refusal) -> None:
    path = refusal_path(state_path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(asdict(refusal), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        raise StateError(f"cannot write {path}: {exc}") from exc


def read_refusal(state_path: str | os.PathLike[str]) -> Refusal | None:
    """The last refusal, or None; an unreadable record counts as none (it only informs)."""
    try:
        data = json.loads(refusal_path(state_path).read_text(encoding="utf-8"))
        return Refusal(at=str(data["at"]), message=str(data["message"]), removed=int(data["removed"]), stored=int(data["stored"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def clear_refusal(state_path: str | os.PathLike[str]) -> None:
    try:
        refusal_path(state_path).unlink(missing_ok=True)
    except OSError as exc:
        raise StateError(f"cannot remove {refusal_path(state_path)}: {exc}") from exc
