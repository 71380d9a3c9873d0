"""Run one sync from either source into a state store. The caller holds the run lock.

Both sources read everything first and hand it to the store through `reading.write_reading`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from store.state import StateStore

from .client import ClientSettings, WikiClient
from .dump import sync_from_dump
from .report import SyncReport
from .syncer import ApiSync, SyncSettings


@dataclass(frozen=True)
class Source:
    """Exactly one of the two: a live wiki's API, or an XML export file."""

    api: ClientSettings | None = None
    dump: Path | None = None

    def __post_init__(self) -> None:
        if (self.api is None) == (self.dump is None):
            raise ValueError("a sync source is either an API or a dump file")


def run_sync(
    source: Source,
    state_path: str | Path,
    settings: SyncSettings,
    progress: Callable[[int], None] | None = None,
    client_factory: Callable[[ClientSettings], WikiClient] = WikiClient,
) -> SyncReport:
    with StateStore(state_path) as store:
        if source.dump is not None:
            return sync_from_dump(source.dump, store, settings, progress=progress)
        assert source.api is not None
        client = client_factory(source.api)
        return ApiSync(client, store, settings, progress=progress).run()
