"""Exact draws from the counts (`deals.drawing.placement_draw`, `deals.drawing.length_draw`,
`deals.drawing.exact_choice`) and the sampler's use of them: uniform over every deal of small decks
(enumerated card by card), joint HCP and joint lengths of two seats against the exact counts
on the whole deck, against plain shuffle-and-reject through the sampler, every deal legal and
satisfying the scenario (`deals.rules.predicate`), determinism per seed, and biased variants that
the same tests catch."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.statistics import SMALL_DECKS, seat_bounds
from support.statistics import critical_value, rejection_sample

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.counting.column_products import column_count
from bridgeshape_mirror.deals.drawing.exact_choice import BigChoice, choose_big
from bridgeshape_mirror.deals.counting.honour_placements import placement_count
from bridgeshape_mirror.deals.drawing.length_draw import LengthDraw
from bridgeshape_mirror.deals.drawing.placement_draw import PlacementDraw
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS
from support.statistics import chi_square, compiled_of, dealt, inhomogeneous, sampler_of


def values_of(suits, honour_hcp, spots):
    return np.array([v for _ in range(suits) for v in honour_hcp + (0,) * spots])


def every_owner(suits, honour_hcp, spots, hand) -> list[tuple[int, ...]]:
    """Every deal of the small deck, as a seat-of-card tuple, enumerated card by card."""
    cards = suits * (len(honour_hcp) + spots)
    out = []

    def deal(left: tuple[int, ...], seat: int, owner: list[int]) -> None:
        if seat == 3:
            for c in left:
                owner[c] = 3
            out.append(tuple(owner))
            return
        for chosen in combinations(left, hand):
            for c in chosen:
                owner[c] = seat
            deal(tuple(c for c in left if c not in chosen), seat + 1, owner)

    deal(tuple(range(cards)), 0, [0] * cards)
    return out


def seat_hcp(owner: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.stack([((owner == s) * values).sum(axis=1) for s in range(4)], axis=1)


def in_bounds(hcp: np.ndarray, bounds) -> np.ndarray:
    return np.all([(hcp[:, s] >= lo) & (hcp[:, s] <= hi) for s, (lo, hi) in enumerate(bounds)], axis=0)


SMALL_BOUNDS = [(2, 6), (0, 2), (1, 6), (0, 6)]


@pytest.mark.parametrize("deck", SMALL_DECKS[:2], ids=["2x(2,1)+2", "2x(3,2,1)+1"])
def test_uniform_over_every_deal_of_a_small_deck(deck):
    """Goodness of fit over the deals themselves: each satisfying deal equally often."""
    suits, honour_hcp, spots, hand = deck
    values = values_of(suits, honour_hcp, spots)
    deals = np.array(every_owner(*deck))
    good = [tuple(d) for d in deals[in_bounds(seat_hcp(deals, values), SMALL_BOUNDS)]]
    draw = PlacementDraw(SMALL_BOUNDS, *deck)
    assert draw.count == len(good) == placement_count(SMALL_BOUNDS, *deck)
    n = 40 * len(good)
    drawn = draw.draw(n, make_rng(5))
    observed = Counter(map(tuple, drawn.tolist()))
    assert set(observed) <= set(good)  # only satisfying deals
    stat, df = chi_square(observed, {d: n / len(good) for d in good})
    assert stat <= critical_value(df)


def test_a_biased_draw_is_caught():
    """Leaving out the spots' weight (drawing honour counts by placements alone) is biased;
    the goodness of fit above catches it, so it can fail."""
    deck = SMALL_DECKS[0]
    suits, honour_hcp, spots, hand = deck
    values = values_of(suits, honour_hcp, spots)
    deals = np.array(every_owner(*deck))
    good = [tuple(d) for d in deals[in_bounds(seat_hcp(deals, values), SMALL_BOUNDS)]]
    draw = PlacementDraw(SMALL_BOUNDS, *deck)
    draw._choice = BigChoice([int(s) for s in draw._pairs.sums])
    n = 40 * len(good)
    observed = Counter(map(tuple, draw.draw(n, make_rng(5)).tolist()))
    stat, df = chi_square(observed, {d: n / len(good) for d in good})
    assert stat > critical_value(df)


@settings(max_examples=40, deadline=None)
@given(deck=st.sampled_from(SMALL_DECKS), data=st.data(), seed=st.integers(0, 2**32))
def test_small_decks_any_bounds_legal_and_satisfied(deck, data, seed):
    suits, honour_hcp, spots, hand = deck
    bounds = seat_bounds(data, deck)
    draw = PlacementDraw(bounds, *deck)
    assert draw.count == placement_count(bounds, *deck)
    if draw.count == 0:
        with pytest.raises(ValueError):
            draw.draw(1, make_rng(seed))
        return
    owner = draw.draw(200, make_rng(seed))
    assert ((owner[:, :, None] == np.arange(4)).sum(axis=1) == hand).all()  # legal: `hand` cards each
    assert in_bounds(seat_hcp(owner, values_of(suits, honour_hcp, spots)), bounds).all()


def test_joint_hcp_of_two_seats_follows_the_exact_counts():
    """The whole deck: opener's and opp1's HCP together against the counts with both pinned."""
    bounds = [(12, 21), (8, 16), (6, 10), (0, 7)]
    draw = PlacementDraw(bounds)
    n = 20_000
    hcp = seat_hcp(draw.draw(n, make_rng(17)), values_of(4, (4, 3, 2, 1), 9))
    assert in_bounds(hcp, bounds).all()
    expected = {}
    for a in range(12, 22):
        for b in range(8, 17):
            cell = placement_count([(a, a), (b, b)] + bounds[2:])
            if cell * n >= 5 * draw.count:
                expected[a, b] = n * cell / draw.count
    observed = Counter(zip(hcp[:, 0].tolist(), hcp[:, 1].tolist()))
    observed = Counter({k: v for k, v in observed.items() if k in expected})
    rest = n - sum(observed.values())
    stat, df = chi_square(observed + Counter({"rest": rest}), expected | {"rest": n - sum(expected.values())})
    assert stat <= critical_value(df)


def test_same_seed_same_deals_and_a_rare_scenario():
    bounds = [(32, 40), (8, 40), (0, 40), (0, 40)]  # probability 3.6e-10
    draw = PlacementDraw(bounds)
    a = draw.draw(500, make_rng(1, 2))
    assert (a == draw.draw(500, make_rng(1, 2))).all()
    assert not (a == draw.draw(500, make_rng(1, 3))).all()
    assert in_bounds(seat_hcp(a, values_of(4, (4, 3, 2, 1), 9)), bounds).all()


def test_big_choice_is_exact():
    """Weights far past int64, differing in their lowest bits: each index as often as its
    weight says (goodness of fit), and an index of weight 0 never."""
    weights = [3 * 2**80 + 1, 2**80, 0, 5 * 2**79 + 12345]
    n = 60_000
    counts = Counter(choose_big(weights, n, make_rng(3)).tolist())
    assert counts[2] == 0
    total = sum(weights)
    expected = {i: n * w / total for i, w in enumerate(weights) if w}
    stat, df = chi_square(counts, expected)
    assert stat <= critical_value(df)
    with pytest.raises(ValueError):
        BigChoice([0, 0])


# --- The sampler's path: when it draws from the exact counts, and what it gives ---


FOUR_SEATS = "opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10; opp2 hcp:0-7"
ONE_IN_TEN_BILLION = "opener hcp:33+; opp1 hcp:7+"  # probability 1.3e-10


def test_a_one_in_ten_billion_scenario_is_drawn_exactly():
    sampler = sampler_of(ONE_IN_TEN_BILLION)
    assert 1e-10 < sampler.probability.value < 2e-10
    rows = dealt(sampler, 300, 4)
    assert sampler.exact_draw is not None and len(rows) == 300
    scenario = dsl.parse_scenarios(ONE_IN_TEN_BILLION)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())


def test_few_deals_of_a_common_scenario_keep_to_rejection():
    """Ten deals at an acceptance rate of 0.19 are some 50 proposals: cheaper than the tables."""
    sampler = sampler_of(FOUR_SEATS)
    dealt(sampler, 10, 1)
    assert sampler.exact_draw is None
    dealt(sampler, 5000, 1)
    assert sampler.exact_draw is not None


def test_exact_path_is_uniform_against_rejection():
    """Homogeneity with plain shuffle-and-reject deals (numpy's Generator, nothing of
    `deals`), on the statistics of the uniformity tests."""
    n = 4000
    sampler = sampler_of(FOUR_SEATS)
    mine = dealt(sampler, n, 20261201)
    assert sampler.exact_draw is not None

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (
            (hcp[:, 0] >= 12) & (hcp[:, 0] <= 21) & (hcp[:, 1] >= 8) & (hcp[:, 1] <= 16)
            & (hcp[:, 2] >= 6) & (hcp[:, 2] <= 10) & (hcp[:, 3] <= 7)
        )

    failures = inhomogeneous(mine, rejection_sample(accept, n, seed=13))
    assert not failures, failures


def test_same_seed_same_deals_through_the_sampler():
    a = dealt(sampler_of(FOUR_SEATS), 6000, 9)
    b = dealt(sampler_of(FOUR_SEATS), 6000, 9)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, dealt(sampler_of(FOUR_SEATS), 6000, 10))


_HCP_BOUND = st.one_of(
    st.none(),
    st.tuples(st.integers(0, 25), st.integers(0, 12)).map(lambda t: f"{t[0]}-{t[0] + t[1]}"),
    st.integers(0, 30).map(lambda lo: f"{lo}+"),
)


@settings(max_examples=25, deadline=None)
@given(bounds=st.tuples(_HCP_BOUND, _HCP_BOUND, _HCP_BOUND, _HCP_BOUND), seed=st.integers(0, 2**32))
def test_random_hcp_scenarios_drawn_exactly_are_legal_and_satisfied(bounds, seed):
    import bridgeshape_mirror.deals.drawing.proposers as proposers
    from bridgeshape_mirror.deals.errors import Unsatisfiable

    roles = ("opener", "opp1", "responder", "opp2")
    text = "; ".join(f"{role} hcp:{b}" for role, b in zip(roles, bounds) if b is not None)
    if not text:
        return
    scenario = dsl.parse_scenarios(text)[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(proposers, "EXACT_DRAW_FROM", 0)
        try:
            sampler = ScenarioSampler(scenario)
        except Unsatisfiable:
            return
        rows = dealt(sampler, 50, seed)
    assert len(rows) == 50
    assert sampler.exact_draw is not None or len(sampler.parts) < 2 or sampler.expected_rate() == 1
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())  # legal too


RARE_BY_HCP = "opener hcp:16+ S:3+; opp1 hcp:13+ H:3+; responder hcp:0-5"  # core accepts 3.9%


def test_the_hcp_superset_replaces_a_core_that_rejects_most():
    sampler = sampler_of(RARE_BY_HCP)
    core_rate = sampler.expected_rate()
    assert core_rate < 0.05
    dealt(sampler, 10, 2)
    assert sampler.exact_draw is None  # a few deals: the core is cheaper
    rows = dealt(sampler, 3000, 2)
    assert sampler.exact_draw is not None and sampler.expected_rate() > 10 * core_rate
    scenario = dsl.parse_scenarios(RARE_BY_HCP)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())


def test_a_core_that_rejects_little_is_kept():
    """Benchmark C: its core accepts 9.7%, its HCP superset would accept 6.3%, so neither
    that nor the length superset is taken (the column products' term is: `test_column_draw`)."""
    sampler = sampler_of("opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8")
    dealt(sampler, 5000, 3)
    assert not isinstance(sampler.exact_draw, (PlacementDraw, LengthDraw))


def test_hcp_superset_and_rejection_is_uniform_against_shuffle_and_reject():
    n = 2000
    sampler = sampler_of(RARE_BY_HCP)
    mine = dealt(sampler, n, 20261202)
    assert sampler.exact_draw is not None

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (hcp[:, 0] >= 16) & (ln[:, 0, 0] >= 3) & (hcp[:, 1] >= 13) & (ln[:, 1, 1] >= 3) & (hcp[:, 2] <= 5)

    failures = inhomogeneous(mine, rejection_sample(accept, n, seed=14))
    assert not failures, failures


# --- The length superset (`deals.drawing.length_draw`) ---


def test_length_superset_counts_agree():
    """One seat's suit range against the hypergeometric formula; per-suit ranges of three
    seats (the superset is then the scenario) against the column products' count."""
    spades = sum(comb(13, k) * comb(39, 13 - k) for k in range(8, 14)) * comb(39, 13) * comb(26, 13)
    assert LengthDraw(compiled_of("opener S:8+")).count == spades
    text = "opener S:5+ H:0-3; opp1 H:5+ C:1-4; responder D:2-4"
    assert LengthDraw(compiled_of(text)).count == column_count(compiled_of(text))
    assert LengthDraw(compiled_of("opener S:7+; opp1 S:7+")).count == 0


def joint_lengths_fit(draw: LengthDraw, n: int, seed: int) -> tuple[float, int]:
    """Goodness of fit of (opener's spades, opp1's hearts) in `n` deals of "opener S:6+;
    opp1 H:6+" against its column products' counts with both lengths pinned."""
    owner = draw.draw(n, make_rng(seed))
    spades = (owner[:, 0:13] == 0).sum(axis=1)
    hearts = (owner[:, 13:26] == 1).sum(axis=1)
    assert (spades >= 6).all() and (hearts >= 6).all()
    expected = {}
    for s in range(6, 14):
        for h in range(6, 14):
            cell = column_count(compiled_of(f"opener S:{s}; opp1 H:{h}"))
            if cell * n >= 5 * draw.count:
                expected[s, h] = n * cell / draw.count
    observed = Counter(k for k in zip(spades.tolist(), hearts.tolist()) if k in expected)
    observed["rest"] = n - sum(observed.values())
    return chi_square(observed, expected | {"rest": n - sum(expected.values())})


def test_length_superset_follows_the_exact_counts_and_a_biased_draw_fails():
    draw = LengthDraw(compiled_of("opener S:6+; opp1 H:6+"))
    stat, df = joint_lengths_fit(draw, 20_000, 7)
    assert stat <= critical_value(df)
    biased = LengthDraw(compiled_of("opener S:6+; opp1 H:6+"))
    biased._choice = BigChoice([1] * len(biased._g1))  # groups uniformly, not by their ways
    stat, df = joint_lengths_fit(biased, 20_000, 7)
    assert stat > critical_value(df)


def test_length_superset_deals_satisfy_pure_length_scenarios():
    text = "opener S:5+ H:0-3; opp1 H:5+ C:1-4; responder D:2-4"
    scenario = dsl.parse_scenarios(text)[0]
    rows = LengthDraw(compiled_of(text)).draw(500, make_rng(11))
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())


