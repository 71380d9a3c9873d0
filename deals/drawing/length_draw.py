"""Exact draws of deals whose length matrix passes per-suit length rules, HCP left out.

The superset: every deal whose columns (a suit's lengths at the four seats) each pass the
scenario's per-suit conditions, that is the positive term of `deals.counting.column_products.
column_terms` (suit ranges of every seat, fits and wildcards in one suit; wildcards and
fits over several suits, shapes and every HCP rule dropped). Given its length matrix L, a
deal's suits are independent, suit k dealt in m(L[:, k]) = 13! / prod_s L[s, k]! ways, so

    count = sum over row sums r of the first two suits of  A_r * B_(13 - r),
    A_r = sum over allowed columns c1 + c2 = r of m(c1) m(c2)   (suits 1 and 2)
    B_t = the same over suits 3 and 4,

the column products' sum with one HCP cell. Drawn backwards: the pair of groups (r, 13 - r)
with weight A_r B_(13-r) (past int64: `deals.drawing.exact_choice`), a pair of columns in each with
weight m(c1) m(c2) (below 2**41), then each suit's 13 cards by a uniform permutation cut in
runs of the column's lengths. Exactly uniform over the superset, no rejection of its own;
the sampler checks the rest (`deals.drawing.sampler`). Tables: at most 560 x 560 pairs a half.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT

from ..counting.column_products import column_terms
from .exact_choice import BigChoice, GroupedWeights
from .rng import Rng
from ..rules.compiled import CompiledScenario
from ..counting.tables import length_code, length_vectors, within_thirteen

_SEATS = 4


class LengthDraw:
    """The drawing tables of a scenario's per-suit length superset."""

    #: Rows the sampler asks of it at a time: None, the sampler's own batch.
    batch: int | None = None

    def __init__(self, compiled: CompiledScenario):
        sign, allowed = column_terms(compiled)[0]  # the positive term: no disjunction dropped in
        assert sign == 1
        lv = length_vectors()
        fact = np.array([factorial(k) for k in range(CARDS_PER_SUIT + 1)], dtype=np.int64)
        ways = factorial(CARDS_PER_SUIT) // fact[lv].prod(axis=1)  # m(c), below 2**21
        halves = [self._half(allowed, k1, k2, lv, ways) for k1, k2 in ((0, 1), (2, 3))]
        (groups1, _, _), (groups2, _, _) = halves
        codes1, codes2 = groups1.codes, groups2.codes
        # group r of the first half meets the group of 13 - r of the second
        rows1 = np.stack(np.unravel_index(codes1, (14, 14, 14)), axis=1)
        want = length_code(np.concatenate([CARDS_PER_SUIT - rows1, np.zeros((len(rows1), 1), dtype=np.int64)], axis=1))
        at = np.searchsorted(codes2, want)
        meets = (at < len(codes2)) & (codes2[np.minimum(at, len(codes2) - 1)] == want) if len(codes2) else np.zeros(len(want), bool)
        self._g1, self._g2 = np.flatnonzero(meets), at[meets]
        weights = [a * b for a, b in zip(groups1.sums[self._g1].tolist(), groups2.sums[self._g2].tolist())]
        self.count = sum(weights)
        self._choice = BigChoice(weights) if self.count else None
        self._halves = halves

    @staticmethod
    def _half(allowed: np.ndarray, k1: int, k2: int, lv: np.ndarray, ways: np.ndarray):
        """The allowed pairs of columns of suits k1, k2, sorted by their partial row sums:
        (their weights grouped by those sums, first columns, second columns)."""
        i1, i2 = np.flatnonzero(allowed[k1]), np.flatnonzero(allowed[k2])
        p, q = np.nonzero(within_thirteen()[np.ix_(i1, i2)])
        ca, cb = i1[p], i2[q]
        code = length_code(lv[ca] + lv[cb])  # seats N, E, S; W holds the rest of 26
        order = np.argsort(code, kind="stable")
        ca, cb = ca[order], cb[order]
        return GroupedWeights(code[order], ways[ca] * ways[cb]), ca, cb

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        """`(n, 52)` seat-of-card int8 rows, uniform over the superset, independent."""
        if self._choice is None:
            raise ValueError("no length matrix passes these rules")
        g = self._choice.draw(n, rng)
        columns = []
        for half, groups in zip(self._halves, (self._g1[g], self._g2[g])):
            pairs, ca, cb = half
            k = pairs.draw(groups, rng)
            columns += [ca[k], cb[k]]
        lv = length_vectors()
        owner = np.empty((n, 4, CARDS_PER_SUIT), dtype=np.int8)
        for suit, column in enumerate(columns):
            owner[:, suit, :] = rng.runs(lv[column])
        return owner.reshape(n, _SEATS * CARDS_PER_SUIT)
