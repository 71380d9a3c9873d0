"""Sample deals for the mirror: one JSON-ready document per scenario, seeded from
(pageId, revid, scenario index) so a revision always gets the same deals."""

from __future__ import annotations

import io
from typing import Any

from dsl.model import Scenario


def sample_scenario(scenario: Scenario, page_id: int, revid: int, index: int, count: int, seed: int) -> dict[str, Any]:
    """{"index", "label", "deals": [{"pbn"}], "probability", "probability_exact", ...} for one scenario
    (`index` from 1). A scenario proved empty gets no deals and `"unsatisfiable": <why>`; one
    where no deal turned up in the sampler's budget gets `"too_rare": <why>` and a bound."""
    from deals.errors import TooRare, Unsatisfiable
    from deals.output import probability_fields
    from deals.pbn import format_many
    from deals.rng import make_rng, page_rng
    from deals.sampler import ScenarioSampler

    base: dict[str, Any] = {"index": index, "label": scenario.label}
    try:
        sampler = ScenarioSampler(scenario)
    except Unsatisfiable as exc:
        return {**base, "deals": [], "probability": 0, "probability_exact": True, "unsatisfiable": exc.reason}
    rng = page_rng(page_id, revid, index) if seed == 0 else make_rng(seed, page_id, revid, index)
    try:
        deals = [pbn for batch in sampler.batches(count, rng) for pbn in format_many(batch)]
        probability = probability_fields(sampler.estimate_probability(rng))
    except TooRare as exc:
        # Not a proof of emptiness: no deal turned up, and the probability is below a bound.
        return {
            **base,
            "deals": [],
            "probability": 0,
            "probability_exact": False,
            "probability_ci95": [0, exc.upper_bound],
            "too_rare": str(exc),
        }
    return {**base, "deals": [{"pbn": pbn} for pbn in deals], **probability}


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
    from deals.pbn import PbnExportWriter

    out = io.StringIO()
    writer = PbnExportWriter(out, event=title)
    for doc in scenarios:
        comment = f"scenario {doc['index']}" + (f": {doc['label']}" if doc["label"] else "")
        if doc.get("unsatisfiable") or doc.get("too_rare"):
            comment += f" (no deals: {doc.get('unsatisfiable') or doc.get('too_rare')})"
        writer.write_games([d["pbn"] for d in doc["deals"]], comment=comment)
    writer.finish()
    return out.getvalue()
