"""How much memory DDS's transposition tables take: one table a thread, each with a ceiling.

DDS 2.9 sizes its threads' tables itself (`SetResources`): a large table's ceiling is fixed at
160 MB (`THREADMEM_LARGE_MAX_MB`), and under a tighter bound it gives threads its small tables
instead, which find the same tricks at 0.6-0.9x the speed. Two large tables at their ceiling and
the process come to 310-350 MB over a long `--dd` run on two cores (issue 35 asks under 300 MB).
So, after `SetResources` has chosen the threads, `size_tables` gives each thread a large table
with the ceiling we choose, through DDS's own `Memory::Resize` on its `memory` object (what
`SetResources` itself calls), which endplay's build exports. A table that fills harvests its
oldest entries (DDS's way): a lower ceiling costs time, never tricks. Where a build does not
export them, or DDS does not then report the tables asked for, DDS sizes its tables itself, as
before (`TablesUnsized`, `size_own`). `map_large_blocks` has the pages a table frees go back
to the system.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any

#: A thread's table's ceiling by default (MB): DDS's own (`THREADMEM_LARGE_MAX_MB`), the speed
#: of endplay's set-up; the build solves with it.
DDS_TABLE_MB = 160
#: A thread's table's ceiling for `deals --dd` by default (MB), a stream that may solve 100,000
#: deals for hours. A table grows by pages of 6.2 MB (1,000 of DDS's 6,508-byte blocks) and
#: has 8 MB besides (its hash roots, the thread's rank tables): at 100, 16 pages, a thread takes
#: 107 MB at most, and a run on two cores about 290 MB at most with the process's own (issue
#: 35: under 300), at 0.97-1.00x the speed of 160 (docs/BENCHMARKS.md); at 110 (17 pages) a
#: 100,000-deal run reached 296 MB in minutes.
STREAM_TABLE_MB = 100
#: What a table keeps between deals (never above its ceiling): DDS's own large tables' default
#: (`THREADMEM_LARGE_DEF_MB`); the pages above it are given back after each deal.
DDS_TABLE_KEPT_MB = 95
#: The least a user may give a thread's table (`double_dummy.bound_memory`): DDS's small
#: table's ceiling; below it DDS runs fewer threads, one at least.
DDS_MEMORY_MB_LEAST = 30

# glibc's `M_MMAP_THRESHOLD` (malloc.h), and the size from which we have its blocks mapped.
_M_MMAP_THRESHOLD = -3
_MAPPED_FROM = 1 << 20
# DDS takes this many times the bound `SetResources` is given (Init.cpp).
_DDS_OVERSHOOT = 1.3
# DDS's `TTmemory` (Memory.h): the kinds of table.
_SMALL, _LARGE = 0, 1
# DDS 2.9's exported C++ symbols (Itanium mangling): `Memory memory;` (Init.cpp),
# `void Memory::Resize(unsigned, TTmemory, int, int)`, `unsigned Memory::NumThreads() const`.
_MEMORY, _RESIZE, _THREADS = "memory", "_ZN6Memory6ResizeEj8TTmemoryii", "_ZNK6Memory10NumThreadsEv"


class TablesUnsized(RuntimeError):
    """This DDS build does not let its tables be given a ceiling (DDS sizes them itself)."""


class DDSInfo(ctypes.Structure):
    """DDS 2.9's `DDSInfo` (dll.h), whole: endplay's binding leaves out four of its fields, so
    `GetDDSInfo` would write past the end of it."""

    _fields_ = [
        ("major", ctypes.c_int),
        ("minor", ctypes.c_int),
        ("patch", ctypes.c_int),
        ("versionString", ctypes.c_char * 10),
        ("system", ctypes.c_int),
        ("numBits", ctypes.c_int),
        ("compiler", ctypes.c_int),
        ("constructor", ctypes.c_int),
        ("numCores", ctypes.c_int),
        ("threading", ctypes.c_int),
        ("noOfThreads", ctypes.c_int),
        ("threadSizes", ctypes.c_char * 128),
        ("systemString", ctypes.c_char * 1024),
        # Room for a build whose DDSInfo has grown: GetDDSInfo is read before its version is.
        ("_room", ctypes.c_char * 4096),
    ]


@dataclass(frozen=True)
class Tables:
    """DDS's threads and their tables, as DDS reports them (`GetDDSInfo`)."""

    version: str
    threads: int
    small: int
    large: int


