"""Exact counts by length matrices (`deals.counting.length_matrices`) against independent counts:
a suit-by-suit reference written here from the Scenario itself, the other exact methods
where they apply (`deals.counting.crossing`, `deals.counting.partnership`), splits of a range into parts, and
plain uniform dealing."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.counting import length_matrices as lm
from bridgeshape_mirror.deals.counting.partnership import PairModel
from bridgeshape_mirror.deals.counting.crossing import cross_count
from bridgeshape_mirror.deals.rules.predicate import shape_class
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS
from bridgeshape_mirror.dsl.model import Scenario
from support.length_matrices_reference import PRIME, REFERENCE_CASES, TAKE_OUT, TAKE_OUT_OVERCALLED, agrees_with_plain_dealing, reference_count_mod, reference_matrices


def scenario(text: str) -> Scenario:
    return dsl.parse_scenarios(text)[0]


def count(text: str) -> int | None:
    return lm.matrix_count(compile_scenario(scenario(text)))


# -- an independent reference: per matrix, a dynamic programme over suits ------------------


@pytest.mark.parametrize("text", REFERENCE_CASES)
def test_count_matches_the_suit_by_suit_reference(text):
    sc = scenario(text)
    matrices = lm.length_matrices(compile_scenario(sc))
    expected = reference_matrices(sc)
    assert 0 < len(expected) <= 60
    assert sorted(tuple(map(tuple, m)) for m in matrices.tolist()) == sorted(expected)
    exact = count(text)
    assert exact is not None and exact > 0
    assert exact % PRIME == reference_count_mod(sc, expected)


def test_the_reference_can_fail():
    """The reference is sensitive to an HCP bound: one point more gives another count."""
    text = REFERENCE_CASES[0]
    sc = scenario(text)
    other = count(text.replace("hcp:0-4", "hcp:0-5"))
    assert other % PRIME != reference_count_mod(sc, reference_matrices(sc))


# -- the take-out double examples -----------------------------------------------------------


def test_take_out_doubles_are_exact_and_quick_to_plan():
    for text in (TAKE_OUT, TAKE_OUT_OVERCALLED):
        compiled = compile_scenario(scenario(text))
        matrices = lm.length_matrices(compiled)
        plan = lm.LengthMatrixCount(compiled).plan(matrices)
        assert plan.work < lm.MAX_WORK / 4  # well inside the budget: never estimated
        assert len(plan.h12) < len(matrices) / 10  # the four suits are alike: orbits
    sampler = ScenarioSampler(scenario(TAKE_OUT))
    assert sampler.probability is not None and sampler.probability.exact
    assert sampler.probability.fraction == Fraction(count(TAKE_OUT), ALL_DEALS)


@pytest.mark.parametrize("text, seat, rule", [(TAKE_OUT, "responder", "hcp:0-8"), (TAKE_OUT_OVERCALLED, "opp2", "hcp:8+ x:5+")])
def test_splitting_a_seats_hcp_range_adds_up(text, seat, rule):
    """HCP 0-8 and 9+ (or 0-7 and 8+) together are every hand: with the third seat's HCP rule
    dropped, the scenario has two seats with HCP rules, counted by `deals.counting.crossing` when
    the others have only ranges (and by length matrices otherwise)."""
    low, high = ("hcp:0-8", "hcp:9+") if rule == "hcp:0-8" else ("hcp:0-7 x:5+", "hcp:8+ x:5+")
    parts = [count(text.replace(rule, low)), count(text.replace(rule, high))]
    without = text.replace(f"; {seat} {rule}", "" if seat == "responder" else f"; {seat} x:5+")
    whole = cross_count(compile_scenario(scenario(without)))
    if whole is None:
        whole = count(without)
    assert None not in parts and whole is not None
    assert parts[0] + parts[1] == whole


@pytest.mark.slow
def test_four_seats_with_hcp_rules_add_up():
    """The fourth seat's HCP split in two ranges: four HCP axes, summing to three."""
    parts = [count(TAKE_OUT + "; opp2 hcp:0-8"), count(TAKE_OUT + "; opp2 hcp:9+")]
    assert None not in parts and parts[0] + parts[1] == count(TAKE_OUT)


@pytest.mark.parametrize("text", [TAKE_OUT, TAKE_OUT_OVERCALLED])
def test_take_out_doubles_agree_with_plain_dealing(text):
    def accept(length, points):
        ok = (points[:, 0] >= 12) & (points[:, 0] <= 21) & (length[:, 0] >= 5).any(axis=1)
        ok &= (points[:, 1] >= 12) & (length[:, 1] >= 3).all(axis=1)
        if "responder" in text:
            return ok & (points[:, 2] <= 8)
        return ok & (points[:, 3] >= 8) & (length[:, 3] >= 5).any(axis=1)

    agrees_with_plain_dealing(count(text) / ALL_DEALS, accept)


