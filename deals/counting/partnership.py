"""Exact counting for one partnership: how many pairs of hands its two seats can hold.

`PairModel(part)` counts, with integers, the ordered pairs of disjoint hands of its two seats
that satisfy their rules and fits: per pair of length vectors, the suits are independent and
the HCP totals are met in the middle (suits 1+2 against 3+4, a box sum of the second half);
a wildcard's HCP by inclusion-exclusion. The method, its modes and why every sum is exact:
docs/COUNTING.md, "One partnership".
"""

from __future__ import annotations

import functools
from fractions import Fraction
from itertools import product
from math import comb

import numpy as np

from .blas import single_threaded_blas
from .exact import exact_dot
from ..rules.handled import Handles
from ..rules.compiled import PartRules, SeatRule

#: One partnership's models (`PairModel`): exact for these, a superset for any other field
#: (their proposals are then checked by the rules, and the probability estimated).
PAIR_MODELS = Handles("one partnership's models")
from .symmetry import representatives
from .tables import PAIR_HANDS, comb_table, joint_table, length_vectors, within_thirteen

_CHUNK = 16384
_BLOCK = 256  # rows of a block product: bounds its temporaries (a few MB)


# Index maps of the 2-D convolution as a linear map (X, Y are 11x11 HCP tables of one suit).
_I, _J, _K, _L = np.meshgrid(np.arange(11), np.arange(11), np.arange(11), np.arange(11), indexing="ij")
_T_ROW = ((_I + _K) * 21 + (_J + _L)).ravel()
_T_COL = (_K * 11 + _L).ravel()
_T_SRC = (_I * 11 + _J).ravel()


#: The operator of a table X, transposed: T[k * 11 + l, (i + k) * 21 + (j + l)] = X[i, j] (entry
#: `_T_COL`, `_T_ROW` of T from entry `_T_SRC` of X), so that conv(X, Y) flattened is Y
#: flattened times T. Its zeros are the same for every table, so one buffer is filled again
#: for each (`_convolve`).


