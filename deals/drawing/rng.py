"""The random numbers of `deals`: numpy's PCG64, read only through `random_raw`.

Seeding: `make_rng(*key)` builds `PCG64(SeedSequence(entropy=list(key)))` from non-negative
integers. The CLI's `--seed S` deals scenario i (counting from 1) with key (S, i); the mirror
uses `page_rng(page_id, revid, index)`, key ("page" tag, pageId, revid, index). SeedSequence
and PCG64 are fixed algorithms, and every draw below is computed by this module from raw
64-bit outputs (never `Generator` methods, whose streams numpy may change between
versions), so the same key gives the same deals on every run, machine and numpy version.

Draws are exact: `below(b)` is an unbiased integer in [0, b) by rejection (Lemire's
threshold on 2**64 mod b), weighted choices compare such an integer against exact integer
cumulative weights, and permutations are the ranks of random 64-bit keys, drawn again on a tie
(computed by a sorting network for short rows: the same permutations, see `_order`). No floating point.
"""

from __future__ import annotations

import functools
import sys

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
        flat = b.ravel().view(np.uint64) if b.flags.c_contiguous else b.ravel().astype(np.uint64)
        if flat.size >= _UNIFORM_FROM and flat[0] == flat[-1] and (flat == flat[0]).all():
            return self._below_one(int(b.flat[0]), flat.size).reshape(shape)
        if flat.size and int(b.min()) < 1:
            raise ValueError("below() needs bounds >= 1")
        x = self._bg.random_raw(flat.size)
        # The threshold 2**64 mod b is below b: a value at or above b passes it, and only the
        # rest (b / 2**64 of the draws: all but never) need it. Rejected values are drawn
        # again, in order, until they pass: the values of a loop over every bound.
        suspect = np.flatnonzero(x < flat)
        if suspect.size:
            todo = suspect[x[suspect] < (np.uint64(0) - flat[suspect]) % flat[suspect]]
            while todo.size:
                x[todo] = self._bg.random_raw(todo.size)
                todo = todo[x[todo] < (np.uint64(0) - flat[todo]) % flat[todo]]
        return (x % flat).view(np.int64).reshape(shape)

    def _below_one(self, bound: int, n: int) -> np.ndarray:
        """`below` of `n` bounds all equal to `bound` (a step's single total, `np.full`): the
        same values, the remainder by a division by one number (numpy divides by a scalar
        with a multiplication, where `%` divides each value: 16,384 values 12 us against 36)."""
        if bound < 1:
            raise ValueError("below() needs bounds >= 1")
        b = np.uint64(bound)
        x = self._bg.random_raw(n)
        threshold = np.uint64(((1 << 64) - bound) % bound)
        suspect = np.flatnonzero(x < b)
        if suspect.size:
            todo = suspect[x[suspect] < threshold]
            while todo.size:
                x[todo] = self._bg.random_raw(todo.size)
                todo = todo[x[todo] < threshold]
        quotient = np.floor_divide(x, b)
        quotient *= b
        np.subtract(x, quotient, out=x)
        return x.view(np.int64)

    def choose_rows(self, weights: np.ndarray) -> np.ndarray:
        """For each row of non-negative int64 weights (row sums < 2**63, > 0), an index drawn
        with probability weight / row sum."""
        cum = np.cumsum(weights, axis=1)
        r = self.below(cum[:, -1])
        return (cum <= r[:, None]).sum(axis=1)

    def choose_cumulative(self, cum: np.ndarray, n: int, guide: SearchGuide | None = None) -> np.ndarray:
        """`n` indices drawn with probability proportional to the increments of `cum` (int64);
        `guide`: `cum`'s `SearchGuide`, for long draws (the same indices)."""
        total = int(cum[-1])
        r = self.below(np.full(n, total, dtype=np.int64))
        return np.searchsorted(cum, r, side="right") if guide is None else guide.search(r)

    def permutations(self, n: int, m: int, dtype=np.intp) -> np.ndarray:
        """`n` independent uniform permutations of range(m): the ranks of m random 64-bit
        keys. A row with two equal keys is drawn again, so every permutation is exactly
        equally likely (given distinct keys, all orders are by symmetry). `dtype`: of the
        result (np.int8 saves a copy for callers that keep a card a byte).

        Short rows (the sorting network's) are drawn and ordered `_KEY_ROWS` at a time, while
        their keys are in the cache (the values a single draw of n * m gives, in order), as
        `(m, n)` whose transpose is returned; rows with equal keys are then drawn again
        together, as a draw of their own (the values the redraw of every such row gives)."""
        if not 0 < m <= _NETWORK_UP_TO:
            keys = self._bg.random_raw(n * m).reshape(n, m)
            while True:
                order, tied = _order(keys, dtype)
                if not tied.any():
                    return order
                keys[tied] = self._bg.random_raw(int(tied.sum()) * m).reshape(-1, m)
        result, again = self._short_orders(n, m, dtype)
        if again is not None:
            result[again] = self.permutations(len(again), m, dtype)
        return result

    def permutation_runs(self, runs: int, n: int, m: int, dtype=np.intp) -> np.ndarray:
        """`runs` calls of `permutations(n, m, dtype)` one after the other, stacked as
        `(runs * n, m)` (a transposed view, as `permutations` gives). One draw of every run's
        keys when no row has two equal keys: the values are then those of the calls (their
        keys are the stream in order, and no call draws again before the next). A draw with
        equal keys (m**2 / 2**65 a row: all but never) puts the generator back and makes the
        calls."""
        if 0 < m <= _NETWORK_UP_TO:
            state = self._bg.state
            result, again = self._short_orders(runs * n, m, dtype)
            if again is None:
                return result
            self._bg.state = state
        return np.concatenate([self.permutations(n, m, dtype) for _ in range(runs)])

    def _short_orders(self, n: int, m: int, dtype) -> tuple[np.ndarray, np.ndarray | None]:
        """The orders of `n` rows of m <= `_NETWORK_UP_TO` fresh keys, drawn and ordered
        `_KEY_ROWS` rows at a time, as the transpose of an `(m, n)` array; and the rows with
        two equal keys (None if none), whose orders are not used."""
        out = np.empty((m, n), dtype=dtype)
        tied_rows = []
        for start in range(0, n, _KEY_ROWS):
            rows = min(_KEY_ROWS, n - start)
            _, tied = _order(self._bg.random_raw(rows * m).reshape(rows, m), dtype, out[:, start : start + rows])
            if tied.any():
                tied_rows.append(start + np.flatnonzero(tied))
        return out.T, (np.concatenate(tied_rows) if tied_rows else None)

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


