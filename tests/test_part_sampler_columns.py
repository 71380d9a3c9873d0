"""`part_sampler._trimmed` and `_count_passed` (rest mode's running weights, columns that
decide nothing left out, the count found by halving) against the count of running sums at
or below a draw, over every column: the same picks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.deals.drawing.part_sampler import _count_passed, _trimmed


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 40),
    columns=st.integers(1, 22),
    lead=st.integers(0, 5),
    tail=st.integers(0, 5),
    dead=st.integers(0, 3),
)
def test_count_passed_is_the_count_of_running_sums_at_or_below_the_draw(seed, rows, columns, lead, tail, dead):
    gen = np.random.default_rng(seed)
    w = gen.integers(0, 2**40, size=(rows, columns)) * (gen.random((rows, columns)) < 0.7)
    w[:, :lead] = 0  # columns of zeros for every row ...
    w[:, columns - tail :] = 0  # ... and after every row's last weight
    w[:dead] = 0  # rows that weigh nothing (never drawn)
    cum = np.cumsum(w, axis=1)
    table, width, total, always = _trimmed(cum)
    assert np.array_equal(total, cum[:, -1]) and width & (width - 1) == 0
    live = np.flatnonzero(total > 0)
    if not live.size:
        return
    key = gen.choice(live, size=600)
    target = gen.integers(0, total[key])
    target[::3] = 0
    target[1::3] = total[key[1::3]] - 1
    edges = cum[key[2::3], gen.integers(0, columns, size=len(key[2::3]))]  # on a running sum, and next to it
    target[2::3] = np.clip(edges - gen.integers(0, 2, size=len(edges)), 0, total[key[2::3]] - 1)
    want = (cum[key] <= target[:, None]).sum(axis=1)
    assert np.array_equal(_count_passed(table, width, key, target, always), want)
