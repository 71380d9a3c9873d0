"""Exact draws of one partnership's two hands from a `PairModel`.

`draw_part(model, n, rng)` returns up to `n` rows of a `(rows, 52)` int8 seat-of-card array
with the cards of the partnership's two seats set and every other card -1, each row uniform
over the model's superset (every rule of the partnership but wildcard HCP), independently:
the model's count is walked backwards, each step an exact draw from integer weights. The
steps and the modes: docs/COUNTING.md, "One partnership's draws".
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from ..counting.partnership import PairModel
from ..counting.exact import exact_sum
from .rng import Rng, SearchGuide
from ..counting.tables import MASK_COUNT, MASK_HCP, honour_splits, length_vectors, split_weights


@functools.cache
def _split_options():
    """`[a, b, ha, hb, 2]`: the (at most two) honour splits giving HCP (ha, hb), and their
    cumulative weights for lengths (a, b)."""
    ma, mb = honour_splits()
    ha, hb = MASK_HCP[ma], MASK_HCP[mb]
    w = split_weights()
    codes = np.zeros((11, 11, 2), dtype=np.int64)
    used = np.zeros((11, 11), dtype=np.int64)
    for k in range(81):
        codes[ha[k], hb[k], used[ha[k], hb[k]]] = k
        used[ha[k], hb[k]] += 1
    cum = np.zeros((14, 14, 11, 11, 2), dtype=np.int64)
    cum[..., 0] = w[:, :, codes[:, :, 0]] * (used >= 1)
    cum[..., 1] = cum[..., 0] + w[:, :, codes[:, :, 1]] * (used >= 2)
    return codes, cum


#: Step 1 searches its draws through a `SearchGuide` of 2**14 buckets when the model has at
#: most this many length pairs (8 buckets a step or more: most draws answered by the table).
GUIDED_UP_TO = 2048
#: A draw of at least this many rows builds (and keeps on the model) the HCP tables of every
#: half; smaller draws (the mirror's 10 deals) build only the halves their rows use.
FULL_TABLES_FROM = 2048


def _prepare(model: PairModel) -> dict:
    cache = getattr(model, "_draw_cache", None)
    if cache is not None:
        return cache
    total = exact_sum(model.weights)
    shift = max(0, total.bit_length() - 62)
    w = model.weights
    w2 = ((w - 1) >> shift) + 1 if shift else w
    ma, mb = honour_splits()
    ra, rb = model.rules
    codes, cum = _split_options()
    cache = {
        "shift": shift,
        "cum": np.cumsum(w2),
        "w2": w2,
        "split_codes": codes,
        "split_cum": cum,
        "split_ma": ma,
        "split_mb": mb,
        "padded_key": hashlib.sha256(model.suit_tables.tobytes()).digest(),
        "hcp_a": (ra.hcp_lo, ra.hcp_hi),
        "hcp_b": (rb.hcp_lo, rb.hcp_hi),
    }
    model._draw_cache = cache  # type: ignore[attr-defined]
    return cache


def _hcp_tables(model: PairModel, c: dict, idx: np.ndarray, n: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """The HCP tables steps 2-5 read, for the pairs `idx`: a dict of arrays indexed by the
    returned per-row half indices (i12, i34). Either every half's tables, built once and kept
    (`n >= FULL_TABLES_FROM`, or already built), or only the halves these rows use, built
    for this draw. The values are the same either way; only their indexing differs."""
    g12, g34 = model.idx12.take(idx), model.idx34.take(idx)
    if "full" not in c and n >= FULL_TABLES_FROM:
        rows12, rows34 = np.arange(len(model.keys12)), np.arange(len(model.keys34))
        c["full"] = _tables_of(model, rows12, rows34)
    if "full" in c:
        return c["full"], g12, g34
    rows12, l12 = np.unique(g12, return_inverse=True)
    rows34, l34 = np.unique(g34, return_inverse=True)
    return _tables_of(model, rows12, rows34), l12.ravel(), l34.ravel()


def _tables_of(model: PairModel, rows12: np.ndarray, rows34: np.ndarray) -> dict:
    p12, p34, r34 = model.draw_tables(rows12, rows34)
    if model.rest:  # only the diagonals weigh anything (see _hcp_rest; a long draw's own tables: _rest_columns)
        diagonals = {"p12d": p12[:, _DIAG], "r34d": r34[:, _DIAG], "p34d": p34[:, _DIAG]}
        return {name: np.ascontiguousarray(d) for name, d in diagonals.items()}
    q34 = np.zeros((len(p34), 21, 22), dtype=np.int64)
    q34[:, :, 1:] = p34.reshape(-1, 21, 21).cumsum(axis=2)
    return {"p12": p12, "r34": r34, "q34": q34.reshape(-1)}


def search_blocks(flat: np.ndarray, start: np.ndarray, width: int, target: np.ndarray) -> np.ndarray:
    """For each row, the smallest k in [0, width) with flat[start + k] > target, where each
    block flat[start : start + width] is non-decreasing and its last entry exceeds target."""
    lo = np.zeros(len(start), dtype=np.int64)
    hi = np.full(len(start), width - 1, dtype=np.int64)
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        gt = flat[start + mid] > target
        hi = np.where(open_ & gt, mid, hi)
        lo = np.where(open_ & ~gt, mid + 1, lo)


def row_search_table(cum: np.ndarray) -> tuple[np.ndarray, int] | None:
    """`cum` (rows, width), each row non-decreasing and >= 0, laid end to end as one
    non-decreasing array: row r shifted up by r * step, step above every entry. None when
    that would pass int64 (the caller then searches row by row with `search_blocks`)."""
    rows = cum.shape[0]
    step = int(cum.max(initial=0)) + 1
    if rows * step >= 2**62:
        return None
    return (cum + (np.arange(rows, dtype=np.int64) * step)[:, None]).ravel(), step


_BUILD = object()  # search_rows: no table given


def search_rows(cum: np.ndarray, rows: np.ndarray, target: np.ndarray, table=_BUILD) -> np.ndarray:
    """`search_blocks(cum.ravel(), rows * width, width, target)` (the same values), by one
    `searchsorted` over the rows laid end to end (`row_search_table`, or `table` if given)
    when they fit in int64: the entries at or below row r's shifted target are every entry
    of the rows before r (each below r * step) and those of row r at or below the target,
    so the count less r * width is the smallest k with cum[r, k] > target. `table`: the
    `row_search_table(cum)` kept by the caller (None included), built here when not given."""
    width = cum.shape[1]
    if table is _BUILD:
        table = row_search_table(cum)
    if table is None:
        return search_blocks(cum.ravel(), rows * width, width, target)
    flat, step = table
    needles = rows * step + target
    if len(flat) >= SORTED_NEEDLES_FROM[0] and len(needles) >= SORTED_NEEDLES_FROM[1]:
        # Needles in order walk a table past the caches (fit mode's b lengths: 2 MB) a
        # neighbourhood at a time, not a cache miss at each step: twice as fast with the sort.
        order = np.argsort(needles)
        found = np.empty(len(needles), dtype=np.int64)
        found[order] = np.searchsorted(flat, needles[order], side="right")
    else:
        found = np.searchsorted(flat, needles, side="right")
    return found - rows * width


#: `search_rows` sorts its needles for a table of at least [0] entries and [1] needles.
SORTED_NEEDLES_FROM = (65536, 4096)


_TRI_A, _TRI_B = (np.array(t) for t in zip(*[(i, j) for i in range(11) for j in range(11 - i)]))
_PAD = 31  # padded suit tables: HCP h at index h + 10, zeros around, so shifts need no clipping
_TRI_OFF = (_TRI_A + 10) * _PAD + (_TRI_B + 10)


_PADDED: dict = {}  # digest of suit tables -> padded tables; models with the same masks share


def _padded_tables(model: PairModel, key: bytes) -> np.ndarray:
    """The model's suit tables padded for `_split` (3 MB in 32 bits, 6 MB in 64): kept for the
    8 most recently used sets of suit tables, not by the model (most models share the plain
    joint tables)."""
    t = _PADDED.pop(key, None)
    if t is None:
        # In 32 bits when a split's 66 products sum below 2**31 (they do for every table met
        # so far): half the bytes gathered and twice the values a vector instruction takes.
        small = int(model.suit_tables.max(initial=0)) ** 2 * len(_TRI_STEPS) < 2**31
        t = np.zeros((4, 14, 14, _PAD, _PAD), dtype=np.int32 if small else np.int64)
        t[:, :, :, 10:21, 10:21] = model.suit_tables
        t = t.reshape(-1)
        t.flags.writeable = False
        while len(_PADDED) >= 8:  # 3 or 6 MB each
            del _PADDED[next(iter(_PADDED))]
    _PADDED[key] = t  # most recently used last
    return t


_TRI_BACK = _TRI_A * _PAD + _TRI_B  # the second suit's (u - ha, v - hb) from its (u, v)
_TRI_STEPS = tuple(zip(_TRI_OFF.tolist(), _TRI_BACK.tolist()))


#: Draws of at least this many rows take their steps column by column (`_split`,
#: `_hcp_second_half`; rest mode's `_hcp_rest` by tables of the model's, `_rest_columns`): a
#: few hundred numpy calls, or tables to build, whatever the rows, which cost a small draw (a
#: page's ten deals) more than its rows do. The same values either way.
COLUMNS_FROM = 2048


def _split(rng: Rng, flat: np.ndarray, xbase: np.ndarray, ybase: np.ndarray, u: np.ndarray, v: np.ndarray):
    """Split HCP totals (u, v) of two suits between them: `xbase`/`ybase` locate each row's
    padded table of the first/second suit in `flat`. Returns the first suit's (ha, hb).
    Only ha + hb <= 10 can weigh anything (a suit has 10 HCP): 66 splits, in `_TRI_A`,
    `_TRI_B` order, drawn below the row's sum of their weights."""
    if len(u) >= COLUMNS_FROM:
        return _split_columns(rng, flat, xbase, ybase, u, v)
    return _split_rows(rng, flat, xbase, ybase, u, v)


