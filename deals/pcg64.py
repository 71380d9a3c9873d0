"""numpy's `PCG64(SeedSequence(key))` in plain Python, for the first few thousand values: a
run that deals a few deals (one deal on the command line, a page's ten) then never imports
`numpy.random` (25 ms of a 0.4 s run), and a long one hands the state over to numpy's.

`Pcg64(key).random_raw(n)` gives the values `np.random.PCG64(np.random.SeedSequence(key))
.random_raw(n)` gives, as a uint64 array: the same SeedSequence (numpy's pool of four 32-bit
words, its hash and mix constants, the entropy's integers cut in 32-bit words), the same
seeding (state and increment from the four 64-bit words, high word first), the same 128-bit
LCG step and XSL-RR output. Once the values drawn would pass `PURE_UP_TO`, a numpy PCG64 is
made with the current state and draws everything after: one stream either way, which
`tests/test_deals_rng.py` checks against numpy value for value.
"""

from __future__ import annotations

import numpy as np

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645  # PCG's default 128-bit multiplier
# numpy.random.bit_generator's SeedSequence constants.
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R, _XSHIFT, _POOL = 0xCA01F9DD, 0x4973F715, 16, 4

#: Values drawn in Python at most (about 1 us each, numpy.random's import about 25 ms): a
#: page's ten deals or one deal on the command line fit (5,000-9,000 values), and a long run
#: pays at most 10 ms before numpy's generator takes over.
PURE_UP_TO = 10_000


def seed_words(key: list[int]) -> list[int]:
    """`SeedSequence(key).generate_state(4, np.uint64)` as Python integers."""
    entropy: list[int] = []
    for k in key:
        k = int(k)
        entropy.append(k & _M32)
        k >>= 32
        while k:
            entropy.append(k & _M32)
            k >>= 32
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value = (value ^ hash_const) & _M32
        hash_const = (hash_const * _MULT_A) & _M32
        value = (value * hash_const) & _M32
        return value ^ (value >> _XSHIFT)

    def mix(x: int, y: int) -> int:
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> _XSHIFT)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(entropy)):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[src]))
    hash_const = _INIT_B
    words = []
    for i in range(2 * _POOL):
        value = (pool[i % _POOL] ^ hash_const) & _M32
        hash_const = (hash_const * _MULT_B) & _M32
        value = (value * hash_const) & _M32
        words.append(value ^ (value >> _XSHIFT))
    return [words[2 * i] | (words[2 * i + 1] << 32) for i in range(_POOL)]  # little-endian pairs


class Pcg64:
    """The bit generator `deals.rng.Rng` reads (`random_raw` only)."""

    def __init__(self, key: list[int]):
        w = seed_words(key)
        seed, sequence = (w[0] << 64) | w[1], (w[2] << 64) | w[3]
        self.inc = ((sequence << 1) | 1) & _M128
        self.state = (self.inc + seed) & _M128  # a step from 0, plus the seed
        self.state = (self.state * _MULTIPLIER + self.inc) & _M128  # and a step
        self.drawn = 0
        self._numpy: np.random.PCG64 | None = None

    def random_raw(self, n: int) -> np.ndarray:
        if self._numpy is None and self.drawn + n > PURE_UP_TO:
            self._numpy = np.random.PCG64()
            self._numpy.state = {
                "bit_generator": "PCG64",
                "state": {"state": self.state, "inc": self.inc},
                "has_uint32": 0,
                "uinteger": 0,
            }
        if self._numpy is not None:
            return self._numpy.random_raw(n)
        state, inc, out = self.state, self.inc, []
        for _ in range(n):
            state = (state * _MULTIPLIER + inc) & _M128
            high = state >> 64
            x = (high ^ state) & _M64
            rot = high >> 58
            out.append(((x >> rot) | (x << (64 - rot))) & _M64)
        self.state, self.drawn = state, self.drawn + n
        return np.array(out, dtype=np.uint64)
