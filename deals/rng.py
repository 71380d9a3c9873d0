"""The random numbers of `deals`: numpy's PCG64, read only through `random_raw`.

Seeding: `make_rng(*key)` builds `PCG64(SeedSequence(entropy=list(key)))` from non-negative
integers. The CLI's `--seed S` deals scenario i (counting from 1) with key (S, i); the mirror
uses `page_rng(page_id, revid, index)`, key ("page" tag, pageId, revid, index). SeedSequence
and PCG64 are fixed algorithms, and every draw below is computed by this module from raw
64-bit outputs (never `Generator` methods, whose streams numpy may change between
versions), so the same key gives the same deals on every run, machine and numpy version.

Draws are exact: `below(b)` is an unbiased integer in [0, b) by rejection (Lemire's
threshold on 2**64 mod b), weighted choices compare such an integer against exact integer
cumulative weights, and permutations are the ranks of random 64-bit keys, drawn again on a tie. No floating point.
"""

from __future__ import annotations

import numpy as np

_PAGE_TAG = 0x70616765  # "page": keeps page keys apart from CLI keys of the same length


class Rng:
    def __init__(self, bit_generator: np.random.PCG64):
        self._bg = bit_generator

    def raw(self, n: int) -> np.ndarray:
        return self._bg.random_raw(n)

    def below(self, bounds) -> np.ndarray:
        """Unbiased integers in [0, bound) for each bound (int64 array, every bound >= 1)."""
        b = np.asarray(bounds, dtype=np.int64)
        shape = b.shape
        flat = b.ravel().astype(np.uint64)
        if flat.size and int(flat.min()) < 1:
            raise ValueError("below() needs bounds >= 1")
        out = np.empty(flat.size, dtype=np.uint64)
        threshold = (np.uint64(0) - flat) % flat  # 2**64 mod b
        todo = np.arange(flat.size)
        while todo.size:
            x = self._bg.random_raw(todo.size)
            ok = x >= threshold[todo]
            out[todo[ok]] = x[ok] % flat[todo[ok]]
            todo = todo[~ok]
        return out.astype(np.int64).reshape(shape)

    def choose_rows(self, weights: np.ndarray) -> np.ndarray:
        """For each row of non-negative int64 weights (row sums < 2**63, > 0), an index drawn
        with probability weight / row sum."""
        cum = np.cumsum(weights, axis=1)
        r = self.below(cum[:, -1])
        return (cum <= r[:, None]).sum(axis=1)

    def choose_cumulative(self, cum: np.ndarray, n: int) -> np.ndarray:
        """`n` indices drawn with probability proportional to the increments of `cum` (int64)."""
        total = int(cum[-1])
        r = self.below(np.full(n, total, dtype=np.int64))
        return np.searchsorted(cum, r, side="right")

    def permutations(self, n: int, m: int) -> np.ndarray:
        """`n` independent uniform permutations of range(m): the ranks of m random 64-bit
        keys. A row with two equal keys is drawn again, so every permutation is exactly
        equally likely (given distinct keys, all orders are by symmetry)."""
        keys = self._bg.random_raw(n * m).reshape(n, m)
        while True:
            order = np.argsort(keys, axis=1)  # one sort: the keys in order are read through it
            srt = np.take_along_axis(keys, order, axis=1)
            tied = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
            if not tied.any():
                return order
            keys[tied] = self._bg.random_raw(int(tied.sum()) * m).reshape(-1, m)

    def runs(self, lengths: np.ndarray) -> np.ndarray:
        """`(n, m)` int8: for each row of `lengths` (n, k), its m places (m the row sum, the same
        for every row) dealt to owners 0..k-1, lengths[i, s] places to owner s, every such
        dealing equally likely: a uniform permutation of the places cut in runs."""
        n = len(lengths)
        m = int(lengths[0].sum()) if n else 0
        cuts = np.cumsum(lengths, axis=1)
        owner_of_rank = (np.arange(m)[None, :, None] >= cuts[:, None, :]).sum(axis=2).astype(np.int8)
        order = self.permutations(n, m)
        out = np.empty((n, m), dtype=np.int8)
        out[np.arange(n)[:, None], order] = owner_of_rank
        return out


def make_rng(*key: int) -> Rng:
    if not key or any(int(k) < 0 for k in key):
        raise ValueError("a seed key is one or more non-negative integers")
    return Rng(np.random.PCG64(np.random.SeedSequence([int(k) for k in key])))


def page_rng(page_id: int, revid: int, scenario_index: int) -> Rng:
    """The generator the mirror uses for scenario `scenario_index` (from 1) of a page revision."""
    return make_rng(_PAGE_TAG, page_id, revid, scenario_index)
