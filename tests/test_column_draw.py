"""Exact draws from the column products' positive term with its HCP cells (`deals.drawing.column_draw`)
and the sampler's use of them: counts against `deals.counting.column_products`, goodness of fit of
joint HCP and of a suit's lengths against exact counts, homogeneity against plain
shuffle-and-reject, every deal legal and satisfying the scenario (`deals.rules.predicate`),
random covered scenarios, determinism per seed, and biased variants that the same tests
catch."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.statistics import critical_value, homogeneity, rejection_sample
from support.statistics import chi_square, compiled_of, dealt, inhomogeneous, sampler_of

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.drawing.column_draw import ColumnDraw, column_draw
from bridgeshape_mirror.deals.counting.column_products import column_count, column_terms
from bridgeshape_mirror.deals.drawing.exact_choice import GroupedWeights
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.drawing.rng import make_rng
from support.statistics import drawn_by

HCP = np.array([4, 3, 2, 1] + [0] * 9)

#: No disjunction over several suits: the positive term is the scenario.
COVERED = [
    "opener hcp:12-14 S:4+; opp1 hcp:8+ H:3-5; responder hcp:0-9",
    "opener S:7+ hcp:20+; opp1 H:7+ hcp:12+",
    "opener hcp:11-15 shape:balanced; opp1 hcp:10+ C:5+",
    "opener hcp:15-17 S:0-4; opp1 hcp:8-14; responder hcp:6-10; opp2 hcp:0-9",  # the band
    "opener hcp:10+ Shcp:4+; opp1 S:5+ hcp:6-12 Hhcp:0-2",  # per-suit HCP
]


def seat_hcp(owner: np.ndarray, seat: int) -> np.ndarray:
    return ((owner == seat) * np.tile(HCP, 4)).sum(axis=1)


@pytest.mark.parametrize("text", COVERED)
def test_the_positive_term_is_the_count_and_its_deals_satisfy(text):
    compiled = compiled_of(text)
    draw = ColumnDraw(compiled)
    assert draw.count == column_count(compiled)
    rows = draw.draw(400, make_rng(3))
    assert ((rows >= 0) & (rows < 4)).all()
    assert all((np.bincount(row, minlength=4) == 13).all() for row in rows)
    scenario = dsl.parse_scenarios(text)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())


def test_disjunctions_are_dropped_from_the_positive_term():
    text = "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"
    compiled = compiled_of(text)
    draw = ColumnDraw(compiled)
    assert len(column_terms(compiled)) == 2 and draw.count > column_count(compiled)
    rows = draw.draw(2000, make_rng(4))
    scenario = dsl.parse_scenarios(text)[0]
    kept = [satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist()]
    # every deal passes what the positive term keeps; the wildcard fails now and then
    weaker = dsl.parse_scenarios("opener hcp:12-21; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8")[0]
    assert all(satisfies(Deal.from_seat_of_card(row), weaker) for row in rows.tolist())
    assert 0.4 < sum(kept) / len(kept) < 0.8  # count / positive term = 0.60


FIT = "opener hcp:10-14 S:4+; opp1 hcp:9-12 H:3-5"


@functools.cache
def joint_counts() -> dict[tuple[int, int], int]:
    return {
        (h, k): column_count(compiled_of(f"opener hcp:{h} S:4+; opp1 hcp:9-12 H:{k}"))
        for h in range(10, 15)
        for k in range(3, 6)
    }


def joint_fit(draw: ColumnDraw, n: int, seed: int) -> tuple[float, int]:
    """Goodness of fit of (opener's HCP, opp1's hearts) in `n` deals of `FIT` against the
    column products' counts with both pinned."""
    owner = draw.draw(n, make_rng(seed))
    hcp = seat_hcp(owner, 0)
    hearts = (owner[:, 13:26] == 1).sum(axis=1)
    expected = {key: n * cell / draw.count for key, cell in joint_counts().items()}
    observed = Counter(zip(hcp.tolist(), hearts.tolist()))
    assert set(observed) <= set(expected)
    return chi_square(observed, expected)


