"""Sample deals for shape_constraints scenarios: exactly uniform, with exact probabilities.

Modules, smallest first:

- `cards`: Card, Hand, Deal (the numbering of suits, ranks and seats is `dsl.deck`'s);
- `pbn`: PBN deal strings in and out (one at a time or 100,000 at once), PBN 2.1 export;
- `rules`: a Scenario compiled to integer rules per seat and partnership (SEMANTICS 3);
- `tables`, `counting`: exact counts of a seat or a partnership (method in `counting`);
- `rng`: seeding (`make_rng`, `page_rng`) and exact integer draws;
- `part_sampler`, `sampler`: the draws; the method and its exactness argument are in
  `sampler`'s docstring;
- `predicate`: an independent checker of a deal against a Scenario, for tests and callers;
- `outcome`: a scenario's outcome (`ScenarioDeals`), dealt in one place (`deal_outcome`);
- `formats`: output formats (JSON, PBN, LIN) behind one protocol and a registry; `byte_rows`:
  their lines for many deals at once, as rows of one byte table;
- `crossing`: exact counts across partnerships (two seats with HCP rules at most);
  `honour_placements`: exact counts of scenarios whose rules are HCP totals only;
  `column_products`: exact counts of scenarios whose length rules are per suit (ranges;
  wildcard lengths and fits by inclusion-exclusion) or shapes, three seats with HCP rules
  included; `length_matrices`: exact counts of any scenario through its length matrices,
  within a budget (wildcards with HCP, four seats with HCP rules and length rules);
  `cache`: those counts remembered on disk;
- `probability`: exact or estimated probabilities; `feasibility`: emptiness proofs across
  the four seats;
- `errors`: `Unsatisfiable`, `TooRare`; `blas`: keeps numpy's BLAS single-threaded.

`deal_scenario(scenario, count, rng)` is the short way to get a list of `Deal`s;
`sampler.ScenarioSampler` streams batches and gives the probability. Heavy modules are
imported on first use, so `import deals` stays cheap.
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
