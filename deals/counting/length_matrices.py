"""Exact counts of whole deals through their length matrices: any scenario, within a budget.

A deal's 4 x 4 length matrix (seat, suit) decides every length-only rule; given it the suits
are independent, so the count is a sum over admissible matrices of the HCP box sums of four
suit tables' convolution, met in the middle, alike suits and shared halves counted once.
Past `MAX_MATRICES` or `MAX_WORK`, None (the sampler estimates). The method and why it is
exact: docs/COUNTING.md, "Length matrices".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations
from math import factorial, prod

import numpy as np

from bridgeshape_mirror.dsl.deck import DECK_HCP, MAX_HAND_HCP, MAX_SUIT_HCP

from .blas import single_threaded_blas
from .exact import exact_dot
from ..rules.handled import Handles
from ..rules.compiled import CompiledScenario, SeatRule
from .symmetry import representatives, suit_classes
from .tables import honour_owners, length_code, length_vectors

#: Give up (None) past this many admissible length matrices, or this many multiply-adds.
MAX_MATRICES = 2_500_000
MAX_WORK = 2e9
#: A half table costs about this many multiply-adds per cell (sparse convolution, box sums).
_HALF_COST = 10

_BLOCK_CELLS = 2**21  # cells of half tables per block (16 MB of int64): bounds the temporaries
_LOW21 = (1 << 21) - 1
_KEPT_BYTES = 48 * 2**20  # half tables kept between a group and its mirror


@dataclass(frozen=True)
class HcpAxis:
    """A seat's HCP total as one axis of the tables, capped (see the module docstring);
    `exact`: never capped below, every value 0..hi kept (a `SumBand` adds the values up)."""

    seat: int
    lo: int
    hi: int
    exact: bool = False

    @property
    def open(self) -> bool:
        return self.hi >= MAX_HAND_HCP and not self.exact

    @property
    def levels(self) -> int:
        """Values a half can hold on this axis (two suits: at most 20 HCP)."""
        return min(self.lo + 1 if self.open else self.hi + 1, 21)

    def cap(self, h: np.ndarray) -> np.ndarray:
        """HCP 0..20 of a half -> its level, or -1 when no total can come back in range."""
        return np.minimum(h, self.lo) if self.open else np.where(h <= self.hi, h, -1)

    def allows(self, total: np.ndarray) -> np.ndarray:
        """Levels of the two halves added -> does the hand's total pass?"""
        return total >= self.lo if self.open else (total >= self.lo) & (total <= self.hi)


def hcp_axes(rules) -> tuple[HcpAxis, ...]:
    """The seats whose HCP total is bounded, as axes (other seats' totals are summed out)."""
    return tuple(
        HcpAxis(s, r.hcp_lo, r.hcp_hi) for s, r in enumerate(rules) if r.hcp_lo > 0 or r.hcp_hi < MAX_HAND_HCP
    )


@dataclass(frozen=True)
class SumBand:
    """Seat `dropped`'s HCP rule said by the other three: the deck holds DECK_HCP, so
    lo4 <= hcp4 <= hi4 is DECK_HCP - hi4 <= h1 + h2 + h3 <= DECK_HCP - lo4 (`lo`, `hi`)."""

    dropped: int
    lo: int
    hi: int


def banded_axes(rules, dropped: int) -> tuple[tuple[HcpAxis, HcpAxis, HcpAxis], SumBand]:
    """The other three seats as exact axes, and seat `dropped`'s rule as a band on their sum.
    Each kept seat's bounds are narrowed to what the four rules together allow (the others'
    bounds and the deck's total): values above the narrowed top are then dead, as in any
    closed range, and the cells stay small; below it every value is kept (the band adds them)."""
    lo = [r.hcp_lo for r in rules]
    hi = [min(r.hcp_hi, DECK_HCP) for r in rules]
    kept = [s for s in range(4) if s != dropped]
    axes = []
    for s in kept:
        others = [t for t in kept if t != s]
        top = min(hi[s], DECK_HCP - lo[dropped] - sum(lo[t] for t in others))
        bottom = max(lo[s], DECK_HCP - hi[dropped] - sum(hi[t] for t in others))
        axes.append(HcpAxis(s, bottom, max(top, 0), exact=True))  # bottom > top: nothing passes
    return tuple(axes), SumBand(dropped, DECK_HCP - hi[dropped], DECK_HCP - lo[dropped])  # type: ignore[return-value]


