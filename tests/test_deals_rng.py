"""`deals.drawing.rng`: the faster ways of computing a draw give the draw of before, value for value
(the same seed gives the same deals), ties included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.deals.drawing.rng import Rng, make_rng


class _Keys:
    """A bit generator that gives the raw values it was handed, in order (to force ties)."""

    def __init__(self, values):
        self._values = np.asarray(values, dtype=np.uint64)
        self.used = 0

    def random_raw(self, n):
        out = self._values[self.used : self.used + n]
        assert len(out) == n, "the draw asked for more values than the test gave"
        self.used += n
        return out.copy()


def _sorted_permutations(bg, n: int, m: int) -> np.ndarray:
    """The permutations as they were computed before the counting path: an argsort of the
    keys, a row with equal keys drawn again."""
    keys = bg.random_raw(n * m).reshape(n, m)
    while True:
        order = np.argsort(keys, axis=1)
        srt = np.take_along_axis(keys, order, axis=1)
        tied = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
        if not tied.any():
            return order
        keys[tied] = bg.random_raw(int(tied.sum()) * m).reshape(-1, m)


@pytest.mark.parametrize("m", [1, 2, 9, 13, 16, 17, 52])
def test_permutations_are_the_argsort_of_the_keys(m):
    for seed in range(5):
        got = make_rng(seed, m).permutations(3000, m)
        want = _sorted_permutations(np.random.PCG64(np.random.SeedSequence([seed, m])), 3000, m)
        assert got.dtype == want.dtype and got.shape == (3000, m)
        assert np.array_equal(got, want)


@pytest.mark.parametrize("m", [9, 13, 20])
def test_rows_with_equal_keys_are_drawn_again_as_before(m):
    gen = np.random.default_rng(m)
    first = gen.integers(0, 2**63, size=(50, m)).astype(np.uint64)
    first[::3, 0] = first[::3, m - 1]  # ties, at both ends of a row
    first[1::3, 4] = first[1::3, 5]  # and in the middle
    first[2::3, 2] = first[2::3, 3] ^ 1  # not a tie: two keys that differ in their lowest bit
    first[2::6, 7] = first[2::6, 1] ^ 6
    first = first.ravel()
    again = gen.integers(0, 2**63, size=(50 * m,)).astype(np.uint64)
    values = np.concatenate([first, again])
    counted, sorted_ = _Keys(values), _Keys(values)
    got = Rng(counted).permutations(50, m)
    assert np.array_equal(got, _sorted_permutations(sorted_, 50, m))
    assert counted.used == sorted_.used == 50 * m + (34 * m)  # 34 of the 50 rows had a tie
    assert all(sorted(row) == list(range(m)) for row in got.tolist())


@pytest.mark.parametrize("m", [9, 13])
def test_rows_drawn_block_by_block_are_those_of_one_draw(m, monkeypatch):
    # Blocks of 16 rows: ties in the first, a middle and the last (short) block, and a row
    # whose redraw ties again; the values used and the permutations are those of one draw.
    from bridgeshape_mirror.deals.drawing import rng as rng_module

    monkeypatch.setattr(rng_module, "_KEY_ROWS", 16)
    gen = np.random.default_rng(m + 7)
    first = gen.integers(0, 2**63, size=(50, m)).astype(np.uint64)
    for row in (0, 17, 40, 49):
        first[row, 2] = first[row, 5]
    again = gen.integers(0, 2**63, size=(4, m)).astype(np.uint64)
    again[1, 0] = again[1, m - 1]  # row 17 ties again
    third = gen.integers(0, 2**63, size=(1, m)).astype(np.uint64)
    values = np.concatenate([first.ravel(), again.ravel(), third.ravel()])
    counted, sorted_ = _Keys(values), _Keys(values)
    got = Rng(counted).permutations(50, m, np.int8)
    assert np.array_equal(got, _sorted_permutations(sorted_, 50, m))
    assert counted.used == sorted_.used == len(values)
    assert got.T.flags.c_contiguous  # the (m, n) layout callers read whole rows of


class _KeysWithState(_Keys):
    """`_Keys` whose place in its values can be read and put back, as PCG64's `state`."""

    @property
    def state(self):
        return self.used

    @state.setter
    def state(self, used):
        self.used = used


