"""Exact draws of deals from the column products' positive term, HCP cells included.

`deals.column_products` counts a term as a sum over the meeting pairs p = (group s of the
first half, group 13 - s of the second) of A_s . R(B_(13-s)), A and B over the HCP cells of
the seats with HCP rules (capped, or exact with a band), R the box sums. The positive term
(per-suit length ranges of every seat, fits and wildcards in one suit, shapes, HCP totals,
per-suit HCP: every rule but the disjunctions over several suits) is drawn backwards
through that sum, so that each of its deals comes out with the same probability:

1. (p, a), a a cell of the first half, with weight A_p[a] * R(B_p)[a]. The products pass
   int64, so each side is cut in three 15-bit limbs: the weight is the sum of nine limb
   products (each below 2**30) times powers of two, and the draw picks a product (weight
   its total over every (p, a): Python ints, `deals.exact_choice.BigChoice`), then p
   (`BigChoice` over the pairs), then a (int64 cumulative sums). Exact, and the same as
   drawing by the products themselves;
2. the second half's cell b among those that meet a (every axis and the band pass: the
   box sums' own 0/1 relation, read from `LengthMatrixCount.box_sums` of single cells),
   with weight B_p[b];
3. in each half, given its group s and cell: a pair of entries of the two suits' honour
   tables (HCP code, honour-count vector n, owners) whose cells add up to it, with weight
   owners1 * owners2 * K_s[n1, n2] (K_s: the spot ways of the group's column pairs, as
   `Half.k_matrices` gives them); then the pair of columns (c1, c2) of the group with
   weight spots(c1, n1) * spots(c2, n2); then the honours' owners uniformly among those of
   each entry; then the nine spots of each suit uniformly among the splits that give the
   column its lengths (`Rng.runs`).

Each step's weights sum to the previous step's weight, so a deal's probability is
1 / (the term's count). Column merges, dropped K columns and live-cell compaction of the
counting code are only read through `PreparedHalf.tables` / `live_tables`, which undo them.
Disjunctions over several suits (wildcards, fits in one of several suits, and wildcards with
an HCP part) are not in the positive term: the sampler checks the whole scenario after the
draw and rejects the rest, at the rate count / positive term (`deals.sampler`).

Not drawn here (None from `column_draw`, the other paths stay): what `column_products`
does not count (`counts`) or counts past its budget, and terms whose tables would pass
`MAX_DRAW_BYTES` (A and B per group, the cells' meeting relation).
"""

from __future__ import annotations

import numpy as np

from dsl.deck import CARDS_PER_SUIT

from .column_products import MAX_TABLE_BYTES, ColumnCount, Half, counts
from .exact_choice import BigChoice
from .length_matrices import _honour_owners, spot_ways
from .rng import Rng
from .rules import CompiledScenario
from .tables import length_vectors

#: The most the drawing tables may weigh (A, B, R(B) per group, the cells' meeting relation).
MAX_DRAW_BYTES = 120 * 2**20
_LIMB = 15  # A, R(B) < 2**45: three limbs each, products below 2**30
_LIMBS = 3
_HONOURS = 4
_ROWS = 2048  # draws per block of dense (draws, cells) weights


