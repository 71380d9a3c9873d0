"""Sample deals for the mirror: each scenario's outcome seeded from (pageId, revid, scenario
index, seed), so a revision always gets the same deals; and the page's PBN and LIN files and
scripts."""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from deals.outcome import ScenarioDeals
from dsl.model import Scenario

from .faults import Fault, Step, caught

if TYPE_CHECKING:
    from deals.boards import BoardDeal
    from deals.pbn import PbnTag
    from deals.rules import CompiledScenario

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SampleJob:
    """Scenario `index` (from 1) of revision `revid` of page `page_id`: `count` deals with
    the build's `seed` (0: the page's own generator). What a worker process is given (a
    Scenario pickles), so no worker parses the page's DSL again."""

    scenario: Scenario
    page_id: int
    revid: int
    index: int
    count: int
    seed: int


def sample_job(job: SampleJob) -> ScenarioDeals:
    from deals.outcome import deal_outcome
    from deals.rng import make_rng, page_rng

    if job.seed == 0:
        rng = page_rng(job.page_id, job.revid, job.index)
    else:
        rng = make_rng(job.seed, job.page_id, job.revid, job.index)
    return deal_outcome(job.scenario, job.index, job.count, rng)


def sample_job_isolated(job: SampleJob) -> tuple[ScenarioDeals, Fault | None]:
    """`sample_job`, or when counting or dealing raised, the scenario without deals
    (`failed_outcome`) and the fault: one scenario never stops the build."""
    from deals.outcome import failed_outcome

    try:
        return sample_job(job), None
    except Exception as exc:  # noqa: BLE001 - any bug in one scenario's counting or dealing
        return failed_outcome(job.index, job.scenario.label, type(exc).__name__), caught(exc, job.page_id, job.index, Step.DEALING)


def sample_jobs(jobs: Sequence[SampleJob]) -> list[tuple[ScenarioDeals, Fault | None]]:
    """A worker's share (see `schedule`): its jobs in order, in one process."""
    return [sample_job_isolated(job) for job in jobs]


def schedule(jobs: Sequence[SampleJob], most: int) -> list[list[int]]:
    """The indices of `jobs` in shares for a pool of worker processes, costliest first.

    Jobs with the same rules (a wiki repeats its hand types, page after page), or the same
    up to a renaming of the suits (`deals.symmetry.canonical`: the same counts, and models
    renamed rather than counted), go into one share, at most `most` together: one process
    counts them once and reuses its models and counts, where shares spread in page order
    had two processes count the same scenario at once. Costliest first (`deals.sampler.counting_cost`), so that the last shares left, when
    workers fall idle, are short ones. Each job is seeded on its own, so the deals are the
    same however the jobs are spread."""
    from deals.rules import compile_scenario
    from deals.sampler import counting_cost
    from deals.symmetry import canonical

    same: dict[CompiledScenario | int, list[int]] = {}
    costs: dict[CompiledScenario | int, tuple[int, int, int]] = {}
    for i, job in enumerate(jobs):
        try:
            compiled: CompiledScenario | int = canonical(compile_scenario(job.scenario))
            cost = counting_cost(compiled)
        except Exception:  # noqa: BLE001 - its own job meets the fault again, and reports it
            compiled, cost = i, (0, 0, 0)
        same.setdefault(compiled, []).append(i)
        costs[compiled] = cost
    shares = [(costs[key], group[start : start + most]) for key, group in same.items() for start in range(0, len(group), max(1, most))]
    shares.sort(key=lambda share: share[0], reverse=True)  # stable: page order among equals
    return [indices for _, indices in shares]


def seed_key(page_id: int, revid: int, seed: int) -> str:
    """How the `[Generator]` tag names a page's seed: with `sample_job`'s key, and scenario
    n (which the writer adds) its deals can be drawn again."""
    return f"seed {seed}, page {page_id}, revision {revid}"


def pbn_file(
    title: str, outcomes: Iterable[ScenarioDeals], seed: str, extra_tags: Callable[[BoardDeal], Sequence[PbnTag]] | None = None
) -> bytes:
    """The page's boards as a PBN 2.1 export file (ASCII); each names its scenario.
    `extra_tags(board)` gives a board's further supplementary tags (double-dummy results)."""
    from deals.formats import write_all
    from deals.formats.pbn import Writer
    from store.version import VERSION  # here, not at the top: every worker imports this module

    from .status import GENERATOR

    out = io.BytesIO()
    write_all(Writer(out, title=title, tool=f"{GENERATOR} {VERSION}", seed=seed, extra_tags=extra_tags), outcomes)
    return out.getvalue()


def lin_file(outcomes: Iterable[ScenarioDeals]) -> bytes:
    """The page's boards (those of its PBN file) in BBO's LIN format, one line each."""
    from deals.formats import open_writer, write_all

    out = io.BytesIO()
    write_all(open_writer("lin", out), outcomes)
    return out.getvalue()


def script_files(
    page_id: int, title: str, scenarios: Sequence[Scenario], outcomes: Sequence[ScenarioDeals]
) -> list[tuple[PurePosixPath, Callable[[], bytes | None]]]:
    """Each scenario of a page as an exact dealer and Deal 3.1 script (`scripts/<pageId>/<n>`),
    its header with the scenario's probability: the path and how to make it, so that a build
    reusing the published file renders nothing (rendering a thousand pages' scripts takes
    seconds). A scenario a language cannot say exactly makes None (and a warning): never an
    approximate script."""
    from . import layout

    def make(target: str, chosen, index: int) -> bytes | None:
        from deals.errors import NotExpressible
        from deals.scripts.export import script
        from store.version import VERSION

        from .status import GENERATOR

        try:
            text = script(target, chosen, title=title, tool=f"{GENERATOR} {VERSION}", total=len(scenarios))
        except NotExpressible as exc:
            log.warning("page %s, scenario %s: no %s script: %s", page_id, index, target, exc)
            return None
        return text.encode("utf-8")

    from deals.scripts.header import ScriptScenario
    from deals.scripts.render import TARGETS

    files: list[tuple[PurePosixPath, Callable[[], bytes | None]]] = []
    for scenario, outcome in zip(scenarios, outcomes, strict=True):
        chosen = [ScriptScenario(outcome.index, scenario, outcome.probability)]
        for target, (_, suffix) in TARGETS.items():
            files.append((layout.script(page_id, outcome.index, suffix), functools.partial(make, target, chosen, outcome.index)))
    return files
