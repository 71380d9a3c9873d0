"""Render the state store into the mirror and publish it atomically.

Steps: analyse every page (valid, stale, broken, no constraints) against what the last
build remembered; draw deals for each served scenario (or reuse those drawn for the same
revision, count and seed); render every file in memory, but for the page files made from
exactly what the published ones were made from (`render_cache`: those are linked as they
are), with the double-dummy tables already stored; publish (a no-op when nothing changed),
so a new wiki's mirror is out in seconds; then spend the double-dummy budget on the deals
without a table and, when it made any, render and publish again (the final publish); then
remember this build's page history, deals and page-file keys. A failure before the final
publish leaves the history as it was (the next run does the same work again).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from bridgeshape_mirror.deals.outcome import ScenarioDeals
from bridgeshape_mirror.dsl import language
from bridgeshape_mirror.dsl.errors import DslError
from bridgeshape_mirror.serving.api_headers import ServeSettings
from bridgeshape_mirror.dsl.language import N_
from bridgeshape_mirror.dsl.model import Scenario
from bridgeshape_mirror.serving.api_format import docref
from bridgeshape_mirror.serving.nginx import compile_template, post_script, render_post_snippet, render_snippet
from bridgeshape_mirror.serving.nginx_errors import error_files as nginx_error_files
from bridgeshape_mirror.serving.siteinfo import siteinfo_document
from bridgeshape_mirror.serving.title_lookup import namespace_spellings
from bridgeshape_mirror.store.errors import StateError, SuspiciousChange
from bridgeshape_mirror.store.history import BuiltStatus, History
from bridgeshape_mirror.store.model import Problem, SiteInfo, now_timestamp
from bridgeshape_mirror.store.refusal import Refusal, is_mass_removal, read_refusal, record_refusal
from bridgeshape_mirror.store.report_events import ReportEvent, ReportEvents
from bridgeshape_mirror.store.state import StateStore

from . import dd_run, layout, page_files
from .analysis import PageAnalysis, Status, analyse, local_errors
from .describe import sentence
from .documents import (
    dumps,
    get_document,
    list_document,
    listall_document,
    report_document,
    status_document,
)
from .html import compile_templates, highlight, render
from .manifest import manifest_document
from .object_store import BucketPublishResult, BucketTarget, publish_folder, record_path
from .page_files import STATUS_TEXT, urls
from .publish import PublishError, PublishResult, Reused, current_version, publish, published_manifest, since
from .render_cache import RenderCache, page_key
from .sampling import SampleJob, sample_job_isolated, sample_jobs, schedule
from .status import DoubleDummyCounts, Freshness, content_key, freshness, settle
from .title_aliases import TitleTarget, alias_files
from .faults import Fault, Step, caught, log_faults
from .feed import changes as report_changes, render_feed
from .wiki_report import WikiReport, wiki_report
from .wiki_links import WikiLinks
from .workers import Workers

log = logging.getLogger(__name__)

#: Below this many scenarios to deal, starting worker processes costs more than it saves.
PARALLEL_FROM = 16
#: Below this many pages with files to make, so does rendering in them; and pages per task.
RENDER_PARALLEL_FROM = 64
RENDER_SHARE = 8

#: Texts the templates translate (`_()`), so they are marked here for extraction.
PROBLEM_TEXT = {
    Problem.NO_TEMPLATE.value: N_("listed as using the template, but the template is not in the page text"),
    Problem.NO_PARAMETER.value: N_("the template has no shape_constraints parameter"),
    Problem.EMPTY_VALUE.value: N_("shape_constraints is empty"),
    Problem.DUPLICATE_TEMPLATE.value: N_("the template appears more than once (the first is used)"),
}
TITLE_TEXT = {
    layout.TitleProblem.UNMAPPABLE.value: N_("the title has an empty or \".\" part, so no file path"),
    layout.TitleProblem.TOO_LONG.value: N_("the title is too long or too deep for a file path"),
    layout.TitleProblem.CLASH.value: N_("the title's file path would pass through the file of another page"),
}


class Progress(Protocol):
    """Where a build tells how far it is, for a person watching (the CLI draws bars on a
    terminal; the library never draws). `stage` begins a step of `total` units (ending the
    one before) and returns the function that counts units done."""

    def stage(self, description: str, unit: str, total: int | None = None) -> Callable[[int], None]: ...


class _Unwatched:
    """The progress of a build nobody watches."""

    def stage(self, description: str, unit: str, total: int | None = None) -> Callable[[int], None]:
        return _uncounted


def _uncounted(done: int) -> None:
    pass


#: The most deals per scenario a build publishes: every deal is a diagram with its table on
#: the convention page (about 6 KB), and a page carries up to `dsl.limits`' 64 scenarios;
#: more deals than this are for the `deals` command (docs/DECISIONS.md).
DEALS_LIMIT = 200


@dataclass(frozen=True)
class BuildSettings:
    """The defaults here are the only ones: the CLI's configuration and help read them."""

    out: Path
    deals: int = 10
    seed: int = 0
    #: Scenarios rarer than this are listed in the report.
    rare: float = 1e-6
    #: Publish even when most of the published convention pages would go (see `_check_removals`).
    allow_removals: bool = False
    #: Cache-Control max-age of the nginx snippet's answers, seconds.
    max_age: int = ServeSettings.max_age
    #: The language of the site and the report (a catalogue of `dsl.language`); None: the wiki's.
    lang: str | None = None
    #: Also publish to object storage: `out` is then the local folder the mirror is built in,
    #: and the bucket is made to hold the same files (`object_store`).
    bucket: BucketTarget | None = None
    #: Seconds of double-dummy analysis per run for deals without a table (0: none; `dd_run`).
    dd_budget: float = 120.0
    #: Deal every scenario as a levelled set by these measures (`deals.levels`; one, or two
    #: for their product) where they apply to it; none: uniform deals.
    level: tuple[str, ...] = ()
    #: The URL nginx reads the mirror from when it is in a bucket (`render_snippet`'s
    #: `origin`); None: the snippet reads the server's root folder.
    nginx_origin: str | None = None


