"""Sample deals for the mirror: one JSON-ready document per scenario, seeded from
(pageId, revid, scenario index) so a revision always gets the same deals."""

from __future__ import annotations

import io
from typing import Any

from dsl.model import Scenario


def sample_scenario(scenario: Scenario, page_id: int, revid: int, index: int, count: int, seed: int) -> dict[str, Any]:
    """`deals.outcome.deal_outcome` for scenario `index` (from 1) of a page revision, as JSON."""
    from deals.outcome import deal_outcome
    from deals.rng import make_rng, page_rng

    rng = page_rng(page_id, revid, index) if seed == 0 else make_rng(seed, page_id, revid, index)
    return deal_outcome(scenario, index, count, rng).to_json()


def sample_job(job: tuple[str, int, int, int, int, int]) -> str:
    """`sample_scenario` for (raw DSL, pageId, revid, index, count, seed), as JSON text: what a
    worker process runs (plain values in and out, so nothing unpicklable crosses over)."""
    import json

    import dsl

    raw, page_id, revid, index, count, seed = job
    scenario = dsl.parse_scenarios(raw)[index - 1]
    return json.dumps(sample_scenario(scenario, page_id, revid, index, count, seed), ensure_ascii=False)


def pbn_file(title: str, scenarios: list[dict[str, Any]]) -> str:
    """The page's deals as a PBN 2.1 export file; each scenario's label in a comment."""
    from deals.formats import open_writer, write_all
    from deals.outcome import ScenarioDeals

    out = io.BytesIO()
    write_all(open_writer("pbn", out, event=title), [ScenarioDeals.from_json(doc) for doc in scenarios])
    return out.getvalue().decode("utf-8")
