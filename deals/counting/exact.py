"""Exact integer sums of int64 arrays whose totals do not fit in int64.

Counts are kept per pair of length vectors (or per matrix) in int64, and their totals, often
weighted, pass 2**63. Python ints over `.tolist()` are exact but slow (a few hundred ns an
element); here both operands are split in 21-bit limbs (the top limb keeps the sign), so a
product of limbs is below 2**42 and a block of 2**20 of them sums below 2**62, inside int64.
"""

from __future__ import annotations

import numpy as np

_BITS = 21
_LOW = (1 << _BITS) - 1
_CHUNK = 1 << 20


def _limbs(x: np.ndarray) -> list[np.ndarray]:
    return [x & _LOW, (x >> _BITS) & _LOW, x >> (2 * _BITS)]


def exact_dot(x: np.ndarray, y: np.ndarray) -> int:
    """sum(x * y) for int64 arrays of one shape, as an exact Python int."""
    x = np.ascontiguousarray(x, dtype=np.int64).ravel()
    y = np.ascontiguousarray(y, dtype=np.int64).ravel()
    total = 0
    for s in range(0, len(x), _CHUNK):
        xs, ys = _limbs(x[s : s + _CHUNK]), _limbs(y[s : s + _CHUNK])
        for i, a in enumerate(xs):
            for j, b in enumerate(ys):
                total += int(np.dot(a, b)) << (_BITS * (i + j))
    return total


def exact_sum(x: np.ndarray) -> int:
    """sum(x) for an int64 array, as an exact Python int."""
    x = np.ascontiguousarray(x, dtype=np.int64).ravel()
    total = 0
    for s in range(0, len(x), _CHUNK):
        for i, a in enumerate(_limbs(x[s : s + _CHUNK])):
            total += int(a.sum()) << (_BITS * i)
    return total