@dataclass
class BuildReport:
    pages: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    deals_drawn: int = 0
    deals_reused: int = 0
    changed: bool = False
    written: int = 0
    linked: int = 0
    removed: int = 0
    #: Page files (convention pages, deals JSON, PBN) rendered, and those not rendered
    #: again because the published ones are what they would be (`render_cache`).
    files_rendered: int = 0
    files_reused: int = 0
    skipped_titles: list[str] = field(default_factory=list)
    #: The publish to object storage, when there is one.
    bucket: BucketPublishResult | None = None
    bucket_url: str = ""
    #: What api/status.json says, and the key its build time is remembered by.
    status: Freshness | None = None
    status_key: str = ""
    #: Double-dummy tables computed by this run, deals DDS failed on, published deals without one.
    dd_computed: int = 0
    dd_failed: int = 0
    dd_waiting: int = 0
    dd_seconds: float = 0.0
    #: Scenarios and pages this run could not deal or render (a bug: `faults`), published without.
    faults: list[Fault] = field(default_factory=list)
    #: The report as wikitext, for the wiki page it may be written to after the publish.
    wiki_report: WikiReport | None = None

    def summary(self) -> str:
        faults = self._faults()
        return self._summary() + self._dd_summary() + (f"; {faults}" if faults else "")

    def warning(self) -> str:
        """What cron must hear of although the run published ("" when nothing): its faults,
        and deals double dummy failed on."""
        dd = f"double dummy failed on {self.dd_failed} deals" if self.dd_failed else ""
        return "; ".join(part for part in (self._faults(), dd) if part)

    def _faults(self) -> str:
        scenarios = sum(1 for f in self.faults if f.scenario is not None)
        pages = sum(1 for f in self.faults if f.scenario is None)
        parts = [f"{n} {what}{'' if n == 1 else 's'} failed" for n, what in ((scenarios, "scenario"), (pages, "page")) if n]
        return f"{', '.join(parts)} (see the log; tried again next run)" if parts else ""

    def _dd_summary(self) -> str:
        if not (self.dd_computed or self.dd_failed or self.dd_waiting):
            return ""
        failed = f", {self.dd_failed} failed" if self.dd_failed else ""
        return f"; double dummy: {self.dd_computed} new tables{failed}, {self.dd_waiting} deals wait"

    def _summary(self) -> str:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(self.statuses.items()))
        if not self.changed:
            line = f"build: {self.pages} pages ({counts}); nothing changed, nothing written"
        else:
            line = (
                f"build: {self.pages} pages ({counts}); scenarios with new deals {self.deals_drawn}, reused {self.deals_reused}; "
                f"page files rendered {self.files_rendered}, reused {self.files_reused}; "
                f"published: {self.written} files written, {self.linked} unchanged, {self.removed} removed"
            )
        if self.bucket is not None:
            b = self.bucket
            line += (
                f"; {self.bucket_url}: {b.uploaded} objects uploaded ({b.bytes_sent:,} bytes), "
                f"{b.unchanged} unchanged, {b.deleted} deleted"
            )
        return line