@pytest.mark.parametrize("tie_in", [None, 0, 2, 3])
def test_permutation_runs_are_the_calls_one_after_the_other(tie_in):
    # Four runs of 40 rows of 13: one draw when no row ties; a tie in run `tie_in` (the first,
    # a middle one, the last) puts the generator back, and the calls draw that row again
    # before the next run's keys.
    m, n = 13, 40
    gen = np.random.default_rng(3 if tie_in is None else tie_in)
    values = gen.integers(0, 2**64, size=5 * n * m, dtype=np.uint64)
    if tie_in is not None:
        row = tie_in * n + 7
        values[row * m + 4] = values[row * m + 9]
    counted, calls = _KeysWithState(values), _KeysWithState(values)
    got = Rng(counted).permutation_runs(4, n, m, np.int8)
    want = np.concatenate([_sorted_permutations(calls, n, m) for _ in range(4)])
    assert got.shape == (4 * n, m) and np.array_equal(got, want)
    assert counted.used == calls.used == (4 * n + (tie_in is not None)) * m
    real = make_rng(5).permutation_runs(4, 3000, m, np.int8)  # the generator's own draws
    plain = make_rng(5)
    assert np.array_equal(real, np.concatenate([plain.permutations(3000, m, np.int8) for _ in range(4)]))


def test_permutations_are_uniform_on_three():
    got = make_rng(7).permutations(60_000, 3)
    codes = got[:, 0] * 9 + got[:, 1] * 3 + got[:, 2]
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == 6
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 20.5  # 5 degrees of freedom, p = 0.001


@pytest.mark.parametrize("m", [9, 13, 16])
def test_keys_equal_in_their_high_bits_are_ordered_by_their_whole_value(m):
    # The network compares only each key's top 16 - 4 bits: keys that agree there and differ
    # anywhere below (in the dropped low bits or in the bits under the index tag) must still
    # come out in the order of their whole values.
    from bridgeshape_mirror.deals.drawing.rng import _NETWORK_KEYS

    top = 64 - 8 * np.dtype(_NETWORK_KEYS).itemsize  # the lowest bit the network sees
    gen = np.random.default_rng(m + 100)
    keys = gen.integers(0, 2**63, size=(60, m)).astype(np.uint64)
    keys[0::4, 1] = keys[0::4, 0] ^ np.uint64(1)  # differ in the lowest bit
    keys[1::4, 3] = keys[1::4, 2] ^ np.uint64(1 << (top - 1))  # in the top bit of those dropped
    keys[2::4, 5] = keys[2::4, 4] ^ np.uint64(1 << (top + 3))  # under the tag of the top bits
    keys[3::4, m - 1] = keys[3::4, 0] ^ np.uint64(1 << (top + 4))  # just above it: no fallback needed
    values = keys.ravel()
    got = Rng(_Keys(values)).permutations(60, m)
    assert np.array_equal(got, _sorted_permutations(_Keys(values), 60, m))


@pytest.mark.parametrize("m", [9, 13, 20])
def test_permutations_in_a_small_dtype_are_the_same_values(m):
    wide = make_rng(11, m).permutations(5000, m)
    small = make_rng(11, m).permutations(5000, m, np.int8)
    assert small.dtype == np.int8 and np.array_equal(small, wide)


@pytest.mark.parametrize(
    "m, ranks",
    [(1, (0,)), (2, (0, 1)), (26, (12, 13)), (39, (12, 13, 25, 26)), (52, (12, 13, 25, 26, 38, 39)), (64, (0, 63)), (65, (12, 13)), (13, (5,))],
)
@pytest.mark.parametrize("top", [3, 2**64 - 1])
@pytest.mark.parametrize("rows", [100, 9000])
def test_order_statistics_are_those_of_numpy_s_partition(m, ranks, top, rows):
    # top 3: rows full of equal values; 65 values or 100 rows: numpy's partition itself.
    from bridgeshape_mirror.deals.drawing.rng import _SELECT_FROM_ROWS, order_statistics

    assert 100 < _SELECT_FROM_ROWS <= 9000
    gen = np.random.default_rng(m * 7 + len(ranks))
    values = gen.integers(0, top, size=(rows, m), dtype=np.uint64, endpoint=True)
    got = order_statistics(values, ranks)
    want = np.partition(values, list(ranks), axis=1)
    assert sorted(got) == sorted(ranks)
    for k in ranks:
        assert np.array_equal(got[k], want[:, k])


def _below_as_before(bg, bounds) -> np.ndarray:
    """`Rng.below` as it was written first: every value still to draw drawn again in turn."""
    flat = np.asarray(bounds, dtype=np.int64).ravel().astype(np.uint64)
    out = np.empty(flat.size, dtype=np.uint64)
    threshold = (np.uint64(0) - flat) % flat
    todo = np.arange(flat.size)
    while todo.size:
        x = bg.random_raw(todo.size)
        ok = x >= threshold[todo]
        out[todo[ok]] = x[ok] % flat[todo[ok]]
        todo = todo[~ok]
    return out.astype(np.int64).reshape(np.shape(bounds))


