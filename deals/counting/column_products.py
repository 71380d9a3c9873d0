"""Exact counts of whole deals whose length rules are conditions on the suits one at a time
(and shapes), without listing length matrices.

The count is a sum over the meeting pairs of groups of two halves (two suits each) of
A_s . R(B_(13-s)), A = K @ G: K the spot ways of a group's pairs of columns per pair of
honour-count vectors, G the honours' HCP tables. Disjunctions over suits by
inclusion-exclusion, shapes by the groups' rows, four seats with HCP rules by a band on
three seats' sum. Past the budget (`MAX_WORK`, `MAX_TABLE_BYTES`, `MAX_K_BYTES`,
`MAX_ALL_K_BYTES`), None. The derivation and why every sum is exact: docs/COUNTING.md,
"Column products".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT

from .blas import single_threaded_blas
from .exact import exact_dot
from .length_matrices import LengthMatrixCount, banded_axes, hcp_axes, spot_ways
from ..rules.handled import Handles
from ..rules.compiled import CompiledScenario, FitRule, SeatRule, shape_mask
from .symmetry import canonical
from .tables import length_code, length_vectors, within_thirteen

#: Give up (None, the caller uses the length matrices) past this many multiply-adds. The
#: estimate overstates: random scenarios of 1-4e10 count in 1-3 s, and past 1e10 most
#: competitive scenarios with wildcards with HCP at three or four HCP seats were estimated
#: (`benchmarks/fuzz_scenarios.py`).
MAX_WORK = 4e10
#: ... or when G, merged, could pass this many bytes (1,225 x cells: four seats with HCP rules).
MAX_TABLE_BYTES = 64 * 2**20
#: A half's rows (groups of partial row sums) computed together: bounds the temporaries.
_BLOCK_CELLS = 2**20
#: The most R of a half's merged G may weigh when it is kept for a term (`_boxed_merged`).
_BOXED_BYTES = 40 * 2**20
_HONOURS = 35  # honour-count vectors of a suit (4 honours, 4 seats)
#: The most a block of K matrices may weigh while a half is prepared.
_K_BYTES = 64 * 2**20
#: ... and K of a half's meeting groups, on every column (`Half.width`), at most this much
#: (`ColumnCount.within`): past it, preparing alone takes seconds and GBs (wildcards with
#: HCP at two seats of one half beside thousands of groups: 1.3 GB, 20-30 s), while the
#: reference's and the sample's scenarios need at most 70 MB, and random ones of 260-280 MB
#: count in 1-4 s (`benchmarks/fuzz_scenarios.py`).
MAX_K_BYTES = 512 * 2**20
#: ... and the K of all the distinct halves together at most this much: the terms' halves are
#: prepared before any is counted (`within` needs their work), so this bounds the count's
#: memory. Past 1 GB of K, preparing took 7-8 s of a 10 s scenario (page faults at 1.5-2.4 GB
#: resident); 2 of the fuzz benchmark's 2,000 scenarios pass it.
MAX_ALL_K_BYTES = 2**30
_PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


def covers(compiled: CompiledScenario) -> bool:
    """Are the scenario's length rules per-suit ranges, length-only wildcards, fits and shapes?
    A wildcard with HCP, or a kind of rule added later, is not. (`column_count` counts
    wildcards with HCP too, by honour masks per column: `counts`.)"""
    return counts(compiled) and not any(r.hcp_wildcard for r in compiled.seat_rules)


#: Also what `deals.drawing.column_draw` and `deals.drawing.union_draw` draw (they ask `counts`).
COLUMN_PRODUCTS = Handles("the column products' count and draws")


def counts(compiled: CompiledScenario) -> bool:
    """What `column_count` counts: `covers`, and wildcards with an HCP part."""
    return COLUMN_PRODUCTS.takes(compiled) and all(_per_suit(r) for r in compiled.seat_rules)


def _per_suit(rule: SeatRule) -> bool:
    # The fields counted here, by name: a field SeatRule gains later stays at its default in
    # `kept`, so a rule that sets it is not taken for one this module covers.
    kept = SeatRule(
        len_lo=rule.len_lo, len_hi=rule.len_hi, hcp_lo=rule.hcp_lo, hcp_hi=rule.hcp_hi,
        shcp_lo=rule.shcp_lo, shcp_hi=rule.shcp_hi, wildcard=rule.wildcard, shape=rule.shape,
    )
    return rule == kept


@functools.cache
def _code_vectors() -> np.ndarray:
    """Partial row sums' code -> the four sums (two suits: the last seat holds 26 - the others)."""
    vectors = np.stack(np.unravel_index(np.arange(14**3), (14, 14, 14)), axis=1)
    return np.concatenate([vectors, 2 * CARDS_PER_SUIT - vectors.sum(axis=1, keepdims=True)], axis=1)


