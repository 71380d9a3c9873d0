"""Sample deals for a whole page, as plain values (what the mirror's `api/deals/<pageId>.json`
and `deals/<pageId>.pbn` are made from).

    results = sample_page(page_id, revid, scenarios, count=10)
    json_doc = {"pageId": page_id, "revid": revid, "scenarios": [r.to_json() for r in results]}
    write_pbn(results, stream)

Scenario i (from 1) of a page revision is dealt with `page_rng(page_id, revid, i)`, so a page
gets new deals exactly when it gets a new revision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from dsl.model import Scenario

from .errors import TooRare, Unsatisfiable
from .rng import Rng, page_rng


@dataclass(frozen=True)
class ScenarioDeals:
    index: int
    label: str
    deals: tuple[str, ...] = ()
    probability: object | None = None  # deals.sampler.Probability
    unsatisfiable: str | None = None
    too_rare: str | None = None

    def to_json(self) -> dict:
        from .output import probability_fields

        out: dict = {"index": self.index, "label": self.label, "deals": [{"pbn": d} for d in self.deals]}
        if self.probability is not None:
            out.update(probability_fields(self.probability))
        if self.unsatisfiable is not None:
            out["probability"] = 0
            out["unsatisfiable"] = self.unsatisfiable
        if self.too_rare is not None:
            out["too_rare"] = self.too_rare
        return out


def sample_scenario(index: int, scenario: Scenario, count: int, rng: Rng) -> ScenarioDeals:
    from .pbn import format_many
    from .sampler import ScenarioSampler

    try:
        sampler = ScenarioSampler(scenario)
        deals: list[str] = []
        for batch in sampler.batches(count, rng):
            deals.extend(format_many(batch))
        return ScenarioDeals(index, scenario.label, tuple(deals), sampler.estimate_probability(rng))
    except Unsatisfiable as exc:
        return ScenarioDeals(index, scenario.label, unsatisfiable=exc.reason)
    except TooRare as exc:
        return ScenarioDeals(index, scenario.label, too_rare=str(exc))


def sample_page(page_id: int, revid: int, scenarios: Sequence[Scenario], count: int) -> list[ScenarioDeals]:
    return [
        sample_scenario(i, scenario, count, page_rng(page_id, revid, i))
        for i, scenario in enumerate(scenarios, start=1)
    ]


def write_pbn(results: Sequence[ScenarioDeals], out: TextIO, *, event: str = "?", site: str = "?") -> None:
    """A PBN 2.1 export file of the results (boards numbered on, the label in a comment)."""
    from .pbn import PbnExportWriter

    writer = PbnExportWriter(out, event=event, site=site)
    writer.finish()
    for r in results:
        writer.write_games(r.deals, comment=f"scenario {r.index}" + (f": {r.label}" if r.label else ""))