def test_below_rejects_and_draws_again_as_before():
    # Bounds of 3 * 2**61 reject the values below 2**64 mod b = 2**62: a value below the
    # bound but above that is kept, one below it drawn again (twice for the first; 2**62 is
    # below 2**63 - 1, whose threshold is 2).
    b = 3 * 2**61
    bounds = np.array([[b, 5, b], [1, b, 2**63 - 1]], dtype=np.int64)
    first = [7, 2**64 - 1, b - 1, 0, 2**62 - 1, 2**62]  # rejected: 7 and 2**62 - 1
    values = first + [3, 2**63 + 11] + [2**63 + 5]
    got_bg, want_bg = _Keys(values), _Keys(values)
    got = Rng(got_bg).below(bounds)
    want = _below_as_before(want_bg, bounds)
    assert got.dtype == np.int64 and got.shape == bounds.shape
    assert np.array_equal(got, want) and got_bg.used == want_bg.used == len(values)
    assert got.tolist() == [[(2**63 + 5) % b, (2**64 - 1) % 5, b - 1], [0, (2**63 + 11) % b, 2**62]]
    for seed in range(3):  # and the generator's own draws, below bounds of every size
        bounds = np.maximum(np.random.default_rng(seed).integers(1, 2**63 - 1, size=5000) >> np.arange(5000) % 63, 1)
        assert np.array_equal(make_rng(seed).below(bounds), _below_as_before(np.random.PCG64(np.random.SeedSequence([seed])), bounds))


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(st.integers(0, 2**40), min_size=1, max_size=600).filter(lambda w: sum(w) > 0),
    bits=st.integers(1, 14),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_search_guide_finds_what_searchsorted_finds(steps, bits, seed):
    # Weights of every size, zeros (steps of no width) included; draws at the ends of the
    # range, on every running sum and next to it, and from a generator.
    from bridgeshape_mirror.deals.drawing.rng import SearchGuide

    cum = np.cumsum(np.array(steps, dtype=np.int64))
    total = int(cum[-1])
    edges = np.concatenate([cum - 1, cum, cum + 1, [0, total - 1]])
    r = np.concatenate([edges[(edges >= 0) & (edges < total)], np.random.default_rng(seed).integers(0, total, 500)])
    got = SearchGuide(cum, bits).search(r)
    assert np.array_equal(got, np.searchsorted(cum, r, side="right"))


@pytest.mark.parametrize("bound", [1, 2, 3, 7, 1 << 40, 3 * 2**61, 2**63 - 1, 5 * 2**60 + 3])
def test_below_of_equal_bounds_is_the_loop_over_every_bound(bound):
    """`Rng.below` of many equal bounds (the one-divisor path, `_below_one`) against the
    first form: the same values and draws (bounds near 2**63 reject a quarter of them)."""
    for seed in range(3):
        for n in (256, 300, 5000):
            bounds = np.full(n, bound, dtype=np.int64)
            got_rng = make_rng(seed)
            got = got_rng.below(bounds)
            want_bg = np.random.PCG64(np.random.SeedSequence([seed]))
            assert np.array_equal(got, _below_as_before(want_bg, bounds))
            assert got_rng._bg.state == want_bg.state
    with pytest.raises(ValueError):
        make_rng(1).below(np.zeros(300, dtype=np.int64))


@pytest.mark.parametrize("m", [9, 13])
@pytest.mark.parametrize(("tile", "block_bytes", "rows"), [(2048, 65536, 70_000), (7, 200, 3000)])
def test_rows_transposed_tile_by_tile_are_those_of_one_draw(m, tile, block_bytes, rows, monkeypatch):
    # Long draws (blocks of `_KEY_ROWS` keys, several network blocks and tiles, the last ones
    # short), and tiles and blocks that do not divide each other: the argsort of the keys.
    from bridgeshape_mirror.deals.drawing import rng as rng_module

    monkeypatch.setattr(rng_module, "_TILE_ROWS", tile)
    monkeypatch.setattr(rng_module, "_BLOCK_BYTES", block_bytes)
    got = make_rng(3, m).permutations(rows, m, np.int8)
    want = _sorted_permutations(np.random.PCG64(np.random.SeedSequence([3, m])), rows, m)
    assert np.array_equal(got, want)