def rectangle_operators(lo_a: int, hi_a: int, lo_b: int, hi_b: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 matrices Ra[u, x] = (lo_a <= u + x <= hi_a), Rb[v, y] likewise: the rectangle sums
    of a 21x21 HCP table P are Ra @ P @ Rb.T (the HCP totals that (u, v) still allows)."""
    g = np.arange(21)
    s = g[:, None] + g[None, :]
    return ((s >= lo_a) & (s <= hi_a)).astype(np.float64), ((s >= lo_b) & (s <= hi_b)).astype(np.float64)


def rectangle_sums(p: np.ndarray, rect: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """`(n, 441)` int64 tables (entries < 2**34) -> their rectangle sums, exactly (float64
    sums of at most 441 entries stay below 2**43). In blocks, to bound the temporaries."""
    ra, rb = rect
    out = np.empty_like(p)
    for s in range(0, p.shape[0], 512):
        block = p[s : s + 512]
        n = block.shape[0]
        t = block.reshape(n, 21, 21).astype(np.float64)
        t = (ra @ t.transpose(1, 0, 2).reshape(21, n * 21)).reshape(21, n, 21).transpose(1, 0, 2)
        t = t.reshape(n * 21, 21) @ rb.T
        out[s : s + n] = np.rint(t).astype(np.int64).reshape(n, 441)
    return out


class _ConvCache:
    """Convolutions already computed, by the contents of their two one-suit tables. The half
    tables of the models a process builds are convolutions of a few hundred distinct tables
    (the plain joint tables and the same few masks, scenario after scenario): the sample's
    45 scenarios ask for 73,000 rows, 4,230 distinct. At most `rows` rows (3.5 KB each), the
    least recently used dropped first; lookups and inserts are a few array operations a call."""

    def __init__(self, rows: int):
        self.capacity = rows
        self.table_ids: dict[bytes, int] = {}
        self.clear()

    def clear(self) -> None:
        self.keys = np.zeros(0, dtype=np.int64)  # sorted codes of the rows held
        self.slots = np.zeros(0, dtype=np.int64)  # ... and where each is
        # At full size from the start: zeros the system gives untouched (no memory used
        # until a row is written), where growing by copies wrote every row again.
        self.rows = np.zeros((self.capacity, 441), dtype=np.int64)
        self.stamps = np.zeros(self.capacity, dtype=np.int64)  # when each slot was last used
        self.clock = 0

    def ids(self, tables: list[np.ndarray]) -> np.ndarray:
        """A number for each table of `tables` (int64 `(m, 11, 11)` arrays, in order), the same
        for equal contents."""
        if len(self.table_ids) + sum(len(t) for t in tables) > 2 * self.capacity:
            self.table_ids.clear()  # the ids name the rows held: both go together
            self.clear()
        ids = self.table_ids
        return np.array([ids.setdefault(t.tobytes(), len(ids)) for group in tables for t in group], dtype=np.int64)

    def get(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For sorted distinct `codes`: which are held, and their rows."""
        self.clock += 1
        pos = np.minimum(np.searchsorted(self.keys, codes), max(len(self.keys) - 1, 0))
        hit = self.keys[pos] == codes if len(self.keys) else np.zeros(len(codes), dtype=bool)
        slots = self.slots[pos[hit]]
        self.stamps[slots] = self.clock
        return hit, self.rows[slots]

    def put(self, codes: np.ndarray, rows: np.ndarray) -> None:
        """Hold `rows` under `codes` (none of them held yet), dropping the oldest to fit."""
        if len(codes) > self.capacity:
            return
        held = len(self.keys)
        free = np.arange(held, min(held + len(codes), self.capacity), dtype=np.int64)
        short = len(codes) - len(free)
        self.stamps[free] = self.clock + 1  # taken now: not among the oldest to drop
        if short > 0:
            oldest = np.argpartition(self.stamps, short - 1)[:short]
            keep = ~np.isin(self.slots, oldest)
            self.keys, self.slots = self.keys[keep], self.slots[keep]
            slots = np.concatenate([free, oldest.astype(np.int64)])
        else:
            slots = free
        self.rows[slots] = rows
        self.stamps[slots] = self.clock
        keys = np.concatenate([self.keys, codes])
        order = np.argsort(keys, kind="stable")
        self.keys, self.slots = keys[order], np.concatenate([self.slots, slots])[order]


#: The convolutions kept: 4,096 rows (14 MB) hold every distinct one of the sample's build.
CONV_CACHE_ROWS = 4096
_CONV = _ConvCache(CONV_CACHE_ROWS)


def half_tables(first: np.ndarray, second: np.ndarray, kx: np.ndarray, ky: np.ndarray):
    """For each row, conv(first[kx], second[ky]) as `(n, 441)` int64. `first`/`second` are
    `(m, 11, 11)` int64 tables (entries < 2**17); exact in float64, as conv entries are sums
    of 121 products < 2**34 (< 2**41). Each distinct pair of table contents is convolved once
    (conv(X, Y) = conv(Y, X)), and only when `_CONV` does not hold it yet."""
    if len(kx) == 0:
        return np.empty((0, 441), dtype=np.int64)
    ux, ix = np.unique(kx, return_inverse=True)
    uy, iy = np.unique(ky, return_inverse=True)
    ids = _CONV.ids([first[ux], second[uy]])
    a, b = ids[ix.ravel()], ids[len(ux) + iy.ravel()]
    codes, where, inverse = np.unique(np.minimum(a, b) << 32 | np.maximum(a, b), return_index=True, return_inverse=True)
    rows = np.empty((len(codes), 441), dtype=np.int64)
    hit, held = _CONV.get(codes)
    rows[hit] = held
    if not hit.all():
        todo = where[~hit]
        computed = _convolve(first, second, kx[todo], ky[todo])
        rows[~hit] = computed
        _CONV.put(codes[~hit], computed)
    return rows[inverse.ravel()]


def _convolve(first: np.ndarray, second: np.ndarray, kx: np.ndarray, ky: np.ndarray) -> np.ndarray:
    """`half_tables` computed: one operator per distinct table of the side with fewer, and a
    product with the other side's rows."""
    # return_counts: numpy's unique without it imports numpy.ma (18 ms of a one-deal start)
    ux, uy = np.unique(kx, return_counts=True)[0], np.unique(ky, return_counts=True)[0]
    if len(uy) < len(ux):
        first, second, kx, ky, ux, uy = second, first, ky, kx, uy, ux
    order = np.argsort(kx, kind="stable")
    bounds = np.flatnonzero(np.diff(kx[order])) + 1
    xs = first.reshape(first.shape[0], 121)
    ys = second.reshape(second.shape[0], 121)
    # Only the HCP entries some table at hand holds (a suit's tables are zero wherever no
    # split of its honours gives those HCP: 61 entries of 121), and only the sums of those:
    # the operator's other rows multiply zeros and its other columns add none. The same
    # terms are summed, a quarter of the products made.
    in_x, in_y = (xs[ux] != 0).any(axis=0), (ys[uy] != 0).any(axis=0)
    terms = in_x[_T_SRC] & in_y[_T_COL]
    rows_in = np.flatnonzero(in_y)
    sums = np.flatnonzero(np.bincount(_T_ROW[terms], minlength=441))
    where_row, where_sum = np.cumsum(in_y) - 1, np.zeros(441, dtype=np.int64)
    where_sum[sums] = np.arange(len(sums))
    flat = where_row[_T_COL[terms]] * len(sums) + where_sum[_T_ROW[terms]]
    source = _T_SRC[terms]
    y_held = ys[ky][:, rows_in].astype(np.float64)
    out = np.empty((len(kx), len(sums)), dtype=np.float64)
    buffer = np.zeros(len(rows_in) * len(sums), dtype=np.float64)
    operator = buffer.reshape(len(rows_in), len(sums))  # T of the table at hand, in part
    for rows in np.split(order, bounds):
        buffer[flat] = xs[kx[rows[0]]][source]
        out[rows] = y_held[rows] @ operator
    result = np.zeros((len(kx), 441), dtype=np.int64)
    result[:, sums] = np.rint(out)
    return result


_LIMB = 17
#: `exact_matmul`'s residues are taken modulo 2**20: products of residues stay below 2**40,
#: sums of 441 of them below 2**49, exact in float64.
_RESIDUE_BITS = 20
_RESIDUE = 1 << _RESIDUE_BITS
#: Results up to this are read from one float64 product and corrected by the residues: the
#: product's error is at most 441 * 2**-53 of the result (every term is non-negative), under
#: 2**16 here, well inside half the modulus.
_ROUNDED_UP_TO = float(1 << 60)


def right_operand(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The right-hand operand of `exact_matmul`, prepared once: (y, y as float64, y's
    residues as float64)."""
    if y.size and y.max() >= 1 << 34:
        raise OverflowError("exact_matmul: entries too large for the two-limb split")
    return y, y.astype(np.float64), (y & (_RESIDUE - 1)).astype(np.float64)


def exact_matmul(x: np.ndarray, y) -> np.ndarray:
    """`x @ y.T` for non-negative int64 matrices with entries below 2**34 and k <= 441
    columns, exactly, with float64 BLAS. Two products: one in float64, whose error is below
    2**16 when its results are at most 2**60 (the counts' products are: a count is below
    4.3e18), and one of the entries' residues modulo 2**20, exact, which fixes the rounded
    result's last bits (the true value is the one within half the modulus with that residue).
    Past 2**60, each entry is split in two 17-bit limbs instead, so every partial sum stays
    below 2**53 (`_limb_matmul`). `y` may be given already prepared by `right_operand`."""
    if x.size and (x.max() >= 1 << 34 or x.shape[1] > 441):
        raise OverflowError("exact_matmul: entries too large for the two-limb split")
    y, yf, yr = right_operand(y) if isinstance(y, np.ndarray) else y
    approx = x.astype(np.float64) @ yf.T
    if approx.size and approx.max() > _ROUNDED_UP_TO:
        return _limb_matmul(x, y)
    rounded = np.rint(approx).astype(np.int64)
    residue = np.rint((x & (_RESIDUE - 1)).astype(np.float64) @ yr.T).astype(np.int64)
    fix = (residue - rounded) & (_RESIDUE - 1)
    fix -= (fix >= _RESIDUE // 2) * _RESIDUE
    return rounded + fix


def _limb_matmul(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`exact_matmul` by 17-bit limbs: three products, every partial sum below 2**53."""
    mask = (1 << _LIMB) - 1
    yh, yl = (y >> _LIMB).astype(np.float64), (y & mask).astype(np.float64)
    xh, xl = (x >> _LIMB).astype(np.float64), (x & mask).astype(np.float64)
    hh = (xh @ yh.T).astype(np.int64)
    mid = (np.concatenate([xh, xl], axis=1) @ np.concatenate([yl, yh], axis=1).T).astype(np.int64)
    ll = (xl @ yl.T).astype(np.int64)
    return (hh << (2 * _LIMB)) + (mid << _LIMB) + ll


def grouped_dots(f12: np.ndarray, f34: np.ndarray, i12: np.ndarray, i34: np.ndarray, group: np.ndarray) -> np.ndarray:
    """`out[p] = f12[i12[p]] . f34[i34[p]]` (exact int64), computed as one matrix product
    per group of pairs sharing their half-length sums (the halves that can meet). Every
    group's distinct halves are found at once (a group's are a run of one sorted array), not
    by a sort per group: most models have a hundred groups or more."""
    n = len(i12)
    out = np.empty(n, dtype=np.int64)
    if n == 0:
        return out
    order = np.argsort(group, kind="stable")
    sorted_groups = group[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    ends = np.r_[starts[1:], n]
    groups = sorted_groups[starts]
    m12, m34 = max(len(f12), 1), max(len(f34), 1)
    u12, inv12 = np.unique(group.astype(np.int64) * m12 + i12, return_inverse=True)
    u34, inv34 = np.unique(group.astype(np.int64) * m34 + i34, return_inverse=True)
    inv12, inv34 = inv12.ravel(), inv34.ravel()
    s12, e12 = np.searchsorted(u12 // m12, groups), np.searchsorted(u12 // m12, groups, side="right")
    s34, e34 = np.searchsorted(u34 // m34, groups), np.searchsorted(u34 // m34, groups, side="right")
    h12, h34 = u12 % m12, u34 % m34
    for g in range(len(groups)):
        rows = order[starts[g] : ends[g]]
        a0, a1, b0, b1 = s12[g], e12[g], s34[g], e34[g]
        if (a1 - a0) * (b1 - b0) <= 8 * len(rows):
            p, q = inv12[rows] - a0, inv34[rows] - b0
            right = right_operand(f34[h34[b0:b1]])
            for s in range(0, a1 - a0, _BLOCK):
                block = exact_matmul(f12[h12[a0 + s : min(a0 + s + _BLOCK, a1)]], right)
                if a1 - a0 <= _BLOCK:
                    out[rows] = block[p, q]
                    break
                sel = (p >= s) & (p < s + _BLOCK)
                out[rows[sel]] = block[p[sel] - s, q[sel]]
        else:  # sparse: dot products one pair at a time, in chunks
            for s in range(0, rows.size, _CHUNK):
                r = rows[s : s + _CHUNK]
                out[r] = np.einsum("ij,ij->i", f12[i12[r]], f34[i34[r]])
    return out


def _looked_up(renaming: tuple[PairModel, tuple[int, ...]], values: np.ndarray, la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """`values` (one of the renamed model's arrays, an entry per pair of length vectors it
    kept) for each pair (la, lb) here, renamed (`suit_of`); 0 for the pairs it dropped
    (they weigh nothing)."""
    model, suit_of = renaming
    theirs = _pair_code(model.la, model.lb)
    if len(theirs) == 0:
        return np.zeros(len(la), dtype=np.int64)
    renamed_a, renamed_b = np.empty_like(la), np.empty_like(lb)
    renamed_a[:, list(suit_of)], renamed_b[:, list(suit_of)] = la, lb
    ours = _pair_code(renamed_a, renamed_b)
    order = np.argsort(theirs)
    found = order[np.minimum(np.searchsorted(theirs, ours, sorter=order), len(theirs) - 1)]
    return np.where(theirs[found] == ours, values[found], 0).astype(np.int64)


def _pair_code(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """A pair of length vectors as one integer (base 14 per seat and suit)."""
    return ((la * 14 + lb) * 196 ** np.arange(4)).sum(axis=1)


_INTERNED: dict = {}


def _interned(table: np.ndarray) -> np.ndarray:
    """A read-only copy of `table`, the same object for equal tables (most models have the
    plain joint tables: no per-suit HCP rule). Keeps the 64 most recent distinct tables."""
    key = table.tobytes()
    out = _INTERNED.pop(key, None)
    if out is None:
        out = np.ascontiguousarray(table).copy()
        out.flags.writeable = False
        while len(_INTERNED) >= 64:
            del _INTERNED[next(iter(_INTERNED))]
    _INTERNED[key] = out
    return out


def _half_v0(variants: np.ndarray, keys: np.ndarray, first_suit: int) -> np.ndarray:
    """`PairModel._half` for half codes of variant 0, from `(4, 1, 14, 14, 11, 11)` tables."""
    first = variants[first_suit, 0].reshape(196, 11, 11)
    second = variants[first_suit + 1, 0].reshape(196, 11, 11)
    return half_tables(first, second, keys // 784 // 4, keys % 784 // 4)


def _hcp_mask(rule: SeatRule, suit: int, complement_wildcard: bool) -> np.ndarray:
    h = np.arange(11)
    mask = (h >= rule.shcp_lo[suit]) & (h <= rule.shcp_hi[suit])
    if complement_wildcard and rule.hcp_wildcard:
        w = rule.wildcard
        assert w is not None
        mask &= ~((h >= w.xh_lo) & (h <= w.xh_hi))
    return mask


def _length_vector_pairs(part: PartRules, rest: bool, alike: list[list[int]] | None = None):
    """The pairs of length vectors (a's, b's) of `part`, a's in order, b's in order for each.
    `alike`: only the pairs whose lengths of a are in order within each class of alike suits,
    a superset of `representatives`' rows (a suit's code there is a * 14 + b), in the same
    order: the other rows of the whole list, dropped before they are made."""
    ra, rb = part.rules
    lv = length_vectors().astype(np.int8)
    ok_a = ra.length_ok(lv)
    if alike is not None:
        for suits in alike:
            ok_a &= (np.diff(lv[:, suits], axis=1) >= 0).all(axis=1)
    la_set = lv[ok_a]
    if rest:
        la = la_set.astype(np.int64)
        return la, 13 - la
    ok_b = rb.length_ok(lv)
    lb_set = lv[ok_b]
    fits_in = within_thirteen()[np.ix_(ok_a, ok_b)]
    ia, ib = np.nonzero(fits_in)
    la = la_set[ia].astype(np.int64)
    lb = lb_set[ib].astype(np.int64)
    if part.fits:
        ok = np.ones(len(la), dtype=bool)
        for fit in part.fits:
            ok &= fit.ok(la + lb)
        la, lb = la[ok], lb[ok]
    return la, lb


@functools.lru_cache(maxsize=1024)
def length_pairs(part: PartRules) -> int:
    """How many pairs of length vectors a partnership admits (what its count costs)."""
    if part.fits:
        return len(_length_vector_pairs(part, False)[0])
    # Without fits the pairs are the true entries of a table: counted, not listed.
    lv = length_vectors().astype(np.int8)
    ok_a, ok_b = (rule.length_ok(lv) for rule in part.rules)
    return int(np.count_nonzero(within_thirteen()[np.ix_(ok_a, ok_b)]))


class PairModel:
    """Exact count of a partnership's satisfying hand pairs, and the tables to draw them."""

    def __init__(
        self,
        part: PartRules,
        force_pair: bool = False,
        count_only: bool = False,
        alike: list[list[int]] | None = None,
        renaming: tuple[PairModel, tuple[int, ...]] | None = None,
    ):
        """`force_pair`: enumerate pairs of length vectors even when seat b has no rule (the
        cross-partnership counts need the count of every pair). `count_only`: drop the
        tables only the sampler needs, once counted (they are the bulk of the memory).
        `alike`: classes of suits the whole scenario treats alike (`deals.counting.symmetry`; with
        `force_pair` and `count_only` only): keep one pair of length vectors per orbit,
        `multiplicity` saying how many pairs it stands for. `renaming`: (a model of these
        rules with the suits renamed, `suit_of[k]` its suit for suit k here): each pair of
        length vectors weighs what its renamed pair weighs there (the same hands, renamed),
        so the weights are looked up, not counted; every array is the one counting makes,
        in its order, so the draws are the same (`deals.counting.scenario.pair_model`)."""
        single_threaded_blas()
        self.part = part
        ra, rb = part.rules
        sa, sb = part.seats
        if ra.is_free and not rb.is_free:
            ra, rb, sa, sb = rb, ra, sb, sa
        #: Rest mode: seat b has no rule. Then "seat b" stands for the other 39 cards together
        #: (lengths 13 - a_k) and the HCP work is done on single hands of a.
        self.rest = rb.is_free and not force_pair
        #: Fit mode: rest mode plus fits. Seat b's hand then matters only through its lengths,
        #: so each length vector L of a is weighted by Z(L), the ways for b to take lengths
        #: from the 39 cards left that complete the fits (a hypergeometric sum).
        self.fit_mode = self.rest and bool(part.fits)
        self.rules = (ra, rb)
        #: The seats drawn as a and b; b is -1 in rest mode (its cards are dealt out later).
        self.seats = (sa, sb if self.fit_mode else -1 if self.rest else sb)
        part_ab = PartRules((sa, sb), (ra, rb), () if self.rest else part.fits)
        if alike is not None:
            assert force_pair and count_only, "orbits are for counts, not for draws"
        la, lb = _length_vector_pairs(part_ab, self.rest, alike)
        multiplicity = np.ones(len(la), dtype=np.int64)
        if alike is not None:
            keep, multiplicity = representatives(la * 14 + lb, alike)
            la, lb, multiplicity = la[keep], lb[keep], multiplicity[keep]

        joint = joint_table()
        # Per suit, four variants: bit 0 = seat a's wildcard-HCP complement, bit 1 = seat b's.
        # A variant with the bit of a seat without wildcard HCP is never asked for (no term
        # of the inclusion-exclusion sets it): left at zero.
        variants = np.zeros((4, 4, 14, 14, 11, 11), dtype=np.int64)
        used = [v for v in range(4) if not (v & 1 and not ra.hcp_wildcard) and not (v & 2 and not rb.hcp_wildcard)]
        for k in range(4):
            for v in used:
                ma = _hcp_mask(ra, k, bool(v & 1))
                mb = _hcp_mask(rb, k, bool(v & 2))
                variants[k, v] = joint * ma[None, None, :, None] * mb[None, None, None, :]
        #: (4, 14, 14, 11, 11): what the sampler splits with (shared by equal models)
        self.suit_tables = None if count_only else _interned(variants[:, 0])
        self.rect = rectangle_operators(ra.hcp_lo, ra.hcp_hi, rb.hcp_lo, rb.hcp_hi)

        # Superset weights (wildcard HCP left out): drop pairs of vectors that weigh nothing.
        zero = np.zeros((len(la), 4), dtype=np.int64)
        self._memo: dict = {}  # half tables shared between the terms, while counting
        if renaming is None:
            w, k12, k34, keys12, keys34 = self._term(variants, la, lb, zero)
        else:
            assert alike is None and not force_pair, "renamings are for the sampler's models"
            keys12, keys34, k12, k34 = self._halves(la, lb, zero)
            w = _looked_up(renaming, renaming[0].weights, la, lb)
        keep = w > 0
        self.la, self.lb, self.weights = la[keep], lb[keep], w[keep]
        #: How many pairs of length vectors each kept pair stands for (1 without `alike`).
        self.multiplicity = multiplicity[keep]
        #: Each kept pair's halves (suits 1+2, suits 3+4): indices into `keys12`/`keys34`,
        #: the codes of the distinct halves. Their HCP tables are not kept (tens of MB for a
        #: big partnership): `draw_tables` rebuilds those a draw needs.
        self.idx12, self.idx34 = k12[keep], k34[keep]
        self.keys12, self.keys34 = keys12, keys34
        if self.fit_mode:
            self._fit_tables(part.fits)
        self.superset_count = self._scaled_total(self.weights)

        if renaming is not None:
            # inclusion-exclusion's result per pair, looked up too; the count is linear in it
            self.exact_weights = _looked_up(renaming, renaming[0].exact_weights, self.la, self.lb)
            self.count = self._scaled_total(self.exact_weights)
            del self._memo
            if count_only:
                self.suit_tables = None
            return
        # Exact count: inclusion-exclusion over the seats whose wildcard has an HCP condition.
        total = self.superset_count
        #: Exact count per kept pair of length vectors (fit mode: before the Z(L) weights).
        #: Partial sums stay within +-2 * 4.3e18, inside int64.
        self.exact_weights = self.weights.copy()
        qa = ra.wildcard_lengths(self.la) if ra.hcp_wildcard else None
        qb = rb.wildcard_lengths(self.lb) if rb.hcp_wildcard else None
        for use_a, use_b in product((False, True), repeat=2):
            if not (use_a or use_b) or (use_a and qa is None) or (use_b and qb is None):
                continue
            v = np.zeros((len(self.la), 4), dtype=np.int64)
            if use_a:
                v += qa.astype(np.int64)
            if use_b:
                v += 2 * qb.astype(np.int64)
            term = self._term(variants, self.la, self.lb, v)[0]
            sign = -1 if (use_a + use_b) % 2 else 1
            total += sign * self._scaled_total(term)
            self.exact_weights += sign * term
        self.count = total
        del self._memo
        if count_only:
            self.suit_tables = None

    def _scaled_total(self, weights: np.ndarray) -> int:
        """sum of per-pair weights, each times Z(L) in fit mode (or its multiplicity), exactly."""
        return exact_dot(weights, self.fit_z if self.fit_mode else self.multiplicity)

    def _fit_tables(self, fits) -> None:
        """Fit mode: for each kept length vector of a, the cumulative weights of b's length
        vectors (C(13 - a_k, b_k) per suit, fits satisfied) and their total Z."""
        lv = length_vectors()
        c = comb_table()[:14, :14]  # C(n, k) is 0 for k > n: no separate check of a_k + b_k <= 13
        rest = 13 - self.la
        # Per suit, the rows of a's lengths then the columns of b's: two takes, a tenth of the
        # time of indexing by two broadcast arrays, and no (|A|, 560, 4) arrays for the fits
        # (measured: 1.4 ms against 14 ms for 456 vectors of a).
        w = np.take(np.take(c, rest[:, 0], axis=0), lv[:, 0], axis=1)
        for k in range(1, 4):
            w *= np.take(np.take(c, rest[:, k], axis=0), lv[:, k], axis=1)
        for fit in fits:
            ok = np.zeros(w.shape, dtype=bool)
            for k in fit.suits:
                ok |= self.la[:, k, None] >= fit.min - lv[None, :, k]
            w *= ok
        self.fit_lb_cum = np.cumsum(w, axis=1)  # (|A|, 560); totals <= C(39, 13)
        self.fit_z = self.fit_lb_cum[:, -1].copy()
        keep = self.fit_z > 0
        if not keep.all():  # vectors of a that no partner hand can complete
            self.la, self.lb, self.weights = self.la[keep], self.lb[keep], self.weights[keep]
            self.idx12, self.idx34, self.multiplicity = self.idx12[keep], self.idx34[keep], self.multiplicity[keep]
            self.fit_lb_cum, self.fit_z = self.fit_lb_cum[keep], self.fit_z[keep]

    def _term(self, variants, la, lb, v):
        """Per pair of length vectors: the count with per-suit variants `v` (n, 4); also each
        pair's half indices and the distinct half codes."""
        n = len(la)
        u12, u34, i12, i34 = self._halves(la, lb, v)
        f12 = self._memo_rows("12", u12, lambda keys: self._half(variants, keys, 0))
        r34 = self._memo_rows("34", u34, lambda keys: rectangle_sums(self._half(variants, keys, 2), self.rect))
        group = (la[:, 0] + la[:, 1]) * 14 + lb[:, 0] + lb[:, 1]
        # The HCP cells no half of suits 1+2 holds (a pair's HCP there is at most 20) add
        # nothing to a dot product: left out.
        held = np.flatnonzero(f12.any(axis=0))
        out = grouped_dots(f12[:, held], r34[:, held], i12, i34, group) if n else np.zeros(0, dtype=np.int64)
        return out, i12, i34, u12, u34

    @staticmethod
    def _halves(la, lb, v):
        """Each pair's half codes (suits 1+2, 3+4, variants `v`): the distinct codes, and
        each pair's index into them."""
        key12 = ((la[:, 0] * 14 + lb[:, 0]) * 4 + v[:, 0]) * 784 + (la[:, 1] * 14 + lb[:, 1]) * 4 + v[:, 1]
        key34 = ((la[:, 2] * 14 + lb[:, 2]) * 4 + v[:, 2]) * 784 + (la[:, 3] * 14 + lb[:, 3]) * 4 + v[:, 3]
        u12, i12 = np.unique(key12, return_inverse=True)
        u34, i34 = np.unique(key34, return_inverse=True)
        return u12, u34, i12.ravel(), i34.ravel()

    def _memo_rows(self, name: str, keys: np.ndarray, compute) -> np.ndarray:
        """`compute(keys)` (one table row per sorted distinct half code), reusing the rows an
        earlier inclusion-exclusion term of this model computed: terms differ only in the
        halves that hold a qualifying wildcard suit, the other halves' tables are the same."""
        memo = self._memo.get(name)
        if memo is None or len(memo[0]) == 0:
            rows = compute(keys)
        else:
            old_keys, old_rows = memo
            pos = np.minimum(np.searchsorted(old_keys, keys), len(old_keys) - 1)
            hit = old_keys[pos] == keys
            rows = np.empty((len(keys), 441), dtype=np.int64)
            rows[hit] = old_rows[pos[hit]]
            rows[~hit] = compute(keys[~hit])
        self._memo[name] = (keys, rows)
        return rows

    def draw_tables(self, rows12: np.ndarray, rows34: np.ndarray):
        """The superset HCP tables of the halves `rows12` (indices into `keys12`) and `rows34`:
        P12 `(len(rows12), 441)`, and P34 and its rectangle sums R34 `(len(rows34), 441)`, all
        int64, exactly as the count used them (the same functions, on variant 0)."""
        variants = self.suit_tables[:, None]  # (4, 1, 14, 14, 11, 11): variant 0 only
        # A half code holds ((a * 14 + b) * 4 + v) per suit, v = 0 here: table (a * 14 + b).
        p12 = _half_v0(variants, self.keys12[rows12], 0)
        p34 = _half_v0(variants, self.keys34[rows34], 2)
        return p12, p34, rectangle_sums(p34, self.rect)

    @property
    def nbytes(self) -> int:
        """Memory held by the model's arrays (its draw tables included; not the suit tables,
        which equal models share)."""
        arrays = [v for k, v in vars(self).items() if isinstance(v, np.ndarray) and k != "suit_tables"]
        cache = getattr(self, "_draw_cache", None) or {}
        arrays += [v for k, v in cache.items() if isinstance(v, np.ndarray) and not k.startswith("split_")]
        arrays += [v for v in cache.get("full", {}).values() if isinstance(v, np.ndarray)]
        return sum(v.nbytes for v in arrays)

    @staticmethod
    def _half(variants, keys, first_suit):
        """`keys` encode ((a, b, variant) of the first suit) * 784 + (same for the second)."""
        # A suit's code (a * 14 + b) * 4 + v names variants[k, v, a, b]: table v * 196 + a * 14 + b
        # of the suit's tables seen as (784, 11, 11): a view, where a transpose was a copy.
        first = variants[first_suit].reshape(784, 11, 11)
        second = variants[first_suit + 1].reshape(784, 11, 11)
        x, y = keys // 784, keys % 784
        return half_tables(first, second, x % 4 * 196 + x // 4, y % 4 * 196 + y // 4)

    @property
    def universe(self) -> int:
        """What `count` is out of: hands of seat a (rest mode) or ordered pairs of hands."""
        return comb(52, 13) if self.rest and not self.fit_mode else PAIR_HANDS

    @property
    def probability(self) -> Fraction:
        """Probability that a random deal satisfies this partnership's rules."""
        return Fraction(self.count, self.universe)

    @property
    def superset_probability(self) -> Fraction:
        return Fraction(self.superset_count, self.universe)
