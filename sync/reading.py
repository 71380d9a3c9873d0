"""The one seam between a sync source and the state store.

A source (the live API in `syncer.py`, an XML export in `dump.py`) reads everything first
and hands it over as one `Reading`: the wiki's site information, the convention pages, and
what the next run needs to know. `write_reading` is the only writer of the store's pages
and sync meta: one transaction, so a source that fails leaves the store as it was. A new
source is a function that returns a `Reading`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from bridgeshape_mirror.store.errors import StateError, SuspiciousChange
from bridgeshape_mirror.store.model import SiteInfo, WikiPage
from bridgeshape_mirror.store.refusal import Refusal, clear_refusal, record_refusal
from bridgeshape_mirror.store.state import StateStore

from .guard import check_removals
from .report import SyncReport

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reading:
    """What one run of a source read."""

    #: "full", "incremental" or "dump": for the report.
    mode: str
    site: SiteInfo
    #: Convention pages as read now; each is written as it is.
    pages: tuple[WikiPage, ...]
    #: `pages` is every convention page (a full sync, an export): any other stored page is gone.
    complete: bool
    #: Where from and what was asked for (`SyncSettings.selection`): another one next time
    #: means the cursor no longer applies.
    selection: dict[str, Any]
    #: When the source was read (the store's `last_sync`).
    synced_at: str
    #: Stored pages that are no convention pages any more (when `pages` is not complete).
    removed: frozenset[int] = frozenset()
    #: Further meta to write (the API's cursor and check times), and meta to drop.
    meta: dict[str, Any] = field(default_factory=dict)
    forget: tuple[str, ...] = ()
    #: Pages the source looked at, and the API requests it made.
    fetched: int = 0
    requests: int = 0
    #: Pages read in and refused, each with why (a title longer than MediaWiki allows): they
    #: are not in `pages`, so they count as no convention page; the others are kept.
    refused: tuple[str, ...] = ()


def write_reading(store: StateStore, reading: Reading, allow_removals: bool = False) -> SyncReport:
    """Apply `reading` to the store in one transaction; what it changed, as a report.

    A mass removal (`guard.check_removals`) is refused before the transaction unless
    `allow_removals`: the store stays byte-identical, and the refusal is recorded beside it
    (`store.refusal`) for the next build's status; a run that writes clears that record."""
    old = store.revisions()
    kept = {p.page_id for p in reading.pages}
    gone = old.keys() - kept if reading.complete else reading.removed & old.keys()
    if not allow_removals:
        try:
            check_removals(gone, len(old), len(kept), reading.mode, reading.selection, store.get_json("selection"))
        except SuspiciousChange as refused:
            try:
                record_refusal(store.path, Refusal(reading.synced_at, str(refused), refused.removed, refused.stored))
            except StateError as unrecorded:
                # The record only informs the next build; the refusal itself is what counts.
                log.warning("the refusal could not be recorded: %s", unrecorded)
            raise
    with store.transaction() as db:
        if reading.complete:
            StateStore.replace_pages(db, old, reading.pages)
        else:
            for page_id in gone:
                StateStore.delete(db, page_id)
            for page in reading.pages:
                StateStore.upsert(db, page)
        StateStore.put_site_info(db, reading.site)
        StateStore.put_meta(db, "selection", reading.selection)
        StateStore.put_meta(db, "last_sync", reading.synced_at)
        for key, value in reading.meta.items():
            StateStore.put_meta(db, key, value)
        for key in reading.forget:
            StateStore.delete_meta(db, key)
    clear_refusal(store.path)
    for reason in reading.refused:
        log.warning("%s", reason)
    return SyncReport.counted(
        reading.mode, reading.requests, reading.fetched, old, reading.pages, gone, store.pages(), reading.refused
    )
