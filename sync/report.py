"""What a sync run reports: its counts for the log line and for cron."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from store.model import WikiPage


@dataclass
class SyncReport:
    """What one sync run did, for the log line and for cron."""

    mode: str = "incremental"  # "full", "incremental" or "dump"
    requests: int = 0
    fetched: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    pages_total: int = 0
    problems: int = 0
    notes: list[str] = field(default_factory=list)

    def record(self, old: dict[int, int], upserts: Iterable[WikiPage], deletes: Iterable[int], pages: list[WikiPage]) -> None:
        """Count what a run wrote: `old` maps page ids to revids before it, `pages` is the store after."""
        upserts = list(upserts)
        self.created = sum(1 for p in upserts if p.page_id not in old)
        self.updated = sum(1 for p in upserts if p.page_id in old and old[p.page_id] != p.revid)
        self.deleted = len(set(deletes))
        self.pages_total = len(pages)
        self.problems = sum(1 for p in pages if p.problems)
        self.unchanged = self.pages_total - self.created - self.updated

    def summary(self) -> str:
        return (
            f"sync ({self.mode}): {self.pages_total} convention pages; {self.created} new, {self.updated} changed, "
            f"{self.deleted} removed, {self.unchanged} unchanged; {self.problems} with template problems; "
            f"{self.requests} API requests"
        )