@functools.cache
def spot_ways() -> np.ndarray:
    """`[column, n]`: ways to deal a suit's nine spot cards to the seats so that, with honour
    counts n (one of 35 vectors), they hold the column's lengths (a multinomial, or 0)."""
    vectors = honour_owners()[2]
    spots = length_vectors()[:, None, :] - vectors[None, :, :]  # (560, 35, 4)
    factorials = np.array([factorial(k) for k in range(10)], dtype=np.int64)
    possible = (spots >= 0).all(axis=2)
    # 9! / prod of four factorials: every partial product of those divides 9!, within int64
    denominators = factorials[np.clip(spots, 0, 9)].prod(axis=2)
    return np.where(possible, factorial(9) // denominators, 0)


@functools.cache
def _vector_index() -> np.ndarray:
    """Length-vector code (s * 14 + h) * 14 + d -> its row in `length_vectors()`."""
    out = np.full(14**3, -1, dtype=np.int64)
    lv = length_vectors()
    out[length_code(lv)] = np.arange(len(lv))
    return out


def length_matrices(compiled: CompiledScenario, limit: int = MAX_MATRICES) -> np.ndarray | None:
    """Every admissible `(M, 4, 4)` length matrix (seat, suit), or None past `limit` of them."""
    rules = compiled.seat_rules
    lv = length_vectors()
    allowed = [r.length_ok(lv) for r in rules]
    # The least restricted seat gets what the others leave; the others are enumerated.
    last = max(range(4), key=lambda s: (allowed[s].sum(), s))
    first = sorted((s for s in range(4) if s != last), key=lambda s: allowed[s].sum())
    v0, v1, v2 = (lv[allowed[s]].astype(np.int8) for s in first)
    last_ok = np.zeros(14**3, dtype=bool)
    last_ok[length_code(lv[allowed[last]])] = True
    i0, i1 = np.nonzero((v0[:, None, :] + v1[None, :, :] <= 13).all(axis=2))
    if len(i0) * len(v2) > limit:
        # Far past the limit (three seats with HCP rules and no length rule: 37 million)?
        # Every 1,000th pair of the first two seats tells, before the whole enumeration.
        sampled = _matrices(compiled, first, last, v0[i0[::1000]], v1[i1[::1000]], v2, last_ok)
        if len(sampled) * 1000 > 2 * limit:
            return None
    found, total = [], 0
    step = max(1, 4_000_000 // max(len(v2), 1))
    for s in range(0, len(i0), step):
        m = _matrices(compiled, first, last, v0[i0[s : s + step]], v1[i1[s : s + step]], v2, last_ok)
        total += len(m)
        if total > limit:
            return None
        found.append(m)
    return np.concatenate(found) if found else np.zeros((0, 4, 4), dtype=np.int8)


def _matrices(compiled, first, last, a, b, v2, last_ok) -> np.ndarray:
    """The admissible matrices with rows a[i], b[i] for seats first[0], first[1] (i paired)."""
    left = 13 - a - b  # (n, 4)
    rest = left[:, None, :] - v2[None, :, :]  # what the last seat would hold
    ok = (rest >= 0).all(axis=2)
    ok[ok] = last_ok[length_code(rest[ok].astype(np.int64))]
    p, q = np.nonzero(ok)
    m = np.empty((len(p), 4, 4), dtype=np.int8)
    m[:, first[0]], m[:, first[1]], m[:, first[2]] = a[p], b[p], v2[q]
    m[:, last] = rest[p, q]
    for part in compiled.parts:
        for fit in part.fits:
            m = m[fit.ok(m[:, part.seats[0]].astype(np.int64) + m[:, part.seats[1]])]
    return m


class LengthMatrixCount:
    """The count of a compiled scenario by length matrices (see the module docstring)."""

    def __init__(self, compiled: CompiledScenario, dropped: int | None = None):
        """`dropped`: a seat whose HCP rule is not an axis but a band on the sum of the other
        three (`banded_axes`; four seats with HCP rules, in `deals.counting.column_products`)."""
        self.compiled = compiled
        self.rules: tuple[SeatRule, ...] = compiled.seat_rules
        self.band: SumBand | None = None
        if dropped is None:
            self.axes = hcp_axes(self.rules)
        else:
            self.axes, self.band = banded_axes(self.rules, dropped)
        self.shape = tuple(a.levels for a in self.axes)
        self.cells = int(np.prod(self.shape, dtype=np.int64))
        n = len(self.axes)
        # A suit's HCP vector is coded in base 21 (0..10 per axis), so adding the codes of two
        # suits adds their HCP; `capmap` turns a half's code into its capped cell, or into
        # the spare cell `cells` when some total can no longer pass (dropped at the end).
        self._digits = 21 ** np.arange(n - 1, -1, -1, dtype=np.int64)
        grid = np.indices((21,) * n).reshape(n, 21**n)
        strides = np.cumprod((1,) + self.shape[:0:-1])[::-1]
        cell = np.zeros(grid.shape[1], dtype=np.int64)
        dead = np.zeros(grid.shape[1], dtype=bool)
        for i, axis in enumerate(self.axes):
            level = axis.cap(grid[i])
            dead |= level < 0
            cell += np.maximum(level, 0) * strides[i]
        self.capmap = np.where(dead, self.cells, cell)
        #: Per axis, box[u, v] = 1 when a total of levels u and v (one per half) passes.
        self._box = [a.allows(np.add.outer(np.arange(k), np.arange(k))).astype(np.float64) for a, k in zip(self.axes, self.shape)]
        masks = self._suit_masks().reshape(64, 4 * 11)
        distinct, mask_id = np.unique(masks, axis=0, return_inverse=True)
        #: Suit tables are keyed by (column, masks), not by suit: suits that the scenario treats
        #: alike share their tables and halves (the take-out doubles treat all four alike).
        self._masks = distinct.reshape(-1, 4, 11)
        self.mask_id = mask_id.reshape(4, 16)
        self._keys = 560 * len(distinct)
        self._honour_tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._suit_tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._halves_kept: dict[int, np.ndarray] = {}
        #: Halves per block of `_group_sum` (rows and columns of C: at most 512).
        self._block = int(np.clip(_BLOCK_CELLS // self.cells, 16, 512))
        if self.band is not None:
            # exact axes: a cell's levels are the three seats' HCP in the half, σ their sum
            sigma = self._cell_levels().sum(axis=0)
            top = min(2 * MAX_SUIT_HCP, int(sigma.max()))  # a half holds 20 HCP
            #: The sums τ of a cell that some cell of the other half (σ <= top) completes to
            #: the band: τ = `_tau0` + 0 .. `_sums` - 1.
            self._tau0 = max(0, self.band.lo - top)
            self._sums = max(1, min(top, self.band.hi) - self._tau0 + 1)
            total = self._tau0 + np.arange(self._sums)[None, :] + sigma[:, None]
            #: `[v, τ]`: does cell v of one half pass the band beside a cell of sum τ?
            self._band_mask = ((total >= self.band.lo) & (total <= self.band.hi)).astype(np.float64)
            self._sigma = sigma

    def _cell_levels(self) -> np.ndarray:
        """`(axes, cells)`: each cell's level on each axis (cells in C order)."""
        return np.indices(self.shape).reshape(len(self.shape), self.cells)

    @functools.cached_property
    def live_cells(self) -> np.ndarray:
        """The cells a half can hold: levels summing to at most 20 (a half holds 20 HCP, and
        a level is at most the HCP it stands for)."""
        return np.flatnonzero(self._cell_levels().sum(axis=0) <= 2 * MAX_SUIT_HCP)

    @property
    def box_work(self) -> float:
        """Multiply-adds of `box_sums` per table."""
        levels = sum(self.shape)
        if self.band is None:
            return float(self.cells * levels)
        return float(self.cells * ((levels - max(self.shape)) * self._sums + max(self.shape)))

    def _suit_masks(self) -> np.ndarray:
        """`[suit, complemented, seat, h]`: may the seat hold h HCP (0..10) in the suit?
        `complemented` (bits, one per seat) excludes the seat's wildcard HCP range in that
        suit: the "no qualifying suit" side of an inclusion-exclusion term."""
        h = np.arange(11)
        out = np.zeros((4, 16, 4, 11), dtype=bool)
        for suit in range(4):
            for s, r in enumerate(self.rules):
                mask = (h >= r.shcp_lo[suit]) & (h <= r.shcp_hi[suit])
                out[suit, :, s] = mask
                if r.hcp_wildcard:
                    w = r.wildcard
                    assert w is not None
                    for comp in range(16):
                        if comp >> s & 1:
                            out[suit, comp, s] = mask & ~((h >= w.xh_lo) & (h <= w.xh_hi))
        return out

    # -- suit tables and halves ---------------------------------------------------------

    def honour_table(self, mask: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The owners of A K Q J that the masks allow, aggregated: (HCP code, honour-count
        vector, how many owners), sparse. Suit tables are these weighted by spot ways."""
        kept = self._honour_tables.get(mask)
        if kept is None:
            ok, key = self.honour_entries(mask)
            pairs, ways = np.unique(key[ok], return_counts=True)
            kept = self._honour_tables[mask] = (pairs // 35, pairs % 35, ways.astype(np.float64))
        return kept

    def honour_entries(self, mask: int) -> tuple[np.ndarray, np.ndarray]:
        """For each of the 256 owners of A K Q J (`honour_owners`): whether the masks and the
        capped axes allow it, and its entry's key, HCP code * 35 + honour-count vector (the
        entries of `honour_table` are the distinct keys of the allowed owners)."""
        hcp, count_index, _ = honour_owners()
        ok = np.ones(256, dtype=bool)
        for s in range(4):
            ok &= self._masks[mask, s, hcp[:, s]]
        for a in self.axes:
            if not a.open:
                ok &= hcp[:, a.seat] <= a.hi
        return ok, (hcp[:, [a.seat for a in self.axes]] @ self._digits) * 35 + count_index

    def _suit_table(self, key: int) -> tuple[np.ndarray, np.ndarray]:
        """Suit table of key column * masks + mask id, sparse: (HCP codes, ways)."""
        kept = self._suit_tables.get(key)
        if kept is None:
            column, mask = divmod(key, len(self._masks))
            code, count, ways = self.honour_table(mask)
            weight = ways * spot_ways()[column, count]
            live = weight > 0
            codes, inverse = np.unique(code[live], return_inverse=True)
            kept = self._suit_tables[key] = (codes, np.bincount(inverse.ravel(), weights=weight[live]))
        return kept

    def _compute_halves(self, halves: np.ndarray) -> np.ndarray:
        """`(n, cells)` int64: for half keys first * keys + second, the capped convolution of
        the two suit tables (np.bincount over the pairs of their entries, a spare cell
        collecting what no total can use)."""
        first, second = halves // self._keys, halves % self._keys
        out = np.empty((len(halves), self.cells), dtype=np.int64)
        order = np.argsort(first, kind="stable")
        bounds = np.flatnonzero(np.diff(first[order])) + 1
        for same_first in np.split(order, bounds):
            ia, wa = self._suit_table(int(first[same_first[0]]))
            # at most about 2**21 pairs of entries at a time (the temporaries below)
            step = max(1, (1 << 21) // (len(ia) * 256 + 1))
            for s in range(0, len(same_first), step):
                rows = same_first[s : s + step]
                tables = [self._suit_table(k) for k in second[rows].tolist()]
                ib = np.concatenate([t[0] for t in tables])
                wb = np.concatenate([t[1] for t in tables])
                offset = np.repeat(np.arange(len(rows)) * (self.cells + 1), [len(t[0]) for t in tables])
                target = self.capmap[ia[:, None] + ib[None, :]] + offset[None, :]
                weight = np.multiply.outer(wa, wb)
                sums = np.bincount(target.ravel(), weights=weight.ravel(), minlength=len(rows) * (self.cells + 1))
                out[rows] = np.rint(sums.reshape(len(rows), self.cells + 1)[:, : self.cells]).astype(np.int64)
        return out

    def halves(self, keys: np.ndarray) -> np.ndarray:
        """The half tables of `keys` (canonical half keys), reusing those kept from the
        previous group (a group and its complement need the same halves, on either side)."""
        if (len(self._halves_kept) + len(keys)) * self.cells * 8 > _KEPT_BYTES:
            self._halves_kept.clear()  # a big group: recompute rather than hold them all
        missing = np.array([k for k in keys.tolist() if k not in self._halves_kept], dtype=np.int64)
        if missing.size:
            for k, row in zip(missing.tolist(), self._compute_halves(missing)):
                self._halves_kept[k] = row
        return np.stack([self._halves_kept[k] for k in keys.tolist()]) if len(keys) else np.zeros((0, self.cells), dtype=np.int64)

    def box_sums(self, p: np.ndarray) -> np.ndarray:
        """R[u] = sum of P[v] over the cells v whose totals with u pass every axis (and the
        band): one 0/1 matrix product per axis, in float64 (exact: every partial sum is part
        of a row)."""
        if self.band is not None:
            return self._banded_box_sums(p)
        t = self._boxed(p.astype(np.float64).reshape((len(p),) + self.shape))
        return np.rint(t).astype(np.int64).reshape(len(p), self.cells)

    def _boxed(self, t: np.ndarray) -> np.ndarray:
        """The box sums along axes 1..n of `t` (rows first, cells' axes, maybe more after)."""
        shape = t.shape
        for axis, box in enumerate(self._box):  # in place of the axes: no moved copies
            t = _box_along(np.ascontiguousarray(t), box, int(np.prod(shape[: axis + 1])))
        return t.reshape(shape)

    def _banded_box_sums(self, p: np.ndarray) -> np.ndarray:
        """`box_sums` with the band: it ties the axes together through the sum σ of the three
        seats' HCP, so each P[v] is first spread over the sums τ of the other half's cell it
        can meet (those with band.lo <= σ(v) + τ <= band.hi), the two shorter axes are boxed
        with τ kept apart, and the longest one last, read only at τ = σ(u) (a gather, not a
        product over every τ). A cell that meets no cell within the band gets 0 (σ(u) > 20:
        no half holds it)."""
        out = np.empty((len(p), self.cells), dtype=np.int64)
        index, weight = self._band_reading
        step = max(1, _BLOCK_CELLS // (self.cells * self._sums))
        spread = np.empty((min(step, len(p)), self._sums, self.cells), dtype=np.float64)
        for s in range(0, len(p), step):
            block = p[s : s + step].astype(np.float64)
            t = np.multiply(block[:, None, :], self._band_mask.T[None], out=spread[: len(block)])  # (rows, τ, cells)
            for axis in self._band_order[:-1]:
                t = _box_along(t, self._box[axis], len(block) * self._sums * int(np.prod(self.shape[:axis])))
            flat = t.reshape(len(block), self._sums * self.cells)
            # float64 sums of subsets of a row: exact (see `box_sums`)
            out[s : s + step] = np.rint(np.einsum("rck,ck->rc", flat[:, index], weight)).astype(np.int64)
        return out

    @functools.cached_property
    def _band_order(self) -> list[int]:
        """The axes in the order `_banded_box_sums` boxes them: the longest last."""
        return sorted(range(len(self.shape)), key=lambda a: (self.shape[a], a))

    @functools.cached_property
    def _band_reading(self) -> tuple[np.ndarray, np.ndarray]:
        """For the last axis j of `_banded_box_sums`: per cell u and level v of axis j, the
        flat index of (τ = σ(u), u with its level j set to v) and the box weight of (u_j, v)."""
        j = self._band_order[-1]
        levels = self._cell_levels()
        stride = int(np.prod(self.shape[j + 1 :]))
        v = np.arange(self.shape[j])
        moved = (np.arange(self.cells) - levels[j] * stride)[:, None] + v[None, :] * stride
        tau = self._sigma[:, None] - self._tau0
        read = (tau >= 0) & (tau < self._sums)  # other cells meet no cell within the band
        index = np.clip(tau, 0, self._sums - 1) * self.cells + moved
        return index, self._box[j][levels[j]][:, v] * read

    # -- the sum over matrices -----------------------------------------------------------

    def half_keys(self, matrices: np.ndarray, column_codes: np.ndarray):
        """Per inclusion-exclusion term: its sign, and each matrix's two half keys (suits 1+2,
        suits 3+4), canonical (a half is the same whichever of its suits comes first).
        `column_codes`: each matrix's four columns, as `length_code`s."""
        columns = _vector_index()[column_codes]  # (M, 4)
        xseats = [s for s, r in enumerate(self.rules) if r.hcp_wildcard]
        qualifying = {s: self.rules[s].wildcard_lengths(matrices[:, s].astype(np.int64)) for s in xseats}
        for size in range(len(xseats) + 1):
            for chosen in combinations(xseats, size):
                comp = np.zeros(columns.shape, dtype=np.int64)
                for s in chosen:
                    comp |= qualifying[s].astype(np.int64) << s
                keys = columns * len(self._masks) + self.mask_id[np.arange(4)[None, :], comp]
                yield (-1) ** size, self._pair(keys[:, 0], keys[:, 1]), self._pair(keys[:, 2], keys[:, 3])

    def _pair(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.minimum(a, b) * self._keys + np.maximum(a, b)

    def plan(self, matrices: np.ndarray, budget: float | None = None) -> Plan | None:
        """The signed pairs of halves to sum (see `Plan`), for the admissible matrices; None
        when its work would pass `budget` (decided early when the pairs alone pass it)."""
        column_codes = length_code(matrices.transpose(0, 2, 1).astype(np.int64))
        keep, weight = representatives(column_codes, suit_classes(self.compiled))
        matrices, weight, column_codes = matrices[keep], weight[keep], column_codes[keep]
        term_count = 2 ** sum(1 for r in self.rules if r.hcp_wildcard)
        if budget is not None and float(len(matrices)) * term_count * self.cells > budget:
            return None
        terms = list(self.half_keys(matrices, column_codes))
        sums = matrices[:, :3, 0].astype(np.int64) + matrices[:, :3, 1]  # seats 0-2, suits 1+2
        partial, mirror = length_code(sums), length_code(13 - sums)
        plan = Plan(
            h12=np.concatenate([t[1] for t in terms]),
            h34=np.concatenate([t[2] for t in terms]),
            coefficient=np.concatenate([t[0] * weight for t in terms]),
            group=np.tile(np.minimum(partial, mirror) * 2 + (partial > mirror), len(terms)),
        )
        halves = len(np.unique(plan.h12)) + len(np.unique(plan.h34))
        plan.work = float(len(plan.h12) + _HALF_COST * halves) * self.cells
        return None if budget is not None and plan.work > budget else plan

    def total(self, plan: Plan) -> int:
        """sum of coefficient * P12[h12] . R34[h34] over the plan, exactly."""
        single_threaded_blas()
        order = np.argsort(plan.group, kind="stable")
        bounds = np.flatnonzero(np.diff(plan.group[order])) + 1
        total = 0
        last = None
        for rows in np.split(order, bounds):
            if rows.size == 0:
                continue
            # A group and its mirror (partial row sums s and 13 - s) meet the same halves on
            # opposite sides: they come one after the other, and the halves are kept between.
            if last is not None and plan.group[rows[0]] // 2 != last:
                self._halves_kept.clear()
            last = plan.group[rows[0]] // 2
            total += self._group_sum(plan.h12[rows], plan.h34[rows], plan.coefficient[rows])
        self._halves_kept.clear()
        return total

    def _group_sum(self, h12: np.ndarray, h34: np.ndarray, coefficient: np.ndarray) -> int:
        """sum coefficient * P12[h12] . R34[h34] over one group: S = C @ R34 (BLAS, R34 in
        21-bit limbs), then the row dots with P12, in blocks of halves on each side."""
        u12, p12 = np.unique(h12, return_inverse=True)
        u34, p34 = np.unique(h34, return_inverse=True)
        p12, p34 = p12.ravel(), p34.ravel()
        if len(u12) < len(u34):  # box sums on the side with fewer halves (the form is symmetric)
            u12, p12, u34, p34 = u34, p34, u12, p12
        total, block = 0, self._block
        for j in range(0, len(u34), block):
            r = self.box_sums(self.halves(u34[j : j + block]))
            _check_below(r, 42)
            r_high, r_low = (r >> 21).astype(np.float64), (r & _LOW21).astype(np.float64)
            in_j = (p34 >= j) & (p34 < j + block)
            for i in range(0, len(u12), block):
                sel = in_j & (p12 >= i) & (p12 < i + block)
                if not sel.any():
                    continue
                c = np.zeros((min(block, len(u12) - i), len(r)), dtype=np.float64)
                np.add.at(c, (p12[sel] - i, p34[sel] - j), coefficient[sel])
                # |c| <= 24 * 2**4 (orbit size, inclusion-exclusion terms) on at most 2**9
                # columns: products below 2**39, and S below 2**60
                s = (np.rint(c @ r_high).astype(np.int64) << 21) + np.rint(c @ r_low).astype(np.int64)
                p = self.halves(u12[i : i + block])
                _check_below(p, 42)
                total += exact_dot(p, s)
        return total


@dataclass
class Plan:
    """What `LengthMatrixCount.total` sums: per (orbit representative, inclusion-exclusion
    term), the half keys of suits 1+2 and 3+4, the coefficient (sign * matrices the
    representative stands for), and the group (partial row sums, next to their mirror)."""

    h12: np.ndarray
    h34: np.ndarray
    coefficient: np.ndarray
    group: np.ndarray
    #: Roughly the operations `total` needs, in multiply-adds (for `MAX_WORK`).
    work: float = 0.0


def _box_along(t: np.ndarray, box: np.ndarray, before: int) -> np.ndarray:
    """`t` (C order) boxed along the axis of length `len(box)` after `before` rows' worth of
    leading axes: one batched product, or, when what follows the axis is short (many tiny
    products), the axis moved last for one large product and moved back."""
    x = t.reshape(before, len(box), -1)
    if x.shape[2] == 1:  # the last axis: one product, no copy
        return x.reshape(before, len(box)) @ box.T
    if x.shape[2] >= 8:  # measured: from 8 on, the batched product beats the two moved copies
        return np.matmul(box, x)
    moved = np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(-1, len(box)) @ box.T
    return np.ascontiguousarray(moved.reshape(before, x.shape[2], len(box)).transpose(0, 2, 1))


def _check_below(x: np.ndarray, bits: int) -> None:
    if x.size and x.max() >= 1 << bits:
        raise OverflowError(f"length matrices: a half table entry is not below 2**{bits}")


def matrix_limit(counter: LengthMatrixCount) -> int:
    """The most admissible matrices worth enumerating: past it, even one matrix per orbit of
    alike suits (an orbit holds at most `orbit` matrices) times the cells and terms of each
    passes `MAX_WORK`, so `plan` would refuse. Enumerating stops there, not seconds later."""
    orbit = prod(factorial(len(c)) for c in suit_classes(counter.compiled))
    terms = 2 ** sum(1 for r in counter.rules if r.hcp_wildcard)
    return min(MAX_MATRICES, int(MAX_WORK * orbit // (counter.cells * terms)))


#: Also what `deals.drawing.length_draw` draws from (a superset, its proposals checked).
LENGTH_MATRICES = Handles("the length matrices' count")


def matrix_count(compiled: CompiledScenario) -> int | None:
    """The exact number of deals satisfying the scenario, or None past the budget (or when
    it sets a field not declared in `LENGTH_MATRICES`)."""
    if not LENGTH_MATRICES.takes(compiled):
        return None
    counter = LengthMatrixCount(compiled)
    matrices = length_matrices(compiled, matrix_limit(counter))
    if matrices is None:
        return None
    plan = counter.plan(matrices, MAX_WORK)
    return None if plan is None else counter.total(plan)
