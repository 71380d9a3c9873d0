"""The mirror's JSON documents (SEMANTICS 2 and 4): documented fields first, in the
extension's order; fields of our own after them. Nothing here depends on the clock, so an
unchanged input gives byte-identical files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.outcome import ScenarioDeals, deals_with_boards
from bridgeshape_mirror.dsl.deck import ROLE_SEAT, SEAT_LETTERS, SEAT_ROLE
from bridgeshape_mirror.dsl.limits import LIMITS
from bridgeshape_mirror.dsl.model import Role
from bridgeshape_mirror.dsl.render import error_json

from .analysis import PageAnalysis, Status
from .status import GENERATOR, Freshness
from .layout import TitleProblem
from .wiki_links import WikiLinks


def dumps(document: Any) -> bytes:
    # No indent: with one, json falls back to its pure-Python encoder, and a build of a
    # thousand pages spends most of its rendering time there.
    return (json.dumps(document, ensure_ascii=False) + "\n").encode("utf-8")


def get_document(a: PageAnalysis) -> dict[str, Any]:
    """`shapeaction=get`. A stale page serves its last valid scenarios and says so."""
    extra: dict[str, Any] = {
        "title": a.page.title,
        "revid": a.served_revid,
        "timestamp": a.served_timestamp,
        "stale": a.status is Status.STALE,
    }
    if a.status is Status.STALE:
        extra["currentRevid"] = a.page.revid
        extra["brokenSince"] = {"revid": a.history.broken_revid, "timestamp": a.history.broken_since}
    return dsl.get_document(a.page.page_id, a.served_raw or "", a.scenarios, **extra)


def list_entry(a: PageAnalysis) -> dict[str, Any]:
    return {
        "pageId": a.page.page_id,
        "title": a.page.title,
        "scenarioCount": len(a.scenarios),
        "labels": [s.label for s in a.scenarios],
        "stale": a.status is Status.STALE,
    }


def listall_entry(a: PageAnalysis) -> dict[str, Any]:
    return {
        "pageId": a.page.page_id,
        "title": a.page.title,
        "hasConstraints": a.has_constraints,
        "status": a.status.value,
        "revid": a.page.revid,
        "problems": [p.value for p in a.page.problems],
    }


def list_document(pages: list[PageAnalysis]) -> dict[str, Any]:
    """`shapeaction=list`: pages with valid constraints, by title."""
    return {"pages": [list_entry(a) for a in sorted(pages, key=_by_title) if a.has_constraints]}


def listall_document(pages: list[PageAnalysis]) -> dict[str, Any]:
    return {"pages": [listall_entry(a) for a in sorted(pages, key=_by_title)]}


def deals_document(a: PageAnalysis, outcomes: list[ScenarioDeals]) -> dict[str, Any]:
    return {
        "pageId": a.page.page_id,
        "title": a.page.title,
        "revid": a.served_revid,
        "dealer": SEAT_LETTERS[ROLE_SEAT[Role.OPENER]],
        "seats": {SEAT_ROLE[seat].value: letter for seat, letter in enumerate(SEAT_LETTERS)},
        "scenarios": deals_with_boards(outcomes),
    }


def shown_raw(raw: str) -> str:
    """A broken page's raw text as the report shows it: no more than the DSL reads
    (`dsl.limits`; a longer one has one error, at the cut), then how much was left out."""
    if len(raw) <= LIMITS.characters:
        return raw
    return f"{raw[: LIMITS.characters]} [\u2026 {len(raw) - LIMITS.characters:,} more characters not shown]"


def report_document(
    pages: list[PageAnalysis],
    deals: dict[int, list[ScenarioDeals]],
    links: WikiLinks,
    rare: float,
    titles_refused: Mapping[int, tuple[TitleProblem, str | None]] | None = None,
) -> dict[str, Any]:
    """report/report.json: what editors must fix, and what is odd, page by page;
    `titles_refused`: the pages served by page id only, and why (layout.title_files)."""
    titles_refused = titles_refused or {}
    broken, problems, unsatisfiable, rare_rows, title_rows, failed = [], [], [], [], [], []
    for a in sorted(pages, key=_by_title):
        page = a.page
        where = {"pageId": page.page_id, "title": page.title, "url": links.view(page.title), "editUrl": links.edit(page.title)}
        if a.status in (Status.STALE, Status.BROKEN):
            assert a.current is not None
            broken.append(
                {
                    **where,
                    "revid": page.revid,
                    "timestamp": page.timestamp,
                    "brokenSince": {"revid": a.history.broken_revid, "timestamp": a.history.broken_since},
                    "servingRevid": a.served_revid,
                    "raw": shown_raw(a.current.raw),
                    "errors": [error_json(e) for e in a.current.errors],
                }
            )
        if page.page_id in titles_refused:
            problem, other = titles_refused[page.page_id]
            title_rows.append({**where, "problem": problem.value, "clashesWith": other})
        if page.problems:
            problems.append({**where, "revid": page.revid, "problems": [p.value for p in page.problems]})
        for outcome in deals.get(page.page_id, []):
            scenario = {**where, "scenario": outcome.index, "label": outcome.label}
            p = outcome.probability
            if outcome.failed:
                failed.append({**scenario, "reason": outcome.failed.english(), "error": outcome.error})
            elif outcome.unsatisfiable:
                unsatisfiable.append({**scenario, "reason": outcome.unsatisfiable.english()})
            elif outcome.too_rare:
                rare_rows.append({**scenario, "probability": p.high, "probabilityExact": False, "tooRare": outcome.too_rare.english()})
            elif p.value < rare:
                rare_rows.append({**scenario, "probability": p.value, "probabilityExact": p.exact})
    def count(status: Status) -> int:
        return sum(1 for a in pages if a.status is status)

    return {
        "summary": {
            "pages": len(pages),
            "ok": count(Status.OK),
            "stale": count(Status.STALE),
            "broken": count(Status.BROKEN),
            "noConstraints": count(Status.NO_CONSTRAINTS),
            "brokenDsl": len(broken),
            "templateProblems": len(problems),
            "unsatisfiableScenarios": len(unsatisfiable),
            "rareScenarios": len(rare_rows),
            "rareThreshold": rare,
            "titlesWithoutFile": len(title_rows),
            "failedScenarios": len(failed),
        },
        "broken": broken,
        "templateProblems": problems,
        "unsatisfiable": unsatisfiable,
        "rare": rare_rows,
        "titlesWithoutFile": title_rows,
        "failed": failed,
    }


def _by_title(a: PageAnalysis) -> tuple[str, int]:
    return (a.page.title, a.page.page_id)


def status_document(status: Freshness) -> dict[str, Any]:
    """api/status.json (schemas/status.json): the mirror's freshness."""
    refusal = status.refusal
    return {
        "generator": {"name": GENERATOR, "version": status.version},
        "source": {"api": status.source.api, "dump": status.source.dump},
        "lastSync": status.last_sync,
        "builtAt": status.built_at,
        "newestRevid": status.newest_revid,
        "newestRevisionTimestamp": status.newest_revision_timestamp,
        "recentChangeTimestamp": status.recent_change_timestamp,
        "pages": {
            "total": status.pages.total,
            "ok": status.pages.ok,
            "stale": status.pages.stale,
            "broken": status.pages.broken,
            "noConstraints": status.pages.no_constraints,
        },
        "refusal": None if refusal is None else {
            "at": refusal.at, "message": refusal.message, "removed": refusal.removed, "stored": refusal.stored,
        },
        "doubleDummy": None if status.dd is None else {"analysed": status.dd.analysed, "waiting": status.dd.waiting},
    }
