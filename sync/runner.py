"""Run one sync from either source into a state store. The caller holds the run lock.

Both sources read everything first and hand it to the store through `reading.write_reading`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bridgeshape_mirror.store.state import StateStore

from .client import ClientSettings, WikiClient, user_agent
from .dump import sync_from_dump
from .endpoint import find_api, is_api_url
from .report import SyncReport
from .syncer import ApiSync, SyncSettings

log = logging.getLogger(__name__)


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
        client = client_factory(api_endpoint(source.api))
        return ApiSync(client, store, settings, progress=progress).run()


def api_endpoint(settings: ClientSettings) -> ClientSettings:
    """`settings` with the api.php URL that its URL's page names, when it is not one."""
    if is_api_url(settings.api_url):
        return settings
    found = find_api(settings.api_url, timeout=settings.timeout, user_agent=user_agent(settings.contact))
    log.warning("%s is not an api.php URL; using %s, which the page there names (give that URL to skip this look-up)", settings.api_url, found)
    return replace(settings, api_url=found)