def build(state_path: str | Path, settings: BuildSettings, progress: Progress | None = None) -> BuildReport:
    # A mistyped --state, or a store no sync ever wrote, would publish an empty mirror over
    # the good one: that is the state's fault (exit 5), and the mirror stays.
    if not Path(state_path).is_file():
        raise StateError(f"there is no state store at {state_path}: run sync first")
    report = BuildReport()
    progress = progress or _Unwatched()
    with StateStore(state_path) as store:
        pages = store.pages()
        site = store.site_info()
        if not pages and site is None:
            raise StateError(f"the state store {state_path} is empty (never synced): run sync first")
        site = site or SiteInfo()
        lang = site_language(settings, site)
        history = History(store)
        before = history.all()
        analyses = [analyse(page, before.get(page.page_id)) for page in pages]
        # The report's feed: the pages that broke or were fixed since the last build, shown
        # with those remembered, and remembered once, after the publish.
        report_events = ReportEvents(store)
        new_events = report_changes(before, analyses)
        feed_events = [*report_events.recent(), *new_events]
        if not settings.allow_removals:
            _check_removals(settings.out, analyses, state_path)
        before_run = published_manifest(settings.out)
        with Workers(_workers()) as workers:
            deals, used = _deals(analyses, history, settings, report, progress, workers, lambda: _compile_templates(lang))
            mirror = _Mirror(store, analyses, deals, site, lang, settings, report, history, workers, progress, feed_events)
            # The first publish: every deal, with the tables the store has; the others wait.
            dd = dd_run.stored(store, deals)
            cache = RenderCache(history.renders(), before_run)
            result = mirror.publish(dd, cache)
            dd = dd_run.fill(store, dd, settings.dd_budget, progress.stage("build: double-dummy tables", "deal"))
            if dd.computed:  # the final publish, with the tables just made
                cache = cache.next_pass(published_manifest(settings.out))
                result = mirror.publish(dd, cache)
        report.dd_computed, report.dd_failed, report.dd_waiting, report.dd_seconds = dd.computed, dd.failed, dd.waiting, dd.seconds
        # `result` is the final publish's (the first, when the budget made no table), counted
        # from the mirror before the run; what follows is done once, after it.
        result = since(before_run, result)
        built = BuiltStatus(report.status_key, report.status.built_at, report.status.last_sync) if report.status else None
        # Together: a run stopped between the two would lose this run's feed events (the
        # history saying the pages were seen) or, the other way round, record them twice.
        with store.transaction():
            history.save({a.page.page_id: a.history for a in analyses}, used, cache.now, built)
            report_events.record(new_events)
        dd_run.forget_unpublished(store, deals)
    if settings.bucket is not None:
        # After the local publish and the history: a failure here leaves both as they should
        # be, and the next run's comparison uploads what this one did not.
        out = Path(os.path.abspath(settings.out))
        version = current_version(out)
        if version is None:
            raise PublishError(f"cannot publish to {settings.bucket}: no mirror was built in {out}")
        report.bucket = publish_folder(
            version, published_manifest(out), settings.bucket, record_path(out),
            progress=progress.stage(f"build: objects uploaded to {settings.bucket}", "object"),
        )
        report.bucket_url = str(settings.bucket)
    report.files_reused = cache.reused
    report.files_rendered = len(cache.now) - cache.reused
    report.pages = len(analyses)
    report.statuses = {s.value: sum(1 for a in analyses if a.status is s) for s in Status}
    report.changed, report.written, report.linked, report.removed = result.changed, result.written, result.linked, result.removed
    log_faults(report.faults)
    return report


