"""Keep numpy's BLAS to one thread while counting.

The counts multiply many small matrices (a few hundred rows); OpenBLAS's worker threads make
that slower, not faster, on a small shared machine (measured: 0.07 s single-threaded against
0.5 s with two threads on a busy 2-core host). `single_threaded_blas()` asks the OpenBLAS
that numpy loaded for one thread, best effort: when the library or its setter cannot be
found (another BLAS, another platform), nothing happens and results are the same, only
slower. It only changes a speed setting of the process, never a result.
"""

from __future__ import annotations

import ctypes
import functools

_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


@functools.cache
def single_threaded_blas() -> bool:
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line})
    except OSError:
        return False
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)
                return True
    return False
