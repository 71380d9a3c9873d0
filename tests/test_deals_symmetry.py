"""Renaming the suits of a scenario (`deals.counting.symmetry.renamed`, `canonical`): the renamed
scenario holds exactly the renamed deals, and every renaming has one representative."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.counting.symmetry import canonical, renamed

SCENARIOS = [
    "opener H:5+ hcp:12-21; opp1 C:5+ hcp:8-16; responder H:3+ hcp:10+",
    "opener hcp:12-21 x:5+; opp1 hcp:8-16 S:0-3 x:5+ xhcp:4+; responder hcp:6+ Dhcp:2+",
    "opener hcp:15-17 shape:balanced; opp1 hcp:8+ C:5+; responder hcp:0-7 fit:H8+",
    "opener H:5+ hcp:12+; responder fit:8+ D:2-3; opp2 x:6+ Shcp:0-3",
]


def compiled(text: str):
    return compile_scenario(dsl.parse_scenarios(text)[0])


def passes(scenario, lengths: np.ndarray, suit_hcp: np.ndarray) -> np.ndarray:
    """Which deals (`(n, 4 seats, 4 suits)` lengths and HCP) pass every seat rule and fit."""
    ok = np.ones(len(lengths), dtype=bool)
    for seat, rule in enumerate(scenario.seat_rules):
        ok &= rule.hand_ok(lengths[:, seat], suit_hcp[:, seat])
    for part in scenario.parts:
        a, b = part.seats
        for fit in part.fits:
            ok &= fit.ok(lengths[:, a] + lengths[:, b])
    return ok


def random_deals(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(15)
    seat = np.argsort(rng.random((n, 52)), axis=1).argsort(axis=1) // 13  # card -> seat
    points = np.tile(np.array([4, 3, 2, 1] + [0] * 9), 4)
    lengths = np.zeros((n, 4, 4), dtype=np.int64)
    suit_hcp = np.zeros((n, 4, 4), dtype=np.int64)
    for card in range(52):
        rows = np.arange(n)
        lengths[rows, seat[:, card], card // 13] += 1
        suit_hcp[rows, seat[:, card], card // 13] += points[card]
    return lengths, suit_hcp


def test_a_renamed_scenario_holds_the_renamed_deals():
    lengths, suit_hcp = random_deals(20_000)
    for text in SCENARIOS:
        scenario = compiled(text)
        before = passes(scenario, lengths, suit_hcp)
        assert before.sum() >= 10  # deals that pass, and the many that do not
        for order in [(1, 0, 2, 3), (3, 2, 1, 0), (2, 3, 0, 1), (1, 2, 3, 0)]:
            after = passes(renamed(scenario, order), lengths[:, :, order], suit_hcp[:, :, order])
            assert np.array_equal(before, after), (text, order)


def test_every_renaming_has_the_same_representative():
    for text in SCENARIOS:
        scenario = compiled(text)
        one = canonical(scenario)
        assert all(canonical(renamed(scenario, order)) == one for order in permutations(range(4)))
        assert one in {renamed(scenario, order) for order in permutations(range(4))}
    assert canonical(compiled(SCENARIOS[0])) == canonical(compiled("opener S:5+ hcp:12-21; opp1 D:5+ hcp:8-16; responder S:3+ hcp:10+"))
    assert canonical(compiled(SCENARIOS[0])) != canonical(compiled("opener S:5+ hcp:12-21; opp1 D:5+ hcp:8-16; responder H:3+ hcp:10+"))
