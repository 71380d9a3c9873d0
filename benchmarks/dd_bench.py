"""Double-dummy speed on this machine (issue 12): tables per second for random deals, each
deal in its own DDS call (endplay's `calc_dd_table`) against DDS's multi-deal call in
batches of 40 (`deals.double_dummy.solve`, what the build uses), the same deals both ways,
alternating which goes first chunk by chunk; then the seconds the bundled sample wiki's
first build spends on double dummy (10 deals a scenario, the default budget), and what it
leaves waiting. Prints the load average with the figures: other work shows in them.

Run: .venv/bin/python benchmarks/dd_bench.py [--deals N] [--budget S]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from bridgeshape_mirror.deals.double_dummy import BATCH_LIMIT, solve
from bridgeshape_mirror.deals.boards.pbn import format_many
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"


def random_deals(n: int, seed: int = 12) -> list[str]:
    rng = np.random.default_rng(seed)
    seats = np.repeat(np.arange(4), 13)
    return format_many(np.array([rng.permutation(seats) for _ in range(n)]))


def single(pbns: list[str]) -> None:
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    for pbn in pbns:
        calc_dd_table(Deal(pbn))


def timed(work, pbns: list[str]) -> float:
    start = time.perf_counter()
    work(pbns)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--budget", type=float, default=BuildSettings.__dataclass_fields__["dd_budget"].default)
    args = parser.parse_args()
    pbns = random_deals(args.deals)
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    single_s = batched_s = 0.0
    for n, start in enumerate(range(0, len(pbns), BATCH_LIMIT)):
        chunk = pbns[start : start + BATCH_LIMIT]
        if n % 2 == 0:
            single_s += timed(single, chunk)
            batched_s += timed(solve, chunk)
        else:
            batched_s += timed(solve, chunk)
            single_s += timed(single, chunk)
    print(f"{len(pbns)} random deals: single-deal calls {len(pbns) / single_s:.2f} tables/s ({single_s:.1f} s), "
          f"batched by {BATCH_LIMIT} {len(pbns) / batched_s:.2f} tables/s ({batched_s:.1f} s); "
          f"batched/single {single_s / batched_s:.2f}x; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.sqlite"
        with StateStore(state) as store:
            sync_from_dump(SAMPLE, store, SyncSettings())
        start = time.perf_counter()
        report = build(state, BuildSettings(out=Path(tmp) / "out", deals=10, dd_budget=args.budget))
        total = time.perf_counter() - start
        print(f"sample wiki, first build (10 deals a scenario, budget {args.budget:g} s): {total:.1f} s in all, "
              f"{report.dd_seconds:.1f} s of it double dummy: {report.dd_computed} tables, {report.dd_waiting} deals wait; "
              f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
