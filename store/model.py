"""What the state store holds, as plain typed values: convention pages, the template
problems found on them, what title normalisation needs to know about the wiki, and the one
format of the times they carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum


#: Times as MediaWiki writes them, and as the store and the mirror keep them (UTC, seconds).
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def format_timestamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def parse_timestamp(text: str) -> datetime:
    """The time `format_timestamp` wrote; ValueError for any other text."""
    return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def now_timestamp() -> str:
    return format_timestamp(datetime.now(UTC))

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
    #: The `general` block of the wiki's siteinfo as synced, JSON text ("" before a sync
    #: that kept it): the mirror answers `meta=siteinfo` with it.
    general: str = ""
    #: The wiki's content language ("it", "en", "pt-br"), as siteinfo or the export gives it.
    lang: str = ""


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
