"""Double-dummy speed on this machine (issue 35): tables per second of random deals solved by
`deals.double_dummy.solve` (what the build and `deals --dd` use) against endplay's own
multi-deal call (`endplay.dds.calc_all_tables`) on the same deals, side by side in one run.
DDS's threads and memory are one per process, so each side is a worker process of its own
(endplay's as endplay sets DDS up, ours at each `--memory` bound asked for); the workers take
the same chunks of 40 deals in turn, the order rotating chunk by chunk, one working at a
time. Every table is checked against endplay's; the ratio, each worker's peak resident size
and the load average are printed. Then the seconds the bundled sample wiki's first build
takes to its first publish and in all (10 deals a scenario, the default budget).

Run: .venv/bin/python benchmarks/dd_bench.py [--deals N] [--memory MB,MB] [--budget S] [--skip-build]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from bridgeshape_mirror.deals import double_dummy
from bridgeshape_mirror.deals.boards.pbn import format_many

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"


def random_deals(n: int, seed: int = 12) -> list[str]:
    rng = np.random.default_rng(seed)
    seats = np.repeat(np.arange(4), 13)
    return format_many(np.array([rng.permutation(seats) for _ in range(n)]))


def _endplay_worker(conn) -> None:
    from endplay.dds import calc_all_tables
    from endplay.types import Deal

    while (pbns := conn.recv()) is not None:
        start, cpu = time.perf_counter(), time.process_time()
        tables = calc_all_tables([Deal(pbn) for pbn in pbns])
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        # Read with our own reader of DDS's results, so the two sides compare table by table.
        conn.send((seconds, cpu, [double_dummy._table_of(table._data) for table in tables]))
    conn.send(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


def _our_worker(conn, memory_mb: int) -> None:
    double_dummy.bound_memory(memory_mb)
    double_dummy._dds()  # loaded before the clock, as endplay's import loads it
    while (pbns := conn.recv()) is not None:
        start, cpu = time.perf_counter(), time.process_time()
        tables = double_dummy.solve(pbns)
        conn.send((time.perf_counter() - start, time.process_time() - cpu, tables))
    conn.send(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


def compare(pbns: list[str], memories: list[int]) -> None:
    context = multiprocessing.get_context("spawn")
    sides: dict[str, tuple] = {}  # name -> (connection, process)
    for name, target, extra in [("endplay calc_all_tables", _endplay_worker, ())] + [
        (f"solve, DDS memory {mb} MB", _our_worker, (mb,)) for mb in memories
    ]:
        ours, theirs = context.Pipe()
        process = context.Process(target=target, args=(theirs, *extra))
        process.start()
        sides[name] = (ours, process)
    seconds = dict.fromkeys(sides, 0.0)
    cpu = dict.fromkeys(sides, 0.0)
    wrong = dict.fromkeys(sides, 0)
    names = list(sides)
    for n, start in enumerate(range(0, len(pbns), double_dummy.BATCH_LIMIT)):
        chunk = pbns[start : start + double_dummy.BATCH_LIMIT]
        answers = {}
        for name in names[n % len(names) :] + names[: n % len(names)]:
            conn = sides[name][0]
            conn.send(chunk)
            spent, used, answers[name] = conn.recv()
            seconds[name] += spent
            cpu[name] += used
        for name in names:
            wrong[name] += sum(a != b for a, b in zip(answers[name], answers[names[0]], strict=True))
    peaks = {}
    for name, (conn, process) in sides.items():
        conn.send(None)
        peaks[name] = conn.recv()
        process.join()
    base, base_cpu = seconds[names[0]], cpu[names[0]]
    # CPU seconds too: on a shared machine the wall clock carries the others' load.
    for name in names:
        print(f"{name}: {len(pbns) / seconds[name]:.2f} tables/s ({seconds[name]:.1f} s, CPU {cpu[name]:.1f} s), "
              f"{base / seconds[name]:.2f}x endplay's ({base_cpu / cpu[name]:.2f}x by CPU), peak {peaks[name]} MB, "
              f"{wrong[name]} tables not endplay's")


def first_build(budget: float) -> None:
    from bridgeshape_mirror.site_builder import build as building
    from bridgeshape_mirror.store.state import StateStore
    from bridgeshape_mirror.sync.dump import sync_from_dump
    from bridgeshape_mirror.sync.syncer import SyncSettings

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.sqlite"
        with StateStore(state) as store:
            sync_from_dump(SAMPLE, store, SyncSettings())
        out = Path(tmp) / "out"
        published: list[float] = []
        real = building.publish

        def timed_publish(*args, **kwargs):
            result = real(*args, **kwargs)
            published.append(time.perf_counter() - start)
            return result

        building.publish = timed_publish
        start = time.perf_counter()
        report = building.build(state, building.BuildSettings(out=out, deals=10, dd_budget=budget))
        total = time.perf_counter() - start
        building.publish = real
        print(f"sample wiki, first build (10 deals a scenario, budget {budget:g} s): first publish at {published[0]:.1f} s, "
              f"{total:.1f} s in all, {report.dd_seconds:.1f} s of it double dummy: {report.dd_computed} tables, "
              f"{report.dd_waiting} deals wait; load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    from bridgeshape_mirror.site_builder.build import BuildSettings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--memory", default=str(double_dummy.dds_memory_mb()), help="bounds of DDS's memory to run ours at, MB, comma-separated (default ours)")
    parser.add_argument("--budget", type=float, default=BuildSettings.__dataclass_fields__["dd_budget"].default)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    compare(random_deals(args.deals), [int(mb) for mb in args.memory.split(",")])
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if not args.skip_build:
        first_build(args.budget)


if __name__ == "__main__":
    main()
