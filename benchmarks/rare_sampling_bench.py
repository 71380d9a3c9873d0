"""Deals per second for scenarios with both partnerships constrained, from probability
about 1e-2 down to about 1e-10: the sampler as it is (drawing from the exact counts where
it can: `deals.drawing.placement_draw`, `deals.drawing.length_draw`, `deals.drawing.column_draw`, `deals.drawing.union_draw`) against the rejection path it had before (the core drawn
exactly, the rest dealt and checked), side by side in one run. Each path deals until it
has `--deals` deals or `--max-seconds` have passed (deals/s is then of what it dealt); the
rejection path is run only when its expected proposals stay under `--max-proposals` (else
"-": it would give up with TooRare). The counting (the sampler's construction) is timed
apart: it is the same for both paths. Prints the load average: other work shows in the figures.

Target (issue 15): at least 1,000 deals/s for every scenario of both partnerships, however
rare. Both paths start cold (no draw tables kept from the other run): "now" includes building
the drawing tables it chooses.

Run: .venv/bin/python benchmarks/rare_sampling_bench.py [--deals N] [--max-proposals N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ["BSM_DEALS_CACHE"] = "0"  # no disk cache: the counting is measured as a first run would

from bridgeshape_mirror import dsl  # noqa: E402
import bridgeshape_mirror.deals.drawing.proposers as proposers  # noqa: E402
import bridgeshape_mirror.deals.counting.scenario as scenario_counts  # noqa: E402
from bridgeshape_mirror.deals.drawing.column_draw import ColumnDraw  # noqa: E402
from bridgeshape_mirror.deals.drawing.length_draw import LengthDraw  # noqa: E402
from bridgeshape_mirror.deals.drawing.rng import make_rng  # noqa: E402
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler  # noqa: E402
from bridgeshape_mirror.deals.drawing.union_draw import UnionDraw  # noqa: E402

SCENARIOS = [
    "opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10; opp2 hcp:0-7",
    "opener hcp:16+ S:3+; opp1 hcp:13+ H:3+; responder hcp:0-5",
    "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8",  # deals-vs-dealer C
    "opener hcp:22+; opp1 hcp:14+",
    "opener hcp:27+ S:4+; opp1 hcp:11+ H:5+; responder hcp:0-1",
    "opener hcp:30+; opp1 hcp:10+",
    "opener hcp:33+; opp1 hcp:7+",
    "opener S:8+ hcp:10+; opp1 H:8+ hcp:8+",  # rare by its lengths
    "opener S:7+ hcp:20+; opp1 H:7+ hcp:12+",  # rare by HCP and lengths at once (column draw)
    "opener S:6+ hcp:18+; opp1 H:6+ hcp:14+; responder hcp:0-3",  # the same, three seats
    "opener hcp:20+ shape:balanced; opp1 C:7+ hcp:10+",  # a shape and HCP
    "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+",  # deals-vs-dealer E: three disjunctions
    "opener x:9+ hcp:10+; opp1 x:8+ hcp:8+",  # rare by its wildcards (union of cover terms)
    "opener x:8+ hcp:14+; opp1 x:7+ hcp:12+; responder hcp:0-4",  # the same, three seats
]


def deals_per_second(text: str, n: int, exact: bool, max_seconds: float) -> tuple[float, float, str]:
    """(deals/s, counting seconds, the path taken) for up to `n` deals of a fresh sampler."""
    saved = proposers.EXACT_DRAW_FROM
    # Cold for both paths: no model's draw tables, no superset's tables left by the other run.
    scenario_counts._MODELS.clear()
    proposers.placement_draw.cache_clear()
    proposers.length_draw.cache_clear()
    proposers.column_draw.cache_clear()
    proposers.union_draw.cache_clear()
    if not exact:
        proposers.EXACT_DRAW_FROM = float("inf")  # never build the placement tables
    try:
        start = time.perf_counter()
        sampler = ScenarioSampler(dsl.parse_scenarios(text)[0])
        counted = time.perf_counter() - start
        start = time.perf_counter()
        got = 0
        for batch in sampler.batches(n, make_rng(2026, 12, 1)):
            got += len(batch)
            if time.perf_counter() - start > max_seconds:
                break
        took = time.perf_counter() - start
    finally:
        proposers.EXACT_DRAW_FROM = saved
    if sampler.exact_draw is None:
        path = "core+rejection"
    elif isinstance(sampler.exact_draw, LengthDraw):
        path = "lengths+rejection"
    elif isinstance(sampler.exact_draw, UnionDraw):
        path = "union of cover terms"
    elif isinstance(sampler.exact_draw, ColumnDraw):
        path = "columns" if sampler.proposes_scenario else "columns+rejection"
    else:
        path = "placements" if sampler._hcp_only else "placements+rejection"
    return got / took, counted, path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--max-proposals", type=int, default=20_000_000)
    parser.add_argument("--max-seconds", type=float, default=15.0)
    args = parser.parse_args()
    print(f"{args.deals} deals per scenario; load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    print(f"{'probability':>12} {'count s':>8} {'now deals/s':>12} {'before deals/s':>15} {'ratio':>7}  path / scenario")
    below = []
    for text in SCENARIOS:
        probe = ScenarioSampler(dsl.parse_scenarios(text)[0])
        p = probe.probability.value if probe.probability is not None else float("nan")
        core_rate = probe.expected_rate()
        now, counted, path = deals_per_second(text, args.deals, exact=True, max_seconds=args.max_seconds)
        if min(args.deals, 100) / core_rate <= args.max_proposals:
            before = deals_per_second(text, args.deals, exact=False, max_seconds=args.max_seconds)[0]
            before_text, ratio = f"{before:15,.0f}", f"{now / before:6.1f}x"
        else:
            before_text, ratio = f"{'-':>15}", f"{'-':>7}"
        if now < 1000:
            below.append(text)
        print(f"{p:12.2e} {counted:8.2f} {now:12,.0f} {before_text} {ratio}  {path}: {text}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(f"below 1,000 deals/s: {len(below)} of {len(SCENARIOS)}" + "".join(f"\n  {t}" for t in below))
    return 0


if __name__ == "__main__":
    sys.exit(main())
