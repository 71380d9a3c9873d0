"""What a sync run reports: its counts for the log line and for cron."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bridgeshape_mirror.store.model import WikiPage


@dataclass(frozen=True)
class SyncReport:
    """What one sync run did, for the log line and for cron."""

    mode: str  # "full", "incremental" or "dump"
    requests: int
    fetched: int
    created: int
    updated: int
    deleted: int
    unchanged: int
    pages_total: int
    problems: int
    #: Why pages read in were not synced (`Reading.refused`).
    refused: tuple[str, ...] = ()

    @classmethod
    def counted(
        cls,
        mode: str,
        requests: int,
        fetched: int,
        old: dict[int, int],
        upserts: Sequence[WikiPage],
        deletes: Iterable[int],
        pages: list[WikiPage],
        refused: tuple[str, ...] = (),
    ) -> SyncReport:
        """Count what a run wrote: `old` maps page ids to revids before it, `pages` is the store after."""
        created = sum(1 for p in upserts if p.page_id not in old)
        updated = sum(1 for p in upserts if p.page_id in old and old[p.page_id] != p.revid)
        return cls(
            mode=mode,
            requests=requests,
            fetched=fetched,
            created=created,
            updated=updated,
            deleted=len(set(deletes)),
            unchanged=len(pages) - created - updated,
            pages_total=len(pages),
            problems=sum(1 for p in pages if p.problems),
            refused=refused,
        )

    def summary(self) -> str:
        refused = ""
        if self.refused:
            more = f" (and {len(self.refused) - 1} more)" if len(self.refused) > 1 else ""
            refused = f"; {len(self.refused)} refused: {self.refused[0]}{more}"
        return (
            f"sync ({self.mode}): {self.pages_total} convention pages; {self.created} new, {self.updated} changed, "
            f"{self.deleted} removed, {self.unchanged} unchanged; {self.problems} with template problems; "
            f"{self.requests} API requests{refused}"
        )

    def warning(self) -> str:
        """What cron must hear of although the run went through: the pages refused."""
        return f"{len(self.refused)} pages refused (see the log)" if self.refused else ""
