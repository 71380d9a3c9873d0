"""Generated deals: legal, satisfying (by the independent predicate), deterministic, and
unsatisfiable scenarios refused at once."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals import deal_scenario
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.errors import TooRare, Unsatisfiable
from bridgeshape_mirror.deals.rules.predicate import satisfies, shape_class, violations
from bridgeshape_mirror.deals.drawing.rng import make_rng, page_rng
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.dsl.model import Fit, Position, Range, Role, Scenario, ShapeClass, Suit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
REFERENCE = {
    p.stem: dsl.parse_scenarios(p.read_text(encoding="utf-8"))
    for p in sorted(EXAMPLES.glob("*.dsl"))
    if p.stem != "broken"
}
REFERENCE_SCENARIOS = [(name, i, s) for name, scs in REFERENCE.items() for i, s in enumerate(scs, start=1)]


@pytest.mark.parametrize("name, index, scenario", REFERENCE_SCENARIOS, ids=[f"{n}-{i}" for n, i, _ in REFERENCE_SCENARIOS])
def test_reference_examples_deal_legal_satisfying_deals(name, index, scenario):
    deals = deal_scenario(scenario, 150, make_rng(11, index))
    assert len(deals) == 150
    for deal in deals:
        assert deal.is_legal
        assert satisfies(deal, scenario), violations(deal, scenario)
    sampler = ScenarioSampler(scenario)
    probability = sampler.estimate_probability(make_rng(12, index))
    assert 0 < probability.value < 1
    # every example of the reference is counted exactly, the take-out doubles (three seats
    # with HCP rules across both partnerships) included
    assert probability.exact
    assert probability.low == probability.value == probability.high == float(probability.fraction)


def test_all_shape_patterns_have_exactly_one_class():
    patterns = {
        tuple(sorted((s, h, d, 13 - s - h - d), reverse=True))
        for s in range(14)
        for h in range(14 - s)
        for d in range(14 - s - h)
    }
    assert len(patterns) == 39
    classes = {p: shape_class(p) for p in patterns}
    assert {p for p, c in classes.items() if c is ShapeClass.BALANCED} == {(4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)}
    from bridgeshape_mirror.deals.rules.compiled import shape_mask

    arr = np.array(sorted(patterns))
    for cls in (ShapeClass.BALANCED, ShapeClass.ONE_SUITER, ShapeClass.TWO_SUITER, ShapeClass.THREE_SUITER):
        mask = shape_mask(arr, cls)
        assert [tuple(p) for p in arr[mask].tolist()] == [p for p in sorted(patterns) if classes[p] is cls]


@pytest.mark.parametrize(
    "text",
    [
        "opener shape:balanced hcp:15-17; responder shape:two_suiter",
        "opener shape:three_suiter; opp1 shape:one_suiter",
        "responder Shcp:4+ Hhcp:0-1 x:4+ xhcp:3+ hcp:8-12",
        "fit:m8+ opener D:3+ hcp:11-14; responder C:4+",
        "opp1 x:6+ xhcp:5+; opp2 fit:M9+",
        "opener x:0 ; opp2 x:0 xhcp:0",
    ],
)
def test_mixed_constraints_deal_satisfying_deals(text):
    scenario = dsl.parse_scenarios(text)[0]
    for deal in deal_scenario(scenario, 100, make_rng(5)):
        assert deal.is_legal and satisfies(deal, scenario), violations(deal, scenario)


def test_same_seed_same_deals_other_seed_other_deals():
    scenario = REFERENCE["splinter"][0]
    a = [d.pbn() for d in deal_scenario(scenario, 20, make_rng(3, 1))]
    b = [d.pbn() for d in deal_scenario(scenario, 20, make_rng(3, 1))]
    c = [d.pbn() for d in deal_scenario(scenario, 20, make_rng(4, 1))]
    assert a == b and a != c
    # a run is reproducible, and a shorter run is the start of a longer one (tests/test_seeds_extend.py)
    assert [d.pbn() for d in deal_scenario(scenario, 5, page_rng(42, 1000, 1))] == [
        d.pbn() for d in deal_scenario(scenario, 50, page_rng(42, 1000, 1))
    ][:5]
    assert page_rng(42, 1000, 1).raw(1)[0] != page_rng(42, 1000, 2).raw(1)[0]


def test_stream_is_pinned():
    """The deals of a fixed seed never change silently (numpy versions, refactors)."""
    scenario = REFERENCE["preempt"][0]
    first = deal_scenario(scenario, 2, make_rng(2026, 1))
    assert [d.pbn() for d in first] == PINNED_PREEMPT


PINNED_PREEMPT = [
    "N:T85.KQJT975.9.K9 AKJ762.A8.754.A8 Q9.6.A832.QJ7542 43.432.KQJT6.T63",
    "N:96.AK76432.QJ62. QJ74.J.T973.AKJT K32.T8.AK54.8742 AT85.Q95.8.Q9653",
]


def test_unconstrained_scenario_deals_anything():
    deals = deal_scenario(Scenario(), 50, make_rng(1))
    assert all(d.is_legal for d in deals) and len({d.pbn() for d in deals}) == 50


@pytest.mark.parametrize(
    "scenario",
    [
        dsl.parse_scenarios("opener S:7+; responder S:7+")[0],
        dsl.parse_scenarios("opener hcp:30+; responder hcp:11+")[0],
        dsl.parse_scenarios("opener Shcp:10; responder Shcp:1+")[0],
        dsl.parse_scenarios("fit:H12+ opener H:0-5; responder H:0-6")[0],
        dsl.parse_scenarios("opener hcp:25+; opp1 hcp:16+")[0],
        dsl.parse_scenarios("opener S:7+; opp1 S:7+")[0],
        dsl.parse_scenarios("opener H:6+; responder H:3+; opp2 fit:H9+")[0],
        dsl.parse_scenarios("opener S:13; opp1 Shcp:1+")[0],
        dsl.parse_scenarios("opener S:5+ H:5+; opp2 fit:M9+")[0],
        dsl.parse_scenarios("opener Shcp:10 Hhcp:10; opp1 hcp:21+")[0],
        dsl.parse_scenarios("opener S:4 H:4; responder S:5+ H:5+; opp1 D:0 C:0")[0],
        # a wildcard whose only candidates are taken by the position and its partnership's fit
        Scenario("", (Position(Role.RESPONDER, suits={Suit.S: Range(1), Suit.D: Range(1), Suit.C: Range(1)}, x=Range(0, 1)),), (Fit(8, suit=Suit.H),)),
    ],
)
def test_unsatisfiable_is_proved_at_once(scenario):
    start = time.perf_counter()
    with pytest.raises(Unsatisfiable):
        sampler = ScenarioSampler(scenario)
        list(sampler.batches(1, make_rng(1)))
    assert time.perf_counter() - start < 5


def test_unsatisfiable_tied_partnerships_end_with_too_rare(monkeypatch):
    """Both partnerships possible alone, impossible together, and (here: with the totals
    checks and the cross-partnership count switched off) nothing proves it: the sampler
    stops with TooRare, not a hang and not a silent empty result."""
    import bridgeshape_mirror.deals.drawing.sampler as sampler_module
    import bridgeshape_mirror.deals.counting.scenario as scenario_counts

    monkeypatch.setattr(sampler_module, "MAX_EMPTY_DRAWS", 20_000)
    monkeypatch.setattr(scenario_counts, "joint_contradiction", lambda compiled: None)
    monkeypatch.setattr(scenario_counts, "exact_cross_count", lambda compiled: None)
    # opener holds all 13 spades; opp1 needs a spade honour
    scenario = dsl.parse_scenarios("opener S:13; opp1 Shcp:1+")[0]
    sampler = ScenarioSampler(scenario)
    with pytest.raises(TooRare):
        list(sampler.batches(1, make_rng(1)))


def test_cross_partnership_exact_count_agrees_with_the_estimate(monkeypatch):
    """Overcall (opener and opp1 with HCP, opp2's fit): the exact count lies in the interval
    that rejection sampling gives when the exact count is switched off."""
    import bridgeshape_mirror.deals.counting.scenario as scenario_counts

    scenario = REFERENCE["overcall"][1]
    exact = ScenarioSampler(scenario).probability
    assert exact is not None and exact.exact
    monkeypatch.setattr(scenario_counts, "exact_cross_count", lambda compiled: None)
    estimate = ScenarioSampler(scenario).estimate_probability(make_rng(21), min_draws=200_000)
    assert not estimate.exact and estimate.low <= exact.value <= estimate.high


def test_rarer_partnership_is_the_core_and_deals_still_satisfy():
    scenario = REFERENCE["contro-informativo"][0]
    sampler = ScenarioSampler(scenario)
    assert sampler.core is not None and sampler.core.seats[0] == 1  # opp1 is far rarer
    rows = next(sampler.batches(200, make_rng(9)))
    for row in rows.tolist():
        deal = Deal.from_seat_of_card(row)
        assert satisfies(deal, scenario)


@pytest.mark.parametrize(
    "text",
    [
        "fit:H8+ opener H:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15",  # pair mode
        "opener H:7+ x:0-1 hcp:5-10",  # rest mode
        "opp1 hcp:8+ H:5+; opp2 fit:9+",  # fit mode
    ],
)
def test_draws_from_partial_and_full_tables_are_the_same(monkeypatch, text):
    """A small draw builds only the HCP tables of the halves it uses, a large one every
    half's (kept on the model): the same values, so the same deals from the same seed."""
    from bridgeshape_mirror.deals.drawing import part_sampler
    from bridgeshape_mirror.deals.counting.partnership import PairModel
    from bridgeshape_mirror.deals.drawing.part_sampler import draw_part

    part = next(p for p in ScenarioSampler(dsl.parse_scenarios(text)[0]).parts)
    small = draw_part(PairModel(part), 300, make_rng(8))
    monkeypatch.setattr(part_sampler, "FULL_TABLES_FROM", 1)
    full_model = PairModel(part)
    full = draw_part(full_model, 300, make_rng(8))
    assert "full" in full_model._draw_cache
    assert np.array_equal(small, full)


@pytest.mark.parametrize(
    "text",
    [
        "fit:H8+ opener H:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15",  # pair mode
        "opener H:7+ x:0-1 hcp:5-10",  # rest mode
        "opp1 hcp:8+ H:5+; opp2 fit:9+",  # fit mode
    ],
)
def test_draws_by_one_search_over_the_rows_are_those_of_the_row_by_row_search(monkeypatch, text):
    """`search_rows` (one searchsorted over the rows laid end to end) against its fallback,
    the row-by-row binary search of before, on every step of the draw that uses it."""
    from bridgeshape_mirror.deals.drawing import part_sampler
    from bridgeshape_mirror.deals.counting.partnership import PairModel
    from bridgeshape_mirror.deals.drawing.part_sampler import draw_part

    part = next(p for p in ScenarioSampler(dsl.parse_scenarios(text)[0]).parts)
    fast = draw_part(PairModel(part), 3000, make_rng(9))
    monkeypatch.setattr(part_sampler, "row_search_table", lambda cum: None)
    plain = draw_part(PairModel(part), 3000, make_rng(9))
    assert np.array_equal(fast, plain)


#: Four seats with wide HCP ranges and one length rule that hardly binds: millions of length
#: matrices, tables past the column products' budget (and not HCP totals only, which
#: `deals.counting.honour_placements` counts), so its probability is estimated.
PAST_THE_BUDGET = "opener hcp:0-20 S:0-12; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20"


def test_estimate_is_a_property_of_the_rules():
    """Below `MIN_ESTIMATE_DRAWS` own draws, the estimate comes from a generator seeded by the
    compiled scenario: every page repeating the rules gets the same one, whatever its seed."""
    text = PAST_THE_BUDGET
    first = ScenarioSampler(dsl.parse_scenarios(text)[0])
    list(first.batches(10, page_rng(1, 10, 1)))
    second = ScenarioSampler(dsl.parse_scenarios("other label: " + text)[0])
    list(second.batches(10, page_rng(2, 20, 1)))
    a, b = first.estimate_probability(page_rng(1, 10, 1)), second.estimate_probability(page_rng(2, 20, 1))
    assert not a.exact and a == b and a.draws == 20_000
    # enough draws of its own (a long CLI run): those are used
    third = ScenarioSampler(dsl.parse_scenarios(text)[0])
    rng = make_rng(5)
    list(third.batches(20, rng))
    own = third.estimate_probability(rng, min_draws=third.drawn)
    assert own.draws == third.drawn


def test_model_cache_keeps_to_its_byte_budget(monkeypatch):
    import bridgeshape_mirror.deals.counting.scenario as scenario_counts
    from bridgeshape_mirror.deals.counting.cache import Bounded

    monkeypatch.setattr(scenario_counts, "_MODELS", Bounded(lambda model: model.nbytes))
    monkeypatch.setattr(scenario_counts, "MODEL_CACHE_BYTES", 1)
    texts = ["opener H:5+ hcp:12-21; responder H:4+", "opener S:5+ hcp:12-21; responder S:4+"]
    models = [scenario_counts.pair_model(ScenarioSampler(dsl.parse_scenarios(t)[0]).parts[0]) for t in texts]
    assert list(scenario_counts._MODELS.values()) == [models[-1]]  # the newest always stays
    monkeypatch.setattr(scenario_counts, "MODEL_CACHE_BYTES", 10**9)
    again = scenario_counts.pair_model(models[-1].part)
    assert again is models[-1]


@pytest.mark.parametrize(
    ("text", "skips"),
    [
        ("opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+", True),  # benchmark E: the defence, fit mode
        ("opener H:5+ hcp:12-21; responder H:4+ C:0-1 hcp:10-15; opp1 hcp:0-15", True),  # pair mode
        ("fit:S8+ opener S:5+ hcp:12-14; opp1 hcp:0-10", True),  # a seat and its fit
        ("fit:H8+ opener hcp:15-17; responder H:4+ hcp:8+; opp1 S:5+", False),  # the core is a seat alone
        # the core is the partnership, but its model leaves the wildcard's HCP to the check
        ("opener hcp:11-15 x:5+ xhcp:4+; responder H:4+ C:0-1 hcp:10-15; opp1 hcp:0-15", False),
    ],
)
def test_the_partnership_the_core_is_drawn_from_holds_on_every_proposal_so_its_check_is_skipped(text, skips):
    from bridgeshape_mirror.deals.drawing.hands import part_ok

    sampler = ScenarioSampler(dsl.parse(text).scenarios[0])
    assert (sampler.core_holds is not None) == skips
    owner = sampler.propose(4000, make_rng(5))
    if skips:
        assert part_ok(owner, sampler.core_holds).all()
    # what is skipped rejects nothing: the accepted rows are those of a full check
    full = np.ones(len(owner), dtype=bool)
    for part in sampler.checked:
        full &= part_ok(owner, part)
    assert np.array_equal(sampler.accept(owner), full)
