"""Decide, for every convention page, what the mirror serves: its current scenarios, the last
valid ones (when an edit broke the DSL), or none; and what the report says about it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bridgeshape_mirror import dsl
from bridgeshape_mirror.dsl import messages
from bridgeshape_mirror.dsl.errors import DslError
from bridgeshape_mirror.dsl.model import Scenario
from bridgeshape_mirror.store.history import PageHistory
from bridgeshape_mirror.store.model import WikiPage


class Status(StrEnum):
    #: The current revision's DSL is valid (a blank value is valid: no constraints).
    OK = "ok"
    #: The current revision's DSL is broken; an earlier valid revision is served.
    STALE = "stale"
    #: Broken, and no valid revision is known: nothing is served.
    BROKEN = "broken"
    #: The template has no (or a blank) shape_constraints value.
    NO_CONSTRAINTS = "no-constraints"


@dataclass(frozen=True)
class PageAnalysis:
    page: WikiPage
    status: Status
    #: The parse of the current revision's value (None when there is no value).
    current: dsl.ParseResult | None
    #: What get/list serve: the raw value, its revision and scenarios (None: not served).
    served_raw: str | None
    served_revid: int | None
    served_timestamp: str | None
    scenarios: tuple[Scenario, ...]
    history: PageHistory

    @property
    def has_constraints(self) -> bool:
        return bool(self.scenarios)


def analyse(page: WikiPage, before: PageHistory | None) -> PageAnalysis:
    before = before or PageHistory()
    if page.raw is None:
        return PageAnalysis(page, Status.NO_CONSTRAINTS, None, "", page.revid, page.timestamp, (), PageHistory())
    result = dsl.parse(page.raw)
    if result.valid:
        history = PageHistory(page.revid, page.timestamp, page.raw)
        status = Status.OK if result.scenarios else Status.NO_CONSTRAINTS
        return PageAnalysis(page, status, result, page.raw, page.revid, page.timestamp, result.scenarios, history)
    # Broken now. Remember when the breakage began (the first broken revision after the good one).
    if before.broken_revid is not None:
        broken_revid, broken_since = before.broken_revid, before.broken_since
    else:
        broken_revid, broken_since = page.revid, page.timestamp
    history = PageHistory(before.good_revid, before.good_timestamp, before.good_raw, broken_revid, broken_since)
    if before.good_raw is None:
        return PageAnalysis(page, Status.BROKEN, result, None, None, None, (), history)
    good = dsl.parse(before.good_raw)
    return PageAnalysis(
        page, Status.STALE, result, before.good_raw, before.good_revid, before.good_timestamp, good.scenarios, history
    )


def local_errors(raw: str, lang: str) -> tuple[DslError, ...]:
    """The errors of `raw` said in `lang`: parsed again, inside `messages.speaking` (the
    parse is deterministic, so they are report.json's errors in the same order)."""
    with messages.speaking(lang):
        return dsl.parse(raw).errors