class SearchGuide:
    """`np.searchsorted(cum, r, side="right")` for draws r in [0, cum[-1]), by a table of the
    draws' range cut in `2**bits` buckets: a bucket whose every draw falls in one step of
    `cum` answers from the table (the search is non-decreasing in r: its answers at the
    bucket's ends bound all of its draws'), the others are searched. With 456 steps and 2**14
    buckets, 2.5% of the draws are searched: 16,384 draws 0.05 ms against 0.6 ms (a binary
    search mispredicts a branch at every step)."""

    def __init__(self, cum: np.ndarray, bits: int = 14):
        total = int(cum[-1])
        self.cum, self.shift = cum, max(0, (total - 1).bit_length() - bits)
        starts = np.arange(((total - 1) >> self.shift) + 1, dtype=np.int64) << self.shift
        ends = np.minimum(starts + ((1 << self.shift) - 1), total - 1)
        first, last = np.searchsorted(cum, starts, side="right"), np.searchsorted(cum, ends, side="right")
        self.answer = np.where(first == last, first, -1)

    def search(self, r: np.ndarray) -> np.ndarray:
        out = self.answer.take(r >> self.shift)
        miss = np.flatnonzero(out < 0)
        if miss.size:
            out[miss] = np.searchsorted(self.cum, r.take(miss), side="right")
        return out