def test_joint_hcp_and_lengths_follow_the_exact_counts_and_biased_draws_fail(monkeypatch):
    import bridgeshape_mirror.deals.drawing.column_draw as module

    draw = ColumnDraw(compiled_of(FIT))
    stat, df = joint_fit(draw, 20_000, 7)
    assert stat <= critical_value(df)
    # the pair of columns drawn uniformly among those the honour counts allow, not by spots
    with monkeypatch.context() as patch:
        flat = (module.spot_ways() > 0).astype(np.int64)
        patch.setattr(module, "spot_ways", lambda: flat)
        stat, df = joint_fit(ColumnDraw(compiled_of(FIT)), 20_000, 7)
    assert stat > critical_value(df)
    # the second half's box sums dropped: the first half's cell drawn by A alone
    biased = ColumnDraw(compiled_of(FIT))
    biased._cum = np.cumsum((biased._A[biased._ra] * (biased._R[biased._rb] > 0)).ravel())
    biased._shift = 0
    stat, df = joint_fit(biased, 20_000, 7)
    assert stat > critical_value(df)


def opp_hcp_fit(draw: ColumnDraw, n: int, seed: int) -> tuple[float, int]:
    """Goodness of fit of opp1's HCP and responder's HCP (the band's seats) in the four-seat
    scenario of `COVERED` against its exact counts."""
    owner = draw.draw(n, make_rng(seed))
    expected = {}
    for h in range(8, 15):
        cell = column_count(compiled_of(f"opener hcp:15-17 S:0-4; opp1 hcp:{h}; responder hcp:6-10; opp2 hcp:0-9"))
        if cell * n >= 5 * draw.count:
            expected[h] = n * cell / draw.count
    observed = Counter(h for h in seat_hcp(owner, 1).tolist() if h in expected)
    rest = n - sum(expected.values())
    if rest > 1e-9 * n:
        observed["rest"], expected["rest"] = n - sum(observed.values()), rest
    return chi_square(observed, expected)


def test_the_band_follows_the_exact_counts():
    draw = ColumnDraw(compiled_of(COVERED[3]))
    assert draw.tables.band is not None
    stat, df = opp_hcp_fit(draw, 10_000, 8)
    assert stat <= critical_value(df)


def test_uniform_against_shuffle_and_reject():
    text = "opener hcp:11+ S:4+; opp1 hcp:8+ D:2-5; responder hcp:0-12"
    n = 3000
    mine = ColumnDraw(compiled_of(text)).draw(n, make_rng(20261204))

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (hcp[:, 0] >= 11) & (ln[:, 0, 0] >= 4) & (hcp[:, 1] >= 8) & (ln[:, 1, 2] >= 2) & (ln[:, 1, 2] <= 5) & (hcp[:, 2] <= 12)

    failures = inhomogeneous(mine, rejection_sample(accept, n, seed=17))
    assert not failures, failures


def honour_owners(owner: np.ndarray, suit: int) -> np.ndarray:
    """Who holds A, K, Q and J of `suit`: one of 256 codes per deal."""
    return (owner[:, 13 * suit : 13 * suit + 4].astype(np.int64) * np.array([1, 4, 16, 64])).sum(axis=1)


def test_honour_owners_against_shuffle_and_reject_and_a_biased_draw_fails():
    """Who holds a suit's honours, 20,000 deals against shuffle-and-reject: the statistic
    that sees a draw dropping the honour entries' owner counts (which joint HCP and lengths
    do not: the cells are still drawn right)."""
    text = "opener hcp:11+ S:4+; opp1 hcp:8+ D:2-5; responder hcp:0-12"
    n = 20_000

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (hcp[:, 0] >= 11) & (ln[:, 0, 0] >= 4) & (hcp[:, 1] >= 8) & (ln[:, 1, 2] >= 2) & (ln[:, 1, 2] <= 5) & (hcp[:, 2] <= 12)

    theirs = honour_owners(rejection_sample(accept, n, seed=17), 0)
    stat, df = homogeneity(honour_owners(ColumnDraw(compiled_of(text)).draw(n, make_rng(5)), 0), theirs)
    assert stat <= critical_value(df)
    biased = ColumnDraw(compiled_of(text))
    for half in biased._halves:
        half._within = GroupedWeights(half._slot_code, np.ones_like(half._ways))  # each entry as if one owner tuple had it
    stat, df = homogeneity(honour_owners(biased.draw(n, make_rng(5)), 0), theirs)
    assert stat > critical_value(df)


