"""The files made from one convention page alone, all made here: its deals as JSON, PBN and LIN
(`DEAL_FILES`: one row per format), its scenarios as scripts, and its HTML page; what
`render_cache` keys by the page.

`make` makes those of a page that the published mirror cannot lend (`PageWork.reused`). A
build with many such pages makes them in its worker processes (`make_in_worker`, which
hands back the warnings said there), a few in its own process: the bytes are the same.
"""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from bridgeshape_mirror.deals.boards.board import page_boards
from bridgeshape_mirror.deals.double_dummy import Summary
from bridgeshape_mirror.deals.outcome import ScenarioDeals, failed_outcome
from bridgeshape_mirror.dsl.format import format_scenario
from bridgeshape_mirror.dsl.language import N_

from . import dd_run, layout
from .analysis import PageAnalysis, Status
from .describe import ROLE_NAMES, describe
from .diagrams import BoardView, board_view
from .documents import deals_document, dumps
from .export_links import ScenarioLinks, scenario_links
from .faults import Fault, Step, caught
from .html import render
from .wiki_links import WikiLinks

if TYPE_CHECKING:
    from bridgeshape_mirror.deals.boards.board import BoardDeal
    from bridgeshape_mirror.deals.boards.pbn import PbnTag
    from bridgeshape_mirror.dsl.model import Scenario

log = logging.getLogger(__name__)

STATUS_TEXT = {
    Status.OK.value: N_("ok"),
    Status.STALE.value: N_("stale: DSL broken, last valid revision served"),
    Status.BROKEN.value: N_("broken"),
    Status.NO_CONSTRAINTS.value: N_("no constraints"),
}


def _deals_json(a: PageAnalysis, outcomes: list[ScenarioDeals], seed: int, dd: dd_run.PageDD) -> bytes:
    return dumps(dd.add_to(deals_document(a, outcomes)))


def _pbn(a: PageAnalysis, outcomes: list[ScenarioDeals], seed: int, dd: dd_run.PageDD) -> bytes:
    assert a.served_revid is not None  # a page with deals has a served revision
    pbn_of = {(o.index, i): pbn for o in outcomes for i, pbn in enumerate(o.deals)}
    extra = dd.pbn_tags(pbn_of) if dd.deals else None
    return pbn_file(a.page.title, outcomes, seed_key(a.page.page_id, a.served_revid, seed), extra)


def _lin(a: PageAnalysis, outcomes: list[ScenarioDeals], seed: int, dd: dd_run.PageDD) -> bytes:
    return lin_file(outcomes)


@dataclass(frozen=True)
class DealFile:
    """A file made from a page's deals: its public path (`layout`), how it is made, and its
    label among the downloads the convention page offers (in `offered` order)."""

    path: Callable[[int], PurePosixPath]
    make: Callable[[PageAnalysis, list[ScenarioDeals], int, dd_run.PageDD], bytes]
    label: str
    offered: int


#: Every file made from a page's deals, in the order the build makes them and the manifest
#: lists them. A new format of the mirror is its writer and one row here (its media type is
#: a row of `serving.file_types`).
DEAL_FILES = (
    DealFile(layout.deals_json, _deals_json, N_("JSON"), offered=2),
    DealFile(layout.deals_pbn, _pbn, N_("PBN"), offered=1),
    DealFile(layout.deals_lin, _lin, N_("LIN"), offered=3),
)


@dataclass(frozen=True)
class Download:
    label: str
    path: str


def page_downloads(page_id: int) -> tuple[Download, ...]:
    """The downloads of a page whose deals are published."""
    return tuple(Download(f.label, str(f.path(page_id))) for f in sorted(DEAL_FILES, key=lambda f: f.offered))


def _convention_html(
    a: PageAnalysis, outcomes: list[ScenarioDeals], links: WikiLinks, lang: str,
    scripts: frozenset[PurePosixPath] = frozenset(), dd: dd_run.PageDD | None = None,
) -> bytes:
    view = _convention_view(a, outcomes, links, lang, scripts, dd)
    return render("convention.html.j2", lang, root="../", page=view, status_text=STATUS_TEXT[a.status.value])


def urls(a: PageAnalysis, dealt: bool) -> dict[str, str | None]:
    """The page's own files, as paths relative to the mirror's root (None: not published)."""
    pid = a.page.page_id
    return {
        "get_url": str(layout.get_by_pageid(pid)) if a.served_raw is not None else None,
        "deals_url": str(layout.deals_json(pid)) if dealt else None,
        "pbn_url": str(layout.deals_pbn(pid)) if dealt else None,
    }


