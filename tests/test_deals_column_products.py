"""Exact counts by sums over columns (`deals.counting.column_products`) against independent counts:
the suit-by-suit reference of the length-matrix tests, the length matrices themselves
(within their budget, and past it with the budget raised), HCP splits that must add up,
plain uniform dealing, and the sampler that publishes the probability."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.counting import column_products as cp
from bridgeshape_mirror.deals.counting import length_matrices as lm
from bridgeshape_mirror.deals.counting.crossing import cross_count
from bridgeshape_mirror.deals.rules.predicate import shape_class
from bridgeshape_mirror.deals.outcome import deal_outcome
from bridgeshape_mirror.deals.boards.pbn import parse_deal
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.counting.symmetry import canonical
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS
from support.length_matrices_reference import (
    PRIME,
    REFERENCE_CASES,
    TAKE_OUT,
    TAKE_OUT_OVERCALLED,
    agrees_with_plain_dealing,
    reference_count_mod,
    reference_matrices,
)

#: The sample wiki's Cue-bid and Contro sputnik scenarios: past the length matrices' budget.
SAMPLE = [
    "opener H:5+ hcp:12-21; opp1 C:5+ hcp:8-16; responder H:3+ hcp:10+",
    "opener C:3+ hcp:12-21; opp1 H:5+ hcp:8-16; responder S:4 hcp:7+",
    "opener D:4+ hcp:12-21; opp1 S:5+ hcp:8-16; responder H:4+ hcp:7+",
    "opener H:5+ hcp:12-21; opp1 S:5+ hcp:8-16; responder H:3+ hcp:6-10",
]
CUE_BID = SAMPLE[0]
#: `SAMPLE[0]` by the length matrices with their budget raised (about 20 s of work).
CUE_BID_COUNT = 67734831649100828550604128


def compiled(text: str):
    return compile_scenario(dsl.parse_scenarios(text)[0])


def count(text: str) -> int | None:
    return cp.column_count(compiled(text))


@pytest.mark.parametrize("text", REFERENCE_CASES)
def test_matches_the_suit_by_suit_reference(text):
    """Three seats with HCP totals; fits of both partnerships (one suit, and an 8+ fit in
    spades), a wildcard length x:1-2 (its complement is not a range), a wildcard with HCP
    (`x:4 xhcp:3+`) beside per-suit HCP rules and a shape."""
    sc = dsl.parse_scenarios(text)[0]
    exact = count(text)
    assert exact is not None and exact > 0
    assert exact % PRIME == reference_count_mod(sc, reference_matrices(sc))


def test_what_is_covered():
    """`covers` keeps its meaning (no wildcard with HCP); `counts` adds those."""
    assert not cp.covers(compiled(REFERENCE_CASES[1])) and cp.counts(compiled(REFERENCE_CASES[1]))
    assert cp.covers(compiled(CUE_BID)) and cp.covers(compiled(TAKE_OUT)) and cp.covers(compiled(BALANCED))


#: Wildcards with HCP: two seats with one (four masks of a suit's honours), and one beside a
#: wildcard length.
XHCP = [
    "opener S:4-5 H:3-4 D:2-3 hcp:10-14; opp1 S:2-3 H:3-4 x:4+ xhcp:3+ hcp:8-12; responder S:2-3 H:3 hcp:0-5 x:4 "
    "xhcp:0-2; opp2 hcp:5+",
    "opener hcp:12-21 x:5+; opp1 hcp:8-16 x:5+ xhcp:4+; responder hcp:6+ S:2-4 H:2-4 D:2-4; opp2 S:3 H:3 D:3-4",
]
#: The sample's Cue-bid with a good five-card suit for the overcall instead of clubs.
GOOD_SUIT_CUE_BID = "opener H:5+ hcp:12-21; opp1 x:5+ xhcp:5+ hcp:8-16; responder H:3+ hcp:10+"


def test_a_wildcard_with_hcp_splits_into_its_suits():
    """opp1's good five-card suit is one of the four: each suit named instead (`S:5+
    Shcp:5+`, no wildcard), and the pairs of them taken off (two such suits at most), add
    up to the wildcard's count."""
    def with_(*suits):
        return count(GOOD_SUIT_CUE_BID.replace("x:5+ xhcp:5+", " ".join(f"{k}:5+ {k}hcp:5+" for k in suits)))

    singles = sum(with_(k) for k in "SHDC")
    pairs = sum(with_(a, b) for a, b in combinations("SHDC", 2))
    assert count(GOOD_SUIT_CUE_BID) == singles - pairs


#: `REFERENCE_CASES[1]` without its wildcard's HCP part: a shape on the seat without HCP rules.
SHAPED_REFERENCE = REFERENCE_CASES[1].replace(" xhcp:3+", "")


def test_a_shape_matches_the_suit_by_suit_reference():
    sc = dsl.parse_scenarios(SHAPED_REFERENCE)[0]
    exact = count(SHAPED_REFERENCE)
    assert exact is not None and exact > 0
    assert exact % PRIME == reference_count_mod(sc, reference_matrices(sc))


#: A 1NT opening, an overcall and a response: a shape beside two wildcards.
BALANCED = "opener hcp:15-17 shape:balanced; opp1 hcp:8+ x:5+; responder hcp:8+ x:4+"

WITHIN_THE_OLD_BUDGET = [
    TAKE_OUT,  # a wildcard length: two terms
    TAKE_OUT + " fit:8+",  # and a fit in any suit: four terms
    "opener S:4-5 H:3-4 D:2-3 C:2-3 hcp:10-14; opp1 x:4 hcp:8-12; responder hcp:0-5 shape:balanced; opp2 S:2-4",
]
#: ... and those that take the length matrices several seconds.
SLOW_WITHIN_THE_OLD_BUDGET = [
    TAKE_OUT_OVERCALLED,  # two wildcards
    BALANCED,
    "opener hcp:12-21 shape:two_suiter; opp1 hcp:8+ shape:balanced; responder hcp:6+ H:3-5 S:2-4 D:2-4",
    "opener hcp:12-21 S:5-6 H:2-4; opp1 hcp:8+ H:4-5 S:0-2; responder hcp:10+ C:5+ D:0-2",
    "opener hcp:11-15 H:5-6 S:2-3; responder hcp:6+ fit:H8+ S:2-3; opp1 hcp:8+ S:4+",  # a fit in a named suit
]


@pytest.mark.parametrize(
    "text", WITHIN_THE_OLD_BUDGET + [pytest.param(text, marks=pytest.mark.slow) for text in SLOW_WITHIN_THE_OLD_BUDGET]
)
def test_equals_the_length_matrices(text, monkeypatch):
    exact = lm.matrix_count(compiled(text))
    assert exact is not None and exact > 0
    assert count(text) == exact


#: A 1NT opening, a two-suited overcall (Landy) and a response: two seats with shapes.
TWO_SHAPES = "opener hcp:15-17 shape:balanced; opp1 hcp:8+ shape:two_suiter; responder hcp:8+"


def test_two_shapes_are_within_the_budget(monkeypatch):
    """Groups told apart by the shorter of a shaped seat's two lengths in a half, not by
    the first: two shaped seats within the work budget (they passed it, 9,000 groups a half)."""
    counter = cp.ColumnCount(compiled(TWO_SHAPES))
    assert counter.within(cp.MAX_WORK / 2)
    monkeypatch.setattr(lm, "MAX_MATRICES", 10**7)
    monkeypatch.setattr(lm, "MAX_WORK", 1e11)
    assert counter.total() == lm.matrix_count(compiled(TWO_SHAPES))


def test_the_sample_is_counted_where_the_length_matrices_give_up():
    for text in SAMPLE:
        assert lm.matrix_count(compiled(text)) is None
        counter = cp.ColumnCount(compiled(text))
        assert counter.table_bytes <= cp.MAX_TABLE_BYTES and counter.within(cp.MAX_WORK / 2)
    assert count(CUE_BID) == CUE_BID_COUNT


def test_splitting_a_seats_hcp_range_adds_up():
    """Responder's 10+ split into 10-12 and 13+ (other caps, other cells): the parts add up."""
    parts = [count(CUE_BID.replace("hcp:10+", "hcp:10-12")), count(CUE_BID.replace("hcp:10+", "hcp:13+"))]
    assert None not in parts and sum(parts) == CUE_BID_COUNT


def test_cue_bid_agrees_with_plain_dealing():
    def accept(length, points):
        ok = (points[:, 0] >= 12) & (points[:, 0] <= 21) & (length[:, 0, 1] >= 5)  # opener (N)
        ok &= (points[:, 1] >= 8) & (points[:, 1] <= 16) & (length[:, 1, 3] >= 5)  # opp1 (E)
        return ok & (points[:, 2] >= 10) & (length[:, 2, 1] >= 3)  # responder (S)

    agrees_with_plain_dealing(CUE_BID_COUNT / ALL_DEALS, accept)


def test_the_sampler_publishes_the_sample_exactly(monkeypatch):
    monkeypatch.setenv("BSM_DEALS_CACHE", "0")
    sampler = ScenarioSampler(dsl.parse_scenarios(CUE_BID)[0])
    assert sampler.probability is not None and sampler.probability.exact
    assert sampler.probability.fraction == Fraction(CUE_BID_COUNT, ALL_DEALS)


def test_an_old_cache_saying_past_the_budget_is_not_reused(tmp_path, monkeypatch):
    """The disk cache of the length matrices alone remembered the Cue-bid as -1 ("past the
    budget"); that entry is not read any more, and the new count is remembered."""
    from bridgeshape_mirror.deals.counting import cache
    from bridgeshape_mirror.deals.counting.scenario import exact_cross_count

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_DEALS_CACHE", raising=False)
    cue_bid = compiled(CUE_BID)
    cache.put_int("cross", cue_bid, -1)
    assert exact_cross_count(cue_bid) == CUE_BID_COUNT

    def not_again(compiled):
        raise AssertionError("counted again: the count was not remembered")

    monkeypatch.setattr(cp, "column_count", not_again)
    assert exact_cross_count(cue_bid) == CUE_BID_COUNT


def test_a_renaming_of_the_suits_reads_the_count_from_disk(tmp_path, monkeypatch):
    """The disk cache keeps a count under the representative of the scenario's renamings:
    the same auction over other suits (a new process: memory empty) counts nothing."""
    from bridgeshape_mirror.deals.counting import crossing, honour_placements, length_matrices
    from bridgeshape_mirror.deals.counting.scenario import exact_cross_count

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_DEALS_CACHE", raising=False)
    hearts = compiled("opener H:5+ hcp:11-15; responder H:3+ hcp:6-9; opp1 S:5+; opp2 C:2-4")
    spades = compiled("opener S:5+ hcp:11-15; responder S:3+ hcp:6-9; opp1 D:5+; opp2 H:2-4")
    count = exact_cross_count(hearts)
    assert count is not None and count == length_matrices.matrix_count(spades)

    def not_again(compiled):
        raise AssertionError("counted again: the renaming's count was not read from disk")

    for module, name in ((honour_placements, "scenario_count"), (crossing, "cross_count"), (cp, "column_count"), (length_matrices, "matrix_count")):
        monkeypatch.setattr(module, name, not_again)
    assert exact_cross_count(spades) == count


def test_past_the_budget_is_none_not_a_guess(monkeypatch):
    monkeypatch.setattr(cp, "MAX_WORK", 1.0)
    assert count(CUE_BID) is None
    monkeypatch.undo()
    # four wide HCP ranges: even with one of them as a band, 1,225 x 21**3 cells per half
    wide = "opener hcp:0-20 S:3+; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20"
    assert cp.ColumnCount(compiled(wide)).table_bytes > cp.MAX_TABLE_BYTES and count(wide) is None


def test_an_empty_scenario_counts_zero():
    assert count("opener S:7+ hcp:10+; opp1 S:7+ hcp:10+; responder hcp:5+") == 0
    assert count("opener hcp:25+ S:4-5 H:4-5; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:5+") == 0


# -- against the length matrices, on random scenarios of the covered kind -------------------


@st.composite
def three_hcp_seats(draw):
    """Opener, opp1 and responder with HCP rules around a random deal (never empty), every
    suit's length within a value or two at most seats (so the length matrices are within
    their budget), maybe a wildcard length or a fit."""
    order = draw(st.permutations(range(52)))
    seat_of = [position // 13 for position in np.argsort(order)]
    lengths = [[sum(1 for r in range(13) if seat_of[13 * k + r] == s) for k in range(4)] for s in range(4)]
    points = [sum(4 - r for k in range(4) for r in range(4) if seat_of[13 * k + r] == s) for s in range(4)]
    rules = []
    for s in range(4):
        tokens = []
        for k in draw(st.lists(st.integers(0, 3), min_size=3 if s < 3 else 0, max_size=4, unique=True)):
            below, above = draw(st.integers(0, 1)), draw(st.integers(0, 1))
            tokens.append(f"{'SHDC'[k]}:{max(lengths[s][k] - below, 0)}-{min(lengths[s][k] + above, 13)}")
        if s < 3:
            lo = max(points[s] - draw(st.integers(0, 5)), 0)
            tokens.append(draw(st.sampled_from([f"hcp:{lo}+", f"hcp:{lo}-{points[s] + draw(st.integers(0, 5))}"])))
        rules.append(" ".join(tokens))
    extra = draw(st.sampled_from(["", "wildcard", "fit", "shape"]))
    if extra == "wildcard":
        named = {tok[0] for tok in rules[3].split()}
        free = [k for k in range(4) if "SHDC"[k] not in named]
        if free:
            rules[3] += f" x:{max(lengths[3][k] for k in free)}+"
    elif extra == "fit":
        rules[2] += f" fit:{max(lengths[0][k] + lengths[2][k] for k in range(4))}+"
    elif extra == "shape":
        seat = draw(st.integers(0, 3))
        rules[seat] += f" shape:{shape_class(tuple(lengths[seat])).value}"
    return "; ".join(f"{role} {rule}" for role, rule in zip(("opener", "opp1", "responder", "opp2"), rules) if rule)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three_hcp_seats())
def test_agrees_with_the_length_matrices(text):
    exact = lm.matrix_count(compiled(text))
    assume(exact is not None)
    assert exact > 0
    assert count(text) == exact


# -- four seats with HCP rules: one seat's rule as a band on the sum of the other three ------

#: The sample's Cue-bid with a rule for the fourth seat: 21 x 17 x 11 x 8 cells as four axes
#: (tables of 294 MB), 17 x 21 x 8 with opener's rule as a band.
CUE_BID_FOUR = CUE_BID + "; opp2 hcp:0-7"
#: `CUE_BID_FOUR` by the length matrices with their budget raised (1.6 million matrices, minutes).
CUE_BID_FOUR_COUNT = 57432074609047982791187232
TAKE_OUT_FOUR = TAKE_OUT + "; opp2 hcp:0-8"

FOUR_SEATS = [
    "opener S:4 H:3 D:3 C:3 hcp:5-9; opp1 S:3-4 H:3-4 D:3 C:3 hcp:6+; responder S:3 H:3 D:3-4 C:3-4 hcp:0-4; "
    "opp2 hcp:20+",
    # open ranges everywhere: four capped axes are smaller than three exact ones and a band
    "opener S:4 H:3-4 D:3 C:2-3 hcp:9+; opp1 S:3-4 H:3 D:3-4 C:3 hcp:8+; responder S:3 H:3 D:3 C:3-4 hcp:6+; "
    "opp2 hcp:4+",
]
#: ... and those that take the length matrices seconds: a shape and a wildcard; per-suit HCP
#: rules on all four seats (the band's seat too: they mask the honours' owners, not cells).
SLOW_FOUR_SEATS = [
    TAKE_OUT_FOUR,
    "opener S:4-5 H:3-4 D:2-3 C:2-3 hcp:10-14; opp1 x:4 hcp:8-12; responder hcp:0-5 shape:balanced; opp2 S:2-4 hcp:9+",
    "opener S:4-5 H:3-4 D:2-3 C:2-3 hcp:10-14 Hhcp:2+; opp1 S:3-4 hcp:8+ Shcp:0-3; responder hcp:0-5 D:3-4 Dhcp:1-4; "
    "opp2 S:2-4 hcp:9+ Chcp:2+",
]


@pytest.mark.parametrize(
    "text", XHCP + FOUR_SEATS + [pytest.param(text, marks=pytest.mark.slow) for text in SLOW_FOUR_SEATS]
)
def test_equals_the_length_matrices_with_their_budget_raised(text, monkeypatch):
    """Wildcards with HCP, and four seats with HCP rules."""
    monkeypatch.setattr(lm, "MAX_MATRICES", 10**7)
    monkeypatch.setattr(lm, "MAX_WORK", 1e11)
    exact = lm.matrix_count(compiled(text))
    assert exact is not None and exact > 0
    assert count(text) == exact


def test_which_seat_is_a_band():
    """The band replaces the axis that shrinks the tables most, and only when it does."""
    assert cp.dropped_seat(compiled(CUE_BID)) is None  # three axes: nothing to drop
    cue = cp.ColumnCount(compiled(CUE_BID_FOUR))
    assert cue.tables.band is not None and cue.tables.cells == 17 * 21 * 8
    assert cue.table_bytes <= cp.MAX_TABLE_BYTES and cue.within(cp.MAX_WORK)
    take_out = cp.ColumnCount(compiled(TAKE_OUT_FOUR))
    assert take_out.tables.cells == 21 * 9 * 9 and take_out.table_bytes <= cp.MAX_TABLE_BYTES
    assert cp.dropped_seat(compiled(FOUR_SEATS[1])) is None


def test_the_band_box_sums_equal_a_direct_sum():
    """R[u] = sum of P[v] over the cells v such that every seat's total passes its own rule,
    the fourth seat holding what the three leave of the deck's 40 HCP: checked cell by cell
    against the rules as written, not against the narrowed axes."""
    rules = [(3, 9), (2, 6), (4, 40), (5, 12)]
    roles = ("opener", "opp1", "responder", "opp2")
    text = "; ".join(f"{role} hcp:{lo}-{hi}" if hi < 40 else f"{role} hcp:{lo}+" for role, (lo, hi) in zip(roles, rules))
    for dropped in range(4):
        counter = lm.LengthMatrixCount(compiled(text), dropped)
        assert counter.band is not None
        kept = [a.seat for a in counter.axes]
        values = np.indices(counter.shape).reshape(3, -1).T  # a cell's HCP per kept seat
        p = np.random.default_rng(dropped).integers(0, 2**30, (4, counter.cells))
        p[:, values.sum(axis=1) > 20] = 0  # no half holds more than 20 HCP
        expected = np.zeros_like(p)
        for u in range(counter.cells):
            if values[u].sum() > 20:
                continue
            totals = values[u] + values  # every v at once: the kept seats' totals
            ok = np.ones(counter.cells, dtype=bool)
            for i, seat in enumerate(kept):
                ok &= (totals[:, i] >= rules[seat][0]) & (totals[:, i] <= rules[seat][1])
            fourth = 40 - totals.sum(axis=1)
            ok &= (fourth >= rules[dropped][0]) & (fourth <= rules[dropped][1])
            expected[:, u] = p[:, ok].sum(axis=1)
        assert np.array_equal(counter.box_sums(p), expected)


@pytest.mark.slow
@pytest.mark.parametrize("text, exact", [(CUE_BID, CUE_BID_COUNT), (CUE_BID_FOUR, CUE_BID_FOUR_COUNT)], ids=["three", "four"])
def test_cue_bid_equals_the_length_matrices_with_their_budget_raised(text, exact, monkeypatch):
    """The constants the fast tests hold the column products to (the four-seat one: minutes)."""
    monkeypatch.setattr(lm, "MAX_MATRICES", 10**8)
    monkeypatch.setattr(lm, "MAX_WORK", 1e12)
    assert lm.matrix_count(compiled(text)) == exact


def test_cue_bid_with_four_seats_agrees_with_plain_dealing():
    exact = count(CUE_BID_FOUR)
    assert exact == CUE_BID_FOUR_COUNT

    def accept(length, points):
        ok = (points[:, 0] >= 12) & (points[:, 0] <= 21) & (length[:, 0, 1] >= 5)  # opener (N)
        ok &= (points[:, 1] >= 8) & (points[:, 1] <= 16) & (length[:, 1, 3] >= 5)  # opp1 (E)
        ok &= (points[:, 2] >= 10) & (length[:, 2, 1] >= 3)  # responder (S)
        return ok & (points[:, 3] <= 7)  # opp2 (W)

    agrees_with_plain_dealing(exact / ALL_DEALS, accept)


def test_four_seats_split_add_up():
    """The fourth seat's 0-7 split in 0-3 and 4-7 (another seat as the band, other cells),
    and both with 8+ make the three-seat Cue-bid."""
    parts = [count(CUE_BID + f"; opp2 hcp:{r}") for r in ("0-3", "4-7", "8+")]
    assert None not in parts
    assert parts[0] + parts[1] == CUE_BID_FOUR_COUNT and sum(parts) == CUE_BID_COUNT


def test_an_old_cache_saying_four_seats_are_past_the_budget_is_not_reused(tmp_path, monkeypatch):
    """Before the band, the cache remembered four seats with HCP rules as -1 (kind
    "cross-columns"); that entry is not read any more."""
    from bridgeshape_mirror.deals.counting import cache
    from bridgeshape_mirror.deals.counting.scenario import exact_cross_count

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_DEALS_CACHE", raising=False)
    four = compiled(CUE_BID_FOUR)
    cache.put_int("cross-columns", four, -1)
    assert exact_cross_count(four) == CUE_BID_FOUR_COUNT


def test_the_sampler_publishes_four_seats_exactly(monkeypatch):
    monkeypatch.setenv("BSM_DEALS_CACHE", "0")
    sampler = ScenarioSampler(dsl.parse_scenarios(CUE_BID_FOUR)[0])
    assert sampler.probability is not None and sampler.probability.exact
    assert sampler.probability.fraction == Fraction(CUE_BID_FOUR_COUNT, ALL_DEALS)


@st.composite
def four_hcp_seats(draw):
    """Every seat with an HCP rule around a random deal (never empty) and most suits' lengths
    within a value or two (the length matrices within their budget), maybe a per-suit HCP
    rule, a wildcard length, a fit or a shape."""
    order = draw(st.permutations(range(52)))
    seat_of = [position // 13 for position in np.argsort(order)]
    lengths = [[sum(1 for r in range(13) if seat_of[13 * k + r] == s) for k in range(4)] for s in range(4)]
    suit_points = [[sum(4 - r for r in range(4) if seat_of[13 * k + r] == s) for k in range(4)] for s in range(4)]
    rules = []
    for s in range(4):
        tokens = []
        for k in draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True)):
            below, above = draw(st.integers(0, 1)), draw(st.integers(0, 1))
            tokens.append(f"{'SHDC'[k]}:{max(lengths[s][k] - below, 0)}-{min(lengths[s][k] + above, 13)}")
        points = sum(suit_points[s])
        lo = max(points - draw(st.integers(0, 5)), 0)
        tokens.append(draw(st.sampled_from([f"hcp:{lo}+", f"hcp:{lo}-{points + draw(st.integers(0, 5))}"])))
        rules.append(" ".join(tokens))
    extra = draw(st.sampled_from(["", "suit hcp", "wildcard", "wildcard hcp", "fit", "shape"]))
    seat = draw(st.integers(0, 3))
    if extra == "wildcard hcp":
        named = {tok[0] for tok in rules[seat].split()}
        free = [k for k in range(4) if "SHDC"[k] not in named]
        if free:
            k = draw(st.sampled_from(free))
            rules[seat] += f" x:{lengths[seat][k]}+ xhcp:{max(suit_points[seat][k] - draw(st.integers(0, 2)), 0)}+"
    elif extra == "suit hcp":
        k = draw(st.integers(0, 3))
        rules[seat] += f" {'SHDC'[k]}hcp:{max(suit_points[seat][k] - draw(st.integers(0, 2)), 0)}+"
    elif extra == "wildcard":
        named = {tok[0] for tok in rules[seat].split()}
        free = [k for k in range(4) if "SHDC"[k] not in named]
        if free:
            rules[seat] += f" x:{max(lengths[seat][k] for k in free)}+"
    elif extra == "fit":
        rules[2] += f" fit:{max(lengths[0][k] + lengths[2][k] for k in range(4))}+"
    elif extra == "shape":
        rules[seat] += f" shape:{shape_class(tuple(lengths[seat])).value}"
    return "; ".join(f"{role} {rule}" for role, rule in zip(("opener", "opp1", "responder", "opp2"), rules))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(four_hcp_seats())
def test_four_seats_agree_with_the_length_matrices(text):
    exact = lm.matrix_count(compiled(text))
    assume(exact is not None)
    assert exact > 0
    assert count(text) == exact


# -- renamings of the suits: one count ------------------------------------------------------


def test_a_renaming_of_the_suits_counts_the_same():
    """Counted on each renaming itself (its own halves and masks), not on the representative."""
    from bridgeshape_mirror.deals.counting.symmetry import renamed

    for text in [XHCP[0], SHAPED_REFERENCE, TAKE_OUT + " fit:8+", REFERENCE_CASES[0]]:
        scenario = compiled(text)
        counts = {cp.ColumnCount(renamed(scenario, order)).total() for order in [(0, 1, 2, 3), (1, 3, 0, 2), (3, 2, 1, 0)]}
        assert len(counts) == 1, text


def test_a_renaming_is_counted_once_per_process():
    cp._canonical_count.cache_clear()
    first = count(CUE_BID)
    assert count(CUE_BID.replace("H:", "x").replace("C:", "D:").replace("x", "S:")) == first
    assert cp._canonical_count.cache_info().misses == 1


# -- alike halves: prepared once, half their pairs counted twice ----------------------------


@pytest.mark.parametrize("text", [TAKE_OUT_OVERCALLED, "opener hcp:12-21 x:5+; opp1 hcp:8-16 x:5+ xhcp:4+; responder hcp:6+"])
def test_alike_halves_count_what_two_halves_prepared_apart_count(text):
    counter = cp.ColumnCount(compiled(text))
    twins = 0
    for _, h1, h2, g1, g2 in counter.plans:
        a, b = counter._prepare_both(h1, g1, h2, g2)
        twins += b.columns is a.columns
        groups, rows = np.unique(g2, return_inverse=True)
        apart = replace(counter._prepare_groups(h2, groups), rows=rows.ravel())  # not the kept one
        assert apart.columns is not a.columns and np.array_equal(apart.columns, b.columns)
        assert counter.term_total(a, b) == counter.term_total(a, apart)
    assert twins >= 2  # every suit alike: each term's two halves


def test_a_half_that_terms_share_is_prepared_once(monkeypatch):
    """Two disjunctions over several suits (a fit of a minor, a wildcard) make four terms
    whose halves repeat: each distinct half and groups is prepared once, and the count is
    the one of halves prepared apart, term by term."""
    text = "fit:m8+ opener hcp:11-15 x:5+; opp1 x:5+ hcp:8+"
    counter = cp.ColumnCount(compiled(text))
    plans = counter.plans
    distinct = counter.k_bytes()
    prepare_groups, made = cp.ColumnCount._prepare_groups, []

    def counted(self, half, groups):
        made.append(groups)
        return prepare_groups(self, half, groups)

    monkeypatch.setattr(cp.ColumnCount, "_prepare_groups", counted)
    assert counter.within(cp.MAX_WORK)
    assert len(made) == len(distinct) < 2 * len(plans)

    def apart(self, half, meeting):
        groups, rows = np.unique(meeting, return_inverse=True)
        return replace(prepare_groups(self, half, groups), rows=rows.ravel())

    monkeypatch.setattr(cp.ColumnCount, "_prepare", apart)
    each = cp.ColumnCount(compiled(text))
    assert each.within(cp.MAX_WORK)
    assert counter.total() == each.total() == cross_count(compiled(text))


def test_a_half_past_the_k_bytes_is_refused_before_it_is_prepared(monkeypatch):
    """K's bytes are known from the plans (groups times `Half.width`): past `MAX_K_BYTES`
    the count is past the budget at once, nothing prepared (the length matrices, or the
    estimate, take over)."""
    text = "opener hcp:12-21 x:5+; opp1 hcp:8-16 x:5+ xhcp:4+; responder hcp:6+"
    counter = cp.ColumnCount(compiled(text))
    largest = max(len(np.unique(g)) * h.width * 8 for _, h1, h2, g1, g2 in counter.plans for h, g in ((h1, g1), (h2, g2)))
    monkeypatch.setattr(cp, "MAX_K_BYTES", largest - 1)
    monkeypatch.setattr(cp.ColumnCount, "_prepare_groups", lambda *args: pytest.fail("prepared past MAX_K_BYTES"))
    assert not counter.within(cp.MAX_WORK)
    assert cp._canonical_count.__wrapped__(canonical(compiled(text)), cp.MAX_WORK, cp.MAX_TABLE_BYTES) is None


def test_halves_past_the_k_bytes_together_are_refused_before_any_is_prepared(monkeypatch):
    """The halves are all prepared before the first is counted: their K together past
    `MAX_ALL_K_BYTES` (each within `MAX_K_BYTES`) is past the budget at once; at the bound,
    it is counted."""
    text = "fit:m8+ opener hcp:11-15 x:5+; opp1 x:5+ hcp:8+"
    counter = cp.ColumnCount(compiled(text))
    sizes = counter.k_bytes()
    assert len(sizes) > 1
    monkeypatch.setattr(cp, "MAX_ALL_K_BYTES", sum(sizes.values()) - 1)
    monkeypatch.setattr(cp.ColumnCount, "_prepare_groups", lambda *args: pytest.fail("prepared past MAX_ALL_K_BYTES"))
    assert max(sizes.values()) <= cp.MAX_K_BYTES
    assert not counter.within(cp.MAX_WORK)
    monkeypatch.undo()
    monkeypatch.setattr(cp, "MAX_ALL_K_BYTES", sum(sizes.values()))
    assert counter.within(cp.MAX_WORK)
    assert counter.total() == cross_count(compiled(text))


#: Wildcards with HCP at two seats of one half, fits of a class at both pairs, shapes: K of
#: 1.3 GB for 9,032 groups, 20-30 s of preparing (the fuzz benchmark's only time-out).
WIDE_K = (
    "fit:S6+ opp2 x:0-6 xhcp:4; opener D:1+ fit:M7+ H:2; opp1 xhcp:2-6 fit:M7+ x:3 shape:two_suiter; "
    "responder shape:two_suiter hcp:4+"
)
#: `WIDE_K` by the column products with no bound on K (0a69b43).
WIDE_K_COUNT = 65751830572715240480852220


@pytest.mark.slow
def test_a_scenario_past_the_k_bytes_is_counted_by_the_length_matrices():
    assert count(WIDE_K) is None
    sampler = ScenarioSampler(dsl.parse_scenarios(WIDE_K)[0])
    assert sampler.probability.exact
    assert sampler.probability.fraction * ALL_DEALS == lm.matrix_count(compiled(WIDE_K)) == WIDE_K_COUNT


def test_mirrored_pairs():
    assert cp._mirrored(np.array([0, 1, 2, 3]), np.array([3, 2, 1, 0]))
    assert not cp._mirrored(np.array([0, 1, 2]), np.array([1, 2, 0]))
    assert not cp._mirrored(np.array([0, 1]), np.array([0, 1]))


# -- terms that no length matrix passes -------------------------------------------------------

#: opp2's `x:4+` holds in every hand (13 cards in four suits), so its inclusion-exclusion term
#: "every suit 3 or shorter" holds no deal: its halves have no groups that meet. Beside a
#: wildcard with HCP (a mask: variants of K), such a term crashed every count.
ALWAYS_FOUR = "opp2 x:4+"
WILDCARD_WITH_HCP = "opener hcp:11-15 x:5+ xhcp:4+; opp1 x:5+"


def test_a_term_with_no_matrix_adds_nothing():
    counter = cp.ColumnCount(compiled(f"{WILDCARD_WITH_HCP}; {ALWAYS_FOUR}"))
    assert len(counter.plans) < len(counter.terms)  # the case at hand: empty terms left out
    assert count(f"{WILDCARD_WITH_HCP}; {ALWAYS_FOUR}") == count(WILDCARD_WITH_HCP) > 0


#: The scenario of the report, and its count (the length matrices' with their budget raised agree).
REPORTED = "opener hcp:11-15 x:5+ xhcp:4+; responder hcp:6-9 fit:8+; opp1 hcp:8-12 x:5+; opp2 hcp:5-9 x:4+"
REPORTED_COUNT = 536238600717660081060318048


def test_the_competitive_scenario_with_three_wildcards_deals():
    """The scenario of the report (three wildcards, one with HCP, and a fit): dealt, every
    deal checked by the independent predicate."""
    scenario = dsl.parse_scenarios(REPORTED)[0]
    outcome = deal_outcome(scenario, 1, 5, make_rng(7))
    assert outcome.no_deals_reason is None and len(outcome.deals) == 5
    assert outcome.probability.fraction == Fraction(REPORTED_COUNT, ALL_DEALS)  # exact, within the budget
    assert all(satisfies(parse_deal(pbn), scenario) for pbn in outcome.deals)


@pytest.mark.slow
def test_the_competitive_scenario_with_three_wildcards_equals_the_length_matrices(monkeypatch):
    """A second method on the reported scenario: the length matrices with their budget raised
    (about a minute) give the column products' count exactly."""
    text = "opener hcp:11-15 x:5+ xhcp:4+; responder hcp:6-9 fit:8+; opp1 hcp:8-12 x:5+; opp2 hcp:5-9 x:4+"
    monkeypatch.setattr(lm, "MAX_MATRICES", 10**8)
    monkeypatch.setattr(lm, "MAX_WORK", 1e13)
    counter = cp.ColumnCount(compiled(text))
    assert counter.within(1e12)
    assert counter.total() == lm.matrix_count(compiled(text)) == 536238600717660081060318048


def test_a_count_past_the_old_budget_is_not_read_from_an_old_cache(tmp_path, monkeypatch):
    """The reported scenario (work 1.1e10) was past the column products' budget of its day
    and remembered as -1 ("cross-band"); with the wider budget it is counted, not read."""
    from bridgeshape_mirror.deals.counting import cache
    from bridgeshape_mirror.deals.counting.symmetry import canonical
    from bridgeshape_mirror.deals.counting.scenario import exact_cross_count

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_DEALS_CACHE", raising=False)
    reported = compiled(REPORTED)
    cache.put_int("cross-band", canonical(reported), -1)
    assert exact_cross_count(reported) == REPORTED_COUNT