RARE_BY_LENGTHS = "opener S:6+ hcp:8+; opp1 H:6+ hcp:6+"


def test_length_superset_and_rejection_is_uniform_against_shuffle_and_reject(monkeypatch):
    import bridgeshape_mirror.deals.drawing.proposers as proposers

    monkeypatch.setattr(proposers, "PLACEMENTS_BELOW_RATE", 1.0)  # a cost rule, not one of correctness
    n = 2000
    sampler = sampler_of(RARE_BY_LENGTHS)
    mine = dealt(sampler, n, 20261203)
    assert isinstance(sampler.exact_draw, LengthDraw)
    scenario = dsl.parse_scenarios(RARE_BY_LENGTHS)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in mine.tolist())

    def accept(ln, hc):
        hcp = hc.sum(axis=2)
        return (ln[:, 0, 0] >= 6) & (hcp[:, 0] >= 8) & (ln[:, 1, 1] >= 6) & (hcp[:, 1] >= 6)

    failures = inhomogeneous(mine, rejection_sample(accept, n, seed=15))
    assert not failures, failures


def test_a_scenario_rare_by_its_lengths_gets_the_length_superset():
    sampler = sampler_of("opener S:8+ hcp:10+; opp1 H:8+ hcp:8+")  # 2e-6; its core accepts 0.29%
    rows = dealt(sampler, 2000, 5)
    assert isinstance(sampler.exact_draw, LengthDraw) and sampler.expected_rate() > 0.3
    scenario = dsl.parse_scenarios("opener S:8+ hcp:10+; opp1 H:8+ hcp:8+")[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())