def _order(keys: np.ndarray, dtype=np.intp, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`(order, tied)`: each row's argsort (indices of its keys from the smallest up), and which
    rows hold two equal keys (their order is not used). Short rows: `out`, an `(m, n)` array
    of `dtype` if given, receives the order (returned as its transpose).

    Each key carries its index in its lowest bits, so sorting the values gives the order:
    two keys that differ above those bits compare as the keys do, and no two tagged values
    are equal, so any correct sort gives the same sorted rows. Short rows (the
    nine spots or 13 cards of a suit) are sorted by a sorting network run on whole columns
    (numpy sorts row by row, a call per short row), longer ones by numpy's sort of values.
    A row where two keys agree above the index bits (about m**2 / 2**60 of the long rows; short
    ones: below) is ordered by an argsort of its keys, as before; so the order is the keys'
    argsort in every row, and the permutations are the ones an argsort gives.

    The network sorts only each key's top 16 bits (its top 16 - index bits, tagged): two keys
    that differ there compare as the keys do, and a row where two agree there (about
    m**2 / 2**13 of the rows: 2% of the rows of 13, 1% of those of 9) is one of the rows
    ordered by the argsort of its whole keys. Unsigned 16-bit minimum and maximum are single
    vector instructions where 64-bit ones are not, and move a quarter of the bytes (measured
    against 32 bits, fallback included: 0.76 against 0.89 ms for 24,872 rows of 13)."""
    n, m = keys.shape
    bits = max(1, (m - 1).bit_length())
    if 0 < m <= _NETWORK_UP_TO:  # column by column: (m, n) throughout
        udt = _NETWORK_KEYS
        low = udt((1 << bits) - 1)
        tags = np.arange(m, dtype=udt)[:, None]
        top = top_bits(keys, udt)
        block = _BLOCK_BYTES // low.itemsize
        srt = np.empty((m, n), dtype=udt)
        for start in range(0, n, block):  # a block's columns stay in the cache
            # The tagged columns as rows of one new array (the network overwrites them),
            # transposed `_TILE_ROWS` keys at a time: a tile's keys stay in the first-level
            # cache through the m passes over them (the whole block's would not: 8,192 rows
            # of 13 keys transposed in 48-67 us against 96).
            stop = min(n, start + block)
            cols = np.empty((m, stop - start), dtype=udt)
            for tile in range(start, stop, _TILE_ROWS):
                end = min(stop, tile + _TILE_ROWS)
                np.bitwise_and(top[tile:end].T, ~low, out=cols[:, tile - start : end - start])
            cols |= tags
            srt[:, start : start + block] = _compared(list(cols), _network(m))
        near = ((srt[1:] ^ srt[:-1]) <= low).any(axis=0)  # equal above the index bits
        if out is None:
            out = np.empty((m, n), dtype=dtype)
        np.bitwise_and(srt, low, out=out, casting="unsafe")  # the indices, in `dtype` at once
        order = out.T
    else:
        low = np.uint64((1 << bits) - 1)
        srt = np.sort((keys & ~low) | np.arange(m, dtype=np.uint64)[None, :], axis=1)
        near = ((srt[:, 1:] ^ srt[:, :-1]) <= low).any(axis=1)
        order = (srt & low).astype(dtype)
    tied = np.zeros(n, dtype=bool)
    if near.any():
        rows = np.flatnonzero(near)
        near_keys = np.take(keys, rows, axis=0)  # rows by take: a tenth of fancy indexing's time
        exact = np.argsort(near_keys, axis=1)
        order[rows] = exact
        # the keys in order by a flat take (take_along_axis builds index arrays: twice the time)
        in_order = near_keys.reshape(-1).take(exact + (np.arange(len(rows)) * m)[:, None])
        tied[rows] = (in_order[:, 1:] == in_order[:, :-1]).any(axis=1)
    return order, tied


def order_statistics(values: np.ndarray, ranks: tuple[int, ...]) -> dict[int, np.ndarray]:
    """Each row's values at `ranks` (0 the smallest) of its sorted values: rank k -> the
    column `np.partition(values, ranks, axis=1)[:, k]` (the same values: the value at a
    rank is that of any correct sort). Rows of up to `_SELECT_UP_TO` values, at least
    `_SELECT_FROM_ROWS` of them, go through the sorting network less every comparator whose outputs reach none of those ranks (a
    selection network: what it leaves there is what the whole network leaves), over whole
    columns; numpy partitions row by row, a call per row."""
    n, m = values.shape
    if not (0 < m <= _SELECT_UP_TO and n >= _SELECT_FROM_ROWS):
        ordered = np.partition(values, list(ranks), axis=1)
        return {k: ordered[:, k] for k in ranks}
    cols = _compared(list(np.array(values.T, order="C")), _selection_network(m, tuple(sorted(set(ranks)))))
    return {k: cols[k] for k in ranks}


@functools.cache
def _selection_network(m: int, ranks: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """`_network(m)` without the comparators that no output at `ranks` depends on: read
    backwards from those places, a comparator is kept when it writes a place still needed,
    and then both its inputs are needed."""
    needed, kept = set(ranks), []
    for i, j in reversed(_network(m)):
        if i in needed or j in needed:
            kept.append((i, j))
            needed |= {i, j}
    return tuple(reversed(kept))


def _compared(cols: list[np.ndarray], comparators) -> list[np.ndarray]:
    """`cols` through `comparators` (i, j): each puts the minimum at i, the maximum at j.
    Overwrites the arrays of `cols` (callers pass arrays of their own): into a spare one and
    `cols[j]` itself, rather than two new arrays a comparator (allocations cost as much as
    the minimum and maximum of a block's columns)."""
    spare = np.empty_like(cols[0])
    for i, j in comparators:
        np.minimum(cols[i], cols[j], out=spare)
        np.maximum(cols[i], cols[j], out=cols[j])
        cols[i], spare = spare, cols[i]
    return cols


def top_bits(keys: np.ndarray, udt) -> np.ndarray:
    """A view of each 64-bit key's top bits as `udt` (uint16 or uint32), the keys' shape."""
    step = 8 // np.dtype(udt).itemsize
    return keys.view(udt)[:, step - 1 :: step] if _LITTLE else keys.view(udt)[:, ::step]


#: `Rng.below` of at least this many equal bounds divides by the one bound (`_below_one`).
_UNIFORM_FROM = 256
#: Rows of up to this many keys go through the sorting network (48 comparators for 13 keys).
_NETWORK_UP_TO = 16
#: Rows of up to this many values get their order statistics from the selection network
#: (122 comparators for ranks 12 and 13 of 26, the cards two empty seats share).
_SELECT_UP_TO = 64
#: ... when there are at least this many rows: the network's hundreds of numpy calls cost
#: more than numpy's partition of fewer rows (measured, the network into spare arrays: 1,024
#: rows of 26 take it 0.19 ms in 16 bits and 0.24 in 64, numpy's partition 0.27 and 0.30).
_SELECT_FROM_ROWS = 1024
#: A block of the network's columns: this many bytes a column (13 or 14 of them stay in the
#: 1 MB second-level cache).
_BLOCK_BYTES = 65536
#: The networks of `_order` compare each key's top 16 bits, tagged by the key's index.
_NETWORK_KEYS = np.uint16
#: `Rng.permutations` draws short rows this many at a time (the keys of 9 or 13 cards: 2.4 or
#: 3.4 MB, read once tile by tile, `_TILE_ROWS`; the network's block, 0.6 or 0.85 MB, stays
#: in the second-level cache). Fewer, longer blocks: fewer numpy calls a row (8,192 at a time
#: before; benchmark E's 100,000 deals with the tiles: 309 -> 298 ms of CPU, best of 32).
_KEY_ROWS = 32768
#: `_order` transposes a block's keys this many rows at a time.
_TILE_ROWS = 2048
_LITTLE = sys.byteorder == "little"


@functools.cache
def _network(m: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort for m items: its network for the next power of two, less
    the comparators that touch a place >= m (think of those places as holding +inf: such a
    comparator never moves anything, and no other comparator reaches them)."""

    def merge(lo: int, hi: int, r: int):
        step = r * 2
        if step < hi - lo:
            yield from merge(lo, hi, step)
            yield from merge(lo + r, hi, step)
            yield from ((i, i + r) for i in range(lo + r, hi - r, step))
        else:
            yield (lo, lo + r)

    def sort(lo: int, hi: int):
        if hi - lo >= 1:
            mid = lo + (hi - lo) // 2
            yield from sort(lo, mid)
            yield from sort(mid + 1, hi)
            yield from merge(lo, hi, 1)

    size = 1 << max(0, (m - 1).bit_length())
    return tuple((i, j) for i, j in sort(0, size - 1) if j < m)


def make_rng(*key: int) -> Rng:
    if not key or any(int(k) < 0 for k in key):
        raise ValueError("a seed key is one or more non-negative integers")
    return Rng(np.random.PCG64(np.random.SeedSequence([int(k) for k in key])))


def page_rng(page_id: int, revid: int, scenario_index: int, *more: int) -> Rng:
    """The generator the mirror uses for scenario `scenario_index` (from 1) of a page revision
    (`more`: for one class of a levelled set, its number)."""
    return make_rng(_PAGE_TAG, page_id, revid, scenario_index, *more)