class ColumnDraw:
    """The drawing tables of a scenario's positive column-products term."""

    def __init__(self, compiled: CompiledScenario, counter: ColumnCount | None = None):
        counter = counter or ColumnCount(compiled)
        t = counter.tables
        self.tables = t
        h1, h2, g1, g2, a, b = counter.positive_term()
        live = t.live_cells
        # kept: the limbs (int32), B on the live cells, the meeting relation; passing: B and
        # its box sums on every cell
        groups = len(a.columns) + len(b.columns)
        weight = groups * len(live) * 4 * _LIMBS + len(b.columns) * (len(live) + 2 * t.cells) * 8 + len(live) ** 2
        if weight > MAX_DRAW_BYTES:
            raise TablesTooLarge(weight)
        self._halves = (_HalfDraw(counter, h1, np.unique(g1)), _HalfDraw(counter, h2, np.unique(g2)))
        self._ra, self._rb = a.rows, b.rows  # per meeting pair, its row of A and of B
        A = a.live_tables(np.arange(len(a.columns)))
        self._B = b.live_tables(np.arange(len(b.columns)))
        B = t.box_sums(b.tables(np.arange(len(b.columns))))[:, live]
        # cells of the first half (rows) meeting cells of the second (columns), both live
        self._meets = self._meeting_cells()
        self._limbs_a = [((A >> (_LIMB * i)) & ((1 << _LIMB) - 1)).astype(np.int32) for i in range(_LIMBS)]
        del A
        self._limbs_r = [((B >> (_LIMB * j)) & ((1 << _LIMB) - 1)).astype(np.int32) for j in range(_LIMBS)]
        del B
        self._products = []  # (limb of A, limb of R(B), BigChoice over pairs)
        totals = []
        for i in range(_LIMBS):
            for j in range(_LIMBS):
                sums = self._pair_sums(self._limbs_a[i], self._limbs_r[j])
                total = sum(sums)
                if total:
                    self._products.append((i, j, BigChoice(sums)))
                    totals.append(total << (_LIMB * (i + j)))
        #: The positive term's count: the deals this draws from.
        self.count = sum(totals)
        self._choice = BigChoice(totals) if self.count else None

    def _pair_sums(self, la: np.ndarray, lr: np.ndarray) -> list[int]:
        """Per meeting pair p, sum over cells of la[p] * lr[p] (int64: below 2**30 * cells)."""
        out = []
        for s in range(0, len(self._ra), 256):
            out += np.einsum("ij,ij->i", la[self._ra[s : s + 256]], lr[self._rb[s : s + 256]], dtype=np.int64).tolist()
        return out

    def _meeting_cells(self) -> np.ndarray:
        """`(live, live)` bool: may a cell of the first half meet a cell of the second? The
        relation is the box sums' own (a single cell's box sums), so axes, caps and band are
        read, not restated."""
        t = self.tables
        live = t.live_cells
        out = np.empty((len(live), len(live)), dtype=bool)
        step = max(1, 2**18 // t.cells)
        for s in range(0, len(live), step):
            cells = live[s : s + step]
            one = np.zeros((len(cells), t.cells), dtype=np.int64)
            one[np.arange(len(cells)), cells] = 1
            out[s : s + step] = t.box_sums(one)[:, live] > 0
        return out  # symmetric: out[u, v] is "u meets v" from either side

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        """`(n, 52)` seat-of-card int8 rows, uniform over the positive term, independent."""
        if self._choice is None:
            raise ValueError("no deal passes the positive term")
        product = self._choice.draw(n, rng)
        pair = np.empty(n, dtype=np.int64)
        for k in range(len(self._products)):
            at = np.flatnonzero(product == k)
            if len(at):
                pair[at] = self._products[k][2].draw(len(at), rng)
        cell_a = np.empty(n, dtype=np.int64)
        key = product * len(self._ra) + pair
        order = np.argsort(key, kind="stable")
        bounds = np.flatnonzero(np.diff(key[order])) + 1
        for at in np.split(order, bounds):
            i, j, _ = self._products[int(product[at[0]])]
            p = int(pair[at[0]])
            cum = np.cumsum(self._limbs_a[i][self._ra[p]].astype(np.int64) * self._limbs_r[j][self._rb[p]])
            cell_a[at] = np.searchsorted(cum, rng.below(np.full(len(at), cum[-1], dtype=np.int64)), side="right")
        cell_b = np.empty(n, dtype=np.int64)
        for s in range(0, n, _ROWS):
            rows = slice(s, s + _ROWS)
            weights = self._B[self._rb[pair[rows]]] * self._meets[cell_a[rows]]
            cell_b[rows] = rng.choose_rows(weights)
        owner = np.empty((n, 4, CARDS_PER_SUIT), dtype=np.int8)
        for half, rows, cells in zip(self._halves, (self._ra, self._rb), (cell_a, cell_b)):
            half.draw(rows[pair], cells, rng, owner)
        return owner.reshape(n, 4 * CARDS_PER_SUIT)


class _HalfDraw:
    """One half's steps 3 (see the module docstring): honour entries, columns, owners, spots."""

    def __init__(self, counter: ColumnCount, half: Half, groups: np.ndarray):
        t = counter.tables
        self.half, self.groups = half, groups
        self._ends = np.append(half.starts[1:], len(half.c1))
        hcp, count_index, self._vectors = _honour_owners()
        suits = []
        for k in (half.k1, half.k2):
            mask = int(t.mask_id[k, 0])
            code, count, ways = t.honour_table(mask)
            # the owners of each entry (HCP code, honour counts), in the entry's order
            ok = np.ones(256, dtype=bool)
            for s in range(4):
                ok &= t._masks[mask, s, hcp[:, s]]
            for axis in t.axes:
                if not axis.open:
                    ok &= hcp[:, axis.seat] <= axis.hi
            owner_key = (hcp[:, [axis.seat for axis in t.axes]] @ t._digits) * 35 + count_index
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
        order = np.argsort(cell, kind="stable")
        self._e1, self._e2 = e1[order], e2[order]
        self._n = count1[self._e1] * 35 + count2[self._e2]
        self._ways = ways1[self._e1] * ways2[self._e2]
        self._cell_start = np.searchsorted(cell[order], np.arange(len(t.live_cells) + 1))

    def draw(self, rows: np.ndarray, cells: np.ndarray, rng: Rng, owner: np.ndarray) -> None:
        """Fill the half's two suits of `owner` for draws in groups `self.groups[rows]` and
        live cells `cells`."""
        half = self.half
        spots = spot_ways()
        n = len(rows)
        e1, e2, c1, c2 = (np.empty(n, dtype=np.int64) for _ in range(4))
        order = np.argsort(rows, kind="stable")
        bounds = np.flatnonzero(np.diff(rows[order])) + 1
        for at in np.split(order, bounds) if n else []:
            g = int(self.groups[rows[at[0]]])
            k = np.rint(half.k_matrices(np.array([g]))[0]).astype(np.int64)
            cum = np.concatenate([[0], np.cumsum(self._ways * k[self._n])])
            lo, hi = self._cell_start[cells[at]], self._cell_start[cells[at] + 1]
            chosen = np.searchsorted(cum, cum[lo] + rng.below(cum[hi] - cum[lo]), side="right") - 1
            e1[at], e2[at] = self._e1[chosen], self._e2[chosen]
            n1, n2 = self._n[chosen] // 35, self._n[chosen] % 35
            pairs = np.arange(half.starts[g], self._ends[g])
            weights = spots[half.c1[pairs]][:, n1].T * spots[half.c2[pairs]][:, n2].T
            q = pairs[rng.choose_rows(weights)]
            c1[at], c2[at] = half.c1[q], half.c2[q]
        lv = length_vectors()
        for (code, count, ways, owners, start), entry, column, suit in zip(self._suits, (e1, e2), (c1, c2), (half.k1, half.k2)):
            who = owners[start[entry] + rng.below(ways[entry])]
            for r in range(_HONOURS):
                owner[:, suit, r] = who >> (2 * r) & 3
            owner[:, suit, _HONOURS:] = rng.runs(lv[column] - self._vectors[count[entry]])


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