_LENGTH_RANGE = st.one_of(
    st.none(),
    st.tuples(st.sampled_from("SHDC"), st.integers(0, 9), st.integers(0, 4)).map(lambda t: f"{t[0]}:{t[1]}-{t[1] + t[2]}"),
)


@settings(max_examples=25, deadline=None)
@given(rules=st.lists(st.tuples(_LENGTH_RANGE, _LENGTH_RANGE), min_size=4, max_size=4), seed=st.integers(0, 2**32))
def test_random_length_scenarios_drawn_exactly_are_legal_and_satisfied(rules, seed):
    """Any per-suit length ranges on the four seats (the superset is then the scenario),
    through the sampler with the cost rules off."""
    import bridgeshape_mirror.deals.drawing.proposers as proposers
    from bridgeshape_mirror.deals.errors import Unsatisfiable

    roles = ("opener", "opp1", "responder", "opp2")
    text = "; ".join(
        f"{role} {' '.join(r for r in pair if r)}" for role, pair in zip(roles, rules) if any(pair)
    )
    if not text:
        return
    try:
        scenario = dsl.parse_scenarios(text)[0]
    except dsl.InvalidDsl:
        return  # the same suit twice for one seat
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(proposers, "EXACT_DRAW_FROM", 0)
        patch.setattr(proposers, "PLACEMENTS_BELOW_RATE", 2.0)
        try:
            sampler = ScenarioSampler(scenario)
        except Unsatisfiable:
            return
        rows = dealt(sampler, 40, seed)
    assert len(rows) == 40
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())
    if sampler.probability is not None and len(sampler.parts) == 2 and sampler.exact_draw is not None:
        assert Fraction(sampler.exact_draw.count, ALL_DEALS) >= sampler.probability.fraction