def test_orbits_change_nothing(monkeypatch):
    """Counting one arrangement per orbit of alike suits (times the orbit's size) gives the
    same count as counting every arrangement: length matrices, and crossing's pairs."""
    from bridgeshape_mirror.deals.counting import crossing

    text = REFERENCE_CASES[0]
    compiled = compile_scenario(scenario(text))
    assert [2, 3] in lm.suit_classes(compiled)
    overcall = compile_scenario(scenario("opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+"))
    assert crossing.suit_classes(overcall) == [[0, 1, 2, 3]]
    with_orbits = lm.matrix_count(compiled), cross_count(overcall)
    singletons = lambda compiled: [[0], [1], [2], [3]]  # noqa: E731
    monkeypatch.setattr(lm, "suit_classes", singletons)
    monkeypatch.setattr(crossing, "suit_classes", singletons)
    assert (lm.matrix_count(compiled), cross_count(overcall)) == with_orbits


def test_past_the_budget_is_none_not_a_guess(monkeypatch):
    """Three seats with HCP rules and no length rule: 37 million matrices, refused early."""
    assert count("opener hcp:12-21; opp1 hcp:12+; responder hcp:0-8") is None
    monkeypatch.setattr(lm, "MAX_WORK", 1.0)
    assert count(TAKE_OUT) is None


def test_past_the_budget_is_found_while_enumerating(monkeypatch):
    """Three seats with HCP rules and a length rule each (the sample's Cue-bid): more
    matrices than the budget can take even one per orbit, so enumerating stops before the
    plan; and the limit never refuses a scenario the plan accepts."""
    cue_bid = compile_scenario(scenario("opener H:5+ hcp:12-21; opp1 C:5+ hcp:8-16; responder H:3+ hcp:10+"))
    counter = lm.LengthMatrixCount(cue_bid)
    assert lm.matrix_limit(counter) < lm.MAX_MATRICES
    assert lm.length_matrices(cue_bid, lm.matrix_limit(counter)) is None

    def no_plan(self, matrices, budget=None):
        raise AssertionError("planned a scenario the enumeration could refuse")

    monkeypatch.setattr(lm.LengthMatrixCount, "plan", no_plan)
    assert lm.matrix_count(cue_bid) is None
    monkeypatch.undo()
    take_out = compile_scenario(scenario(TAKE_OUT))
    found = lm.length_matrices(take_out, lm.matrix_limit(lm.LengthMatrixCount(take_out)))
    assert found is not None and lm.LengthMatrixCount(take_out).plan(found, lm.MAX_WORK) is not None


def test_an_empty_scenario_counts_zero():
    assert count("opener S:7+; opp1 S:7+; responder hcp:5+") == 0
    assert count("opener hcp:25+ S:4-5 H:4-5; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:5+") == 0


# -- against the other exact methods, on random scenarios -----------------------------------


@st.composite
def a_deal(draw):
    """Lengths `[seat][suit]` and HCP `[seat]` of a random deal: scenarios built around it
    are never empty."""
    order = draw(st.permutations(range(52)))
    seat_of = [0] * 52
    for position, card in enumerate(order):
        seat_of[card] = position // 13
    lengths = [[sum(1 for r in range(13) if seat_of[13 * k + r] == s) for k in range(4)] for s in range(4)]
    points = [sum(4 - r for k in range(4) for r in range(4) if seat_of[13 * k + r] == s) for s in range(4)]
    return lengths, points


def _seat_rule(draw, lengths, points, with_hcp: bool, suits: int, width: int) -> str:
    """Ranges that hold for the given hand: `suits` or more suits, each `width` wide at most."""
    tokens = []
    for k in draw(st.lists(st.integers(0, 3), min_size=suits, max_size=4, unique=True)):
        below = draw(st.integers(0, width))
        above = draw(st.integers(0, width - below))
        tokens.append(f"{'SHDC'[k]}:{max(lengths[k] - below, 0)}-{min(lengths[k] + above, 13)}")
    if with_hcp:
        lo = max(points - draw(st.integers(0, 6)), 0)
        tokens.append(draw(st.sampled_from([f"hcp:{lo}+", f"hcp:{lo}-{min(points + draw(st.integers(0, 6)), 37)}"])))
    return " ".join(tokens)


@st.composite
def two_hcp_seats(draw):
    """Opener and opp1 with HCP rules, responder and opp2 with length ranges (crossing's domain)."""
    lengths, points = draw(a_deal())
    rule = [_seat_rule(draw, lengths[s], points[s], s < 2, 2, 3) for s in range(4)]
    return f"opener {rule[0]}; opp1 {rule[1]}; responder {rule[2]}; opp2 {rule[3]}"


SLOW_EXAMPLES = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


@SLOW_EXAMPLES
@given(two_hcp_seats())
def test_agrees_with_crossing(text):
    compiled = compile_scenario(scenario(text))
    exact = lm.matrix_count(compiled)
    assume(exact is not None)
    assert exact == cross_count(compiled)


