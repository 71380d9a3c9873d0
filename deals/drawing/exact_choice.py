"""Exact weighted draws among weights that are Python ints, too large for int64.

`choose_big(weights, n, rng)` draws `n` indices, each with probability exactly
weight / sum(weights). The weights are rounded up to multiples of 2**s, with s the least
shift that keeps their total inside int64; an index i is drawn by the rounded weights
(`Rng.choose_cumulative`) and kept with probability W_i / (ceil(W_i / 2**s) * 2**s) by an
exact comparison U < W_i, where U is uniform below the rounded weight and is made of two
int64 draws (its quotient and remainder by 2**s). Overall, i comes out with probability
W_i / (2**s * sum of the rounded weights): proportional to W_i. A rejected index is drawn
again; the rejections are at most (number of weights) in 2**62 of the draws.
"""

from __future__ import annotations

import numpy as np

from .rng import Rng

#: The rounded total stays below this (leaving room for the rounding of every weight).
_TOTAL_BITS = 62


class BigChoice:
    """The prepared tables of one list of non-negative Python-int weights (total > 0)."""

    def __init__(self, weights: list[int]):
        total = sum(weights)
        if total <= 0 or min(weights) < 0:
            raise ValueError("weights must be non-negative with a positive total")
        self.shift = max(0, total.bit_length() + max(len(weights), 1).bit_length() - _TOTAL_BITS)
        if self.shift > 62:
            raise ValueError("weights past 2**124 are not supported")
        unit = 1 << self.shift
        rounded = [-(-w // unit) for w in weights]
        self.rounded = np.array(rounded, dtype=np.int64)
        self.cum = np.cumsum(self.rounded)
        # W_i = high_i * 2**s + low_i, compared against U = q * 2**s + r
        self.high = np.array([w >> self.shift for w in weights], dtype=np.int64)
        self.low = np.array([w & (unit - 1) for w in weights], dtype=np.int64)

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        return draw_rounded(self.cum, self.shift, lambda idx: (self.high[idx], self.low[idx]), n, rng)


def draw_rounded(cum: np.ndarray, shift: int, exact, n: int, rng: Rng) -> np.ndarray:
    """`n` indices, each with probability exactly W_i / sum(W), drawn as the module docstring
    says: `cum` the int64 running sums of the rounded weights (each at least W_i / 2**shift),
    `exact(idx)` the drawn weights W split as (W >> shift, W & (2**shift - 1)), int64 arrays,
    asked only for the indices drawn (a caller whose weights are products need not hold them
    all as Python ints)."""
    out = np.empty(0, dtype=np.int64)
    while len(out) < n:
        idx = rng.choose_cumulative(cum, n - len(out))
        if shift:
            q = rng.below(cum[idx] - np.where(idx > 0, cum[idx - 1], 0))
            r = rng.below(np.full(len(idx), 1 << shift, dtype=np.int64))
            high, low = exact(idx)
            idx = idx[(q < high) | ((q == high) & (r < low))]
        out = np.concatenate([out, idx])
    return out


class GroupedWeights:
    """Items already sorted by a group code, with non-negative int64 weights (all of them
    together below 2**63): each group's total (`sums`, by `codes` in increasing order), and
    draws of an item within given groups, each with probability weight / its group's total."""

    def __init__(self, code: np.ndarray, weights: np.ndarray):
        self.cum = np.cumsum(weights)
        self.codes, starts = np.unique(code, return_index=True)
        ends = np.append(starts[1:], len(code))
        padded = np.concatenate([[0], self.cum])
        self.before = padded[starts]
        self.sums = padded[ends] - self.before

    def draw(self, groups: np.ndarray, rng: Rng) -> np.ndarray:
        """For each group index (into `codes`), an item's index (into the sorted items)."""
        return np.searchsorted(self.cum, rng.below(self.sums[groups]) + self.before[groups], side="right")


def choose_big(weights: list[int], n: int, rng: Rng) -> np.ndarray:
    return BigChoice(weights).draw(n, rng)