@dataclass(frozen=True)
class ScenarioView:
    """A scenario as its convention page shows it: in words, as canonical DSL, its outcome,
    and its deals as hand diagrams."""

    words: list[str]
    dsl: str
    outcome: ScenarioDeals
    diagrams: tuple[BoardView, ...]
    #: Its boards in BBO's hand viewer and its files (the `exports.html.j2` partial).
    links: ScenarioLinks | None = None
    #: Per deal its double-dummy table and par (None: not analysed yet), and the scenario's summary line.
    dd: tuple[dd_run.DealDD | None, ...] = ()
    dd_summary: Summary | None = None


def _with_dd(view: ScenarioView, dd: dd_run.PageDD) -> ScenarioView:
    index = view.outcome.index
    return replace(view, dd=dd.of(index, len(view.outcome.deals)), dd_summary=dd.summaries.get(index))


def _convention_view(
    a: PageAnalysis, outcomes: list[ScenarioDeals], links: WikiLinks, lang: str,
    scripts: frozenset[PurePosixPath] = frozenset(), dd: dd_run.PageDD | None = None,
) -> dict[str, Any]:
    # Every served scenario has its outcome (_deals draws one for each, even for 0 deals).
    # Its deals are drawn as the page's boards, numbered as the PBN file numbers them.
    boards: dict[int, list[BoardView]] = {}
    for deal in page_boards((o.index, o.label, o.deals) for o in outcomes):
        boards.setdefault(deal.scenario, []).append(board_view(deal, ROLE_NAMES))
    exports = scenario_links(a.page.page_id, outcomes, scripts)
    scenarios = [
        ScenarioView(
            describe(scenario, lang), format_scenario(scenario), outcome, tuple(boards.get(outcome.index, ())),
            exports.get(outcome.index),
        )
        for scenario, outcome in zip(a.scenarios, outcomes, strict=True)
    ]
    if dd is not None and dd.deals:
        scenarios = [_with_dd(view, dd) for view in scenarios]
    return {
        "page_id": a.page.page_id,
        "title": a.page.title,
        "status": a.status.value,
        "wiki_url": links.view(a.page.title),
        **urls(a, bool(outcomes)),
        "served_revid": a.served_revid,
        "current_revid": a.page.revid,
        "scenarios": scenarios,
        "downloads": page_downloads(a.page.page_id) if outcomes else (),
    }



@dataclass(frozen=True)
class PageWork:
    """What one page's files are made from (it pickles: a worker process is given it)."""

    analysis: PageAnalysis
    #: Its scenarios' outcomes; None: nothing served, so no deal files.
    outcomes: tuple[ScenarioDeals, ...] | None
    dd: dd_run.PageDD | None
    links: WikiLinks
    lang: str
    seed: int
    #: Its files the published mirror has as they would be made now: not made again.
    reused: frozenset[PurePosixPath] = frozenset()


#: A page's files in the build's order: each path with its bytes, or None for one not made
#: (reused, or a script its language cannot say).
Made = list[tuple[PurePosixPath, bytes | None]]


def paths(work: PageWork) -> list[PurePosixPath]:
    """Every file `make` may make for the page, in its order."""
    fixed, scripts = _deal_files(work)
    return [*(path for path, _ in fixed + scripts), layout.convention_html(work.analysis.page.page_id)]


def make(work: PageWork) -> Made:
    made: Made = []
    fixed, scripts = _deal_files(work)
    for path, maker in fixed:
        made.append((path, None if path in work.reused else maker()))
    linked: list[PurePosixPath] = []  # the scripts there are, which the page links
    for path, maker in scripts:
        data = None if path in work.reused else maker()
        if path in work.reused or data is not None:
            linked.append(path)
        made.append((path, data))
    a, html = work.analysis, layout.convention_html(work.analysis.page.page_id)
    if html in work.reused:
        made.append((html, None))
    else:
        outcomes = list(work.outcomes or ())
        made.append((html, _convention_html(a, outcomes, work.links, work.lang, frozenset(linked), work.dd)))
    return made


Makers = list[tuple[PurePosixPath, Callable[[], bytes | None]]]


def _deal_files(work: PageWork) -> tuple[Makers, Makers]:
    """The page's files made from its deals (`DEAL_FILES`), each with how to make it, and its scripts."""
    if work.outcomes is None:
        return [], []
    a, pid, outcomes = work.analysis, work.analysis.page.page_id, list(work.outcomes)
    dd = work.dd or dd_run.PageDD({}, {})
    fixed: Makers = [(f.path(pid), functools.partial(f.make, a, outcomes, work.seed, dd)) for f in DEAL_FILES]
    return fixed, script_files(pid, a.page.title, a.scenarios, outcomes)


@dataclass(frozen=True)
class PageMade:
    """A page's files (`make`), or when making them raised, the fault and the files made again
    with every scenario failed (`outcomes`: what they show; `made` empty when even that
    failed, and the page's files are left out of the mirror)."""

    made: Made
    fault: Fault | None = None
    outcomes: tuple[ScenarioDeals, ...] | None = None


