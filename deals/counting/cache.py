"""A small disk cache for integers that take a noticeable time: exact cross-partnership
counts (kind "cross-band", `deals.counting.scenario.exact_cross_count`; "cross" and "cross-columns"
before, whose -1, "past the budget", stood for scenarios now counted exactly) and the
accepted draws of a scenario's rules-seeded estimate (kind "estimate", see `deals.drawing.sampler`;
deterministic, so caching never changes a result).

Entries are one-line JSON files under `$XDG_CACHE_HOME/bridgeshape-mirror/deals/` (default
`~/.cache/...`; the project's cache folder is `cache_root`), named by a
SHA-256 of the compiled scenario and `VERSION` (bump it when a count could change). Writes are atomic (temporary file, then rename). Any failure (read-only
home, corrupt file) just means a cache miss: the count is recomputed, never wrong.
`BSM_DEALS_CACHE=0` turns the cache off.

`Bounded` is the in-memory kind: the models and pair counts a process keeps for reuse
(`deals.counting.scenario.pair_model`, `deals.counting.crossing`), least recently used dropped past a count
and a byte budget.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

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
    import hashlib  # here: `Bounded` is imported where no disk cache is read (a deal's start-up)

    directory = _directory()
    if directory is None:
        return None
    digest = hashlib.sha256(f"{VERSION}|{kind}|{key!r}".encode()).hexdigest()
    return directory / f"{kind}-{digest[:32]}.json"


def get_int(kind: str, key: object) -> int | None:
    import json

    path = _path(kind, key)
    if path is None:
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))["value"]
        return int(value) if value is not None else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def put_int(kind: str, key: object, value: int) -> None:
    import json
    import tempfile

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


class Bounded(Generic[K, V]):
    """Values kept by key, the least recently used dropped when an entry is added past
    `items` entries or `max_bytes` bytes together (`size` of each value); the newest always
    stays. A value may grow while it is in use (a model builds its draw tables when drawn
    from), so the sizes of the entries asked for since the last addition are measured again
    at the next one: the others' are kept, not summed anew at every addition."""

    def __init__(self, size: Callable[[V], int]):
        self._size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._bytes: dict[K, int] = {}
        self._total = 0
        self._used: set[K] = set()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
            self._used.add(key)
        return value

    def put(self, key: K, value: V, items: int, max_bytes: int) -> V:
        for used in self._used & self._bytes.keys():
            self._measure(used)
        self._used = {key}
        self._entries[key] = value
        self._entries.move_to_end(key)
        self._measure(key)
        while len(self._entries) > 1 and (len(self._entries) > items or self._total > max_bytes):
            old, _ = self._entries.popitem(last=False)
            self._total -= self._bytes.pop(old)
            self._used.discard(old)
        return value

    def _measure(self, key: K) -> None:
        size = self._size(self._entries[key])
        self._total += size - self._bytes.get(key, 0)
        self._bytes[key] = size

    def values(self) -> list[V]:
        return list(self._entries.values())

    def clear(self) -> None:
        self._entries.clear()
        self._bytes.clear()
        self._used.clear()
        self._total = 0

    def __len__(self) -> int:
        return len(self._entries)