def _split_rows(rng: Rng, flat: np.ndarray, xbase: np.ndarray, ybase: np.ndarray, u: np.ndarray, v: np.ndarray):
    """`_split` of a small draw: rows sharing tables and totals share their cumulative
    weights (computed once, then one search over the rows laid end to end)."""
    key = (xbase * (_PAD * _PAD * 14 * 14 * 4) + ybase) * 441 + u * 21 + v
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    xb, yb, uu, vv = xbase[first], ybase[first], u[first], v[first]
    w = flat[xb[:, None] + _TRI_OFF[None, :]] * flat[(yb + (uu + 10) * _PAD + (vv + 10))[:, None] - _TRI_BACK[None, :]]
    cum = np.cumsum(w, axis=1)
    inv = inv.ravel()
    k = search_rows(cum, inv, rng.below(cum[inv, -1]))
    return _TRI_A[k], _TRI_B[k]


def _split_columns(rng: Rng, flat: np.ndarray, xbase: np.ndarray, ybase: np.ndarray, u: np.ndarray, v: np.ndarray):
    """`_split` of a long draw, split by split across every row at once (each step a whole
    column, no rows of 66 to sort out, search or lay end to end): the row's weights summed,
    an unbiased draw below the sum, and the pick is the number of running sums at or below
    it, which is the smallest k whose running sum passes it."""
    n = len(u)
    at = ybase + (u + 10) * _PAD + (v + 10)
    w = np.empty((len(_TRI_STEPS), n), dtype=flat.dtype)  # int32 when the sums fit (`_padded_tables`)
    total = np.zeros(n, dtype=flat.dtype)
    for k, (first, second) in enumerate(_TRI_STEPS):
        np.multiply(flat[xbase + first], flat[at - second], out=w[k])
        total += w[k]
    pick = _passed(w, rng.below(total).astype(flat.dtype))
    return _TRI_A[pick], _TRI_B[pick]


