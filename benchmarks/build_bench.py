"""Build the mirror from a synthetic state store of 1,000 convention pages, 10 deals per
scenario, with an empty disk cache of its own (counts, parser) and no double dummy; then
change one page and build again. Prints seconds and the ratio to the targets (full build
under 60 s, and under 30 s for issue 15; one changed page under 5 s, on this 2-core machine).

Run: .venv/bin/python benchmarks/build_bench.py [--pages N] [--deals N]
The full build also prints its CPU time (the building process and its workers together).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dsl_bench import realistic_scenario  # noqa: E402

from bridgeshape_mirror.site_builder.build import BuildSettings, build  # noqa: E402
from bridgeshape_mirror.store.model import WikiPage  # noqa: E402
from bridgeshape_mirror.store.state import StateStore  # noqa: E402


def make_state(path: Path, pages: int, seed: int) -> None:
    rng = random.Random(seed)
    with StateStore(path) as store, store.transaction() as db:
        for page_id in range(1, pages + 1):
            raw = " // ".join(realistic_scenario(rng) for _ in range(rng.randint(1, 3)))
            if page_id % 50 == 0:
                raw = raw.replace("opener", "opner", 1)  # some broken pages, as on a real wiki
            StateStore.upsert(db, WikiPage(page_id, f"Convenzione {page_id}", 0, page_id * 10, "2026-11-29T10:00:00Z", raw, ()))


def cpu_seconds() -> float:
    """User + system time of this process and of its finished children (the build's pool
    workers, reaped when each build ends): what the load of other work moves least."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # cold, as a first run; the workers inherit it
        state, out = Path(tmp) / "state.sqlite", Path(tmp) / "output"
        make_state(state, args.pages, args.seed)
        settings = BuildSettings(out=out, deals=args.deals, dd_budget=0)  # double dummy has its own budget: dd_bench.py

        started, cpu = time.perf_counter(), cpu_seconds()
        full = build(state, settings)
        full_s = time.perf_counter() - started
        print(
            f"full build: {args.pages} pages, {full.deals_drawn} scenarios dealt, {full.written} files: {full_s:.1f} s "
            f"(CPU {cpu_seconds() - cpu:.1f} s; load average {os.getloadavg()[0]:.2f})"
        )

        with StateStore(state) as store:
            page = store.page(1)
            with store.transaction() as db:
                StateStore.upsert(db, replace(page, raw=page.raw.replace("hcp:", "hcp:1", 1) if "hcp:1" not in page.raw else page.raw + " ", revid=page.revid + 1))
        started = time.perf_counter()
        one = build(state, settings)
        one_s = time.perf_counter() - started
        print(f"one page changed: {one.deals_drawn} scenarios dealt, {one.written} files written, {one.linked} linked: {one_s:.2f} s")

        started = time.perf_counter()
        idle = build(state, settings)
        idle_s = time.perf_counter() - started
        print(f"nothing changed: changed={idle.changed}: {idle_s:.2f} s")

        print(f"target full < 60 s: {'PASS' if full_s < 60 else 'FAIL'} (ratio {60 / full_s:.2f}x)")
        print(f"target full < 30 s (issue 15): {'PASS' if full_s < 30 else 'FAIL'} (ratio {30 / full_s:.2f}x)")
        print(f"target one change < 5 s: {'PASS' if one_s < 5 else 'FAIL'} (ratio {5 / one_s:.2f}x)")


if __name__ == "__main__":
    main()