@dataclass
class _Mirror:
    """What rendering and publishing the mirror takes, but the tables: a build publishes
    once with the stored tables, and again when its budget made new ones."""

    store: StateStore
    analyses: list[PageAnalysis]
    deals: dict[int, list[ScenarioDeals]]
    site: SiteInfo
    lang: str
    settings: BuildSettings
    report: BuildReport
    history: History
    workers: Workers
    progress: Progress
    #: The report's feed entries: those remembered and this build's (recorded once, after the final publish).
    feed_events: list[ReportEvent]
    #: The faults of the build before rendering (dealing's): each render adds its own to them.
    dealt_faults: list[Fault] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.dealt_faults = list(self.report.faults)

    def publish(self, dd: dd_run.DDRun, cache: RenderCache) -> PublishResult:
        """Render every file with the tables of `dd` (the page files `cache` allows are
        linked) and publish them atomically."""
        report = self.report
        report.faults = list(self.dealt_faults)
        refusal = read_refusal(self.store.path)
        report.status = replace(freshness(self.store, self.analyses, refusal), dd=_dd_counts(dd))
        rendered = self.progress.stage("build: pages rendered", "page", len(self.analyses))
        files = render_files(
            self.analyses, self.deals, WikiLinks(self.site), self.settings, report, cache, self.history.last_status(),
            rendered, self.store.redirects(), self.lang, dd, self.workers, self.feed_events,
        )
        return publish(self.settings.out, files, self.progress.stage("build: files published", "file", len(files)))


def site_language(settings: BuildSettings, site: SiteInfo) -> str:
    """The language asked for (`UnknownLanguage` if it has no catalogue), else the wiki's,
    else English; a wiki language without a catalogue is said once, as a warning."""
    if not settings.lang and site.lang and language.known(site.lang) is None:
        log.warning("the wiki's language %.40r has no catalogue: the site is in %s (see --lang)", site.lang, language.SOURCE)
    return language.site_language(settings.lang, site.lang)


def _dd_counts(dd: dd_run.DDRun) -> DoubleDummyCounts:
    return DoubleDummyCounts(analysed=len(dd.tables), waiting=dd.waiting)


def _check_removals(out: Path, analyses: list[PageAnalysis], state_path: str | Path) -> None:
    """The sync's guard, for the mirror: a build that would take most of the published
    convention pages away (another state store given to the same --out, a store a refused
    sync never reached) is refused before anything is rendered, and recorded as the sync's
    refusals are. The published mirror's listall names every convention page it has."""
    published = _published_page_ids(out)
    gone = published - {a.page.page_id for a in analyses}
    if not is_mass_removal(len(gone), len(published)):
        return
    message = (
        f"refused: {len(gone)} of the {len(published)} convention pages of the mirror in {out} would be removed "
        f"by this build of {state_path}, which has {len(analyses)} (another state store, or one that was never "
        f"fully synced?); nothing was published"
    )
    record_refusal(state_path, Refusal(now_timestamp(), message, len(gone), len(published)))
    raise SuspiciousChange(message, removed=len(gone), stored=len(published))