def _passed(weights: np.ndarray, target: np.ndarray) -> np.ndarray:
    """For `(k, n)` weights (a column a choice) and a draw below each row's total: the
    number of running sums at or below the draw, which is the smallest k whose running sum
    passes it (the choice by weight)."""
    pick = np.zeros(weights.shape[1], dtype=np.int64)
    running = np.zeros(weights.shape[1], dtype=weights.dtype)
    for w in weights:
        running += w
        pick += running <= target
    return pick


def draw_part(model: PairModel, n: int, rng: Rng) -> np.ndarray:
    c = _prepare(model)
    # 1. pair of length vectors
    if n >= FULL_TABLES_FROM and "cum_guide" not in c and len(c["cum"]) <= GUIDED_UP_TO:
        c["cum_guide"] = SearchGuide(c["cum"])
    idx = rng.choose_cumulative(c["cum"], n, c.get("cum_guide"))
    if c["shift"]:
        bound = c["w2"][idx] << c["shift"]
        keep = rng.below(bound) < model.weights[idx]
        idx = idx[keep]
    if model.fit_mode:  # weight Z(L) by exact rejection: accept with probability Z(L) / max Z
        zmax = int(model.fit_z.max())
        idx = idx[rng.below(np.full(len(idx), zmax, dtype=np.int64)) < model.fit_z.take(idx)]
    n = len(idx)
    # Rows of 2-D tables by np.take: numpy's fancy indexing of rows costs ten times as much.
    la, lb = np.take(model.la, idx, axis=0), np.take(model.lb, idx, axis=0)
    t, i12, i34 = _hcp_tables(model, c, idx, n)
    if model.rest:
        ha, hb = _hcp_rest(model, c, t, i12, i34, rng, idx, la, lb)
    else:
        ha, hb = _hcp_pair(model, c, t, i12, i34, rng, idx, la, lb)
    ha, hb = ha.ravel(), hb.ravel()
    owner = _cards(model, c, rng, la, lb, ha, hb)
    if model.fit_mode:
        _partner_cards(model, rng, idx, la, owner)
    return owner