def map_large_blocks() -> bool:
    """Have glibc map each block of 1 MB or more on its own (`mallopt`), so that a table's page
    (6.2 MB) goes back to the system when DDS frees it after a deal; whether it could. Left
    to itself, glibc raises that threshold to the largest block freed, after which pages come
    from its heaps and stay there: a long `--dd` run then holds the most its tables ever took
    at once, and more as the heaps fragment (docs/BENCHMARKS.md). Another C library keeps its
    own ways."""
    try:
        return bool(ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, _MAPPED_FROM))
    except (AttributeError, OSError):
        return False


def tables(dll: Any) -> Tables:
    """What DDS (its loaded library `dll`) reports of its threads and their tables."""
    info = DDSInfo()
    dll.GetDDSInfo(ctypes.byref(info))
    # "1 S, 1 L" (System::GetThreadSizes)
    small, large = (int(part.split()[0]) for part in info.threadSizes.decode("ascii").split(","))
    return Tables(info.versionString.decode("ascii"), info.noOfThreads, small, large)


def stream_bound_mb() -> int:
    """The bound on all the tables of a `deals --dd` run by default: `STREAM_TABLE_MB` a core."""
    return STREAM_TABLE_MB * (os.cpu_count() or 1)


def threads_for(bound_mb: int) -> int:
    """The threads a bound on all the tables allows: one a core, while each gets at least
    `DDS_MEMORY_MB_LEAST`."""
    return max(1, min(os.cpu_count() or 1, bound_mb // DDS_MEMORY_MB_LEAST))


def size_tables(dll: Any, bound_mb: int) -> Tables:
    """Give DDS's threads (as many as `threads_for(bound_mb)` and DDS's cores allow) one large
    table each, the bound shared equally among them, and return what DDS then reports;
    `TablesUnsized` unless this build lets us (the caller then has DDS size them: `size_own`)."""
    try:
        memory = ctypes.addressof(ctypes.c_char.in_dll(dll, _MEMORY))
        resize, count = dll[_RESIZE], dll[_THREADS]
    except (AttributeError, ValueError) as exc:
        raise TablesUnsized(f"this DDS build does not export {exc}") from exc
    resize.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    resize.restype = None
    count.argtypes = [ctypes.c_void_p]
    count.restype = ctypes.c_uint
    # DDS picks the threads (its cores, its free memory) and sets its scheduler and thread
    # manager for them; memory 0: no bound of its own, the tables are ours.
    dll.SetResources(0, threads_for(bound_mb))
    before = tables(dll)
    if before.version != "2.9.0" or count(memory) != before.threads:
        raise TablesUnsized(f"DDS {before.version} with {before.threads} threads is not the DDS 2.9.0 this was written for")
    ceiling = max(1, bound_mb // before.threads)
    # As SetResources does it: every thread's table freed, then one made for each.
    resize(memory, 0, _SMALL, 0, 0)
    resize(memory, before.threads, _LARGE, min(DDS_TABLE_KEPT_MB, ceiling), ceiling)
    after = tables(dll)
    if (after.threads, after.large) != (before.threads, before.threads):
        raise TablesUnsized(f"DDS reports {after} after its tables were sized")
    return after


def size_own(dll: Any, bound_mb: int | None) -> None:
    """DDS's own sizes, where `size_tables` cannot be: with no bound as endplay sets DDS up
    (every thread a large table of 160 MB at most while the machine's free memory holds
    them), under `bound_mb` its small tables, or fewer threads, where large ones would break it."""
    dll.SetResources(0 if bound_mb is None else int(bound_mb / _DDS_OVERSHOOT), 0)
