"""A small disk cache for integers that take a noticeable time: exact cross-partnership
counts (kind "cross-band", `deals.sampler.exact_cross_count`; "cross" and "cross-columns"
before, whose -1, "past the budget", stood for scenarios now counted exactly) and the
accepted draws of a scenario's rules-seeded estimate (kind "estimate", see `deals.sampler`;
deterministic, so caching never changes a result).

Entries are one-line JSON files under `$XDG_CACHE_HOME/bridgeshape-mirror/deals/` (default
`~/.cache/...`; the project's cache folder is `cache_root`), named by a
SHA-256 of the compiled scenario and `VERSION` (bump it when a count could change). Writes are atomic (temporary file, then rename). Any failure (read-only
home, corrupt file) just means a cache miss: the count is recomputed, never wrong.
`BSM_DEALS_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

VERSION = "deals-cache-4"  # 2, 3, 4: more scenarios counted (earlier ones remembered them as not counted)


def cache_root() -> Path:
    """The project's cache folder (it may not exist yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bridgeshape-mirror"


def _directory() -> Path | None:
    if os.environ.get("BSM_DEALS_CACHE", "1") == "0":
        return None
    return cache_root() / "deals"


def _path(kind: str, key: object) -> Path | None:
    directory = _directory()
    if directory is None:
        return None
    digest = hashlib.sha256(f"{VERSION}|{kind}|{key!r}".encode()).hexdigest()
    return directory / f"{kind}-{digest[:32]}.json"


def get_int(kind: str, key: object) -> int | None:
    path = _path(kind, key)
    if path is None:
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))["value"]
        return int(value) if value is not None else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def put_int(kind: str, key: object, value: int) -> None:
    path = _path(kind, key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"value": str(value)}, out)
        os.replace(tmp, path)
    except OSError:
        pass
