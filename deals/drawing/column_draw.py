"""Exact draws of deals from the column products' positive term, HCP cells included.

The term's sum (`deals.counting.column_products`) is walked backwards: a meeting pair of
groups and a cell of the first half, a meeting cell of the second, then per half the honours'
entries, the pair of columns, the honours' owners and the spots; each step's weights sum to
the previous step's weight, so every deal of the term has probability 1 / its count. The
steps, their layout and why every weight is exact: docs/COUNTING.md, "Column draw".
"""

from __future__ import annotations

import functools

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT

from ..counting.column_products import MAX_TABLE_BYTES, ColumnCount, Half, PreparedHalf, counts
from ..counting.exact import exact_dot
from .exact_choice import GroupedWeights, draw_rounded
from ..counting.length_matrices import spot_ways
from .rng import Rng
from ..rules.compiled import CompiledScenario
from ..counting.tables import honour_owners, length_vectors

#: The most the drawing tables may weigh (A, B, R(B) per group, the cells' meeting relation).
MAX_DRAW_BYTES = 120 * 2**20
_TOTAL_BITS = 61  # step 1's rounded weights add up to less than 2**62
_SEGMENT_ENTRIES = 2**19  # candidate positions per block of `_choose_in_segments`
_HONOURS = 4


class ColumnDraw:
    """The drawing tables of a scenario's positive column-products term."""

    #: Rows the sampler asks of it at a time: None, the sampler's own batch.
    batch: int | None = None

    def __init__(self, compiled: CompiledScenario, counter: ColumnCount | None = None):
        counter = counter or ColumnCount(compiled)
        t = counter.tables
        self.tables = t
        h1, h2, g1, g2, a, b = counter.positive_term()
        live = t.live_cells
        # kept: A and R(B) and B on the live cells, the pairs' rounded weights, K per group,
        # the meeting relation; passing: B and its box sums on every cell, 256 groups at a time
        groups = len(a.columns) + len(b.columns)
        distinct = a.columns.shape[1] + b.columns.shape[1]
        weight = 8 * (groups * len(live) + len(b.columns) * t.cells + len(a.columns) * distinct)
        weight += 8 * (len(a.rows) * len(live) + 3 * 256 * t.cells) + 3 * len(live) * t.cells
        if weight > MAX_DRAW_BYTES:
            raise TablesTooLarge(weight)
        self._halves = (_HalfDraw(counter, h1, np.unique(g1), a), _HalfDraw(counter, h2, np.unique(g2), b))
        self._ra, self._rb = a.rows, b.rows  # per meeting pair, its row of A and of B
        self._A = a.live_tables(np.arange(len(a.columns)))
        blocks = [np.arange(s, min(s + 256, len(b.columns))) for s in range(0, len(b.columns), 256)]
        # B dense in C order, its running sums laid end to end over the groups (a leading 0):
        # a run of cells of one group sums to a difference, and is drawn in by one search
        dense = np.concatenate([np.zeros(1, dtype=np.int64)] + [b.tables(rows).ravel() for rows in blocks])
        self._b_cum = np.cumsum(dense)
        del dense
        self._cells = t.cells
        self._R = np.concatenate([np.zeros((0, len(live)), dtype=np.int64)] + [t.box_sums(b.tables(rows))[:, live] for rows in blocks])
        self._live = len(live)
        #: The positive term's count: the deals this draws from.
        self.count = exact_dot(self._A[self._ra], self._R[self._rb]) if len(self._ra) else 0
        # step 1's weights A * R(B) rounded up to multiples of 2**shift within int64, and
        # the rounding undone by an exact test (`deals.drawing.exact_choice.draw_rounded`)
        entries = len(self._ra) * self._live
        self._shift = max(0, self.count.bit_length() + max(entries, 1).bit_length() - _TOTAL_BITS)
        if self._shift == 0:
            rounded = (self._A[self._ra] * self._R[self._rb]).ravel()
        else:
            product = self._A[self._ra].astype(np.float64) * self._R[self._rb]
            # float64 products err by less than 2**-52: the margin keeps every one rounded up
            rounded = np.floor(np.ldexp(product, -self._shift) * (1 + 2.0**-40)) + (product > 0)
            rounded = rounded.astype(np.int64).ravel()
        self._cum = np.cumsum(rounded)
        # per live cell of the first half, the runs of cells (C order) of the second that it
        # meets: a box is a few runs (one per level of all axes but the last, merged when
        # they touch), so step 2 draws a run by its sum, then a cell in it
        meets = self._meeting_cells()
        edges = np.diff(np.pad(meets, ((0, 0), (1, 1))).astype(np.int8), axis=1)
        row, start = np.nonzero(edges == 1)
        self._run_start, self._run_end = start, np.nonzero(edges == -1)[1]
        self._run_offset = np.searchsorted(row, np.arange(len(live) + 1))
        self._live_of = np.full(t.cells, -1, dtype=np.int64)
        self._live_of[live] = np.arange(len(live))

    @property
    def nbytes(self) -> int:
        """What its arrays and its halves' weigh."""
        return sum(v.nbytes for t in (self, *self._halves) for v in vars(t).values() if isinstance(v, np.ndarray))

    def _meeting_cells(self) -> np.ndarray:
        """`(live, cells)` bool: may a live cell of the first half meet a cell of the second? The
        relation is the box sums' own (a single cell's box sums), so axes, caps and band are
        read, not restated."""
        t = self.tables
        live = t.live_cells
        out = np.empty((len(live), t.cells), dtype=bool)
        step = max(1, 2**18 // t.cells)
        for s in range(0, len(live), step):
            cells = live[s : s + step]
            one = np.zeros((len(cells), t.cells), dtype=np.int64)
            one[np.arange(len(cells)), cells] = 1
            out[s : s + step] = t.box_sums(one) > 0
        return out  # symmetric: out[u, v] is "u meets v" from either side

    def _pairs_and_cells(self, n: int, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
        """Step 1: n (meeting pair, live cell of the first half), by A * R(B)."""
        shift, mask = self._shift, (1 << self._shift) - 1

        def exact(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            p, c = np.divmod(idx, self._live)
            w = [x * y for x, y in zip(self._A[self._ra[p], c].tolist(), self._R[self._rb[p], c].tolist())]
            return np.array([v >> shift for v in w], dtype=np.int64), np.array([v & mask for v in w], dtype=np.int64)

        return np.divmod(draw_rounded(self._cum, shift, exact, n, rng), self._live)

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        """`(n, 52)` seat-of-card int8 rows, uniform over the positive term, independent."""
        if not self.count:
            raise ValueError("no deal passes the positive term")
        pair, cell_a = self._pairs_and_cells(n, rng)
        rb = self._rb[pair]
        base = rb * self._cells
        b_cum, run_start, run_end = self._b_cum, self._run_start, self._run_end
        run = _choose_in_segments(
            self._run_offset[cell_a], self._run_offset[cell_a + 1],
            lambda pos, d: b_cum[base[d] + run_end[pos]] - b_cum[base[d] + run_start[pos]], rng,
            rb * self._live + cell_a,
        )
        head = b_cum[base + run_start[run]]
        inside = rng.below(b_cum[base + run_end[run]] - head)
        cell_b = self._live_of[np.searchsorted(b_cum, head + inside, side="right") - 1 - base]
        owner = np.empty((n, 4, CARDS_PER_SUIT), dtype=np.int8)
        for half, rows, cells in zip(self._halves, (self._ra, self._rb), (cell_a, cell_b)):
            half.draw(rows[pair], cells, rng, owner)
        return owner.reshape(n, 4 * CARDS_PER_SUIT)


def _choose_in_segments(lo: np.ndarray, hi: np.ndarray, factors, rng: Rng, key: np.ndarray) -> np.ndarray:
    """For each draw d, a position in lo[d]..hi[d]-1 drawn with probability its weight / their
    sum over the segment, the weight of pos being the product over `factors` (table, column,
    base) of table[column[pos] + base[d]] (flat int64 tables), or `factors(pos, d)`; each
    segment's sum below 2**45 and > 0. Draws of equal `key` have the same segment and weights: each distinct one is
    laid out once, a block of them at a time end to end, with one cumulative sum (within
    int64: at most 2**17 segments a block) searched for every draw of the block's keys."""
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    lengths = hi[first] - lo[first]
    out = np.empty(len(key), dtype=np.int64)
    blocks = []
    s = 0
    while s < len(first):
        e = s + max(1, int(np.searchsorted(np.cumsum(lengths[s : s + 2**17]), _SEGMENT_ENTRIES, side="right")))
        block = lengths[s:e]
        ends = np.cumsum(block)
        starts = ends - block
        pos = np.arange(int(ends[-1])) + np.repeat(lo[first[s:e]] - starts, block)
        if callable(factors):
            weight = factors(pos, np.repeat(first[s:e], block))
        else:
            weight = None
            for table, column, base in factors:
                w = table[column[pos] + np.repeat(base[first[s:e]], block)]
                weight = w if weight is None else weight * w
        cum = np.cumsum(weight)
        head = np.where(starts > 0, cum[starts - 1], 0)
        blocks.append((s, e, pos, cum, head, cum[ends - 1] - head))
        s = e
    totals = np.concatenate([b[5] for b in blocks]) if blocks else np.empty(0, dtype=np.int64)
    u = rng.below(totals[inverse])
    for s, e, pos, cum, head, _ in blocks:
        draws = np.flatnonzero((inverse >= s) & (inverse < e)) if len(blocks) > 1 else np.arange(len(key))
        out[draws] = pos[np.searchsorted(cum, head[inverse[draws] - s] + u[draws], side="right")]
    return out


class _HalfDraw:
    """One half's steps 3 (see the module docstring): honour entries, columns, owners, spots."""

    def __init__(self, counter: ColumnCount, half: Half, groups: np.ndarray, prepared: PreparedHalf):
        t = counter.tables
        self.half, self.groups = half, groups
        self._ends = np.append(half.starts[1:], len(half.c1))
        self._vectors = honour_owners()[2]
        suits = []
        for k in (half.k1, half.k2):
            mask = int(t.mask_id[k, 0])
            code, count, ways = t.honour_table(mask)
            # the owners of each entry (HCP code, honour counts), in the entry's order
            ok, owner_key = t.honour_entries(mask)
            owners = np.flatnonzero(ok)
            owners = owners[np.argsort(owner_key[owners], kind="stable")]
            start = np.searchsorted(owner_key[owners], code * 35 + count)
            assert np.array_equal(np.diff(np.append(start, len(owners))), ways.astype(np.int64))
            suits.append((code, count, ways.astype(np.int64), owners, start))
        self._suits = suits
        (code1, count1, ways1, _, _), (code2, count2, ways2, _, _) = suits
        cell = t.capmap[code1[:, None] + code2[None, :]]
        e1, e2 = np.nonzero(cell < t.cells)
        index = np.full(t.cells + 1, -1, dtype=np.int64)
        index[t.live_cells] = np.arange(len(t.live_cells))
        cell = index[cell[e1, e2]]
        assert (cell >= 0).all()  # a half's cells are live
        # K of each group (rows: `groups`) on its distinct columns (a zero one last for the
        # columns K never uses), exact in int64 (below 2**36); an entry's column of K
        distinct = np.rint(prepared.columns).astype(np.int64)
        self._k = np.concatenate([distinct, np.zeros((len(distinct), 1), dtype=np.int64)], axis=1)
        assert prepared.merge is not None
        column = prepared.merge[count1[e1] * 35 + count2[e2]]
        # entries by cell, then by their column of K: a slot (cell, column) weighs K[g, column]
        # times its entries' ways, so a cell's slots are drawn first (a few times fewer than
        # its entries), then an entry in the slot by its ways alone, from one running sum
        order = np.lexsort((column, cell))
        self._e1, self._e2 = e1[order], e2[order]
        self._n = count1[self._e1] * 35 + count2[self._e2]
        self._ways = ways1[self._e1] * ways2[self._e2]
        width = self._k.shape[1]
        self._slot_code = cell[order] * width + column[order]
        self._within = GroupedWeights(self._slot_code, self._ways)
        slots = self._within.codes
        self._slot_column = slots % width
        self._cell_start = np.searchsorted(slots // width, np.arange(len(t.live_cells) + 1))
        self._index = np.arange(len(slots))
        # a column pair's rows of the flat spot ways (35 honour-count vectors a column)
        self._c1_rows, self._c2_rows = half.c1.astype(np.int64) * 35, half.c2.astype(np.int64) * 35

    def draw(self, rows: np.ndarray, cells: np.ndarray, rng: Rng, owner: np.ndarray) -> None:
        """Fill the half's two suits of `owner` for draws in groups `self.groups[rows]` and
        live cells `cells`."""
        half = self.half
        spots = spot_ways().ravel()
        k = self._k
        slot = _choose_in_segments(
            self._cell_start[cells], self._cell_start[cells + 1],
            [(self._within.sums, self._index, np.zeros_like(rows)), (k.ravel(), self._slot_column, rows * k.shape[1])], rng,
            rows * len(self._cell_start) + cells,
        )
        chosen = self._within.draw(slot, rng)
        e1, e2 = self._e1[chosen], self._e2[chosen]
        n1, n2 = self._n[chosen] // 35, self._n[chosen] % 35
        g = self.groups[rows]
        q = _choose_in_segments(
            half.starts[g], self._ends[g], [(spots, self._c1_rows, n1), (spots, self._c2_rows, n2)], rng,
            rows * 35**2 + self._n[chosen],
        )
        c1, c2 = half.c1[q], half.c2[q]
        lv = length_vectors()
        dealings, first, ways_of = _spot_dealings()
        for (code, count, ways, owners, start), entry, column, suit in zip(self._suits, (e1, e2), (c1, c2), (half.k1, half.k2)):
            who = owners[start[entry] + rng.below(ways[entry])]
            for r in range(_HONOURS):
                owner[:, suit, r] = who >> (2 * r) & 3
            spots = lv[column] - self._vectors[count[entry]]
            key = (spots[:, 0] * 10 + spots[:, 1]) * 10 + spots[:, 2]
            owner[:, suit, _HONOURS:] = dealings[first[key] + rng.below(ways_of[key])]


@functools.cache
def _spot_dealings() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to deal a suit's nine spots to the four seats (4**9 rows of nine seats),
    grouped by how many each seat gets: (the rows, the first row and the number of rows of
    each group, by the key (n0 * 10 + n1) * 10 + n2). A row drawn uniformly in its group is
    a uniform dealing of the spots with those counts, in one draw."""
    spots = CARDS_PER_SUIT - _HONOURS
    index = np.arange(4**spots, dtype=np.int32)
    rows = np.empty((len(index), spots), dtype=np.int8)
    key = np.zeros(len(index), dtype=np.int16)
    for place in range(spots):
        rows[:, place] = seat = index >> (2 * place) & 3
        key += np.array([100, 10, 1, 0], dtype=np.int16)[seat]
    order = np.argsort(key, kind="stable")
    codes, first, ways = np.unique(key[order], return_index=True, return_counts=True)
    first_of, ways_of = np.zeros(1000, dtype=np.int64), np.ones(1000, dtype=np.int64)
    first_of[codes], ways_of[codes] = first, ways
    return rows[order], first_of, ways_of


def column_draw(compiled: CompiledScenario) -> ColumnDraw | None:
    """The drawing tables of the scenario's positive column-products term, or None when it
    is not counted there (`column_products.counts`) or its tables are past the budget
    (`MAX_TABLE_BYTES`, and `MAX_DRAW_BYTES` for this draw's own)."""
    if not counts(compiled):
        return None
    counter = ColumnCount(compiled)
    if counter.table_bytes > MAX_TABLE_BYTES:
        return None
    try:
        return ColumnDraw(compiled, counter)
    except TablesTooLarge:
        return None


class TablesTooLarge(Exception):
    """The drawing tables would pass `MAX_DRAW_BYTES` (their bytes)."""
