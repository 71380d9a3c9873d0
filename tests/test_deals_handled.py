"""No consumer of a scenario silently ignores a constraint it does not know: a synthetic field
added to the model (`aces`, as a new DSL key would be) is refused by the rules, the predicate
and the scripts, and declined by every counter and exact draw, so that a deal is never
published as exact for a scenario that was only partly read."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.counting import column_products, crossing, honour_placements, length_matrices
from bridgeshape_mirror.deals.counting import scenario as scenario_counts
from bridgeshape_mirror.deals.rules import handled, compiled as rules
from bridgeshape_mirror.deals.drawing import sampler, union_draw
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.errors import NotExpressible
from bridgeshape_mirror.deals.rules.handled import CONSUMERS, EVERY_FIELD, UnhandledField
from bridgeshape_mirror.deals.rules.predicate import satisfies, violations
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.scripts.condition import scenario_condition
from bridgeshape_mirror.dsl.model import Position, Range, Role, Scenario, set_fields, written_fields


@dataclasses.dataclass(frozen=True)
class WithAces(Position):
    aces: Range | None = None


#: Two partnerships, with lengths, HCP, a wildcard with HCP and a fit: every counter's ground.
TEXT = "opener hcp:12-15 H:5+; responder hcp:6-9 fit:8+; opp1 hcp:8-12 x:5+ xhcp:3+"


def with_aces(text: str = TEXT) -> Scenario:
    scenario = dsl.parse_scenarios(text)[0]
    opener = scenario.positions[0]
    assert opener.role is Role.OPENER
    fields = {f.name: getattr(opener, f.name) for f in dataclasses.fields(Position)}
    return replace(scenario, positions=(WithAces(**fields, aces=Range(0, 0)), *scenario.positions[1:]))


def test_todays_fields_are_every_consumers():
    """Every constraint field the model has today is declared by every consumer: the DSL as it
    is works everywhere (a field added to the model fails this until it is declared)."""
    every = set_fields(Scenario(fits=(object(),))) | frozenset(
        f.name for f in dataclasses.fields(Position) if f.name not in ("role", "key_order")
    )
    assert every == EVERY_FIELD
    names = {c.consumer for c in CONSUMERS}
    assert {
        "the compiled rules", "the predicate", "the script exports", "one partnership's models",
        "the crossing of two partnerships' counts", "the honour placements' count and draw",
        "the column products' count and draws", "the length matrices' count",
    } <= names
    assert all(c.fields == EVERY_FIELD for c in CONSUMERS)


def test_written_fields_are_read_off_the_model():
    assert written_fields(with_aces()) == {"hcp", "suits", "fits", "x", "x_hcp", "aces"}
    assert written_fields(dsl.parse_scenarios("opener shape:any")[0]) == {"shape"}
    assert rules.compile_scenario(dsl.parse_scenarios(TEXT)[0]).written == written_fields(dsl.parse_scenarios(TEXT)[0])


def test_the_rules_and_the_predicate_refuse_a_field_they_do_not_handle():
    scenario = with_aces()
    with pytest.raises(UnhandledField, match="aces constraint of opener"):
        rules.compile_scenario(scenario)
    deal = Deal.from_seat_of_card([i % 4 for i in range(52)])
    with pytest.raises(UnhandledField, match="aces"):
        violations(deal, scenario)
    with pytest.raises(NotExpressible, match="aces constraint of opener"):
        scenario_condition(scenario)
    # unset, the field is no constraint: nothing refused
    plain = replace(scenario, positions=(WithAces(**{**vars_of(scenario.positions[0]), "aces": None}), *scenario.positions[1:]))
    assert rules.compile_scenario(plain) == rules.compile_scenario(dsl.parse_scenarios(TEXT)[0])


def vars_of(position: Position) -> dict:
    return {f.name: getattr(position, f.name) for f in dataclasses.fields(Position)}


@pytest.mark.parametrize(
    "text",
    [
        TEXT,
        "opener hcp:12-15; opp1 hcp:8-12; responder hcp:6-9",  # HCP totals alone: the placements
        "opener H:5+ hcp:12-15; responder H:3+",  # one partnership: its model
        "opener S:5+; opp1 H:5+",  # per-suit ranges: the crossing
    ],
)
def test_every_counter_declines_a_field_it_does_not_handle(text):
    """As if a developer taught the rules a new key and no counter: each declines it."""
    compiled = rules.compile_scenario(dsl.parse_scenarios(text)[0])
    taught = replace(compiled, written=compiled.written | {"aces"})
    assert honour_placements.scenario_count(taught) is None and not honour_placements.hcp_only(taught)
    assert crossing.cross_count(taught) is None
    assert not column_products.counts(taught) and not column_products.covers(taught)
    assert column_products.column_count(taught) is None
    assert length_matrices.matrix_count(taught) is None
    assert union_draw.class_count(taught, 64) == 0 and union_draw.union_draw(taught, 64) is None
    # the disk cache, keyed by the rules, never answers for the scenario without the field
    scenario_counts.exact_cross_count(compiled)
    assert scenario_counts.exact_cross_count(taught) is None
    assert not any(c.takes(taught) for c in CONSUMERS)


def test_a_scenario_the_rules_read_and_the_counters_do_not_is_estimated_not_exact(monkeypatch):
    """The whole sampler: with the rules taught `aces` (their rule still the plain scenario's,
    since the synthetic key has no meaning), the deals come from the checked superset and the
    probability is an estimate, never labelled exact."""
    monkeypatch.setattr(rules, "RULES", handled.Handles("taught rules", EVERY_FIELD | {"aces"}))
    for text in (TEXT, "opener H:5+ hcp:12-15; responder H:3+"):
        scenario = with_aces(text)
        s = sampler.ScenarioSampler(scenario)
        assert s.probability is None or not s.probability.exact
        rows = next(s.batches(20, make_rng(3)))
        plain = dsl.parse_scenarios(text)[0]
        assert all(satisfies(Deal.from_seat_of_card(row), plain) for row in rows.tolist())
        assert not s.estimate_probability(make_rng(4)).exact