@st.composite
def two_hcp_seats_and_a_shape(draw):
    """As `two_hcp_seats`, with a shape class or a wildcard length on responder (and maybe
    opp2): crossing's enumerated completions."""
    lengths, points = draw(a_deal())
    rule = [_seat_rule(draw, lengths[s], points[s], s < 2, 2, 3) for s in range(4)]
    for s in draw(st.sampled_from([(2,), (2, 3)])):
        named = {tok[0] for tok in rule[s].split()}
        free = [k for k in range(4) if "SHDC"[k] not in named]
        if draw(st.booleans()) or not free:
            rule[s] = f"{rule[s]} shape:{shape_class(tuple(lengths[s])).value}"
        else:
            rule[s] = f"{rule[s]} x:{max(max(lengths[s][k] for k in free) - draw(st.integers(0, 2)), 0)}+"
    return f"opener {rule[0]}; opp1 {rule[1]}; responder {rule[2]}; opp2 {rule[3]}"


@SLOW_EXAMPLES
@given(two_hcp_seats_and_a_shape())
def test_crossing_with_shapes_and_wildcards_agrees(text):
    compiled = compile_scenario(scenario(text))
    exact = cross_count(compiled)
    assume(exact is not None)
    assert exact == lm.matrix_count(compiled)


@st.composite
def one_partnership(draw):
    """Opener and responder with every suit's length within two values, and HCP rules."""
    lengths, points = draw(a_deal())
    return f"opener {_seat_rule(draw, lengths[0], points[0], True, 4, 1)}; responder {_seat_rule(draw, lengths[2], points[2], True, 4, 1)}"


@SLOW_EXAMPLES
@given(one_partnership())
def test_agrees_with_the_partnership_model(text):
    """One partnership: the length-matrix count over all deals is the partnership's share of
    pairs of hands (`PairModel`, which never looks at the other two seats)."""
    compiled = compile_scenario(scenario(text))
    exact = lm.matrix_count(compiled)
    assume(exact is not None)
    assert Fraction(exact, ALL_DEALS) == PairModel(compiled.parts[0]).probability


def test_crossing_shares_the_pair_counts_of_the_same_two_seats(monkeypatch):
    """Scenarios with the same two HCP seats beside other rules for the other two reuse one
    pair count (kept read-only), and each still agrees with the length matrices."""
    from bridgeshape_mirror.deals.counting import crossing
    from bridgeshape_mirror.deals.counting.cache import Bounded

    monkeypatch.setattr(crossing, "_PAIR_COUNTS", Bounded(lambda kept: sum(a.nbytes for a in kept[1:])))
    texts = [f"opener S:4-5 H:3-4 hcp:10-14; opp1 H:3-4 D:2-4 hcp:8-12; responder S:2-4; opp2 C:{n}+" for n in (2, 3, 4)]
    for text in texts:
        compiled = compile_scenario(scenario(text))
        assert cross_count(compiled) == lm.matrix_count(compiled), text
    assert len(crossing._PAIR_COUNTS) == 1
    (_, *arrays), = crossing._PAIR_COUNTS.values()
    assert not any(a.flags.writeable for a in arrays)
    monkeypatch.setattr(crossing, "PAIR_COUNTS_BYTES", 0)  # nothing kept but the last
    compiled = compile_scenario(scenario("opener S:4-5 H:3-4 hcp:10-14; opp1 H:3-4 D:2-5 hcp:8-12; opp2 C:3+"))
    assert cross_count(compiled) == lm.matrix_count(compiled)
    assert len(crossing._PAIR_COUNTS) == 1
    monkeypatch.setattr(crossing, "PAIR_COUNTS_BYTES", 2**40)
    monkeypatch.setattr(crossing, "PAIR_COUNTS_ITEMS", 2)  # bounded by entries too
    for n in (2, 3, 4):
        compiled = compile_scenario(scenario(f"opener S:4-5 H:3-4 hcp:10-{13 + n}; opp1 H:3-4 D:2-5 hcp:8-12; opp2 C:3+"))
        assert cross_count(compiled) == lm.matrix_count(compiled)
    assert len(crossing._PAIR_COUNTS) == 2


def test_crossing_counts_a_renaming_of_the_suits_on_the_same_pair_counts(monkeypatch):
    from bridgeshape_mirror.deals.counting import crossing
    from bridgeshape_mirror.deals.counting.cache import Bounded

    monkeypatch.setattr(crossing, "_PAIR_COUNTS", Bounded(lambda kept: sum(a.nbytes for a in kept[1:])))
    hearts = "opener H:5+ hcp:11-15; responder H:3+ hcp:6-9; opp1 S:5+; opp2 C:2-4"
    spades = "opener S:5+ hcp:11-15; responder S:3+ hcp:6-9; opp1 H:5+; opp2 D:2-4"
    counts = [cross_count(compile_scenario(scenario(text))) for text in (hearts, spades)]
    assert counts[0] is not None and counts[0] == counts[1] == lm.matrix_count(compile_scenario(scenario(spades)))
    assert len(crossing._PAIR_COUNTS) == 1