def _partner_cards(model: PairModel, rng: Rng, idx: np.ndarray, la: np.ndarray, owner: np.ndarray) -> None:
    """Fit mode: seat b's lengths given a's (weights C(13 - a_k, b_k), fits satisfied), then
    in each suit a uniform choice of b's cards among those a does not hold."""
    n = len(idx)
    c = _prepare(model)
    if "fit_rows" not in c:
        c["fit_rows"] = row_search_table(model.fit_lb_cum)
    pick = search_rows(model.fit_lb_cum, idx, rng.below(model.fit_z.take(idx)), c["fit_rows"])
    seat_b = model.seats[1]
    # A uniform order of each suit's 13 cards, suit after suit as drawn (one draw for the four:
    # `Rng.permutation_runs`): card j's priority (0-12) at [j, suit * n + row], the draw's own
    # layout, a byte each (shifted below into 16 bits).
    priority = np.ascontiguousarray(rng.permutation_runs(4, n, 13, np.int8).T)
    # The free cards (-1) as 0/1 in that layout: the sign bit of a transposed copy.
    free = np.ascontiguousarray(owner.reshape(n, 4, 13).transpose(2, 1, 0)).reshape(13, 4 * n)
    free = (free.view(np.uint8) >> 7).view(np.uint8)
    # b takes the lb free cards of lowest priority: those below the (lb+1)-th lowest free
    # priority (13 when lb is every free card), read from the set of free priorities as a
    # 13-bit mask (`_nth_lowest_bit`). The old way sorted the priorities again (held ones
    # put last): a 48-comparator network; the mask is 13 shifts and ors, the same bound.
    mask = np.zeros(4 * n, dtype=np.int16)
    bit = np.empty(4 * n, dtype=np.int16)
    for j in range(13):
        np.left_shift(free[j], priority[j], out=bit)  # a 0/1 byte by 0-12: below 2**13
        mask |= bit
    lb_t = np.take(length_vectors().T, pick, axis=1).reshape(-1)  # (suit, row) flat, as mask
    bound = _nth_lowest_bit().take(mask.astype(np.intp) * 14 + lb_t)
    # The cards b takes are free, so adding seat_b + 1 where taken gives seat_b.
    taken = (priority < bound) & free.view(bool)
    owner += taken.view(np.int8).reshape(13, 4, n).transpose(2, 1, 0).reshape(n, 52) * np.int8(seat_b + 1)


