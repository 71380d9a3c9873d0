"""Small exact tables every count starts from (built on first use, a few milliseconds).

One suit has 4 honours (A K Q J, ranks 0..3, HCP 4 3 2 1) and 9 spot cards. A seat's holding
in a suit is summed up by its length and its honour set (a 4-bit mask, bit r = rank r). For
the two seats of a partnership, a suit is split as: an honour set for each (disjoint: one of
3**4 = 81 *honour splits*), and spot counts; the number of ways to pick the spots is
C(9, a - |Ha|) * C(9 - (a - |Ha|), b - |Hb|) for lengths a, b.

- `HONOUR_SPLITS`: the 81 splits, as arrays of masks, honour counts and HCP for each seat.
- `split_weights()[a, b, k]`: ways to hold lengths (a, b) with honour split k (int64).
- `joint_table()[a, b, ha, hb]`: ways for the pair to hold lengths (a, b) with HCP (ha, hb) in
  one suit. Summed over (ha, hb) it is C(13, a) * C(13 - a, b).
- `length_vectors()`: the 560 length vectors (S, H, D, C) of a 13-card hand.
"""

from __future__ import annotations

import functools
from math import comb

import numpy as np

from bridgeshape_mirror.dsl.deck import HONOUR_HCP

MASK_HCP = np.array([sum(HONOUR_HCP[r] for r in range(4) if m >> r & 1) for m in range(16)], dtype=np.int64)
MASK_COUNT = np.array([bin(m).count("1") for m in range(16)], dtype=np.int64)


@functools.cache
def honour_splits() -> tuple[np.ndarray, np.ndarray]:
    """`(mask_a, mask_b)` for the 81 ways to give each honour to seat a, seat b or neither."""
    ma, mb = [], []
    for code in range(81):
        a = b = 0
        for r in range(4):
            owner = code // 3**r % 3
            if owner == 1:
                a |= 1 << r
            elif owner == 2:
                b |= 1 << r
        ma.append(a)
        mb.append(b)
    return np.array(ma, dtype=np.int64), np.array(mb, dtype=np.int64)


@functools.cache
def honour_owners() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the 256 ways to give A K Q J of a suit to the four seats (way `code`: honour r,
    A first, goes to seat `code >> 2 * r & 3`): HCP per seat `(256, 4)`, which of the 35
    honour-count vectors it has `(256,)`, and those vectors `(35, 4)` (honours per seat,
    summing to 4)."""
    owner = np.array([[code >> (2 * r) & 3 for r in range(4)] for code in range(256)])
    held = owner[:, :, None] == np.arange(4)[None, None, :]  # (owners, honour, seat)
    counts = held.sum(axis=1)
    vectors, count_index = np.unique(counts, axis=0, return_inverse=True)
    return (held * np.array(HONOUR_HCP)[None, :, None]).sum(axis=1), count_index.ravel(), vectors


@functools.cache
def comb_table() -> np.ndarray:
    """`[n, k]` = C(n, k) for 0 <= n, k <= 52, as int64 (0 when k > n); C(52, 26) < 2**63."""
    out = np.zeros((53, 53), dtype=np.int64)
    for n in range(53):
        out[n, : n + 1] = [comb(n, k) for k in range(n + 1)]
    return out


@functools.cache
def split_weights() -> np.ndarray:
    """`[a, b, k]`: spot choices for lengths (a, b) given honour split k (0 when impossible)."""
    ma, mb = honour_splits()
    c = comb_table()
    a = np.arange(14)[:, None, None]
    b = np.arange(14)[None, :, None]
    sa = a - MASK_COUNT[ma][None, None, :]
    sb = b - MASK_COUNT[mb][None, None, :]
    ok = (sa >= 0) & (sb >= 0) & (sa + sb <= 9) & (a + b <= 13)
    sa_c, sb_c = np.clip(sa, 0, 9), np.clip(sb, 0, 9)
    return np.where(ok, c[9, sa_c] * c[9 - sa_c, sb_c], 0)


@functools.cache
def joint_table() -> np.ndarray:
    """`[a, b, ha, hb]`: ways for a partnership to hold (a, b) cards with (ha, hb) HCP in a suit."""
    ma, mb = honour_splits()
    ha, hb = MASK_HCP[ma], MASK_HCP[mb]
    w = split_weights()
    out = np.zeros((14, 14, 11, 11), dtype=np.int64)
    for k in range(81):
        out[:, :, ha[k], hb[k]] += w[:, :, k]
    return out


@functools.cache
def length_vectors() -> np.ndarray:
    """All `(560, 4)` length vectors of a 13-card hand, in lexicographic order."""
    rows = [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s) for d in range(14 - s - h)]
    return np.array(rows, dtype=np.int64)


@functools.cache
def within_thirteen() -> np.ndarray:
    """`[i, j]`: length vectors i and j add up to at most 13 in every place: two hands that
    fit in one deck (no suit past its 13 cards), or two suits' columns that leave every seat
    at most 13 cards."""
    # Suit by suit in bytes: 1.4 ms, where the (560, 560, 4) int64 sums took 24 ms (at every
    # process's first pair count).
    lv = length_vectors().astype(np.int8)
    out = lv[:, None, 0] + lv[None, :, 0] <= 13
    for k in range(1, 4):
        out &= lv[:, None, k] + lv[None, :, k] <= 13
    return out


def length_code(v: np.ndarray) -> np.ndarray:
    """`(..., 4)` length vectors -> one integer each, (S * 14 + H) * 14 + D (C follows)."""
    return (v[..., 0] * 14 + v[..., 1]) * 14 + v[..., 2]


#: Number of ordered pairs of disjoint 13-card hands, C(52,13) * C(39,13).
PAIR_HANDS = comb(52, 13) * comb(39, 13)
#: Number of deals, 52! / 13!^4.
ALL_DEALS = comb(52, 13) * comb(39, 13) * comb(26, 13)