def _published_page_ids(out: Path) -> set[int]:
    """The page ids of the published mirror's listall; none when there is no readable one
    (a first build, or a mirror this tool did not publish: nothing to protect)."""
    version = current_version(Path(os.path.abspath(out)))
    if version is None:
        return set()
    try:
        pages = json.loads((version / layout.LISTALL).read_text(encoding="utf-8"))["pages"]
        return {int(page["pageId"]) for page in pages}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def _deals(
    analyses: list[PageAnalysis], history: History, settings: BuildSettings, report: BuildReport, progress: Progress,
    workers: Workers | None = None,
    while_waiting: Callable[[], None] = lambda: None,
) -> tuple[dict[int, list[ScenarioDeals]], dict[tuple[int, int, int, int, int], str]]:
    """Every served scenario's outcome, by page: from the state file when this revision,
    count and seed were dealt before, else drawn now (in worker processes when there are
    many, `while_waiting` run here meanwhile); and each one's JSON text, for the state file."""
    outcomes: dict[tuple[int, int, int, int, int], ScenarioDeals] = {}
    used: dict[tuple[int, int, int, int, int], str] = {}
    jobs: dict[tuple[int, int, int, int, int], SampleJob] = {}
    for a in analyses:
        if not a.scenarios or a.served_revid is None or a.served_raw is None:
            continue
        for index, scenario in enumerate(a.scenarios, start=1):
            key = (a.page.page_id, a.served_revid, index, settings.deals, settings.seed)
            cached = history.cached_deals(*key)
            outcome = None
            if cached is not None:
                with history.store.reading():  # damaged bytes there: the state's fault, exit 5
                    outcome = ScenarioDeals.from_json(json.loads(cached))
            if outcome is None or _levelled_otherwise(scenario, outcome, settings.level) or _now_counted_exactly(scenario, outcome, report, a.page.page_id, index):
                jobs[key] = SampleJob(scenario, a.page.page_id, a.served_revid, index, settings.deals, settings.seed, settings.level)
            else:
                outcomes[key] = outcome
                used[key] = cached
    report.deals_reused = len(used)
    report.deals_drawn = len(jobs)
    dealt = progress.stage("build: scenarios dealt", "scenario", len(jobs))
    for key, (outcome, fault) in zip(jobs, _run_jobs(list(jobs.values()), dealt, workers, while_waiting)):
        outcomes[key] = outcome
        if fault is None:
            used[key] = json.dumps(outcome.to_json(), ensure_ascii=False)
        else:  # not remembered: the next run deals it again
            report.faults.append(fault)
    deals: dict[int, list[ScenarioDeals]] = {}
    for key in sorted(outcomes):
        deals.setdefault(key[0], []).append(outcomes[key])
    return deals, used


def _levelled_otherwise(scenario: Scenario, kept: ScenarioDeals, level: tuple[str, ...]) -> bool:
    """Were the kept deals levelled otherwise than the build's `level` asks (or levelled when
    it asks for uniform deals, or the reverse)? Then the scenario is dealt again: changing the
    setting re-deals, leaving it alone re-deals nothing."""
    from bridgeshape_mirror.deals.levels import applied

    if kept.no_deals_reason is not None:  # none to level, whatever the setting
        return False
    wanted = applied(scenario, level) if level else None
    had = kept.levels.by if kept.levels is not None else None
    return had != (wanted.by if wanted is not None else None)


def _now_counted_exactly(scenario: Scenario, kept: ScenarioDeals, report: BuildReport, page_id: int, index: int) -> bool:
    """Is a kept estimate one this program counts exactly? Then the scenario is dealt again,
    so that an upgrade makes a page's probabilities exact without waiting for an edit. The
    count is remembered on disk (`deals.counting.cache`): a scenario still past the budgets costs a
    lookup per build, not a count. A count that fails keeps the estimate (a fault)."""
    if not kept.deals or kept.probability.exact:
        return False
    from bridgeshape_mirror.deals.rules.compiled import compile_scenario
    from bridgeshape_mirror.deals.counting.scenario import exact_cross_count

    try:
        return exact_cross_count(compile_scenario(scenario)) is not None
    except Exception as exc:  # noqa: BLE001 - a bug in one count keeps what was good
        report.faults.append(caught(exc, page_id, index, Step.DEALING))
        return False


def _workers() -> int:
    return min(os.cpu_count() or 1, 8)


