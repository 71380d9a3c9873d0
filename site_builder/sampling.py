"""Sample deals for the mirror: each scenario's outcome seeded from (pageId, revid, scenario
index, seed), so a revision always gets the same deals; in worker processes, costliest first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bridgeshape_mirror.deals.outcome import ScenarioDeals
from bridgeshape_mirror.dsl.model import Scenario

from .faults import Fault, Step, caught

if TYPE_CHECKING:
    from bridgeshape_mirror.deals.rules.compiled import CompiledScenario



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
    #: the measures of a levelled set (`[build] level`); none, or where they do not apply to
    #: the scenario: its deals uniform
    level: tuple[str, ...] = ()


def sample_job(job: SampleJob) -> ScenarioDeals:
    from bridgeshape_mirror.deals.drawing.rng import make_rng, page_rng
    from bridgeshape_mirror.deals.levels import applied, levelled_outcome
    from bridgeshape_mirror.deals.outcome import deal_outcome

    def rng(*more: int):
        if job.seed == 0:
            return page_rng(job.page_id, job.revid, job.index, *more)
        return make_rng(job.seed, job.page_id, job.revid, job.index, *more)

    by = applied(job.scenario, job.level) if job.level else None
    if by is None:
        return deal_outcome(job.scenario, job.index, job.count, rng())
    return levelled_outcome(job.scenario, job.index, job.count, by, None, rng)


def sample_job_isolated(job: SampleJob) -> tuple[ScenarioDeals, Fault | None]:
    """`sample_job`, or when counting or dealing raised, the scenario without deals
    (`failed_outcome`) and the fault: one scenario never stops the build."""
    from bridgeshape_mirror.deals.outcome import failed_outcome

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
    up to a renaming of the suits (`deals.counting.symmetry.canonical`: the same counts, and models
    renamed rather than counted), go into one share, at most `most` together: one process
    counts them once and reuses its models and counts, where shares spread in page order
    had two processes count the same scenario at once. Costliest first (`deals.counting.scenario.counting_cost`), so that the last shares left, when
    workers fall idle, are short ones. Each job is seeded on its own, so the deals are the
    same however the jobs are spread."""
    from bridgeshape_mirror.deals.rules.compiled import compile_scenario
    from bridgeshape_mirror.deals.counting.scenario import counting_cost
    from bridgeshape_mirror.deals.counting.symmetry import canonical

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
