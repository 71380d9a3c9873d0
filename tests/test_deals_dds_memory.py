"""DDS's transposition tables (deals/dds_memory.py, double_dummy.bound_memory): one large table
a thread with its share of the bound, as DDS itself reports them; the memory bounded; the same
tricks; and DDS's own sizes where a build does not let us set them. DDS's threads and memory
are one per process, so each case runs in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridgeshape_mirror.deals.boards.pbn import format_many
from bridgeshape_mirror.deals.dds_memory import DDS_MEMORY_MB_LEAST, DDS_TABLE_MB, stream_bound_mb, threads_for
from bridgeshape_mirror.deals.double_dummy import bound_memory, dds_memory_mb, solve

# argv: a bound (MB, or "-" for the default), then deals; prints what DDS reports of its
# tables, how far the process grew while solving, and the tables.
PROBE = """
import json, os, sys
import bridgeshape_mirror.deals.dds_memory as dds_memory
import bridgeshape_mirror.deals.double_dummy as dd
if os.environ.get("PROBE_NO_INTERNALS"):
    dds_memory._RESIZE = "_ZN6Memory9NoSuchOneEv"  # a build that does not export it
if os.environ.get("PROBE_KEPT_MB"):
    dds_memory.DDS_TABLE_KEPT_MB = int(os.environ["PROBE_KEPT_MB"])
def mb(field):
    return int(open("/proc/self/status").read().split(field + ":")[1].split()[0]) // 1024
if sys.argv[1] != "-":
    dd.bound_memory(int(sys.argv[1]))
dll = dd._dds()._dll
before = mb("VmRSS")
tables = dd.solve(sys.argv[2:])
print(json.dumps({
    "sizes": dds_memory.tables(dll).__dict__, "grew": mb("VmRSS") - before, "peaked": mb("VmHWM") - before,
    "tables": [t.text for t in tables],
}))
"""

needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the resident size from /proc")


def random_deals(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return format_many(np.array([rng.permutation(np.repeat(np.arange(4), 13)) for _ in range(n)]))


def probe(bound: int | None, deals: list[str], **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "-" if bound is None else str(bound), *deals],
        check=True, capture_output=True, text=True, env={**os.environ, **env},
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def deals() -> list[str]:
    return random_deals(8, seed=5)


@pytest.fixture(scope="module")
def tables(deals) -> list[str]:
    """The tables as this process's DDS finds them (at the default bound)."""
    return [table.text for table in solve(deals)]


@needs_proc
def test_by_default_every_thread_has_a_large_table_and_the_tables_stay_within_the_bound(deals, tables):
    got = probe(None, deals)
    threads = got["sizes"]["threads"]
    assert 1 <= threads <= (os.cpu_count() or 1)
    assert got["sizes"] == {"version": "2.9.0", "threads": threads, "small": 0, "large": threads}
    assert got["grew"] < dds_memory_mb()
    assert got["tables"] == tables


@needs_proc
def test_a_bound_gives_large_tables_of_its_share_holds_and_finds_the_same_tables(deals, tables):
    # DDS itself, given 60 MB (its SetResources), runs small tables: these are large ones of 30.
    got = probe(60, deals)
    threads = min(os.cpu_count() or 1, 2)
    assert got["sizes"] == {"version": "2.9.0", "threads": threads, "small": 0, "large": threads}
    assert got["grew"] < 60
    assert got["tables"] == tables


@needs_proc
def test_a_bound_under_a_table_a_core_runs_fewer_threads(deals, tables):
    got = probe(DDS_MEMORY_MB_LEAST + 15, deals)
    assert got["sizes"] == {"version": "2.9.0", "threads": 1, "small": 0, "large": 1}
    assert got["tables"] == tables


@needs_proc
def test_a_loose_bound_lets_the_tables_grow_past_a_tight_one(deals):
    # The ceiling is what holds the tight run down: the same deals take more with more room.
    assert probe(60, deals)["grew"] < 60 < probe(400, deals)["grew"]