def _run_jobs(
    jobs: list[SampleJob],
    dealt: Callable[[int], None] = _uncounted,
    workers: Workers | None = None,
    while_waiting: Callable[[], None] = lambda: None,
) -> list[tuple[ScenarioDeals, Fault | None]]:
    # Each job is seeded on its own, so the result is the same however the jobs are spread.
    if workers is None or workers.workers < 2 or len(jobs) < PARALLEL_FROM:
        return [_counted(sample_job_isolated(job), dealt) for job in jobs]
    results: dict[int, tuple[ScenarioDeals, Fault | None]] = {}
    shares = schedule(jobs, most=max(1, len(jobs) // (workers.workers * 8)))
    dealing = workers.map(sample_jobs, [[jobs[i] for i in share] for share in shares])  # every share sent now
    while_waiting()
    for share, outcomes in zip(shares, dealing):
        for i, outcome in zip(share, outcomes, strict=True):
            results[i] = _counted(outcome, dealt)
    return [results[i] for i in range(len(jobs))]


def _compile_templates(lang: str) -> None:
    """What rendering will compile anyway (0.3 s of a cold build), done while the workers
    deal: this process only waits for them then."""
    compile_templates(lang)
    compile_template()


def _make_page_files(works: list[tuple[page_files.PageWork, list[PurePosixPath]]], workers: Workers | None) -> list[page_files.PageMade]:
    """Each page's files, in the order of `works` (each with all its paths): in the worker
    processes when they are running (they dealt) and many pages have files to make, else
    here. Never in workers started for this alone: on this 2-core machine, busy with other
    work, a pool started to render 1,000 pages took 19-25 s of CPU against 13-14 s here, and
    no less time."""
    todo = [i for i, (work, paths) in enumerate(works) if not work.reused.issuperset(paths)]
    made: dict[int, page_files.PageMade] = {}
    if workers is None or not workers.started or workers.workers < 2 or len(todo) < RENDER_PARALLEL_FROM:
        made = {i: page_files.make_isolated(works[i][0]) for i in todo}
    else:
        # A few pages a task: a page's files are milliseconds of work, a task's round trip not much less.
        tasks = [todo[start : start + RENDER_SHARE] for start in range(0, len(todo), RENDER_SHARE)]
        for task, results in zip(tasks, workers.map(_make_in_worker, [[works[i][0] for i in task] for task in tasks])):
            for i, (page, said) in zip(task, results, strict=True):
                page_files.say_again(said)
                made[i] = page
    # A page whose files are all reused makes nothing: each path, no bytes.
    return [made[i] if i in made else page_files.PageMade([(path, None) for path in paths]) for i, (_, paths) in enumerate(works)]


def _make_in_worker(works: list[page_files.PageWork]) -> list[tuple[page_files.PageMade, list[tuple[str, int, str]]]]:
    return [page_files.make_in_worker(work) for work in works]


def _counted(outcome: tuple[ScenarioDeals, Fault | None], dealt: Callable[[int], None]) -> tuple[ScenarioDeals, Fault | None]:
    dealt(1)
    return outcome


def _schemas() -> dict[PurePosixPath, bytes]:
    folder = resources.files(__package__).joinpath("schemas")
    return {
        layout.SCHEMA_DIR / entry.name: entry.read_bytes()
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    }


def render_files(
    analyses: list[PageAnalysis],
    deals: dict[int, list[ScenarioDeals]],
    links: WikiLinks,
    settings: BuildSettings,
    report: BuildReport,
    cache: RenderCache,
    remembered_status: BuiltStatus | None = None,
    rendered: Callable[[int], None] = _uncounted,
    redirects: dict[int, tuple[tuple[int, str], ...]] | None = None,
    lang: str = language.SOURCE,
    dd: dd_run.DDRun | None = None,
    workers: Workers | None = None,
    feed_events: list[ReportEvent] | None = None,
) -> dict[PurePosixPath, bytes | Reused]:
    """Every file of the mirror. `report.status`, when set, is settled here (its build time)
    and published as api/status.json, and the front page and the report show it."""
    files: dict[PurePosixPath, bytes | Reused] = {}
    files[layout.LIST] = dumps(list_document(analyses))
    files[layout.LISTALL] = dumps(listall_document(analyses))
    served = [a for a in analyses if a.served_raw is not None]  # never valid: only listall and the report know it
    titles = layout.title_files({a.page.page_id: a.page.title for a in served})
    targets: dict[PurePosixPath, TitleTarget] = {}
    for a in served:
        document = dumps(get_document(a))
        files[layout.get_by_pageid(a.page.page_id)] = document
        path = titles.paths.get(a.page.page_id)
        if path is not None:
            files[path] = document
            targets[path] = TitleTarget(a.page.title, a.page.namespace, document)
        else:
            problem, other = titles.refused[a.page.page_id]
            if a.page.title not in report.skipped_titles:  # said once a build, whichever publish
                log.warning("the title %.200r has no file (%s%.200s); it is served by page id only", a.page.title, problem.value, f" with {other!r}" if other else "")
                report.skipped_titles.append(a.page.title)
    redirected = [
        (title, namespace, titles.paths[page_id])
        for page_id, pairs in (redirects or {}).items()
        if page_id in titles.paths
        for namespace, title in pairs
    ]
    files.update(alias_files(targets, links.site, redirected))
    files[layout.SITEINFO] = dumps(siteinfo_document(links.site))
    dd = dd or dd_run.DDRun()
    deals = dict(deals)  # a page that fails to render is shown without its deals (the caller's stay)
    page_dd = {}
    for pid, outcomes in deals.items():
        try:
            page_dd[pid] = dd.page(outcomes)
        except Exception as exc:  # noqa: BLE001 - one page's tables or par; the page goes without
            report.faults.append(caught(exc, pid, None, Step.DOUBLE_DUMMY))
    keys = {
        a.page.page_id: page_key(
            a, deals.get(a.page.page_id), links.view(a.page.title), lang, _dd_key(page_dd.get(a.page.page_id))
        )
        for a in analyses
    }

    works = []
    for a in analyses:
        outcomes = deals.get(a.page.page_id)
        work = page_files.PageWork(a, None if outcomes is None else tuple(outcomes), page_dd.get(a.page.page_id), links, lang, settings.seed)
        key, paths = keys[a.page.page_id], page_files.paths(work)
        reused = {path: digest for path in paths if (digest := cache.reusable(path, key)) is not None}
        works.append((replace(work, reused=frozenset(reused)), reused, paths))
    made = _make_page_files([(work, paths) for work, _, paths in works], workers)
    # The page files go in as the build always put them: every page's deal files and
    # scripts, report.json, then every page's HTML.
    html: list[tuple[PurePosixPath, bytes | Reused]] = []
    for (work, reused, _), page in zip(works, made, strict=True):
        key = keys[work.analysis.page.page_id]
        if page.fault is not None:
            report.faults.append(page.fault)
            key, reused = "", {}  # files made without the deals: never what a later run may reuse
            if page.outcomes is not None:
                deals[work.analysis.page.page_id] = list(page.outcomes)
        for path, data in page.made:
            if path in reused:
                entry: bytes | Reused = Reused(reused[path])
            elif data is not None:
                entry = cache.rendered(path, key, data)
            else:
                continue  # a scenario a script language cannot say: no file
            if path == layout.convention_html(work.analysis.page.page_id):
                html.append((path, entry))
            else:
                files[path] = entry
    report_doc = report_document(analyses, deals, links, settings.rare, titles.refused)
    files[layout.REPORT_JSON] = dumps(report_doc)
    files[layout.REPORT_FEED] = render_feed(feed_events or [], links, lang)
    report.wiki_report = wiki_report(analyses, report_doc, links.site, TITLE_TEXT)
    for path, entry in html:
        files[path] = entry
        rendered(1)
    # The nginx drop-in for the extension's api.php URLs; it names no path of this machine
    # (the mirror is the server's root unless its one variable is changed).
    namespaces = namespace_spellings(links.site, {t.namespace for t in targets.values()})
    characters = {c for path in files if path.is_relative_to(layout.TITLE_DIR) for c in str(path)}
    reference = docref(links.site)
    files[layout.NGINX_SNIPPET] = render_snippet(
        max_age=settings.max_age, namespaces=namespaces, title_characters=characters, origin=settings.nginx_origin, docref=reference
    ).encode("utf-8")
    # POST, for an nginx with njs: a snippet of its own, so that the main one needs no module.
    files[layout.NGINX_POST_SNIPPET] = render_post_snippet(max_age=settings.max_age).encode("utf-8")
    files[layout.NGINX_POST_SCRIPT] = post_script()
    # Its error answers, as files: nginx gives a file ETag, Last-Modified and 304.
    files.update((layout.NGINX_ERRORS / name, body) for name, body in nginx_error_files(reference).items())
    templates = resources.files(__package__).joinpath("templates")
    for name in ("style.css", "updated.js", "filter.js"):
        files[PurePosixPath(name)] = templates.joinpath(name).read_bytes()
    files.update(_schemas())
    # Last: the status describes every file above, and the two human pages show it.
    status = _settle_status(report, files, remembered_status)
    # After the status: the manifest carries its build time and the digests of the files above.
    files[layout.MANIFEST] = dumps(manifest_document(analyses, deals, titles.paths, files, status.built_at if status else None))
    highlights = {row["pageId"]: highlight(row["raw"], row["errors"]) for row in report_doc["broken"]}
    files[layout.REPORT_HTML] = render(
        "report.html.j2", lang, root="../", report=report_doc, highlights=highlights, problem_text=PROBLEM_TEXT, title_text=TITLE_TEXT,
        status=status, broken_extra=_broken_views(analyses, report_doc["broken"], links, lang),
        no_deals={(pid, o.index): o.no_deals_reason for pid, outs in deals.items() for o in outs if o.no_deals_reason},
    )
    files[layout.INDEX_HTML] = render(
        "index.html.j2", lang, root="", pages=_index_rows(analyses, deals), report=report_doc, status_text=STATUS_TEXT, status=status
    )
    return files


@dataclass(frozen=True)
class BrokenView:
    """What the report adds to a broken page's row of report.json, in the site's language:
    the diff of the edit that broke it, the errors' messages, and what the last valid
    revision (when there is one) says in words."""

    diff_url: str | None
    errors: tuple[DslError, ...]
    #: (label, the scenario in words) per scenario of the revision served.
    last_valid: tuple[tuple[str, str], ...]


def _broken_views(
    analyses: list[PageAnalysis], broken: list[dict[str, Any]], links: WikiLinks, lang: str
) -> dict[int, BrokenView]:
    by_id = {a.page.page_id: a for a in analyses}
    views = {}
    for row in broken:
        a = by_id[row["pageId"]]
        assert a.current is not None  # a broken row's page has a value
        views[row["pageId"]] = BrokenView(
            links.diff(a.page.title, row["brokenSince"]["revid"]),
            local_errors(a.current.raw, lang),  # the whole value: the row's is cut (`shown_raw`)
            tuple((s.label, sentence(s, lang)) for s in a.scenarios),
        )
    return views


def _settle_status(
    report: BuildReport, files: dict[PurePosixPath, bytes | Reused], remembered: BuiltStatus | None
) -> Freshness | None:
    """Give `report.status` its build time (see `status`) and add api/status.json to `files`."""
    if report.status is None:
        return None
    report.status_key = content_key(report.status, files, left_out=(layout.NGINX_SNIPPET,))
    report.status = settle(report.status, report.status_key, remembered)
    files[layout.STATUS] = dumps(status_document(report.status))
    return report.status


def _dd_key(page: dd_run.PageDD | None) -> list[Any] | None:
    # No tables: the key the page had before double dummy, so its files are not rendered again.
    return page.key() or None if page is not None else None


def _index_rows(analyses: list[PageAnalysis], deals: dict[int, list[ScenarioDeals]]) -> list[dict[str, Any]]:
    rows = []
    for a in sorted(analyses, key=lambda a: (a.page.title, a.page.page_id)):
        pid = a.page.page_id
        rows.append(
            {
                "title": a.page.title,
                "status": a.status.value,
                "html_url": str(layout.convention_html(pid)),
                **urls(a, pid in deals),
                "scenarios": deals.get(pid, []),
            }
        )
    return rows
