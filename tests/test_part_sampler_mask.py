"""`part_sampler._partner_cards`' bound by the 13-bit mask of free priorities
(`_nth_lowest_bit`) against the sort it replaced: the same cards for b in every row."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.deals.drawing.part_sampler import _nth_lowest_bit


def test_nth_lowest_bit_table_against_python():
    table = _nth_lowest_bit().reshape(1 << 13, 14)
    for mask in range(1 << 13):
        bits = [b for b in range(13) if mask >> b & 1]
        want = [bits[k] if k < len(bits) else 13 for k in range(14)]
        assert table[mask].tolist() == want


def _taken_by_sort(priority: np.ndarray, free: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """The old way: held priorities + 0x70, rows sorted, the (lb+1)-th lowest (100 for 13)."""
    keyed = priority.astype(np.int16) | np.where(free, 0, 0x70)
    ordered = np.sort(keyed, axis=1)
    bound = ordered[np.arange(len(lb)), np.minimum(lb, 12)]
    bound[lb == 13] = 100
    return keyed < bound[:, None]


def _taken_by_mask(priority: np.ndarray, free: np.ndarray, lb: np.ndarray) -> np.ndarray:
    mask = (free.astype(np.int64) << priority.astype(np.int64)).sum(axis=1)  # distinct bits
    bound = _nth_lowest_bit().take(mask * 14 + lb)
    return (priority < bound[:, None]) & free


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300))
def test_mask_bound_takes_the_cards_of_the_sort(seed, rows):
    gen = np.random.default_rng(seed)
    priority = np.argsort(gen.random((rows, 13)), axis=1).astype(np.uint16)  # a permutation a row
    free = gen.random((rows, 13)) < gen.random((rows, 1))  # from none to all free
    lb = np.array([gen.integers(0, k + 1) for k in free.sum(axis=1)])  # 0 .. every free card
    lb[::7] = free.sum(axis=1)[::7]  # b takes every free card (13 when all are)
    by_sort, by_mask = _taken_by_sort(priority, free, lb), _taken_by_mask(priority, free, lb)
    assert np.array_equal(by_sort, by_mask)
    assert (by_mask.sum(axis=1) == lb).all()
