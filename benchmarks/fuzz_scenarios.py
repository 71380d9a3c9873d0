"""Random valid scenarios, dealt in whole processes: no crash, no time-out, no wrong deal.

Draws `--count` random valid scenarios (seeded by `--seed`) with the generator of
`tests/test_deals_fuzz.py`, `tests/support/random_scenarios.py` (around a random deal, so
that most are satisfiable): one to four seats, both partnerships, every key of `dsl.keys`
(suit lengths, HCP, suit HCP, `x:`/`xhcp:` wildcards beside named suits or none, shapes,
fits of every class at a seat and at scenario level).
Each is checked to parse without errors, then dealt by the CLI as a new user would run it,
`bridgeshape-mirror deals DSL --count 5 --seed K`, with an empty disk cache (the counting
is measured, not the cache). Each deal is checked with the independent predicate
(`deals.rules.predicate`). Prints, as found, every crash (exit 70 or a traceback), time-out
(`--timeout`), wrong deal, estimate (`probability_exact` false), unsatisfiable or too rare
scenario and scenario past 10 s, with its wall and CPU seconds (the machine is shared), and
the progress every 100 scenarios; then the totals, the slowest scenario and the load
average before and after.

Targets (issue 29): 0 crashes, 0 time-outs, 0 wrong deals in 2,000 scenarios; at least 99%
of the dealt ones exact; each within 10 s.

Run: .venv/bin/python benchmarks/fuzz_scenarios.py --count 2000 --seed 1 [--jobs 1] (the CLI of the
environment running it, on this checkout's code)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the generator the fuzz test draws with: support.random_scenarios

from bridgeshape_mirror import dsl  # noqa: E402
from bridgeshape_mirror.deals.boards.pbn import parse_deal  # noqa: E402
from bridgeshape_mirror.deals.rules.predicate import violations  # noqa: E402
from support.random_scenarios import RandomDrawer, scenario_text  # noqa: E402

DEALS = 5
TARGET_SECONDS = 10.0


@dataclass
class Result:
    dsl: str
    seconds: float
    kind: str  # dealt, unsatisfiable, too_rare, crash, timeout, wrong
    cpu: float
    exact: bool = False
    detail: str = ""


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (one scenario's own with `--jobs 1`)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def deal_one(text: str, seed: int, timeout: float, env: dict[str, str]) -> Result:
    command = [str(Path(sys.executable).parent / "bridgeshape-mirror"), "deals", text, "--count", str(DEALS), "--seed", str(seed)]
    started, cpu_before = time.perf_counter(), _children_cpu()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return Result(text, time.perf_counter() - started, "timeout", _children_cpu() - cpu_before)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if done.returncode == 70 or "Traceback" in done.stderr or done.returncode not in (0, 1):
        return Result(text, seconds, "crash", cpu, detail=f"exit {done.returncode}: {done.stderr.strip()[-600:]}")
    try:
        (entry,) = json.loads(done.stdout)["scenarios"]
    except (ValueError, KeyError) as exc:
        return Result(text, seconds, "crash", cpu, detail=f"unreadable output ({exc}): {done.stdout[:300]!r} {done.stderr[-300:]!r}")
    exact = bool(entry["probability_exact"])
    if "unsatisfiable" in entry:
        return Result(text, seconds, "unsatisfiable", cpu, exact, entry["unsatisfiable"])
    if "too_rare" in entry:
        return Result(text, seconds, "too_rare", cpu, exact, entry["too_rare"])
    scenario = dsl.parse_scenarios(text)[0]
    deals = [d["pbn"] for d in entry["deals"]]
    wrong = [(pbn, violations(parse_deal(pbn), scenario)) for pbn in deals]
    wrong = [(pbn, v) for pbn, v in wrong if v]
    if len(deals) != DEALS or wrong:
        return Result(text, seconds, "wrong", cpu, exact, f"{len(deals)} deals; {wrong[:2]}")
    return Result(text, seconds, "dealt", cpu, exact)


def random_texts(seed: int, count: int) -> list[str]:
    """The first `count` scenarios of the seed (tests/support/random_scenarios.py; one seed
    writes the same scenarios on every run)."""
    drawer = RandomDrawer(random.Random(seed))
    return [scenario_text(drawer) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="scenarios to draw (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the scenarios (default 1)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a process may take (default 30)")
    parser.add_argument("--jobs", type=int, default=1, help="processes at a time (default 1: a shared machine)")
    args = parser.parse_args()

    texts = random_texts(args.seed, args.count)
    for text in texts:
        result = dsl.parse(text)
        if not result.valid:
            raise SystemExit(f"the generator wrote an invalid scenario: {text!r}: {result.errors[0].message}")

    load_before = os.getloadavg()
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as home:
        # this checkout's code (a copy's too), whatever the environment's editable install
        env = {**os.environ, "XDG_CACHE_HOME": home, "BSM_DEALS_CACHE": "0", "PYTHONPATH": str(ROOT)}
        started = time.perf_counter()
        with ThreadPoolExecutor(args.jobs) as pool:
            # a problem is printed as it is found, and the progress every 100 scenarios: a
            # long run stopped early still says what it saw
            for r in pool.map(lambda item: deal_one(item[1], item[0], args.timeout, env), enumerate(texts)):
                results.append(r)
                if r.kind != "dealt" or not r.exact or r.seconds > TARGET_SECONDS:
                    kind = "estimate" if r.kind == "dealt" and not r.exact else r.kind
                    print(f"{kind} ({r.seconds:.2f} s, CPU {r.cpu:.2f} s): {r.dsl}" + (f"\n    {r.detail}" if r.detail else ""), flush=True)
                if len(results) % 100 == 0:
                    print(f"... {len(results)} done, {time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f}", flush=True)
        wall = time.perf_counter() - started
    load_after = os.getloadavg()

    by_kind: dict[str, list[Result]] = {}
    for r in results:
        by_kind.setdefault(r.kind, []).append(r)
    dealt = by_kind.get("dealt", [])
    estimates = [r for r in dealt if not r.exact]
    slow = [r for r in results if r.seconds > TARGET_SECONDS]
    slowest = max(results, key=lambda r: r.seconds)
    seconds = sorted(r.seconds for r in results)
    exact_share = (len(dealt) - len(estimates)) / len(dealt) if dealt else 1.0
    print()
    print(f"{len(results)} scenarios (seed {args.seed}), {len(dealt)} dealt, {len(estimates)} estimated "
          f"({exact_share:.1%} of the dealt exact), {len(by_kind.get('unsatisfiable', []))} unsatisfiable, "
          f"{len(by_kind.get('too_rare', []))} too rare")
    print(f"crashes {len(by_kind.get('crash', []))}, time-outs {len(by_kind.get('timeout', []))}, "
          f"wrong deals {len(by_kind.get('wrong', []))}, past {TARGET_SECONDS:.0f} s {len(slow)}")
    print(f"seconds per scenario: median {seconds[len(seconds) // 2]:.2f}, slowest {slowest.seconds:.2f} "
          f"(CPU {slowest.cpu:.2f}{'' if args.jobs == 1 else ', of every job'}): {slowest.dsl}")
    print(f"wall {wall:.0f} s with {args.jobs} job(s); load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    failed = by_kind.get("crash") or by_kind.get("timeout") or by_kind.get("wrong") or slow or exact_share < 0.99
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