@needs_proc
def test_the_pages_a_table_gives_back_after_a_deal_go_back_to_the_system(deals, tables):
    # Tables that keep one page (6.2 MB) between deals, whatever they took while solving.
    # glibc left to itself would keep the pages in its heaps: the process would stay at its peak.
    got = probe(320, deals, PROBE_KEPT_MB="10")
    assert got["peaked"] - got["grew"] > 30
    assert got["grew"] < 2 * (10 + 8) + 8  # a page and the fixed 8 MB a thread, and some room
    assert got["tables"] == tables


@needs_proc
def test_where_a_build_does_not_export_dds_s_memory_dds_sizes_its_tables_itself(deals, tables):
    default = probe(None, deals, PROBE_NO_INTERNALS="1")
    assert default["sizes"]["large"] == default["sizes"]["threads"] >= 1  # endplay's own set-up
    assert default["tables"] == tables
    # Under a bound, DDS's own sizing: it takes 1.3 times what it is given, so it is given
    # 60 / 1.3, which holds one small table.
    bounded = probe(60, deals, PROBE_NO_INTERNALS="1")
    assert bounded["sizes"] == {"version": "2.9.0", "threads": 1, "small": 1, "large": 0}
    assert bounded["grew"] < 60
    assert bounded["tables"] == tables


# argv: the command line; prints (on standard error, after the command's own) the bound on
# DDS's tables before the command (the build's, as no command has set one) and after it, and
# the large tables DDS then reports.
CLI_PROBE = """
import sys
import bridgeshape_mirror.deals.dds_memory as dds_memory
import bridgeshape_mirror.deals.double_dummy as dd
from bridgeshape_mirror.cli import main
before = dd.dds_memory_mb()
status = main(sys.argv[1:])
print(status, before, dd.dds_memory_mb(), dds_memory.tables(dd._dds()._dll).large, file=sys.stderr)
"""


def cli_bound(*argv: str) -> tuple[int, int, int, int]:
    done = subprocess.run([sys.executable, "-c", CLI_PROBE, *argv], check=True, capture_output=True, text=True)
    return tuple(int(word) for word in done.stderr.split()[-4:])


def test_deals_dd_streams_under_its_own_bound_and_the_build_solves_at_dds_s_own():
    cores = os.cpu_count() or 1
    status, build, bound, large = cli_bound("deals", "opener hcp:12+", "--dd", "--count", "1")
    assert (status, build, bound) == (0, DDS_TABLE_MB * cores, stream_bound_mb())
    assert stream_bound_mb() < build and large == threads_for(bound)
    assert cli_bound("deals", "opener hcp:12+", "--dd", "--count", "1", "--dd-memory", "90")[:3] == (0, build, 90)


@given(st.integers(min_value=DDS_MEMORY_MB_LEAST, max_value=100_000))
def test_each_thread_s_share_of_a_bound_is_dds_s_least_at_least(bound):
    threads = threads_for(bound)
    assert 1 <= threads <= (os.cpu_count() or 1)
    assert threads * DDS_MEMORY_MB_LEAST <= bound
    assert threads == (os.cpu_count() or 1) or (threads + 1) * DDS_MEMORY_MB_LEAST > bound


def test_dd_memory_is_refused_below_dds_least_and_without_dd(monkeypatch, capsys):
    from support.cli import run, status

    assert status("deals", "opener hcp:12+", "--dd", "--dd-memory", "20") == 2
    assert "must be 30 or more (DDS's least table), not 20" in capsys.readouterr().err
    code, out, err = run(monkeypatch, "opener hcp:12+", "--dd-memory", "60")  # replaces stderr: last
    assert (code, out) == (2, b"") and "--dd-memory bounds the double dummy: give it with --dd" in err
    with pytest.raises(ValueError, match="30 MB at least"):
        bound_memory(29)