@functools.cache
def _partner_codes() -> np.ndarray:
    """Partial row sums' code (s) -> the code of 13 - s, what the other half must hold."""
    return length_code(CARDS_PER_SUIT - _code_vectors())


def over_several_suits(rule: SeatRule | FitRule) -> bool:
    """Is a seat's wildcard, or a fit, a disjunction over several suits: a union of per-suit
    terms, counted here by inclusion-exclusion (a wildcard with an HCP part always, by
    masks, even in one suit) and left out of the positive term that `deals.drawing.column_draw`
    draws? A wildcard in one suit or a fit in one suit is a condition on that suit's column
    instead. The one definition: `masked_terms`, the sampler's positive term and its union
    of cover terms (`deals.drawing.union_draw`) read it."""
    if isinstance(rule, FitRule):
        return len(rule.suits) > 1
    return rule.wildcard is not None and (rule.hcp_wildcard or len(rule.wildcard.candidates) > 1)


def column_terms(compiled: CompiledScenario) -> list[tuple[int, np.ndarray]]:
    """The inclusion-exclusion terms: (sign, `(4, 560)` bool, may suit k have column c)."""
    return [(sign, allowed) for sign, allowed, _ in masked_terms(compiled)]


def masked_terms(compiled: CompiledScenario) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """`column_terms` with, per term, `(4, 560)` int: the seats (bits) whose wildcard HCP
    range is excluded from suit k's honours when it has column c. A wildcard with HCP is
    all - "no candidate suit has its length and its HCP in range"; a suit with a length in
    range must then not have the HCP: a mask of its honours' owners in those columns
    (`LengthMatrixCount.mask_id`), which the halves keep apart (`Half.comp`)."""
    columns = length_vectors()  # a column's lengths at the four seats
    base = np.ones((4, len(columns)), dtype=bool)
    for seat, rule in enumerate(compiled.seat_rules):
        for k in range(4):
            base[k] &= (columns[:, seat] >= rule.len_lo[k]) & (columns[:, seat] <= rule.len_hi[k])
    # Each disjunction "some suit of `suits` has a column passing `ok`", as its complement:
    # `short[k]` = the columns of suit k that do not pass.
    disjunctions: list[tuple[bool, np.ndarray]] = []  # (over several suits, short)
    masked: list[np.ndarray] = []  # wildcards with HCP: `(4, 560)` the complement's mask bits
    for seat, rule in enumerate(compiled.seat_rules):
        w = rule.wildcard
        if w is not None and rule.hcp_wildcard:
            comp = np.zeros((4, len(columns)), dtype=np.int64)
            for k in w.candidates:
                comp[k] = ((columns[:, seat] >= w.x_lo) & (columns[:, seat] <= w.x_hi)) << seat
            masked.append(comp)
        elif w is not None:
            short = np.ones((4, len(columns)), dtype=bool)
            for k in w.candidates:
                short[k] = (columns[:, seat] < w.x_lo) | (columns[:, seat] > w.x_hi)
            disjunctions.append((over_several_suits(rule), short))
    for part in compiled.parts:
        a, b = part.seats
        for fit in part.fits:
            short = np.ones((4, len(columns)), dtype=bool)
            for k in fit.suits:
                short[k] = columns[:, a] + columns[:, b] < fit.min
            disjunctions.append((over_several_suits(fit), short))
    # A disjunction over one suit is a condition on that suit's column: no term of its own;
    # over no suit (none can pass), it empties the scenario.
    for short in [d for several, d in disjunctions if not several]:
        base &= ~short | short.all(axis=1, keepdims=True)
        if short.all():
            base[:] = False
    disjunctions = [d for several, d in disjunctions if several]
    everything = np.ones((4, len(columns)), dtype=bool)
    choices = [(d, None) for d in disjunctions] + [(everything, m) for m in masked]
    terms = []
    for size in range(len(choices) + 1):
        for chosen in combinations(choices, size):
            allowed, comp = base.copy(), np.zeros((4, len(columns)), dtype=np.int64)
            for short, bits in chosen:
                allowed &= short
                if bits is not None:
                    comp |= bits
            terms.append(((-1) ** size, allowed, comp))
    return terms


def dropped_seat(compiled: CompiledScenario) -> int | None:
    """With HCP rules on all four seats, the seat whose rule is best said as a band on the
    others' sum (`length_matrices.banded_axes`): the one that leaves the fewest cells, if
    fewer than the four axes' (None: no band)."""
    axes = hcp_axes(compiled.seat_rules)
    if len(axes) < 4:
        return None
    best, fewest = None, int(np.prod([a.levels for a in axes]))
    for seat in range(4):
        cells = int(np.prod([a.levels for a in banded_axes(compiled.seat_rules, seat)[0]]))
        if cells < fewest:
            best, fewest = seat, cells
    return best


