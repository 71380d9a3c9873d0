"""Exact counts of HCP-only scenarios by honour placements (`deals.counting.honour_placements`):
against every deal of small decks, the other exact methods where they run, the whole deck,
splits of a range, and plain uniform dealing."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.counting.crossing import cross_count
from bridgeshape_mirror.deals.counting.honour_placements import hcp_only, placement_count, scenario_count
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS
from support.statistics import SMALL_DECKS, seat_bounds

FOUR_SEATS = "opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10; opp2 hcp:0-7"


def compiled(text: str):
    return compile_scenario(dsl.parse_scenarios(text)[0])


@cache
def every_deal(suits: int, honour_hcp: tuple[int, ...], spots: int, hand: int) -> np.ndarray:
    """`(deals, 4)`: each seat's HCP in every deal of the small deck, enumerated card by card."""
    values = [v for _ in range(suits) for v in honour_hcp + (0,) * spots]
    cards = range(len(values))
    rows = []

    def deal(left: frozenset, seat: int, points: tuple[int, ...]) -> None:
        if seat == 3:
            rows.append(points + (sum(values[c] for c in left),))
            return
        for hand_cards in combinations(sorted(left), hand):
            deal(left - set(hand_cards), seat + 1, points + (sum(values[c] for c in hand_cards),))

    deal(frozenset(cards), 0, ())
    return np.array(rows)


@settings(max_examples=60, deadline=None)
@given(deck=st.sampled_from(SMALL_DECKS), data=st.data())
def test_matches_every_deal_of_small_decks(deck, data):
    suits, honour_hcp, spots, hand = deck
    bounds = seat_bounds(data, deck)
    points = every_deal(*deck)
    expected = int(np.all([(points[:, s] >= lo) & (points[:, s] <= hi) for s, (lo, hi) in enumerate(bounds)], axis=0).sum())
    assert placement_count(bounds, suits, honour_hcp, spots, hand) == expected


def test_the_reference_can_fail():
    """The brute force is not the method in disguise: a wrong HCP table changes the count."""
    deck = SMALL_DECKS[0]
    points = every_deal(*deck)
    expected = int(((points[:, 0] >= 2) & (points[:, 1] <= 1)).sum())
    bounds = [(2, 6), (0, 1), (0, 6), (0, 6)]
    assert placement_count(bounds, *deck) == expected
    assert placement_count(bounds, deck[0], (2, 0), deck[2], deck[3]) != expected


def test_the_whole_deck_and_free_seats():
    assert placement_count([(0, 40)] * 4) == ALL_DEALS
    assert placement_count([(0, 37)] * 4) == ALL_DEALS  # no hand holds more than 37
    assert placement_count([(38, 40), (0, 40), (0, 40), (0, 40)]) == 0


@pytest.mark.parametrize(
    "text",
    [
        "opener hcp:12-21; opp1 hcp:8-16",
        "opener hcp:15-17; responder hcp:8+",
        "opener hcp:12+; opp2 hcp:0-5",
        "opp1 hcp:10-12; responder hcp:3-7",
    ],
)
def test_agrees_with_crossing(text):
    """Two seats with HCP rules: `deals.counting.crossing` counts them by pairs of length vectors."""
    c = compiled(text)
    assert hcp_only(c) and scenario_count(c) == cross_count(c)


def test_splitting_ranges_adds_up():
    parts = [scenario_count(compiled(FOUR_SEATS.replace("opp2 hcp:0-7", f"opp2 hcp:{r}"))) for r in ("0-3", "4-7")]
    assert parts[0] + parts[1] == scenario_count(compiled(FOUR_SEATS))
    whole = scenario_count(compiled("opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10"))
    rest = [scenario_count(compiled(FOUR_SEATS.replace("opp2 hcp:0-7", r))) for r in ("opp2 hcp:0-7", "opp2 hcp:8+")]
    assert sum(rest) == whole


def test_only_hcp_totals_are_covered():
    for text in ("opener hcp:12-21 S:5+; opp1 hcp:8+", "opener hcp:12+ shape:balanced; opp1 hcp:8+",
                 "opener hcp:12+ Shcp:3+; opp1 hcp:8+", "opener hcp:12+; responder fit:8+; opp1 hcp:8+",
                 "opener hcp:12+ x:5+; opp1 hcp:8+"):
        assert not hcp_only(compiled(text)) and scenario_count(compiled(text)) is None


def test_four_seats_are_exact_and_agree_with_plain_dealing():
    """The issue's four-seat scenario: exact in the sampler, and within 4.5 sd of 400,000
    deals dealt independently with numpy."""
    sampler = ScenarioSampler(dsl.parse_scenarios(FOUR_SEATS)[0])
    assert sampler.exact
    exact = sampler.probability.fraction
    assert exact == Fraction(scenario_count(compiled(FOUR_SEATS)), ALL_DEALS)
    gen = np.random.default_rng(20261201)
    hcp_of_rank = np.array([4, 3, 2, 1] + [0] * 9)
    hits = n = 0
    for _ in range(4):
        owner = gen.permuted(np.tile(np.repeat(np.arange(4, dtype=np.int8), 13), (100_000, 1)), axis=1)
        held = owner.reshape(-1, 1, 4, 13) == np.arange(4).reshape(1, 4, 1, 1)
        points = (held * hcp_of_rank).sum(axis=(2, 3))
        ok = (points[:, 0] >= 12) & (points[:, 0] <= 21) & (points[:, 1] >= 8) & (points[:, 1] <= 16)
        ok &= (points[:, 2] >= 6) & (points[:, 2] <= 10) & (points[:, 3] <= 7)
        hits += int(ok.sum())
        n += len(owner)
    p = float(exact)
    assert abs(hits / n - p) < 4.5 * (p * (1 - p) / n) ** 0.5, (hits / n, p)