@functools.cache
def _nth_lowest_bit() -> np.ndarray:
    """`[mask * 14 + k]` (int8): the (k+1)-th lowest set bit of a 13-bit mask, k = 0..13; 13
    when the mask has k bits or fewer (b takes them all). 8192 x 14 bytes, built in 0.7 ms:
    the (k+1)-th set bit is the number of bits with at most k set bits at or below them."""
    masks = np.arange(1 << 13, dtype=np.int16)
    bits = ((masks[:, None] >> np.arange(13, dtype=np.int16)) & 1).astype(np.int8)
    seen = np.ascontiguousarray(np.cumsum(bits, axis=1, dtype=np.int8).T)  # (bit, mask)
    table = np.empty((14, 1 << 13), dtype=np.int8)
    for k in range(14):
        np.sum(seen <= k, axis=0, dtype=np.int8, out=table[k])
    return np.ascontiguousarray(table.T).reshape(-1)


def _hcp_pair(model: PairModel, c: dict, t: dict, i12, i34, rng: Rng, idx, la, lb):
    """Steps 2-5 for two real seats: `(n, 4)` HCP per suit of seat a and of seat b. `t` holds
    the HCP tables, `i12`/`i34` each row's halves in them (see `_hcp_tables`)."""
    # 2. HCP (u, v) of suits 1+2: cumulative weights per distinct pair, binary search per row
    _, first, inv = np.unique(idx, return_index=True, return_inverse=True)
    inv = inv.ravel()
    cum = np.cumsum(t["p12"][i12[first]] * t["r34"][i34[first]], axis=1)
    uv = search_rows(cum, inv, rng.below(model.weights[idx]))
    u, v = uv // 21, uv % 21
    # 3. split between suits 1 and 2
    flat = _padded_tables(model, c["padded_key"])
    base = ((np.arange(4)[None, :] * 14 + la) * 14 + lb) * (_PAD * _PAD)
    h0a, h0b = _split(rng, flat, base[:, 0], base[:, 1], u, v)
    h1a, h1b = u - h0a, v - h0b
    # 4. HCP (x, y) of suits 3+4 in the rectangle left by (u, v)
    xs, ys = _hcp_second_half(c, t["q34"], i34, u, v, rng)
    # 5. split between suits 3 and 4
    h2a, h2b = _split(rng, flat, base[:, 2], base[:, 3], xs, ys)
    h3a, h3b = xs - h2a, ys - h2b
    return np.stack([h0a, h1a, h2a, h3a], axis=1), np.stack([h0b, h1b, h2b, h3b], axis=1)