def _equal_columns(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Groups of equal columns of `x`: (a first column of each group, each column's group).
    Columns are told apart by a random projection (fast), then checked: a false merge falls
    back to an exact `np.unique`; a missed merge (equal columns projected apart) only costs
    time. Columns, not rows: K is laid out as its groups' rows (hundreds of MB for thousands
    of groups), and a transposed copy of it costs seconds in page faults and strided writes."""
    projection = np.random.default_rng(0).random(x.shape[0]) @ x
    _, first, inverse = np.unique(projection, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not _same_columns(x, first[inverse]):
        _, first, inverse = np.unique(x.T, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
    return first, inverse


def _same_columns(x: np.ndarray, source: np.ndarray) -> bool:
    """Is column `source[j]` of x column j, for every j? Only the columns merged into
    another are compared, a block at a time (no whole copy of x)."""
    moved = np.flatnonzero(source != np.arange(len(source)))
    step = max(1, _BLOCK_CELLS // max(x.shape[0], 1))
    for i in range(0, len(moved), step):
        columns = moved[i : i + step]
        if not np.array_equal(x[:, columns], x[:, source[columns]]):
            return False
    return True


@dataclass(frozen=True)
class Half:
    """The admissible pairs of columns of suits k1 and k2 (indices into `length_vectors()`),
    sorted by group: `codes[g]` (the key of `pairs`: the partial row sums' `length_code`,
    and the shaped seats' lengths) and `starts[g]` (the first pair) per group g."""

    k1: int
    k2: int
    c1: np.ndarray
    c2: np.ndarray
    codes: np.ndarray
    starts: np.ndarray
    #: Per suit (k1, k2), per column, the seats (bits) whose wildcard HCP its honours must
    #: not have (`masked_terms`); None: none. Columns of another mask are another variant
    #: of the suit's honour-count vectors (35 per variant).
    comp: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def pairs(allowed: np.ndarray, k1: int, k2: int, shaped: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The admissible pairs of columns (unsorted) and their group keys: the partial row
        sums' code, then in base 14 the shorter of its two lengths at each seat with a shape
        (its row is known only with both halves: groups of a half are told apart by it; a
        shape class does not depend on the order of the suits, so with the seat's sum in
        the half the shorter length says all it needs, in half as many groups)."""
        i1, i2 = np.flatnonzero(allowed[k1]), np.flatnonzero(allowed[k2])
        p, q = np.nonzero(within_thirteen()[np.ix_(i1, i2)])
        c1, c2 = i1[p].astype(np.int32), i2[q].astype(np.int32)  # kept for every term: small
        key = length_code(length_vectors()[c1] + length_vectors()[c2])
        for seat in shaped:
            key = key * 14 + np.minimum(length_vectors()[c1, seat], length_vectors()[c2, seat])
        return c1, c2, key.astype(np.int64)

    @staticmethod
    def of(k1: int, k2: int, c1: np.ndarray, c2: np.ndarray, code: np.ndarray, comp=None) -> Half:
        """Pairs sorted by group, and within a group by their variants (`k_matrices`)."""
        if comp is None:
            order = np.argsort(code, kind="stable")
        else:
            order = np.lexsort((comp[1][c2], comp[0][c1], code))  # the variants' order is the masks'
        codes, starts = np.unique(code[order], return_index=True)
        return Half(k1, k2, c1[order], c2[order], codes, starts, comp)

    @functools.cached_property
    def variants(self) -> tuple[np.ndarray, np.ndarray]:
        """Per suit, the masks (`comp` values) its columns here have, sorted: variant i of a
        suit is its i-th mask."""
        if self.comp is None:
            return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        return np.unique(self.comp[0][self.c1]), np.unique(self.comp[1][self.c2])

    def k_matrices(self, groups: np.ndarray) -> np.ndarray:
        """K_s `(len(groups), 35 * v1 * 35 * v2)` float64 of the groups (see the module
        docstring; v1, v2 variants of the two suits' honour-count vectors, one without a
        wildcard HCP)."""
        spots = spot_ways().astype(np.float64)
        ends = np.append(self.starts[1:], len(self.c1))
        if self.comp is None:
            out = np.empty((len(groups), _HONOURS, _HONOURS), dtype=np.float64)
            for i, g in enumerate(groups.tolist()):
                rows = slice(self.starts[g], ends[g])
                out[i] = spots[self.c1[rows]].T @ spots[self.c2[rows]]
            return out.reshape(len(groups), _HONOURS**2)
        v1, v2 = (len(v) for v in self.variants)
        out = np.zeros((len(groups), v1, _HONOURS, v2, _HONOURS), dtype=np.float64)
        # a group's pairs are sorted by their variants (`of`): runs of one group and one pair
        # of variants, one 35 x 35 block of K each
        lengths = ends[groups] - self.starts[groups]
        pairs = np.repeat(self.starts[groups] - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))
        run_key = np.repeat(np.arange(len(groups)), lengths) * (v1 * v2) + self._pair_variants[pairs]
        runs = np.flatnonzero(np.diff(run_key, prepend=-1))
        for start, end, key in zip(runs.tolist(), np.append(runs[1:], len(pairs)).tolist(), run_key[runs].tolist()):
            i, j = divmod(key, v1 * v2)
            rows = pairs[start:end]
            out[i, j // v2, :, j % v2, :] = spots[self.c1[rows]].T @ spots[self.c2[rows]]
        return out.reshape(len(groups), v1 * _HONOURS * v2 * _HONOURS)  # -1 is undefined with no groups

    @property
    def width(self) -> int:
        """The columns of its K: a pair of honour-count vectors in each pair of variants."""
        v1, v2 = self.variants
        return _HONOURS**2 * len(v1) * len(v2)

    @functools.cached_property
    def _pair_variants(self) -> np.ndarray:
        """Per pair of columns, its variants' block: variant1 * (variants of suit 2) + variant2."""
        if self.comp is None:
            return np.zeros(len(self.c1), dtype=np.int64)
        v1, v2 = self.variants
        return np.searchsorted(v1, self.comp[0][self.c1]) * len(v2) + np.searchsorted(v2, self.comp[1][self.c2])


class ColumnCount:
    """The count of a compiled scenario by sums over columns (see the module docstring)."""

    def __init__(self, compiled: CompiledScenario):
        single_threaded_blas()  # for the products of `within` too (threads contend here)
        #: HCP cells, capping, honour tables, box sums (and a band: four seats with HCP rules)
        self.tables = LengthMatrixCount(compiled, dropped_seat(compiled))
        self.cells = self.tables.cells
        #: The cells a half can hold (`LengthMatrixCount.live_cells`): the products and dots
        #: run on these alone, the box sums on every cell.
        self.live = self.tables.live_cells
        self._live_index = np.full(self.cells, -1, dtype=np.int64)
        self._live_index[self.live] = np.arange(len(self.live))
        masked = masked_terms(compiled)
        self.terms = [(sign, allowed) for sign, allowed, _ in masked]
        self._comps = [comp if comp.any() else None for _, _, comp in masked]
        #: Seats with a shape class: checked per pair of groups (both halves know the row).
        self.shaped = tuple(s for s, r in enumerate(compiled.seat_rules) if r.shape is not None)
        self._shapes = [compiled.seat_rules[s].shape for s in self.shaped]
        self._pairs_kept: dict = {}
        self._honour_pairs_kept: dict = {}
        self._prepared_kept: dict = {}  # (`_half_key`, groups) -> its PreparedHalf

    @functools.cached_property
    def plans(self):
        """Per term that some length matrix passes, its sign and its pairing of the suits into
        halves (see `_plan`). A term whose halves have no groups that meet (the wildcard's
        "every candidate short" when the other seats' rules leave those suits no room, say)
        holds no deal: it adds nothing to the sum and has no K to make, so it is left out.
        With no term left, the count is 0: the scenario is proved unsatisfiable."""
        plans = []
        for (sign, allowed), comp in zip(self.terms, self._comps):
            h1, h2, g1, g2 = self._plan(allowed, comp)
            if len(g1):
                plans.append((sign, h1, h2, g1, g2))
        self._pairs_kept.clear()  # the six halves of every term: most of the memory
        return plans

    def _plan(self, allowed: np.ndarray, comp: np.ndarray | None = None):
        """The pairing of the suits into halves that looks cheapest (pairs of columns, and
        groups that meet: row sums s and 13 - s): (half 1, half 2, and `_meetings`)."""
        pairs = {(k1, k2): self._pairs(allowed, k1, k2) for k1, k2 in combinations(range(4), 2)}
        base = 14 ** len(self.shaped)
        present = {}
        for key, (_, _, code) in pairs.items():
            present[key] = np.zeros(14**3, dtype=bool)
            present[key][code // base] = True
        best = None
        for first, second in _PAIRINGS:
            meet = np.flatnonzero(present[first] & present[second][_partner_codes()])
            guess = (len(pairs[first][0]) + len(pairs[second][0])) * _HONOURS**2 + len(meet) * self.cells * 2 * _HONOURS**2
            if best is None or guess < best[0]:
                best = (guess, first, second, meet)
        assert best is not None
        _, first, second, _ = best
        h1 = Half.of(*first, *pairs[first], None if comp is None else (comp[first[0]], comp[first[1]]))
        if pairs[second] is pairs[first] and (comp is None or (comp[list(first)] == comp[list(second)]).all()):
            h2 = replace(h1, k1=second[0], k2=second[1])  # alike suits: the same pairs, sorted alike
        else:
            h2 = Half.of(*second, *pairs[second], None if comp is None else (comp[second[0]], comp[second[1]]))
        return h1, h2, *self._meetings(h1, h2)

    def positive_term(self):
        """The positive term (no disjunction dropped in, no mask) planned and prepared on
        its own, for `deals.drawing.column_draw`, as `total` counts it: (half 1, half 2, the meeting
        pairs of groups g1 and g2, and the two `PreparedHalf`, whose row r stands for group
        `np.unique(g)[r]`)."""
        sign, allowed = self.terms[0]
        assert sign == 1 and self._comps[0] is None
        h1, h2, g1, g2 = self._plan(allowed)
        self._pairs_kept.clear()
        return h1, h2, g1, g2, *self._prepare_both(h1, g1, h2, g2)

    def _pairs(self, allowed: np.ndarray, k1: int, k2: int):
        """`Half.pairs`, shared by the terms and the pairs of suits that admit the same
        columns (they depend on the suits through those alone)."""
        key = (allowed[k1].tobytes(), allowed[k2].tobytes())
        if key not in self._pairs_kept:
            self._pairs_kept[key] = Half.pairs(allowed, k1, k2, self.shaped)
        return self._pairs_kept[key]

    def _meetings(self, h1: Half, h2: Half) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of groups (g1, g2) that make length matrices: row sums 13 - s on the
        second half, and the rows of the seats with a shape passing it. Sorted by g1."""
        base = 14 ** len(self.shaped)
        codes1, codes2 = h1.codes // base, h2.codes // base
        want = _partner_codes()[codes1]
        lo, hi = np.searchsorted(codes2, want, "left"), np.searchsorted(codes2, want, "right")
        g1 = np.repeat(np.arange(len(codes1)), hi - lo)
        g2 = np.arange(len(g1)) - np.repeat(np.cumsum(hi - lo) - (hi - lo), hi - lo) + np.repeat(lo, hi - lo)
        if self.shaped:
            sums1 = _code_vectors()[codes1[g1]]
            ok = np.ones(len(g1), dtype=bool)
            for i, (seat, shape) in enumerate(zip(self.shaped, self._shapes)):
                digit = 14 ** (len(self.shaped) - 1 - i)
                first, third = h1.codes[g1] // digit % 14, h2.codes[g2] // digit % 14
                row = np.stack([first, sums1[:, seat] - first, third, CARDS_PER_SUIT - sums1[:, seat] - third], axis=1)
                ok &= shape_mask(row, shape)  # a shape class does not depend on the order of the suits
            g1, g2 = g1[ok], g2[ok]
        return g1, g2

    @functools.cached_property
    def prepared(self) -> list[tuple[int, PreparedHalf, PreparedHalf, int]]:
        """Per term of `plans`: its sign, its two halves made ready (K, its distinct columns,
        G merged) and its number of meeting pairs of groups."""
        return list(self._preparing())

    def _preparing(self):
        for sign, h1, h2, g1, g2 in self.plans:
            yield sign, *self._prepare_both(h1, g1, h2, g2), len(g1)

    def _prepare_both(self, h1: Half, g1: np.ndarray, h2: Half, g2: np.ndarray) -> tuple[PreparedHalf, PreparedHalf]:
        """Both halves made ready; the second is the first's K and G when the two halves are
        alike (suits the term treats alike: the same pairs of columns, masks and honour
        tables, and the same groups meeting), only its meeting pairs' rows its own."""
        a = self._prepare(h1, g1)
        if self._half_key(h1) != self._half_key(h2):
            return a, self._prepare(h2, g2)
        groups, rows = np.unique(g2, return_inverse=True)
        if not np.array_equal(groups, np.unique(g1)):
            return a, self._prepare(h2, g2)
        return a, replace(a, rows=rows.ravel())

    def _half_key(self, half: Half) -> tuple:
        """What a half's K and G depend on: its pairs of columns and groups, their masks, and
        the honour tables (`LengthMatrixCount.mask_id`) of its two suits' variants."""
        v1, v2 = half.variants
        masks = tuple(self.tables.mask_id[half.k1, v1].tolist()), tuple(self.tables.mask_id[half.k2, v2].tolist())
        comp = b"" if half.comp is None else half.comp[0][half.c1].tobytes() + half.comp[1][half.c2].tobytes()
        return half.c1.tobytes(), half.c2.tobytes(), half.codes.tobytes(), half.starts.tobytes(), comp, masks

    def within(self, budget: float) -> bool:
        """Is `work` at most `budget`? Terms are prepared one by one, and the answer is no
        as soon as those prepared pass it (the rest are not prepared); no at once when a
        half's K would pass `MAX_K_BYTES`, or all the distinct halves' `MAX_ALL_K_BYTES`."""
        k_bytes = self.k_bytes()
        if max(k_bytes.values(), default=0) > MAX_K_BYTES or sum(k_bytes.values()) > MAX_ALL_K_BYTES:
            return False
        work, done = 0.0, []
        for sign, a, b, meetings in self._preparing():
            work += a.work + b.work + self._box_rows(b) * self.tables.box_work + meetings * len(self.live)
            if work > budget:
                return False
            done.append((sign, a, b, meetings))
        self.prepared = done
        del self.plans  # the halves' pairs of columns are no longer needed
        return True

    def k_bytes(self) -> dict[tuple, int]:
        """Per distinct half to prepare (`_prepare`'s key), the most its K can weigh: its
        meeting groups times `Half.width` (zero columns are dropped when it is made)."""
        sizes = {}
        for _, h1, h2, g1, g2 in self.plans:
            for half, meeting in ((h1, g1), (h2, g2)):
                groups = np.unique(meeting)
                sizes[(self._half_key(half), groups.tobytes())] = len(groups) * half.width * 8
        return sizes

    @property
    def table_bytes(self) -> int:
        """The most a half's merged G can weigh (for `MAX_TABLE_BYTES`), known before any work."""
        return _HONOURS**2 * self.cells * 8

    @property
    def work(self) -> float:
        """Roughly the multiply-adds of `total` (for `MAX_WORK`): per half, K @ G, and the box
        sums of the second."""
        box = self.tables.box_work
        return float(sum(a.work + b.work + self._box_rows(b) * box + m * len(self.live) for _, a, b, m in self.prepared))

    def _honour_pairs(self, half: Half) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """G, sparse: per pair of owners of A K Q J in suits k1 and k2, the pair of their
        honour-count vectors (n1 * 35 + n2, each in its variant's block: `Half.variants`),
        the capped HCP cell and the ways; the pairs no total can use left out. Kept per pair
        of suits and variants (the terms share them)."""
        v1, v2 = half.variants
        key = (half.k1, half.k2, tuple(v1.tolist()), tuple(v2.tolist()))
        kept = self._honour_pairs_kept.get(key)
        if kept is None:
            kept = self._honour_pairs_kept[key] = self._compute_honour_pairs(half.k1, half.k2, v1, v2)
        return kept

    def _variant_lists(self, k: int, variants: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Suit k's honour table per variant (mask), one after the other: (HCP code,
        honour-count vector + 35 * variant, ways)."""
        lists = [self.tables.honour_table(int(self.tables.mask_id[k, v])) for v in variants.tolist()]
        return (
            np.concatenate([code for code, _, _ in lists]),
            np.concatenate([count + _HONOURS * i for i, (_, count, _) in enumerate(lists)]),
            np.concatenate([ways for _, _, ways in lists]),
        )

    def _compute_honour_pairs(self, k1: int, k2: int, v1: np.ndarray, v2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        code1, count1, ways1 = self._variant_lists(k1, v1)
        code2, count2, ways2 = self._variant_lists(k2, v2)
        cell = self.tables.capmap[code1[:, None] + code2[None, :]]
        live = cell < self.cells
        counts = count1[:, None] * (_HONOURS * len(v2)) + count2[None, :]
        return counts[live], cell[live], np.multiply.outer(ways1, ways2)[live]

    def _prepare(self, half: Half, meeting: np.ndarray) -> PreparedHalf:
        """K of the half's meeting groups (`meeting`, with repeats) on its columns that are
        not all zero, equal columns merged (their rows of G summed): two suits without length
        rules need only 165 of the 1,225 (honours per seat of both suits together). Made once
        per half and groups (`_half_key`): the terms of several disjunctions share halves
        (a wildcard and a fit over other suits leave one half alike in four terms of 16)."""
        groups, rows = np.unique(meeting, return_inverse=True)
        key = (self._half_key(half), groups.tobytes())
        kept = self._prepared_kept.get(key)
        if kept is None:
            kept = self._prepared_kept[key] = self._prepare_groups(half, groups)
        return replace(kept, rows=rows.ravel())

    def _prepare_groups(self, half: Half, groups: np.ndarray) -> PreparedHalf:
        """`_prepare` of the distinct meeting groups `groups` (its `rows` left empty)."""
        width = half.width
        # K a block of groups at a time (variants make it up to 4 times wider), each block
        # kept on its own nonzero columns, then laid out on the columns any block uses
        step = max(1, _K_BYTES // (width * 8))
        kept = []
        for i in range(0, max(len(groups), 1), step):
            k = half.k_matrices(groups[i : i + step])
            nonzero = np.flatnonzero((k != 0).any(axis=0))
            kept.append((nonzero, k[:, nonzero]))
            del k
        used = np.unique(np.concatenate([nonzero for nonzero, _ in kept]))
        columns = np.zeros((len(groups), len(used)), dtype=np.float64)  # K on the used columns
        done = 0
        for nonzero, block in kept:
            columns[done : done + len(block), np.searchsorted(used, nonzero)] = block
            done += len(block)
        del kept
        first, inverse = _equal_columns(columns)
        merge = np.full(width, len(first), dtype=np.int64)  # unused pairs: a spare row
        merge[used] = inverse
        counts, cell, ways = self._honour_pairs(half)
        merged = merge[counts]
        order = np.argsort(merged, kind="stable")
        starts = np.searchsorted(merged[order], np.arange(len(first) + 1))
        g = (merged[order], cell[order], ways[order], starts)
        return PreparedHalf(columns[:, first], g, self.cells, np.empty(0, dtype=np.int64), self._live_index, merge)

    def term_total(self, a: PreparedHalf, b: PreparedHalf) -> int:
        """sum over the meeting pairs of groups of A_g1 . R(B_g2), in blocks of pairs. Alike
        halves (`_prepare_both`: B_g = A_g) take half the pairs, twice: R's box is symmetric
        (u and v pass together or not), so A_g1 . R(A_g2) = A_g2 . R(A_g1), and a half's row
        sums s and 13 - s are never equal (13 is odd), so the pairs are (g1, g2), g1 < g2,
        and their mirror images."""
        rows_a, rows_b, times = a.rows, b.rows, 1
        if b.columns is a.columns and _mirrored(a.rows, b.rows):
            below = rows_a < rows_b
            rows_a, rows_b, times = rows_a[below], rows_b[below], 2
        total = 0
        live = len(self.live)
        block = max(1, _BLOCK_CELLS // live)
        boxed = self._boxed_merged(b)
        for i in range(0, len(rows_a), block):
            ua, ia = np.unique(rows_a[i : i + block], return_inverse=True)
            ub, ib = np.unique(rows_b[i : i + block], return_inverse=True)
            if boxed is None:
                r = self.tables.box_sums(b.tables(ub))[:, self.live][ib.ravel()]
            else:
                r = b.boxed_tables(ub, boxed)[ib.ravel()]
            # the R rows meeting one A row summed first (pairs are sorted by g1), in int64:
            # each is below 2**45, so running sums over a block (< 2**21 rows) stay below 2**63
            ends = np.append(np.flatnonzero(np.diff(ia.ravel())), len(r) - 1)
            running = np.cumsum(r, axis=0)
            meeting = np.diff(running[ends], axis=0, prepend=np.zeros((1, live), dtype=np.int64))
            total += exact_dot(a.live_tables(ua), meeting)
        return times * total

    def _boxed_merged(self, b: PreparedHalf) -> np.ndarray | None:
        """R of each row of b's merged G on the live cells, `(distinct, live)` float64, when
        that is fewer box sums than b's groups (R is linear: R(B_s) = K_s @ R(G)) and within
        `_BOXED_BYTES`; else None (each group's B is boxed)."""
        distinct = b.columns.shape[1]
        if self._box_rows(b) == len(b.columns):
            return None
        step = max(1, _BLOCK_CELLS // (4 * self.cells))
        blocks = [self.tables.box_sums(b.merged_rows(d, min(d + step, distinct)))[:, self.live] for d in range(0, distinct, step)]
        return np.concatenate(blocks).astype(np.float64)

    def _box_rows(self, b: PreparedHalf) -> int:
        """How many tables `term_total` boxes for b: its merged G's rows, or its groups."""
        distinct = b.columns.shape[1]
        if distinct < len(b.columns) and distinct * self.cells * 8 <= _BOXED_BYTES:
            return distinct
        return len(b.columns)

    def total(self) -> int:
        single_threaded_blas()
        return sum(sign * self.term_total(a, b) for sign, a, b, _ in self.prepared)


def _mirrored(first: np.ndarray, second: np.ndarray) -> bool:
    """Are the pairs (first[p], second[p]) the pairs (second[p], first[p]), none (g, g)?"""
    if (first == second).any():
        return False
    width = int(max(first.max(initial=0), second.max(initial=0))) + 1
    return np.array_equal(np.sort(first * width + second), np.sort(second * width + first))


@dataclass(frozen=True)
class PreparedHalf:
    """A half ready to give its tables A_s = K_s @ G: `columns[g]` the distinct columns of
    K for its meeting group g; G merged (rows summed per distinct column), sparse and sorted
    by its row: (row, cell, ways, first entry of each row); `rows[p]` the group of meeting
    pair p."""

    columns: np.ndarray  # (groups, distinct) float64
    merged: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    cells: int
    rows: np.ndarray  # (pairs,) int64
    #: cell -> its index among the live cells (those a half can hold), -1 for the others
    live_index: np.ndarray | None = None
    #: column of K (honour-count vectors n1 * 35 + n2, variants' blocks) -> its distinct
    #: column, `distinct` for the columns that are zero in every group (`deals.drawing.column_draw`)
    merge: np.ndarray | None = None

    @property
    def live(self) -> int:
        return self.cells if self.live_index is None else int((self.live_index >= 0).sum())

    @property
    def work(self) -> float:
        return float(self.columns.size * self.live)

    def tables(self, groups: np.ndarray) -> np.ndarray:
        """A_s `(groups, cells)` int64 (exact: see the module docstring). G's rows are made
        dense a block at a time, so that no table of 1,225 x cells is held. Products on the
        live cells alone (`live_tables`: a third of the cells, or less), the others 0."""
        if self.live_index is not None:
            out = np.zeros((len(groups), self.cells), dtype=np.int64)
            out[:, self.live_index >= 0] = self.live_tables(groups)
            return out
        out = np.zeros((len(groups), self.cells), dtype=np.float64)
        columns = self.columns[groups]
        step = max(1, _BLOCK_CELLS // (4 * self.cells))
        for d in range(0, columns.shape[1], step):
            e = min(d + step, columns.shape[1])
            out += columns[:, d:e] @ self.merged_rows(d, e)
        return np.rint(out).astype(np.int64)

    def live_tables(self, groups: np.ndarray) -> np.ndarray:
        """`tables` on the live cells only, `(groups, live)` int64 (the other cells hold 0)."""
        out = np.zeros((len(groups), self.live), dtype=np.float64)
        columns = self.columns[groups]
        step = max(1, _BLOCK_CELLS // (4 * self.live))
        for d in range(0, columns.shape[1], step):
            e = min(d + step, columns.shape[1])
            out += columns[:, d:e] @ self.merged_rows(d, e, live=True)
        return np.rint(out).astype(np.int64)

    def merged_rows(self, d: int, e: int, live: bool = False) -> np.ndarray:
        """Rows d..e-1 of G merged, dense `(e - d, cells)` float64 (`live`: on the live cells:
        no entry of G is elsewhere, a half's HCP being at most 20)."""
        row, cell, ways, starts = self.merged
        entries = slice(starts[d], starts[e])
        width = self.cells
        cell = cell[entries]
        if live and self.live_index is not None:
            width, cell = self.live, self.live_index[cell]
        dense = np.bincount((row[entries] - d) * width + cell, weights=ways[entries], minlength=(e - d) * width)
        return dense.reshape(e - d, width)

    def boxed_tables(self, groups: np.ndarray, boxed: np.ndarray) -> np.ndarray:
        """R(B_s) = K_s @ R(G) `(groups, len(boxed[0]))` int64, from `boxed` = R of each row of
        G (`ColumnCount._boxed_merged`: on the live cells). Exact: every product and partial sum is non-negative
        and at most R(B_s)'s entry, a sum of some of B_s's, below 2**45."""
        return np.rint(self.columns[groups] @ boxed).astype(np.int64)


def column_count(compiled: CompiledScenario) -> int | None:
    """The exact number of deals satisfying the scenario, or None when it is not counted
    here (`counts`) or past the budget (`MAX_TABLE_BYTES`, `MAX_WORK`). Counted once per
    process for all the renamings of its suits (`deals.counting.symmetry.canonical`: a wiki's same
    auction over another suit has the same count), on the representative."""
    if not counts(compiled):
        return None
    return _canonical_count(canonical(compiled), MAX_WORK, MAX_TABLE_BYTES)


@functools.lru_cache(maxsize=64)  # Python ints: a few bytes each
def _canonical_count(compiled: CompiledScenario, max_work: float, max_table_bytes: int) -> int | None:
    counter = ColumnCount(compiled)
    if counter.table_bytes > max_table_bytes or not counter.within(max_work):
        return None
    return counter.total()
