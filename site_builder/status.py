"""The mirror's freshness (`api/status.json`, SEMANTICS 4): what produced it, from which
wiki, when the wiki was last read, when the build last changed the mirror, how the pages
stand, and whether the last run refused a change.

The file must not defeat the no-op publish: a build with nothing new, an idle cron run
(a sync that found nothing) included, writes nothing at all; and two builds of one state
give the same files. So the times in it move only when they mean something:

- `builtAt` is the time of the build that last produced *different* content from this
  state store. The build remembers (in its history) a key of what the status describes:
  every other file's digest, but for the nginx snippet (it names where the mirror lives,
  not what it holds) and the human pages that show the status, plus the status's own facts
  but `lastSync`; a build with the same key keeps the remembered time.
- `lastSync` is the store's last successful sync when the content changed, and otherwise
  refreshed once it is `LAST_SYNC_REFRESH` older than the store's: a client can tell a
  mirror whose cron stopped (a `lastSync` more than that plus the cron interval old) from
  a quiet wiki, at the cost of three files (this one, the front page and the report)
  written once an hour, not every run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from pathlib import Path, PurePosixPath

from bridgeshape_mirror.store.history import BuiltStatus
from bridgeshape_mirror.store.model import now_timestamp, parse_timestamp
from bridgeshape_mirror.store.refusal import Refusal
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.store.version import VERSION

from .analysis import PageAnalysis, Status
from .publish import Reused

GENERATOR = "bridgeshape-mirror"
#: How stale the published `lastSync` may grow while nothing else changes (see above).
LAST_SYNC_REFRESH = timedelta(hours=1)
#: How `sync` records a dump as its source in the store's `selection` meta.
_DUMP_PREFIX = "dump:"


@dataclass(frozen=True)
class SourceOfPages:
    """Where the pages came from: a wiki's api.php URL, or an XML export's file name
    (without its folder: that is the machine's business, not the readers')."""

    api: str | None = None
    dump: str | None = None


@dataclass(frozen=True)
class PageCounts:
    total: int
    ok: int
    stale: int
    broken: int
    no_constraints: int


@dataclass(frozen=True)
class DoubleDummyCounts:
    """Published deals with a double-dummy table, and those still waiting for one."""

    analysed: int
    waiting: int


@dataclass(frozen=True)
class Freshness:
    """Everything `api/status.json` says, as typed values (times are ISO 8601 UTC)."""

    version: str
    source: SourceOfPages
    last_sync: str | None
    built_at: str
    newest_revid: int | None
    newest_revision_timestamp: str | None
    recent_change_timestamp: str | None
    pages: PageCounts
    refusal: Refusal | None
    dd: DoubleDummyCounts | None = None

    @property
    def updated_at(self) -> str:
        """What people are shown as "updated at": when the wiki was last read, else the build."""
        return self.last_sync or self.built_at


def source_of(store: StateStore) -> SourceOfPages:
    selection = store.get_json("selection") or {}
    source = selection.get("source") if isinstance(selection, dict) else None
    if not isinstance(source, str) or not source:
        return SourceOfPages()
    if source.startswith(_DUMP_PREFIX):
        return SourceOfPages(dump=Path(source[len(_DUMP_PREFIX) :]).name)
    return SourceOfPages(api=source)


def page_counts(analyses: Iterable[PageAnalysis]) -> PageCounts:
    statuses = [a.status for a in analyses]
    return PageCounts(
        total=len(statuses),
        ok=statuses.count(Status.OK),
        stale=statuses.count(Status.STALE),
        broken=statuses.count(Status.BROKEN),
        no_constraints=statuses.count(Status.NO_CONSTRAINTS),
    )


def freshness(store: StateStore, analyses: list[PageAnalysis], refusal: Refusal | None) -> Freshness:
    """The status of a build of `analyses` from `store`, its build time not yet decided
    (see `settle`)."""
    newest = max((a.page for a in analyses), key=lambda page: page.revid, default=None)
    cursor = store.get_json("cursor")
    recent = cursor.get("rc_timestamp") if isinstance(cursor, dict) else None
    return Freshness(
        version=VERSION,
        source=source_of(store),
        last_sync=store.get_meta("last_sync"),
        built_at="",
        newest_revid=newest.revid if newest else None,
        newest_revision_timestamp=newest.timestamp if newest else None,
        recent_change_timestamp=recent if isinstance(recent, str) else None,
        pages=page_counts(analyses),
        refusal=refusal,
    )


def content_key(status: Freshness, files: Mapping[PurePosixPath, bytes | Reused], left_out: Iterable[PurePosixPath]) -> str:
    """The key of what the status describes (the module docstring says what is left out)."""
    skip = set(left_out)
    digest = hashlib.sha256()
    facts = replace(status, built_at="", last_sync=None)
    digest.update(json.dumps(asdict(facts), sort_keys=True).encode("utf-8"))
    for path in sorted(files, key=str):
        if path in skip:
            continue
        data = files[path]
        digest.update(f"\0{path}\0".encode())
        digest.update((data.digest if isinstance(data, Reused) else hashlib.sha256(data).hexdigest()).encode())
    return digest.hexdigest()


def settle(status: Freshness, key: str, remembered: BuiltStatus | None) -> Freshness:
    """`status` with its build time, and its `lastSync` as the module docstring says."""
    if remembered is None or remembered.key != key:
        return replace(status, built_at=now_timestamp())
    last_sync = status.last_sync
    if remembered.last_sync is not None and last_sync is not None and _age(remembered.last_sync, last_sync) < LAST_SYNC_REFRESH:
        last_sync = remembered.last_sync
    return replace(status, built_at=remembered.built_at, last_sync=last_sync)


def _age(earlier: str, later: str) -> timedelta:
    try:
        return parse_timestamp(later) - parse_timestamp(earlier)
    except ValueError:  # not a time the sync wrote: refresh rather than keep it
        return LAST_SYNC_REFRESH
