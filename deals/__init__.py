"""Sample deals for shape_constraints scenarios: exactly uniform, with exact probabilities.

Sub-packages, each importing only those before it: `boards` (cards, boards, PBN text, byte
rows), `rules` (a Scenario compiled to integer rules per seat and partnership, the independent
predicate, why a scenario has no deals, the fields each consumer handles), `counting` (exact
counts, one partnership to all four seats), `drawing` (the sampler: count, choose a proposer,
draw, check; the methods and why they are exact: docs/COUNTING.md).
Beside them: `outcome` (a scenario's outcome, dealt in one place), `formats` (JSON, PBN, LIN),
`scripts` (exact dealer and Deal scripts), `double_dummy` (and its tables' memory,
`dds_memory`), `errors`, `probability`.

`deal_scenario(scenario, count, rng)` is the short way to get a list of `Deal`s. Heavy modules
are imported on first use, so `import deals` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bridgeshape_mirror.dsl.model import Scenario

    from .boards.cards import Deal
    from .drawing.rng import Rng


def deal_scenario(scenario: Scenario, count: int, rng: Rng) -> list[Deal]:
    """`count` deals drawn uniformly among those satisfying `scenario` (raises `Unsatisfiable`)."""
    from .boards.cards import Deal
    from .drawing.sampler import ScenarioSampler

    sampler = ScenarioSampler(scenario)
    out: list[Deal] = []
    for owner in sampler.batches(count, rng):
        out.extend(Deal.from_seat_of_card(row) for row in owner.tolist())
    return out
