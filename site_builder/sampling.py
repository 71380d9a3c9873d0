"""Sample deals for the mirror: each scenario's outcome seeded from (pageId, revid, scenario
index, seed), so a revision always gets the same deals; and the page's PBN file."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from deals.outcome import ScenarioDeals
from dsl.model import Scenario
from store.version import VERSION


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


def seed_key(page_id: int, revid: int, seed: int) -> str:
    """How the `[Generator]` tag names a page's seed: with `sample_job`'s key, and scenario
    n (which the writer adds) its deals can be drawn again."""
    return f"seed {seed}, page {page_id}, revision {revid}"


def pbn_file(title: str, outcomes: Iterable[ScenarioDeals], seed: str) -> bytes:
    """The page's boards as a PBN 2.1 export file (ASCII); each names its scenario."""
    from deals.formats import open_writer, write_all

    from .status import GENERATOR

    out = io.BytesIO()
    write_all(open_writer("pbn", out, title=title, tool=f"{GENERATOR} {VERSION}", seed=seed), outcomes)
    return out.getvalue()


def lin_file(outcomes: Iterable[ScenarioDeals]) -> bytes:
    """The page's boards (those of its PBN file) in BBO's LIN format, one line each."""
    from deals.formats import open_writer, write_all

    out = io.BytesIO()
    write_all(open_writer("lin", out), outcomes)
    return out.getvalue()
