"""Random valid scenarios, written as DSL text: the sampler never raises, every deal it deals
satisfies the independent predicate, the exact counts of every method that counts the same
scenario agree, and an unsatisfiable verdict is confirmed by another method.

The scenarios: one to four seats of both partnerships, every key of `dsl.keys` (suit lengths,
HCP, suit HCP, `x:`/`xhcp:` over the suits a position leaves unnamed, shapes), fits of every
class (`H8+`, `M8+`, `m8+`, `8+`) at a seat and at scenario level. The counts compared:
`deals.counting.partnership` (one partnership), `deals.counting.honour_placements`, `deals.counting.crossing`,
`deals.counting.column_products`, `deals.counting.length_matrices` and, for scenarios with few length
matrices, the suit-by-suit reference of the length-matrix tests (modulo a prime).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import bridgeshape_mirror.deals.drawing.sampler as sampler_module
import bridgeshape_mirror.deals.drawing.proposers as proposers
from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.counting import column_products as cp
from bridgeshape_mirror.deals.counting import length_matrices as lm
from bridgeshape_mirror.deals.counting.crossing import cross_count
from bridgeshape_mirror.deals.errors import Unsatisfiable
from bridgeshape_mirror.deals.counting.honour_placements import scenario_count
from bridgeshape_mirror.deals.outcome import deal_outcome
from bridgeshape_mirror.deals.boards.pbn import parse_deal
from bridgeshape_mirror.deals.rules.predicate import violations
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS
from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, DECK_HCP, MAX_HAND_HCP, MAX_SUIT_HCP
from bridgeshape_mirror.dsl.model import SUITS, Pair, Role, Scenario
from support.length_matrices_reference import PRIME, reference_count_mod, reference_matrices
from support.random_scenarios import HypothesisDrawer, Odds, scenario_text

DEALS = 6
#: The suit-by-suit reference runs where its table of HCP totals has at most this many cells.
REFERENCE_CELLS = 4_000
#: The fast tests' budget for the length matrices (theirs: 2,500,000 and 2e9, seconds).
FAST_MATRICES = 50_000
FAST_WORK = 1e8


# -- random valid scenarios, as DSL text ------------------------------------------------------
#
# Scenarios are written around a random deal, each range holding that deal's value most of the
# time: most scenarios are then satisfiable (and dealt), the rest are a mix of empty and
# rare ones (tests/support/random_scenarios.py).


#: Denser than the benchmark's odds, about as dense as this test's own strategies were before
#: it shared the benchmark's generator: a test tries a few examples, the benchmark thousands,
#: so each example has more keys, fits and shapes to get wrong.
ODDS = Odds(suit_length=0.4, suit_hcp=0.2, shape=0.3, fit=0.3, scenario_fit=0.3)


@st.composite
def scenario_texts(draw, narrow: bool = False, min_seats: int = 1) -> str:
    """A random valid scenario of `support.random_scenarios` (the benchmark's generator),
    drawn by hypothesis: `min_seats` to four positions in a random order, and a fit at
    scenario level or not; `narrow`, each position within one of the deal's length in three
    suits (for the suit-by-suit reference)."""
    return scenario_text(HypothesisDrawer(draw), ODDS, narrow=narrow, min_seats=min_seats)


def parsed(text: str) -> Scenario:
    result = dsl.parse(text)
    assert result.valid, (text, [e.message for e in result.errors])
    (scenario,) = result.scenarios
    return scenario


# -- the other methods ------------------------------------------------------------------------


@contextmanager
def budgets(fast: bool):
    """The length matrices' budget lowered (`FAST_MATRICES`, `FAST_WORK`) when `fast`: the
    fast tests compare the counts that take a fraction of a second."""
    with pytest.MonkeyPatch.context() as patch:
        if fast:
            patch.setattr(lm, "MAX_MATRICES", FAST_MATRICES)
            patch.setattr(lm, "MAX_WORK", FAST_WORK)
        yield


def method_counts(scenario: Scenario, fast: bool) -> dict[str, int]:
    """The scenario's number of deals by every method that counts both partnerships within
    its budget. (The sampler's own count of one partnership is `deals.counting.partnership`'s, so these
    check it; for both, it is the first of these that counts it, checked by the others.)"""
    compiled = compile_scenario(scenario)
    with budgets(fast):
        counts = {
            "honour placements": scenario_count(compiled),
            "crossing": cross_count(compiled),
            "column products": cp.column_count(compiled),
            "length matrices": lm.matrix_count(compiled),
        }
    return {name: count for name, count in counts.items() if count is not None}


def reference_fits(scenario: Scenario) -> bool:
    """Is the suit-by-suit reference quick here: every seat names three suits (few length
    matrices) and its dense table of HCP totals and wildcard flags is small?"""
    seats = [scenario.position(role) for role in Role]
    if any(p is None or len(p.suits) < 3 for p in seats):
        return False
    cells = 1
    for p in seats:
        if p.hcp is not None:
            cells *= p.hcp.upper(MAX_HAND_HCP) + 1
        if p.has_wildcard and p.x_hcp is not None:
            cells *= 2
    return cells <= REFERENCE_CELLS


def sub_scenarios(scenario: Scenario) -> list[Scenario]:
    """Each position alone, and each partnership with its fits: a deal of the scenario is a
    deal of each, so an empty one proves the scenario empty."""
    out = []
    for position in scenario.positions:
        out.append(Scenario("", (position,), ()))
        out.append(Scenario("", (position,), scenario.fits_of(position.role.pair)))
    for pair in Pair:
        positions = tuple(p for p in scenario.positions if p.role.pair is pair)
        if positions or scenario.fits_of(pair):
            out.append(Scenario("", positions, scenario.fits_of(pair)))
    return out


def wildcard_without_candidates(scenario: Scenario) -> bool:
    """A position's wildcard has no candidate suit (SEMANTICS 3: every suit named by the
    position, or by a fit of its pair in one suit)."""
    for position in scenario.positions:
        fit_suits = {f.suit for f in scenario.fits_of(position.role.pair) if f.suit is not None}
        if position.has_wildcard and all(s in position.named_suits or s in fit_suits for s in SUITS):
            return True
    return False


def deck_totals_exceeded(scenario: Scenario) -> bool:
    """The four seats' minimums ask more than the deck holds (HCP, a suit's cards or HCP)."""
    positions = scenario.positions
    if sum(p.hcp.min for p in positions if p.hcp is not None) > DECK_HCP:
        return True
    for suit in SUITS:
        if sum(p.suits[suit].min for p in positions if suit in p.suits) > CARDS_PER_SUIT:
            return True
        if sum(p.suit_hcp[suit].min for p in positions if suit in p.suit_hcp) > MAX_SUIT_HCP:
            return True
    return False


def confirm_empty(scenario: Scenario, fast: bool) -> str | None:
    """What else proves the scenario empty: an argument from SEMANTICS 3 and the deck, the
    count of another method, or an empty count of a scenario holding all its deals (each
    position alone, each partnership). Fails if another method counts deals in it."""
    if wildcard_without_candidates(scenario):
        return "a wildcard without a candidate suit"
    if deck_totals_exceeded(scenario):
        return "the deck's totals"
    counts = method_counts(scenario, fast)
    assert not any(counts.values()), f"called unsatisfiable, yet counted {counts}"
    if counts:
        return " and ".join(counts)
    compiled_subs = []
    for sub in sub_scenarios(scenario):
        try:
            compiled_subs.append(compile_scenario(sub))
        except Unsatisfiable:  # its own wildcard's candidates: checked above
            continue
    with budgets(fast):
        for count in (cp.column_count, lm.matrix_count):
            if any(count(compiled) == 0 for compiled in compiled_subs):
                return f"{count.__module__} of a part"
    # past the fast budget: the length matrices' whole budget, rather than no witness
    return confirm_empty(scenario, fast=False) if fast else None


# -- the properties -----------------------------------------------------------------------------


def check(text: str, seed: int, fast: bool = True) -> None:
    scenario = parsed(text)
    outcome = deal_outcome(scenario, 1, DEALS, make_rng(seed))
    if outcome.unsatisfiable is not None:
        witness = confirm_empty(scenario, fast)
        assert witness, f"no other method confirms that {text!r} is empty"
        event(f"unsatisfiable, confirmed by {witness}")
        return
    if outcome.too_rare is not None:
        assert not outcome.probability.exact
        event("too rare")
        return
    assert len(outcome.deals) == DEALS
    for pbn in outcome.deals:
        assert not violations(parse_deal(pbn), scenario), (text, pbn, violations(parse_deal(pbn), scenario))
    if not outcome.probability.exact:
        event("estimated")
        return
    total = outcome.probability.fraction * ALL_DEALS
    assert total.denominator == 1 and total > 0
    counts = method_counts(scenario, fast)
    assert counts == {name: total for name in counts}, text
    if reference_fits(scenario):
        assert reference_count_mod(scenario, reference_matrices(scenario)) == total % PRIME, text
        counts["the reference"] = total
    event(f"exact, {len(counts)} counts agree")


@pytest.fixture(scope="module")
def quick_empty_proofs():
    """Give up on a rare scenario after fewer draws (each test's budget is seconds)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sampler_module, "MAX_EMPTY_DRAWS", 200_000)
        patch.setattr(sampler_module, "PROVE_AFTER_DRAWS", 50_000)
        yield


#: The sampler's exact supersets, by kind: the settings that make it try them for a few deals
#: (whatever the core's acceptance rate) and prefer that kind.
EXACT_DRAWS = {
    # the HCP totals' placements or the length superset, whichever is rarer
    "placements or lengths": {"EXACT_DRAW_FROM": 0, "PLACEMENTS_BELOW_RATE": 2.0, "COLUMN_DRAW_FROM": 10**12},
    # the column products' positive term
    "columns": {"EXACT_DRAW_FROM": 0, "COLUMN_DRAW_FROM": 0, "COLUMN_PROPOSAL_COST": 0, "UNION_PROPOSALS_PER_CLASS": 10**12},
    # the union of cover terms (disjunctions over several suits), else the positive term
    "union": {"EXACT_DRAW_FROM": 0, "COLUMN_DRAW_FROM": 0, "COLUMN_PROPOSAL_COST": 0, "UNION_PROPOSALS_PER_CLASS": 0, "UNION_OVERLAP": 0},
}


#: Found by these tests on 26bb15b^ (column_products: a term whose halves have no meeting
#: groups): a ZeroDivisionError, then the ValueError of issue 29, in `ColumnCount._prepare`.
NO_MEETING_GROUPS = (
    "fit:m6+ opener S:0+ x:0+ xhcp:0-0 shape:balanced fit:S6+; responder hcp:0+ x:0+ fit:S6+; opp2; "
    "opp1 shape:balanced fit:S6+",
    "fit:m6+ opener shape:balanced; responder shape:balanced fit:S6+; opp1 shape:balanced fit:6+; "
    "opp2 xhcp:0-0 shape:balanced S:0+ x:0+",
)
NARROW_NO_MEETING_GROUPS = (
    "opener S:13-13 H:0-0 D:0-0 shape:balanced fit:S6+; responder S:0-0 H:0-0 D:13-13 shape:balanced fit:S6+; "
    "opp1 S:0-0 H:13-13 D:0-0 xhcp:1+ shape:balanced; opp2 S:0-0 H:0-0 D:0-0"
)


FAST = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
#: Four seats, or both partnerships dealt through the supersets' tables: a second or more each.
FEWER = settings(FAST, max_examples=3)


@FAST
@given(scenario_texts(), st.integers(0, 2**32 - 1))
@example(NO_MEETING_GROUPS[0], 0)
def test_random_scenarios_deal_right_deals_and_agree_on_counts(quick_empty_proofs, text, seed):
    check(text, seed)


@FEWER
@given(scenario_texts(min_seats=4), st.integers(0, 2**32 - 1))
@example(NO_MEETING_GROUPS[1], 0)
def test_random_four_seat_scenarios(quick_empty_proofs, text, seed):
    check(text, seed)


@FAST
@given(scenario_texts(narrow=True, min_seats=4), st.integers(0, 2**32 - 1))
@example(NARROW_NO_MEETING_GROUPS, 0)
def test_random_narrow_scenarios_agree_with_the_reference(quick_empty_proofs, text, seed):
    check(text, seed)


@FEWER
@given(scenario_texts(min_seats=2), st.integers(0, 2**32 - 1), st.sampled_from(sorted(EXACT_DRAWS)))
@example(NO_MEETING_GROUPS[1], 0, "union")
def test_random_scenarios_drawn_from_the_exact_supersets(quick_empty_proofs, text, seed, kind):
    """A few deals from each of the drawing modules that 100,000 deals would take."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in EXACT_DRAWS[kind].items():
            patch.setattr(proposers, name, value)
        check(text, seed)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(scenario_texts() | scenario_texts(min_seats=4) | scenario_texts(narrow=True, min_seats=4), st.integers(0, 2**32 - 1))
def test_many_random_scenarios(quick_empty_proofs, text, seed):
    check(text, seed, fast=False)
