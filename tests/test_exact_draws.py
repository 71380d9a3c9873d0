"""Exact draws from the counts (`deals.placement_draw`, `deals.exact_choice`): uniform over
every deal of small decks (enumerated card by card), the joint HCP of two seats against the
exact counts on the whole deck, every deal legal and satisfying its bounds, determinism per
seed, and a biased variant that the same test catches."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_deals_honour_placements import SMALL_DECKS
from test_deals_uniformity import critical_value

from deals.exact_choice import BigChoice, choose_big
from deals.honour_placements import placement_count
from deals.placement_draw import PlacementDraw
from deals.rng import make_rng


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


def chi_square(observed: Counter, expected: dict) -> tuple[float, int]:
    stat = sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())
    return stat, len(expected) - 1


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
    draw._choice = BigChoice([int(s) for s in draw._sums])
    n = 40 * len(good)
    observed = Counter(map(tuple, draw.draw(n, make_rng(5)).tolist()))
    stat, df = chi_square(observed, {d: n / len(good) for d in good})
    assert stat > critical_value(df)


@settings(max_examples=40, deadline=None)
@given(deck=st.sampled_from(SMALL_DECKS), data=st.data(), seed=st.integers(0, 2**32))
def test_small_decks_any_bounds_legal_and_satisfied(deck, data, seed):
    suits, honour_hcp, spots, hand = deck
    top = sum(honour_hcp) * suits
    bounds = []
    for _ in range(4):
        lo = data.draw(st.integers(0, top))
        bounds.append((lo, data.draw(st.integers(lo, top))))
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