def _hcp_second_half(c: dict, q: np.ndarray, i34, u, v, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
    """Step 4: seat a's HCP x and seat b's y in suits 3+4, within the rectangle of totals
    the HCP ranges leave after (u, v): x by its row's weight (P34 over the row's y in range,
    from `q`, P34's running sums over y: (half, 21, 22) flat), then y within row x."""
    (lo_a, hi_a), (lo_b, hi_b) = c["hcp_a"], c["hcp_b"]
    x0, x1 = np.clip(lo_a - u, 0, 21), np.clip(hi_a - u + 1, 0, 21)
    y0, y1 = np.clip(lo_b - v, 0, 21), np.clip(hi_b - v + 1, 0, 21)
    if len(u) >= COLUMNS_FROM:
        return _second_half_columns(q, i34, x0, x1, y0, y1, rng)
    return _second_half_rows(q, i34, x0, x1, y0, y1, rng)


def _second_half_rows(q: np.ndarray, i34, x0, x1, y0, y1, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
    """`_hcp_second_half` of a small draw: the rows' x-weights as one (n, 21) table."""
    rows = np.arange(len(i34))
    qbase = (i34 * (21 * 22))[:, None] + (np.arange(21) * 22)[None, :]
    xr = np.arange(21)[None, :]
    row_w = (q[qbase + y1[:, None]] - q[qbase + y0[:, None]]) * ((xr >= x0[:, None]) & (xr < x1[:, None]))
    xs = rng.choose_rows(row_w)
    qrow = q[(i34 * (21 * 22) + xs * 22)[:, None] + np.arange(22)[None, :]]  # (n, 22)
    target = rng.below(row_w[rows, xs]) + qrow[rows, y0]
    return xs, (qrow[:, 1:] <= target[:, None]).sum(axis=1)


def _second_half_columns(q: np.ndarray, i34, x0, x1, y0, y1, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
    """`_hcp_second_half` of a long draw, column by column across the rows (21 x-rows, then
    21 y-sums), as `_split_columns`: the pick is the count of running sums at or below an
    unbiased draw below their total, the smallest k passing it."""
    n = len(i34)
    base = i34 * (21 * 22)
    lo, hi = base + y0, base + y1
    w = np.empty((21, n), dtype=np.int64)  # w[x]: each row's weight of x
    total = np.zeros(n, dtype=np.int64)
    for x in range(21):
        np.subtract(q[hi + x * 22], q[lo + x * 22], out=w[x])
        w[x] *= (x0 <= x) & (x < x1)
        total += w[x]
    xs = _passed(w, rng.below(total))
    at = base + xs * 22
    target = rng.below(w.reshape(-1)[xs * n + np.arange(n)]) + q[at + y0]
    ys = np.zeros(n, dtype=np.int64)
    for y in range(1, 22):
        ys += q[at + y] <= target
    return xs, ys


_G21 = np.arange(21)
_DIAG = _G21 * 21 + (20 - _G21)  # HCP pairs (u, 20 - u) of two suits
_H11 = np.arange(11)


def _split_rest(rng: Rng, flat: np.ndarray, xbase: np.ndarray, ybase: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Rest mode: seat b holds every other card, so hb = 10 - ha in each suit and a total u
    of two suits splits 11 ways. Returns the first suit's ha. (A small draw's; a long draw
    reads the same weights from `_rest_columns`' split tables.)"""
    xi = xbase[:, None] + _REST_FIRST[None, :]
    yh = u[:, None] - _H11[None, :]
    yi = ybase[:, None] + (yh + 10) * _PAD + (20 - yh)
    return rng.choose_rows(flat[xi] * flat[yi])


_REST_FIRST = (_H11 + 10) * _PAD + (20 - _H11)  # the first suit's table at HCP (h, 10 - h)


def _hcp_rest(model: PairModel, c: dict, t: dict, i12, i34, rng: Rng, idx, la, lb):
    """Steps 2-5 in rest mode: the same draws, on the diagonals (seat b's HCP are the rest).
    A long draw reads each step's running weights from tables of the model's own
    (`_rest_columns`, `_rest_pick`): the same picks as the rows' cumulative sums and searches."""
    n = len(idx)
    lo_a, hi_a = c["hcp_a"]
    if n >= COLUMNS_FROM:
        rt = _rest_columns(model, c, t)
        u = _rest_pick(rt, "u", idx, rng.below(model.weights.take(idx)))
        key = (la[:, 0] * 14 + la[:, 1]) * 21 + u
        h0 = _rest_pick(rt, "split01", key, rng.below(rt["split01_total"].take(key)))
        key = i34 * 21 + u
        xs = _rest_pick(rt, "x", key, rng.below(rt["x_total"].take(key)))
        key = (la[:, 2] * 14 + la[:, 3]) * 21 + xs
        h2 = _rest_pick(rt, "split23", key, rng.below(rt["split23_total"].take(key)))
    else:
        _, first, inv = np.unique(idx, return_index=True, return_inverse=True)
        inv = inv.ravel()
        w = t["p12d"][i12[first]] * t["r34d"][i34[first]]
        u = search_rows(np.cumsum(w, axis=1), inv, rng.below(model.weights[idx]))
        flat = _padded_tables(model, c["padded_key"])
        base = ((np.arange(4)[None, :] * 14 + la) * 14 + lb) * (_PAD * _PAD)
        h0 = _split_rest(rng, flat, base[:, 0], base[:, 1], u)
        total = u[:, None] + _G21[None, :]
        xs = rng.choose_rows(t["p34d"][i34] * ((total >= lo_a) & (total <= hi_a)))
        h2 = _split_rest(rng, flat, base[:, 2], base[:, 3], xs)
    ha = np.stack([h0, u - h0, h2, xs - h2], axis=1)
    return ha, 10 - ha


def _rest_pick(rt: dict, name: str, key: np.ndarray, target: np.ndarray) -> np.ndarray:
    return _count_passed(rt[name], rt[name + "_width"], key, target, rt[name + "_always"])


def _count_passed(table: np.ndarray, width: int, key: np.ndarray, target: np.ndarray, always: int) -> np.ndarray:
    """For each row, the number of running sums of its table row `key` at or below `target`
    (below the row's total), which is the smallest k whose running sum passes it. `table`:
    `_trimmed`'s columns, `(width, rows)` flat, `width` a power of two (padded by sums above
    every draw); `always`: the columns left out as at or below every draw. Non-decreasing along a
    row, so the count is found by halving (2**j columns at a time: a gather a step, 4 for 11
    columns), where `search_rows` is a binary search over whole rows whose branches
    mispredict (9,300 draws in 4,116 rows of 11: 0.07 ms against 0.88) and a gather a column
    (0.10 ms) reads every column."""
    rows = len(table) // width
    found = np.zeros(len(key), dtype=np.int64)  # columns known at or below the draw
    at = np.empty(len(key), dtype=np.int64)
    step = width // 2
    while step:
        np.multiply(found + (step - 1), rows, out=at)
        at += key
        found += (table.take(at) <= target) * step
        step //= 2
    found += always
    return found


def _trimmed(cum: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, int]:
    """`(rows, k)` running sums -> `_count_passed`'s table and width, the rows' totals and
    `always`.
    Among the rows that can be drawn (total > 0), a column of zeros is at or below every
    draw (counted once in `always`) and a column equal to the totals is above every draw
    (the total itself, and what follows the last positive weight): neither is kept. Benchmark
    E's steps 2 and 4 keep 10 of their 20 columns (its HCP ranges end at 10). The columns
    left are padded to a power of two with int64's largest value (never at or below a draw)."""
    total = np.ascontiguousarray(cum[:, -1])
    body, live = cum[:, :-1], total > 0
    zero = (body[live] == 0).all(axis=0)
    full = (body[live] == total[live, None]).all(axis=0) & ~zero
    kept = body[:, ~(zero | full)]
    width = 1 << kept.shape[1].bit_length()  # more than the kept columns: counts 0..kept
    padded = np.full((width, len(cum)), np.iinfo(np.int64).max, dtype=np.int64)
    padded[: kept.shape[1]] = kept.T
    return padded.reshape(-1), width, total, int(zero.sum())


def _rest_columns(model: PairModel, c: dict, t: dict) -> dict:
    """Rest mode's running weights, built once a model from the full tables `t` (the
    products and sums a long draw took column by column: the same integers): step 2's per
    length pair (`u`, pairs of the model), step 4's x per (half 3+4, u) (`x`: P34 where the
    total u + x is in a's range), and the splits of steps 3 and 5 per (first suit's length,
    second suit's length, HCP of the two) (`split01`, `split23`: the 11 products of
    `_split_rest`). Each as its running sums less the columns that decide nothing and the
    rows' totals (`_trimmed`), kept on the model's draw cache (1.4 MB for benchmark E); a
    step then costs a few gathers (`_count_passed`) rather than products of gathers from
    the padded tables a column (benchmark E's 100,000 deals: `_hcp_rest` 52-61 -> 38-40 ms
    with a gather a column, before the halving)."""
    if "rest_u" in c:
        return {name[5:]: c[name] for name in _REST_COLUMNS}
    lo_a, hi_a = c["hcp_a"]
    totals = _G21[:, None] + _G21[None, :]  # (u, x)
    in_range = (totals >= lo_a) & (totals <= hi_a)
    tables = {
        "u": t["p12d"][model.idx12] * t["r34d"][model.idx34],
        "x": (t["p34d"][:, None, :] * in_range[None, :, :]).reshape(-1, 21),
    }
    flat = _padded_tables(model, c["padded_key"]).astype(np.int64)
    la = np.arange(14)
    for name, s in (("split01", 0), ("split23", 2)):
        xbase = ((s * 14 + la) * 14 + (13 - la)) * (_PAD * _PAD)  # (14,): the first suit's length
        ybase = (((s + 1) * 14 + la) * 14 + (13 - la)) * (_PAD * _PAD)  # the second's
        first = flat[xbase[:, None] + _REST_FIRST[None, :]]  # (14, 11): split h
        at = ybase[:, None] + (_G21[None, :] + 10) * _PAD + (20 - _G21[None, :])  # (14, 21): total u
        second = flat[at[:, :, None] - _H11[None, None, :] * (_PAD - 1)]  # (14, 21, 11)
        tables[name] = (first[:, None, None, :] * second[None, :, :, :]).reshape(-1, 11)
    for name, w in tables.items():
        c["rest_" + name], c["rest_" + name + "_width"], c["rest_" + name + "_total"], c["rest_" + name + "_always"] = (
            _trimmed(np.cumsum(w, axis=1))
        )
    return {name[5:]: c[name] for name in _REST_COLUMNS}


# on the model's draw cache, where its `nbytes` counts them
_REST_COLUMNS = tuple(f"rest_{t}{end}" for t in ("u", "x", "split01", "split23") for end in ("", "_width", "_total", "_always"))


def _cards(model: PairModel, c: dict, rng: Rng, la, lb, ha, hb) -> np.ndarray:
    n = len(la)
    # 6. honour split per suit (rows: deal-major, suit-minor): at most two candidates
    fa, fb = la.ravel(), lb.ravel()
    # The tables' flat indices: numpy's indexing by four index arrays costs several times one.
    hcp = ha * 11 + hb
    scum = np.take(c["split_cum"].reshape(-1, 2), (fa * 14 + fb) * 121 + hcp, axis=0)
    second = rng.below(scum[:, 1]) >= scum[:, 0]
    # Lookups in 1-D tables by `take` (two thirds of the time of indexing by an array).
    split = c["split_codes"].reshape(-1).take(hcp * 2 + second)
    mask_a, mask_b = c["split_ma"].take(split), c["split_mb"].take(split)
    # 7. spots: a uniform permutation of the nine spots of each suit
    spots_a = fa - MASK_COUNT.take(mask_a)
    spots_b = fb - MASK_COUNT.take(mask_b)
    perm = rng.permutations(n * 4, 9, np.int8)
    seat_a, seat_b = model.seats[0], (-1 if model.rest else model.seats[1])
    # One byte a card throughout: (n * 4, 13) rows, a suit's four honours then its nine spots.
    out = np.empty((n * 4, 13), dtype=np.int8)
    # A suit's four honours as one 4-byte word: a row's first four bytes written at once.
    out[:, :4].view(np.uint32)[:, 0] = _honour_owners(seat_a, seat_b).view(np.uint32).reshape(256).take(mask_a * 16 + mask_b)
    # A spot of rank below spots_a is a's, below spots_a + spots_b b's, else nobody's (-1):
    # -1, plus seat_b + 1 below the second bound, plus seat_a - seat_b below the first. Sums
    # of the comparisons' bytes rather than np.where (a branch per card), on the ranks spot
    # by spot (`perm.T`, the permutations' own layout: whole rows of n * 4, not rows of 9).
    ranks = perm.T
    spots = (ranks < (spots_a + spots_b).astype(np.int8)).view(np.int8) * np.int8(seat_b + 1)
    spots += (ranks < spots_a.astype(np.int8)).view(np.int8) * np.int8(seat_a - seat_b)
    spots -= np.int8(1)
    out.T[4:] = spots
    return out.reshape(n, 52)


@functools.cache
def _honour_owners(seat_a: int, seat_b: int) -> np.ndarray:
    """`[mask_a, mask_b]` -> the owner of each of a suit's four honours (bit k of a mask: the
    k-th honour, A first): seat a, seat b, or -1."""
    bits = np.arange(4)
    held_a = (np.arange(16)[:, None, None] >> bits) & 1
    held_b = (np.arange(16)[None, :, None] >> bits) & 1
    return np.where(held_a, seat_a, np.where(held_b, seat_b, -1)).astype(np.int8)
