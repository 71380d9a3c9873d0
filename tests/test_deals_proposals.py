"""The steps every proposal of the rejection path takes (`deals.drawing.sampler`'s `seat_features`
and `deal_out_rest`) give what their plain versions gave, value for value: the same deals
for the same seed."""

from __future__ import annotations

import numpy as np
import pytest

from bridgeshape_mirror.deals.drawing.rng import Rng, make_rng
from bridgeshape_mirror.deals.drawing.sampler import deal_out_rest, seat_features
from bridgeshape_mirror.dsl.deck import RANK_HCP


def _owners(n: int, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    owner = np.array([gen.permutation(np.repeat(np.arange(4), 13)) for _ in range(n)], dtype=np.int8)
    owner[0] = np.repeat(np.arange(4), 13)  # 13-card suits and voids
    return owner


def test_seat_features_are_the_sums_over_each_suit():
    owner = _owners(500, 1)
    hcp = np.array(RANK_HCP, dtype=np.int64)
    for seat in range(4):
        held = owner.reshape(-1, 4, 13) == seat
        lengths, shcp = seat_features(owner, seat)
        assert lengths.dtype == shcp.dtype == np.int64
        assert np.array_equal(lengths, held.sum(axis=2))
        assert np.array_equal(shcp, (held * hcp).sum(axis=2))


def _dealt_by_argpartition(owner: np.ndarray, rng: Rng) -> np.ndarray:
    """`deal_out_rest` as it was written before the value partition."""
    n = owner.shape[0]
    empty = [s for s in range(4) if not (owner[0] == s).any()]
    free = owner == -1
    m = 13 * len(empty)
    if len(empty) == 1:
        owner[free] = empty[0]
        return owner
    bounds = [13 * i for i in range(1, len(empty))]
    keys = rng.raw(n * m).reshape(n, m)
    rows = np.arange(n)[:, None]
    while True:
        part = np.argpartition(keys, [b - 1 for b in bounds], axis=1)
        ordered = keys[rows, part]
        tied = np.zeros(n, dtype=bool)
        for b in bounds:
            tied |= ordered[:, :b].max(axis=1) == ordered[:, b:].min(axis=1)
        if not tied.any():
            break
        keys[tied] = rng.raw(int(tied.sum()) * m).reshape(-1, m)
    labels = np.empty((n, m), dtype=np.int8)
    for i, seat in enumerate(empty):
        labels[rows, part[:, 13 * i : 13 * (i + 1)]] = seat
    owner[free] = labels.ravel()
    return owner


@pytest.mark.parametrize("held", [(), (0,), (1, 3), (0, 1, 2)])
def test_the_rest_is_dealt_as_by_the_argpartition(held):
    full = _owners(2000, 2)
    start = np.where(np.isin(full, held), full, -1).astype(np.int8)
    for seed in range(3):
        got = deal_out_rest(start.copy(), make_rng(seed))
        want = _dealt_by_argpartition(start.copy(), make_rng(seed))
        assert np.array_equal(got, want)
        assert (np.stack([(got == s).sum(axis=1) for s in range(4)]) == 13).all()
        assert np.array_equal(got[start != -1], start[start != -1])
        strided = np.asfortranarray(start)  # not C-contiguous: dealt in place all the same
        deal_out_rest(strided, make_rng(seed))
        assert np.array_equal(strided, want)


class _Values:
    def __init__(self, values):
        self._values = np.asarray(values, dtype=np.uint64)
        self.used = 0

    def random_raw(self, n):
        out = self._values[self.used : self.used + n].copy()
        assert len(out) == n
        self.used += n
        return out


def test_equal_keys_at_a_boundary_are_drawn_again_as_before():
    start = np.full((40, 52), -1, dtype=np.int8)
    start[:, :13] = 0  # seats 1, 2, 3 empty: 39 keys a row, boundaries after 13 and 26
    gen = np.random.default_rng(4)
    first = gen.permutation(40 * 39 * 10)[: 40 * 39].reshape(40, 39).astype(np.uint64) * 7
    for row in range(0, 40, 4):  # the 13th and 14th smallest equal
        srt = np.argsort(first[row])
        first[row, srt[13]] = first[row, srt[12]]
    for row in range(1, 40, 4):  # the 26th and 27th
        srt = np.argsort(first[row])
        first[row, srt[26]] = first[row, srt[25]]
    for row in range(2, 40, 4):  # equal keys inside a seat's 13: no redraw
        srt = np.argsort(first[row])
        first[row, srt[5]] = first[row, srt[4]]
    values = np.concatenate([first.ravel(), gen.permutation(10**6)[: 40 * 39].astype(np.uint64)])
    a, b = _Values(values), _Values(values)
    got = deal_out_rest(start.copy(), Rng(a))
    assert np.array_equal(got, _dealt_by_argpartition(start.copy(), Rng(b)))
    assert a.used == b.used == 40 * 39 + 20 * 39



@pytest.mark.parametrize("empty", [(1, 3), (1, 2, 3)])
def test_keys_whose_top_bits_agree_at_a_boundary_are_dealt_by_their_whole_value(empty, monkeypatch):
    """`deal_out_rest` finds boundaries on each key's top 16 bits: rows where the keys at a
    boundary agree there (and differ below, or are equal), blocks of rows drawn one after
    the other, a row drawn again that ties again: the cards and the values used of the
    plain draw."""
    from bridgeshape_mirror.deals.drawing import sampler

    monkeypatch.setattr(sampler, "REST_ROWS", 16)
    m, rows = 13 * len(empty), 50
    start = np.full((rows, 52), -1, dtype=np.int8)
    held = [s for s in range(4) if s not in empty]
    for k, seat in enumerate(held):
        start[:, 13 * k : 13 * (k + 1)] = seat
    gen = np.random.default_rng(len(empty))
    first = gen.integers(0, 2**64, size=(rows, m), dtype=np.uint64)
    last = 13 * (len(empty) - 1)  # the last boundary
    for row in range(rows):
        srt = np.argsort(first[row])
        low, high = srt[[12, 13]] if row % 2 else srt[[last - 1, last]]
        kind = row % 5
        if kind == 0:  # the same top 16 bits, the lowest bit apart
            first[row, high] = first[row, low] ^ np.uint64(1)
        elif kind == 1:  # the same top 16 bits, apart just below them
            first[row, high] = (first[row, low] & ~np.uint64((1 << 48) - 1)) | np.uint64(1 << 47) | (first[row, low] & np.uint64(1))
        elif kind == 2:  # equal: drawn again
            first[row, high] = first[row, low]
    for row in range(rows):  # the same keys, in another order within the row
        first[row] = first[row][gen.permutation(m)]
    ties = sum(1 for row in range(rows) if row % 5 == 2)
    again = gen.integers(0, 2**64, size=(ties, m), dtype=np.uint64)
    srt = np.argsort(again[0])  # the first row drawn again ties again
    again[0, srt[13]] = again[0, srt[12]]
    third = gen.integers(0, 2**64, size=(1, m), dtype=np.uint64)
    values = np.concatenate([first.ravel(), again.ravel(), third.ravel()])
    a, b = _Values(values), _Values(values)
    got = deal_out_rest(start.copy(), Rng(a))
    assert np.array_equal(got, _dealt_by_argpartition(start.copy(), Rng(b)))
    assert a.used == b.used == len(values)


@pytest.mark.parametrize("top", [5, 2**20, 2**40, 2**61])
def test_one_search_over_the_rows_finds_what_the_row_by_row_search_finds(top):
    from bridgeshape_mirror.deals.drawing.part_sampler import row_search_table, search_blocks, search_rows

    gen = np.random.default_rng(top % 1000)
    for width in (1, 3, 21, 441, 2000):  # 2000: a table past SORTED_NEEDLES_FROM, needles sorted
        cum = np.cumsum(gen.integers(0, top // width + 1, size=(40, width)), axis=1)
        cum[:, -1] += 1  # every row's last entry above its targets
        cum[3] = cum[3, -1]  # a row of one step
        rows = gen.integers(0, 40, size=5000)
        target = gen.integers(0, cum[rows, -1])
        want = search_blocks(cum.ravel(), rows * width, width, target)
        assert np.array_equal(search_rows(cum, rows, target), want)
        assert np.array_equal(search_rows(cum, rows, target, row_search_table(cum)), want)
        assert (row_search_table(cum) is None) == (40 * (int(cum.max()) + 1) >= 2**62)


def _part_ok_reading_everything(owner, part):
    """`part_ok` as it was: every seat's lengths and HCP, `hand_ok` for every ruled seat."""
    ok = np.ones(owner.shape[0], dtype=bool)
    combined = 0
    for seat, rule in zip(part.seats, part.rules):
        lengths, shcp = seat_features(owner, seat)
        combined = combined + lengths
        if not rule.is_free:
            ok &= rule.hand_ok(lengths, shcp)
    for fit in part.fits:
        ok &= fit.ok(combined)
    return ok


@pytest.mark.parametrize(
    "text",
    [
        "opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15",
        "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+",
        "opener S:5+ H:0-3 shape:balanced; responder D:4-6",  # lengths only
        "opener hcp:0-37; responder hcp:3+",  # bounds that pass every hand, and one that does not
        "opener x:4+ xhcp:3+; responder Shcp:0-9",  # the wildcard's HCP, a suit's HCP upper bound
        "fit:S8+ opener S:3+",  # a free seat read by the fit
    ],
)
def test_part_ok_reading_only_what_the_rules_read_agrees_with_reading_everything(text):
    from bridgeshape_mirror import dsl
    from bridgeshape_mirror.deals.rules.compiled import compile_scenario
    from bridgeshape_mirror.deals.drawing.sampler import part_ok

    owner = _owners(20_000, 5)
    for scenario in dsl.parse_scenarios(text):
        for part in compile_scenario(scenario).constrained_parts:
            got = part_ok(owner, part)
            assert np.array_equal(got, _part_ok_reading_everything(owner, part))
            assert 0 < got.sum() < len(owner)


def test_seat_lengths_are_the_lengths_of_seat_features():
    from bridgeshape_mirror.deals.drawing.sampler import seat_lengths

    owner = _owners(300, 2)
    for seat in range(4):
        got = seat_lengths(owner, seat)
        assert got.dtype == np.int64 and np.array_equal(got, seat_features(owner, seat)[0])


def _arguments_of(step: str, text: str, rows: int, seed: int) -> list[tuple]:
    """The arguments of every call of `part_sampler.<step>` in a draw of `rows` rows from the
    core model of `text`'s first scenario: a step's real inputs, for its tests."""
    from bridgeshape_mirror import dsl
    from bridgeshape_mirror.deals.drawing import part_sampler
    from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler

    model = ScenarioSampler(dsl.parse_scenarios(text)[0]).core
    calls, real = [], getattr(part_sampler, step)
    try:
        setattr(part_sampler, step, lambda *args: calls.append(args) or real(*args))
        part_sampler.draw_part(model, rows, make_rng(seed))
    finally:
        setattr(part_sampler, step, real)
    return calls


@pytest.mark.parametrize("text", ["opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15", "opener hcp:20-37; responder hcp:0-3"])
def test_split_of_two_suits_hcp_is_the_row_by_row_draw(text):
    """`part_sampler._split` (split by split across the rows) against each row's weights in
    plain Python, with the same unbiased draw below each row's sum: the same picks, so the
    same deals. Rows of every table and total the draw meets, the sums' extremes included."""
    from bridgeshape_mirror.deals.drawing import part_sampler

    calls = _arguments_of("_split", text, 400, 3)
    assert len(calls) == 2
    for _, flat, xbase, ybase, u, v in calls:
        table, pad = flat.tolist(), part_sampler._PAD
        weights = [
            [table[x + (ha + 10) * pad + hb + 10] * table[y + (uu - ha + 10) * pad + vv - hb + 10] for ha in range(11) for hb in range(11 - ha)]
            for x, y, uu, vv in zip(xbase.tolist(), ybase.tolist(), u.tolist(), v.tolist())
        ]
        totals = np.array([sum(w) for w in weights], dtype=np.int64)
        # The generator's draw, then each row's running sums themselves (where `<` and `<=`
        # part), 0 and the sum less one.
        gen = np.random.default_rng(7)
        edges = [np.cumsum(w)[np.cumsum(w) < sum(w)] for w in weights]
        chosen = [
            make_rng(5).below(totals).tolist(),
            [int(gen.choice(e)) if len(e) else 0 for e in edges],
            [0] * len(weights),
            (totals - 1).tolist(),
        ]
        for target in chosen:
            want = []
            for w, t in zip(weights, target):
                running, k = 0, 0
                while running + w[k] <= t:
                    running += w[k]
                    k += 1
                want.append([(ha, hb) for ha in range(11) for hb in range(11 - ha)][k])
            assert flat.dtype == np.int32  # these tables' sums fit: the 32-bit path
            for table in (flat, flat.astype(np.int64)):  # and the 64-bit one
                for split in (part_sampler._split_rows, part_sampler._split_columns):  # small and long draws
                    ha, hb = split(_Below(target, totals), table, xbase, ybase, u, v)
                    assert list(zip(ha.tolist(), hb.tolist())) == want


class _Below:
    """An `Rng` whose `below` gives chosen values (checked to be below the bounds asked)."""

    def __init__(self, values, bounds):
        self.values, self.bounds = np.array(values, dtype=np.int64), bounds

    def below(self, bounds):
        assert np.array_equal(bounds, self.bounds) and (self.values < bounds).all()
        return self.values


@pytest.mark.parametrize("text", ["opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15", "opener H:7+ x:0-1 hcp:5-10"])
def test_cards_of_the_splits_are_those_of_the_indexing_by_each_table_axis(text):
    """`part_sampler._cards` (flat table indices, each suit's honours written as one word)
    against its plain form (a table indexed by its four axes, honours byte by byte), pair and
    rest mode, from the same generator: the same cards."""
    from bridgeshape_mirror.deals.drawing import part_sampler
    from bridgeshape_mirror.deals.counting.tables import MASK_COUNT

    real = part_sampler._cards
    (model, c, _, la, lb, ha, hb), = _arguments_of("_cards", text, 3000, 4)

    def plain(rng):
        n, fa, fb = len(la), la.ravel(), lb.ravel()
        scum = c["split_cum"][fa, fb, ha, hb]
        second = rng.below(scum[:, 1]) >= scum[:, 0]
        split = c["split_codes"][ha, hb, second.astype(np.int64)]
        mask_a, mask_b = c["split_ma"][split], c["split_mb"][split]
        spots_a, spots_b = fa - MASK_COUNT[mask_a], fb - MASK_COUNT[mask_b]
        perm = rng.permutations(n * 4, 9)
        seat_a, seat_b = model.seats[0], (-1 if model.rest else model.seats[1])
        out = np.empty((n * 4, 13), dtype=np.int8)
        for k in range(4):  # honour k (A first): bit k of the masks
            out[:, k] = np.where((mask_a >> k) & 1, seat_a, np.where((mask_b >> k) & 1, seat_b, -1))
        out[:, 4:] = np.where(perm < spots_a[:, None], seat_a, np.where(perm < (spots_a + spots_b)[:, None], seat_b, -1))
        return out.reshape(n, 52)

    assert np.array_equal(real(model, c, make_rng(6), la, lb, ha, hb), plain(make_rng(6)))


@pytest.mark.parametrize(
    "text",
    [
        "opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15",
        "opener hcp:20-37; responder hcp:0-3",
        "opener hcp:12; responder hcp:12",
    ],
)
def test_second_half_hcp_are_those_of_the_row_weights_drawn_row_by_row(text):
    """`part_sampler._hcp_second_half` (column by column) against its plain form: each row's
    21 x-weights as one (n, 21) table, `Rng.choose_rows`, then y searched in row x's
    running sums; the same (x, y) from the same generator, ranges wide, one-sided and
    single-valued."""
    from bridgeshape_mirror.deals.drawing import part_sampler

    (c, q, i34, u, v, _), = _arguments_of("_hcp_second_half", text, 3000, 2)

    def plain(rng):
        (lo_a, hi_a), (lo_b, hi_b) = c["hcp_a"], c["hcp_b"]
        x0, x1 = np.clip(lo_a - u, 0, 21), np.clip(hi_a - u + 1, 0, 21)
        y0, y1 = np.clip(lo_b - v, 0, 21), np.clip(hi_b - v + 1, 0, 21)
        qbase = (i34 * (21 * 22))[:, None] + (np.arange(21) * 22)[None, :]
        xr = np.arange(21)[None, :]
        row_w = (q[qbase + y1[:, None]] - q[qbase + y0[:, None]]) * ((xr >= x0[:, None]) & (xr < x1[:, None]))
        xs = rng.choose_rows(row_w)
        rows = np.arange(len(u))
        qrow = q[(i34 * (21 * 22) + xs * 22)[:, None] + np.arange(22)[None, :]]
        target = rng.below(row_w[rows, xs]) + qrow[rows, y0]
        return xs, (qrow[:, 1:] <= target[:, None]).sum(axis=1)

    (lo_a, hi_a), (lo_b, hi_b) = c["hcp_a"], c["hcp_b"]
    bounds = (np.clip(lo_a - u, 0, 21), np.clip(hi_a - u + 1, 0, 21), np.clip(lo_b - v, 0, 21), np.clip(hi_b - v + 1, 0, 21))
    paths = (part_sampler._second_half_rows, part_sampler._second_half_columns)  # small and long draws
    want = plain(make_rng(8))
    for path in paths:
        got = path(q, i34, *bounds, make_rng(8))
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    # Draws on the running sums themselves (where `<` and `<=` part): x's, then y's in row x.
    gen = np.random.default_rng(1)
    rows = np.arange(len(u))
    (lo_b, hi_b) = c["hcp_b"]
    y0 = np.clip(lo_b - v, 0, 21)
    qbase = (i34 * (21 * 22))[:, None] + (np.arange(21) * 22)[None, :]
    row_w = q[qbase + np.clip(hi_b - v + 1, 0, 21)[:, None]] - q[qbase + y0[:, None]]
    xr, (lo_a, hi_a) = np.arange(21)[None, :], c["hcp_a"]
    row_w *= (xr >= np.clip(lo_a - u, 0, 21)[:, None]) & (xr < np.clip(hi_a - u + 1, 0, 21)[:, None])
    cum = np.cumsum(row_w, axis=1)
    first = np.array([gen.choice(np.append(r[r < r[-1]], 0)) for r in cum])
    xs = (cum <= first[:, None]).sum(axis=1)
    qrow = q[(i34 * (21 * 22) + xs * 22)[:, None] + np.arange(22)[None, :]]
    steps = qrow - qrow[rows, y0][:, None]
    second = np.array([gen.choice(np.append(s[(s >= 0) & (s < b)], 0)) for s, b in zip(steps, row_w[rows, xs])])
    want = plain(_Belows([first, second]))
    for path in paths:
        got = path(q, i34, *bounds, _Belows([first, second]))
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


class _Belows(Rng):
    """An `Rng` whose `below` calls give chosen values in turn (checked below the bounds)."""

    def __init__(self, values):
        self.values = list(values)

    def below(self, bounds):
        out = np.asarray(self.values.pop(0), dtype=np.int64)
        assert out.shape == np.shape(bounds) and (out < bounds).all()
        return out


@pytest.mark.parametrize(
    ("text", "edges"),
    [
        ("opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+", {"all free", "some"}),  # benchmark E's defence
        ("fit:S12+ opener S:0-1 H:4+", {"all free", "some"}),
        ("fit:S13+ opener S:0 hcp:4-30", {"13", "some"}),  # b holds all 13 spades
        ("opp1 D:6+ hcp:6-10; opp2 fit:D10+", {"all free", "some"}),
    ],
)
def test_partner_cards_are_those_of_the_row_by_row_choice(text, edges):
    """`part_sampler._partner_cards` (whole arrays, held cards put last by arithmetic on the
    sign bit, b's cards added) against its plain form, row by row in Python from the same
    generator: b's lengths by the first running weight past the draw, then in each suit b's
    cards the free ones of lowest priority. The same cards, so the same deals."""
    from bridgeshape_mirror.deals.drawing import part_sampler
    from bridgeshape_mirror.deals.counting.tables import length_vectors

    (model, _, idx, la, owner), = _arguments_of("_partner_cards", text, 3000, 8)
    owner[owner == model.seats[1]] = -1  # the call captured wrote b's cards into its input
    got = owner.copy()
    part_sampler._partner_cards(model, make_rng(2), idx, la, got)

    rng, n, seat_b = make_rng(2), len(idx), model.seats[1]
    targets = rng.below(model.fit_z[idx]).tolist()
    lbs = [length_vectors()[int(np.argmax(model.fit_lb_cum[i] > t))].tolist() for i, t in zip(idx.tolist(), targets)]
    priorities = [rng.permutations(n, 13).tolist() for _ in range(4)]
    want, met = owner.tolist(), set()
    for row in range(n):
        for k in range(4):
            free = [j for j in range(13) if want[row][13 * k + j] == -1]
            lb = lbs[row][k]
            met.add("13" if lb == 13 else "all free" if lb == len(free) else "some")
            for j in sorted(free, key=lambda j: priorities[k][row][j])[:lb]:
                want[row][13 * k + j] = seat_b
    assert np.array_equal(got, np.array(want, dtype=np.int8))
    assert edges <= met  # each case of the bound's rule was met
    assert (got == seat_b).sum(axis=1).tolist() == [13] * n


class _Edges(Rng):
    """An `Rng` whose `below` gives, row after row, 0, the bound less one and a value of its
    own generator's (the bounds are recorded, to compare two paths' calls)."""

    def __init__(self, seed):
        self.gen, self.bounds = np.random.default_rng(seed), []

    def below(self, bounds):
        b = np.asarray(bounds, dtype=np.int64)
        self.bounds.append(b.copy())
        out = self.gen.integers(0, b)
        out[0::3], out[1::3] = 0, b[1::3] - 1
        return out


@pytest.mark.parametrize(
    "text",
    [
        "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+",  # benchmark E's defence (fit mode)
        "opener H:5+ hcp:12-21",
        "opener hcp:12",
        "opener S:7+ hcp:0-5",
    ],
)
def test_rest_mode_hcp_by_columns_are_those_of_the_rows(text, monkeypatch):
    """`part_sampler._hcp_rest` of a long draw (steps 2-5 from the model's running-weight
    tables, `_rest_columns`) against the small draw's rows (cumulative sums, searches,
    `choose_rows`): the same draws asked (bounds) and the same HCP per suit, from the
    generator and at the draws' extremes."""
    from bridgeshape_mirror.deals.drawing import part_sampler

    (model, c, t, i12, i34, _, idx, la, lb), = _arguments_of("_hcp_rest", text, 6000, 5)
    assert len(idx) >= part_sampler.COLUMNS_FROM
    for make in (lambda: make_rng(9), lambda: _Edges(9)):
        columns_rng = make()
        columns = part_sampler._hcp_rest(model, c, t, i12, i34, columns_rng, idx, la, lb)
        with monkeypatch.context() as m:
            m.setattr(part_sampler, "COLUMNS_FROM", 10**9)
            rows_rng = make()
            rows = part_sampler._hcp_rest(model, c, t, i12, i34, rows_rng, idx, la, lb)
        assert np.array_equal(columns[0], rows[0]) and np.array_equal(columns[1], rows[1])
        assert columns[0].sum(axis=1).min() >= model.rules[0].hcp_lo
        if isinstance(columns_rng, _Edges):
            assert len(columns_rng.bounds) == len(rows_rng.bounds) == 4
            assert all(np.array_equal(a, b) for a, b in zip(columns_rng.bounds, rows_rng.bounds))
