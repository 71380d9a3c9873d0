"""Sample deals for the mirror: each scenario's outcome seeded from (pageId, revid, scenario
index, seed), so a revision always gets the same deals; and the page's PBN file."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deals.outcome import ScenarioDeals
from dsl.model import Scenario

if TYPE_CHECKING:
    from deals.boards import Board


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


def pbn_file(
    title: str, outcomes: Iterable[ScenarioDeals], extra_tags: Callable[[Board, str], Iterable[str]] | None = None
) -> bytes:
    """The page's deals as a PBN 2.1 export file, UTF-8; each scenario's label in a comment,
    and `extra_tags` per game (its double-dummy results)."""
    from deals.formats import open_writer, write_all

    out = io.BytesIO()
    options = {"extra_tags": extra_tags} if extra_tags is not None else {}
    write_all(open_writer("pbn", out, event=title, **options), outcomes)
    return out.getvalue()
