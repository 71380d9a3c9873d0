"""When each page broke and was fixed, in its own table of the state file: one row per change
of a page between broken and valid, as the build saw it (`site_builder.feed` finds them), kept
for the report's feed (`report/feed.atom`). The revision and time are the wiki's: those of the
edit that broke the page (the first broken one) or that fixed it. Written through the store's
transactions, once per run, after the publish."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from .state import StateStore

#: Rows kept: the feed shows the newest 50, and older ones are never asked for again.
KEPT_EVENTS = 50

_SCHEMA = """
CREATE TABLE IF NOT EXISTS report_events (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    page_id   INTEGER NOT NULL,
    title     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    revid     INTEGER NOT NULL,
    timestamp TEXT NOT NULL,
    raw       TEXT
);
"""


class EventKind(StrEnum):
    BROKE = "broke"
    FIXED = "fixed"


@dataclass(frozen=True)
class ReportEvent:
    """A page that broke (`raw`: the broken value, whose errors the feed says in the site's
    language) or was fixed (`raw` None), at the wiki's revision `revid` made at `timestamp`."""

    page_id: int
    title: str
    kind: EventKind
    revid: int
    timestamp: str
    raw: str | None = None


def newest_first(events: Iterable[ReportEvent], limit: int = KEPT_EVENTS) -> list[ReportEvent]:
    """The newest `limit` of `events` by the edit's time (a page's own order kept on a tie:
    the sort is stable, and the later-recorded come first)."""
    return sorted(reversed(list(events)), key=lambda e: e.timestamp, reverse=True)[:limit]


class ReportEvents:
    def __init__(self, store: StateStore):
        self.store = store
        store.add_tables(_SCHEMA)

    def recent(self, limit: int = KEPT_EVENTS) -> list[ReportEvent]:
        """The kept events, oldest recorded first."""
        with self.store.reading():
            rows = self.store.connection.execute(
                "SELECT page_id, title, kind, revid, timestamp, raw FROM report_events ORDER BY seq DESC LIMIT ?", (limit,)
            ).fetchall()
            return [ReportEvent(pid, title, EventKind(kind), revid, ts, raw) for pid, title, kind, revid, ts, raw in reversed(rows)]

    def record(self, events: Iterable[ReportEvent]) -> None:
        """Add this run's events and forget all but the newest `KEPT_EVENTS` (one transaction)."""
        rows = [(e.page_id, e.title, e.kind.value, e.revid, e.timestamp, e.raw) for e in events]
        if not rows:
            return
        with self.store.transaction() as db:
            db.executemany(
                "INSERT INTO report_events (page_id, title, kind, revid, timestamp, raw) VALUES (?, ?, ?, ?, ?, ?)", rows
            )
            db.execute(
                "DELETE FROM report_events WHERE seq NOT IN (SELECT seq FROM report_events ORDER BY seq DESC LIMIT ?)",
                (KEPT_EVENTS,),
            )
