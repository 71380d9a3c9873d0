"""What sync hands to the rest of the program: convention pages as plain, typed values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Problem(StrEnum):
    """Why a page's shape_constraints could not be read (not DSL errors: those are dsl's)."""

    #: The page is listed as transcluding the template, but its text has no such template
    #: (transcluded through another template, or the links table lags behind).
    NO_TEMPLATE = "no-template"
    #: The template is there without a shape_constraints parameter.
    NO_PARAMETER = "no-parameter"
    #: The parameter is there but blank once comments are removed.
    EMPTY_VALUE = "empty-value"
    #: The template appears more than once; the first instance is used.
    DUPLICATE_TEMPLATE = "duplicate-template"


@dataclass(frozen=True)
class SiteInfo:
    """What title normalisation needs to know about a wiki (from meta=siteinfo or a dump)."""

    #: Namespace id -> canonical local name ("" for the main namespace).
    namespaces: dict[int, str] = field(default_factory=lambda: {0: "", 10: "Template", 14: "Category"})
    #: Lower-cased name or alias -> namespace id (canonical English names included).
    namespace_lookup: dict[str, int] = field(default_factory=dict)
    #: Namespaces whose titles keep a lower-case first letter ($wgCapitalLinks off).
    case_sensitive: frozenset[int] = frozenset()
    #: URL of the wiki's article path, "$1" standing for the title (for links in the report).
    article_path: str = ""
    server: str = ""
    script_path: str = ""
    sitename: str = ""


@dataclass(frozen=True)
class WikiPage:
    """The newest revision of one convention page, with its shape_constraints value.

    `raw` is the parameter's value with wiki comments removed and trimmed, or None when it
    could not be read (see `problems`). An empty string never appears: that is
    `Problem.EMPTY_VALUE` with raw None.
    """

    page_id: int
    title: str
    namespace: int
    revid: int
    timestamp: str
    raw: str | None
    problems: tuple[Problem, ...] = ()

    @property
    def has_constraints(self) -> bool:
        return self.raw is not None


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