def make_isolated(work: PageWork) -> PageMade:
    """`make`, with one page's fault kept to that page: its scenarios are shown failed, without
    deals (a bug in a scenario's diagrams, tables or scripts is the likely cause)."""
    try:
        return PageMade(make(work))
    except Exception as exc:  # noqa: BLE001 - any bug in one page's files
        fault = caught(exc, work.analysis.page.page_id, None, Step.RENDERING)
    plain = replace(
        work,
        outcomes=None if work.outcomes is None else tuple(failed_outcome(o.index, o.label, fault.error) for o in work.outcomes),
        dd=None,
        reused=frozenset(),
    )
    try:
        return PageMade(make(plain), fault, plain.outcomes)
    except Exception:  # noqa: BLE001 - the same fault, already kept
        return PageMade([], fault, plain.outcomes)


def make_in_worker(work: PageWork) -> tuple[PageMade, list[tuple[str, int, str]]]:
    """`make_isolated` in a worker process: with what it said (a script not made is a
    warning), for the building process to say (`say_again`), as `make` in that process says it."""
    said: list[tuple[str, int, str]] = []
    handler = _Keeping(said)
    logger = logging.getLogger(__package__)
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False  # said once, by the building process
    try:
        return make_isolated(work), said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def say_again(said: list[tuple[str, int, str]]) -> None:
    for name, level, message in said:
        logging.getLogger(name).log(level, "%s", message)


class _Keeping(logging.Handler):
    def __init__(self, said: list[tuple[str, int, str]]):
        super().__init__()
        self.said = said

    def emit(self, record: logging.LogRecord) -> None:
        self.said.append((record.name, record.levelno, record.getMessage()))


def seed_key(page_id: int, revid: int, seed: int) -> str:
    """How the `[Generator]` tag names a page's seed: with `sample_job`'s key, and scenario
    n (which the writer adds) its deals can be drawn again."""
    return f"seed {seed}, page {page_id}, revision {revid}"


def pbn_file(
    title: str, outcomes: Iterable[ScenarioDeals], seed: str, extra_tags: Callable[[BoardDeal], Sequence[PbnTag]] | None = None
) -> bytes:
    """The page's boards as a PBN 2.1 export file (ASCII); each names its scenario.
    `extra_tags(board)` gives a board's further supplementary tags (double-dummy results)."""
    from bridgeshape_mirror.deals.formats import write_all
    from bridgeshape_mirror.deals.formats.pbn import Writer
    from bridgeshape_mirror.store.version import VERSION  # here, not at the top: every worker imports this module

    from .status import GENERATOR

    out = io.BytesIO()
    write_all(Writer(out, title=title, tool=f"{GENERATOR} {VERSION}", seed=seed, extra_tags=extra_tags), outcomes)
    return out.getvalue()


def lin_file(outcomes: Iterable[ScenarioDeals]) -> bytes:
    """The page's boards (those of its PBN file) in BBO's LIN format, one line each."""
    from bridgeshape_mirror.deals.formats import open_writer, write_all

    out = io.BytesIO()
    write_all(open_writer("lin", out), outcomes)
    return out.getvalue()


def script_files(page_id: int, title: str, scenarios: Sequence[Scenario], outcomes: Sequence[ScenarioDeals]) -> Makers:
    """Each scenario of a page as an exact dealer and Deal 3.1 script (`scripts/<pageId>/<n>`),
    its header with the scenario's probability: the path and how to make it, so that a build
    reusing the published file renders nothing (rendering a thousand pages' scripts takes
    seconds). A scenario a language cannot say exactly makes None (and a warning): never an
    approximate script."""
    from . import layout

    def make(target: str, chosen, index: int) -> bytes | None:
        from bridgeshape_mirror.deals.errors import NotExpressible
        from bridgeshape_mirror.deals.scripts.export import script
        from bridgeshape_mirror.store.version import VERSION

        from .status import GENERATOR

        try:
            text = script(target, chosen, title=title, tool=f"{GENERATOR} {VERSION}", total=len(scenarios))
        except NotExpressible as exc:
            log.warning("page %s, scenario %s: no %s script: %s", page_id, index, target, exc)
            return None
        return text.encode("utf-8")

    from bridgeshape_mirror.deals.scripts.header import ScriptScenario
    from bridgeshape_mirror.deals.scripts.render import TARGETS

    files: Makers = []
    for scenario, outcome in zip(scenarios, outcomes, strict=True):
        chosen = [ScriptScenario(outcome.index, scenario, outcome.probability)]
        for target, (_, suffix) in TARGETS.items():
            files.append((layout.script(page_id, outcome.index, suffix), functools.partial(make, target, chosen, outcome.index)))
    return files