def test_spot_holders_against_shuffle_and_reject_and_a_biased_draw_fails(monkeypatch):
    """Who holds the two of spades and the nine of hearts (spots, dealt from the table of
    every dealing of a suit's nine), 20,000 deals against shuffle-and-reject; the first
    dealing of each group always taken is caught."""
    import bridgeshape_mirror.deals.drawing.column_draw as module

    text = "opener hcp:11+ S:4+; opp1 hcp:8+ D:2-5; responder hcp:0-12"
    n = 20_000

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (hcp[:, 0] >= 11) & (ln[:, 0, 0] >= 4) & (hcp[:, 1] >= 8) & (ln[:, 1, 2] >= 2) & (ln[:, 1, 2] <= 5) & (hcp[:, 2] <= 12)

    def spots(owner):
        return owner[:, 12].astype(np.int64) * 4 + owner[:, 13 + 5]  # S2, H9

    theirs = spots(rejection_sample(accept, n, seed=17))
    stat, df = homogeneity(spots(ColumnDraw(compiled_of(text)).draw(n, make_rng(5))), theirs)
    assert stat <= critical_value(df)
    rows, first, _ = module._spot_dealings()
    with monkeypatch.context() as patch:
        patch.setattr(module, "_spot_dealings", lambda: (rows, first, np.ones_like(first)))
        stat, df = homogeneity(spots(ColumnDraw(compiled_of(text)).draw(n, make_rng(5))), theirs)
    assert stat > critical_value(df)


def test_same_seed_same_deals():
    draw = ColumnDraw(compiled_of(COVERED[0]))
    a, b = draw.draw(500, make_rng(9)), ColumnDraw(compiled_of(COVERED[0])).draw(500, make_rng(9))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, draw.draw(500, make_rng(10)))


RARE = "opener S:7+ hcp:20+; opp1 H:7+ hcp:12+"  # about 1.3e-7


def test_a_scenario_rare_by_hcp_and_lengths_is_drawn_from_the_column_products():
    drawn_by(RARE, ColumnDraw, 2e-7)


def test_many_deals_of_benchmark_c_take_it_and_ten_do_not():
    text = "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"
    sampler = sampler_of(text)
    dealt(sampler, 10, 1)
    assert sampler.exact_draw is None
    sampler = sampler_of(text)
    rows = dealt(sampler, 5000, 1)
    assert isinstance(sampler.exact_draw, ColumnDraw) and not sampler.proposes_scenario
    scenario = dsl.parse_scenarios(text)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows[:500].tolist())


def test_not_counted_by_the_column_products_is_not_drawn():
    assert column_draw(compiled_of("opener x:5+ xhcp:4+ hcp:12+; opp1 hcp:10+")) is not None  # counted: drawn
    assert column_draw(compiled_of("opener hcp:12-21; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20")) is None


_RANGE = st.tuples(st.integers(0, 20), st.integers(0, 14)).map(lambda t: (t[0], min(37, t[0] + t[1])))
_LENGTH = st.one_of(
    st.none(),
    st.tuples(st.sampled_from("SHDC"), st.integers(0, 8), st.integers(0, 5)).map(lambda t: f"{t[0]}:{t[1]}-{t[1] + t[2]}"),
)


@settings(max_examples=15, deadline=None)
@given(
    rules=st.lists(st.tuples(st.one_of(st.none(), _RANGE), _LENGTH), min_size=4, max_size=4),
    wildcard=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_random_covered_scenarios_are_legal_and_satisfied(rules, wildcard, seed):
    """HCP ranges and suit ranges on any seats, maybe a wildcard: drawn deals are legal,
    pass the positive term's rules, and the scenario when it has no wildcard."""
    roles = ("opener", "opp1", "responder", "opp2")

    def text_of(with_wildcard: bool) -> str:
        parts = []
        for role, (hcp, length) in zip(roles, rules):
            words = ([f"hcp:{hcp[0]}-{hcp[1]}"] if hcp else []) + ([length] if length else [])
            words += ["x:5+"] if with_wildcard and role == "opener" else []
            parts += [f"{role} {' '.join(words)}"] if words else []
        return "; ".join(parts)

    text = text_of(wildcard)
    if not text:
        return
    try:
        scenario = dsl.parse_scenarios(text)[0]
    except dsl.InvalidDsl:
        return
    compiled = compiled_of(text)
    draw = column_draw(compiled)
    if draw is None or draw.count == 0:
        return
    rows = draw.draw(30, make_rng(seed))
    assert all((np.bincount(row, minlength=4) == 13).all() for row in rows)
    if text_of(False):
        weaker = dsl.parse_scenarios(text_of(False))[0]
        assert all(satisfies(Deal.from_seat_of_card(row), weaker) for row in rows.tolist())
    if not wildcard:
        assert draw.count == column_count(compiled)
        assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())
