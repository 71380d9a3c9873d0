#!/usr/bin/env python3
"""Benchmark: `bridgeshape-mirror deals` against Debian's `dealer` (issue 3).

Runs both as whole processes (start-up included), alternating ours/dealer per scenario and
count, output to /dev/null, and prints accepted deals per second, the ratio ours/dealer and
each process's peak memory. Not part of the test suite.

    python benchmarks/deals_vs_dealer.py                  # 10,000 and 100,000 deals, A-E
    python benchmarks/deals_vs_dealer.py --counts 10000 --rounds 3 --scenarios A,E
    python benchmarks/deals_vs_dealer.py --counts 100000 --scenarios A --dealer-cap 10000

`--dealer-cap N` runs dealer for at most N deals a cell (A at 100,000 takes dealer five
minutes here) and compares rates, deals per second, instead of times: the `ratio` columns
are then our rate over dealer's, and `dealer s` is for the deals it dealt.

`dealer` comes from Debian (`apt-get install dealer`, binary in /usr/games); its try cap is
raised with -g so that it never stops short. Our command is run as
`python -m bridgeshape_mirror.cli deals ...` when the CLI lists it, otherwise through a
two-line runner that registers the `deals` subcommand alone (same code path).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYCACHE = tempfile.mkdtemp(prefix="deals-vs-dealer-pycache-")

SCENARIOS = {
    "A": (
        "opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15",
        "hearts(north) >= 5 && hcp(north) >= 12 && hcp(north) <= 21 && hearts(south) >= 4"
        " && clubs(south) <= 1 && hcp(south, clubs) == 0 && hcp(south) >= 10 && hcp(south) <= 15",
    ),
    "B": (
        "fit:H8+ opener hcp:15-17 S:2-4 H:2-4 D:2-5 C:2-5; responder H:4+ hcp:8+",
        "hcp(north) >= 15 && hcp(north) <= 17 && spades(north) >= 2 && spades(north) <= 4"
        " && hearts(north) >= 2 && hearts(north) <= 4 && diamonds(north) >= 2 && diamonds(north) <= 5"
        " && clubs(north) >= 2 && clubs(north) <= 5 && hearts(south) >= 4 && hcp(south) >= 8"
        " && hearts(north) + hearts(south) >= 8",
    ),
    "C": (
        "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8",
        "hcp(north) >= 12 && hcp(north) <= 21"
        " && (spades(north) >= 5 || hearts(north) >= 5 || diamonds(north) >= 5 || clubs(north) >= 5)"
        " && hcp(east) >= 12 && spades(east) >= 3 && hearts(east) >= 3 && diamonds(east) >= 3"
        " && clubs(east) >= 3 && hcp(south) <= 8",
    ),
    "D": (
        "opener H:7+ x:0-1 hcp:5-10",
        "hearts(north) >= 7 && (spades(north) <= 1 || diamonds(north) <= 1 || clubs(north) <= 1)"
        " && hcp(north) >= 5 && hcp(north) <= 10",
    ),
    "E": (
        "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+",
        "hcp(north) >= 12 && hcp(north) <= 21"
        " && (spades(north) >= 5 || hearts(north) >= 5 || diamonds(north) >= 5 || clubs(north) >= 5)"
        " && hcp(east) >= 6 && hcp(east) <= 10"
        " && (spades(east) >= 6 || hearts(east) >= 6 || diamonds(east) >= 6 || clubs(east) >= 6)"
        " && (spades(east) + spades(west) >= 9 || hearts(east) + hearts(west) >= 9"
        " || diamonds(east) + diamonds(west) >= 9 || clubs(east) + clubs(west) >= 9)",
    ),
}

RUNNER = (
    "import argparse, sys\n"
    "from bridgeshape_mirror.commands import deals\n"
    "p = argparse.ArgumentParser(); deals.register(p.add_subparsers(dest='command'))\n"
    "a = p.parse_args(sys.argv[1:]); sys.exit(int(a.handler(a)))\n"
)


def our_command() -> tuple[list[str], str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    probe = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "deals", "--help"],
        capture_output=True, cwd=ROOT, env=env,
    )
    if probe.returncode == 0:
        return [sys.executable, "-m", "bridgeshape_mirror.cli"], "python -m bridgeshape_mirror.cli"
    return [sys.executable, "-c", RUNNER], "python -c <deals runner>"


def timed(cmd: list[str], cwd: Path | None = None, cache: str | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of a whole process, output
    discarded; `cache`: a fresh XDG_CACHE_HOME for it (no counts remembered from earlier runs).
    Both programs run in one thread (ours starts numpy's BLAS with one), so the CPU time is
    the wall time an idle machine would give: the ratio of CPU times is the steadier figure
    on a machine that other work keeps busy."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if cache is not None:
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(dir=cache)
    # Our modules' bytecode as an installed copy has it, not compiled again in every run
    # because the caller's environment says PYTHONDONTWRITEBYTECODE (see startup_bench).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", PYCACHE)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="10000,100000")
    ap.add_argument("--scenarios", default="A,B,C,D,E")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each program per cell (median reported)")
    ap.add_argument("--dealer", default=shutil.which("dealer") or "/usr/games/dealer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cold-cache", action="store_true", help="an empty disk cache for each of our runs")
    ap.add_argument(
        "--dealer-cap", type=int, metavar="N",
        help="dealer deals at most N a cell; the ratios then compare deals per second",
    )
    opts = ap.parse_args()
    if not Path(opts.dealer).exists():
        raise SystemExit("dealer not found: apt-get install dealer (binary in /usr/games)")
    ours, how = our_command()
    counts = [int(c) for c in opts.counts.split(",")]
    names = opts.scenarios.split(",")
    print(f"ours: {how} deals DSL --count N --seed S (json to /dev/null); dealer: {opts.dealer} -p N -g 2e9")
    print(f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}, {opts.rounds} round(s), median wall time")
    print("disk cache: " + ("empty for each of our runs" if opts.cold_cache else "kept between runs (each scenario's count made by an unreported run first)"))
    print()
    header = (
        f"{'scen':4} {'deals':>7} {'ours s':>8} {'ours/s':>9} {'MB':>5} {'dealer s':>9} {'dealer/s':>9} {'MB':>4} {'ratio':>7}"
        f" {'cpu ours':>9} {'cpu dealer':>10} {'cpu ratio':>9}"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        # Warm-up: our modules' and numpy's bytecode into PYCACHE, as an installed copy has
        # it (else the first cell pays for compiling them); its own empty cache folder.
        timed(ours + ["deals", "opener hcp:12+", "--count", "1"], ROOT, tmp)
        if not opts.cold_cache:
            # ... and each scenario's modules' bytecode and its count on disk, as a user's second
            # run has them: else one scenario's first timed run alone counts it (up to seconds).
            for name in names:
                timed(ours + ["deals", SCENARIOS[name][0], "--count", "1"], ROOT)
        for count in counts:
            for name in names:
                dsl_text, condition = SCENARIOS[name]
                script = Path(tmp) / f"{name}.dlr"
                script.write_text(f"condition {condition}\naction printoneline\n")
                our_times, dealer_times, our_cpu, dealer_cpu, our_mb, dealer_mb = [], [], [], [], 0, 0
                theirs = min(count, opts.dealer_cap) if opts.dealer_cap else count
                for r in range(opts.rounds):
                    args = ["deals", dsl_text, "--count", str(count), "--seed", str(opts.seed + r)]
                    t, cpu, mb = timed(ours + args, ROOT, tmp if opts.cold_cache else None)
                    our_times.append(t)
                    our_cpu.append(cpu)
                    our_mb = max(our_mb, mb)
                    t, cpu, mb = timed([opts.dealer, "-s", str(opts.seed + r), "-p", str(theirs), "-g", "2000000000", str(script)])
                    dealer_times.append(t)
                    dealer_cpu.append(cpu)
                    dealer_mb = max(dealer_mb, mb)
                ot, dt = statistics.median(our_times), statistics.median(dealer_times)
                oc, dc = statistics.median(our_cpu), statistics.median(dealer_cpu)
                # Rates, so that a capped dealer run compares as it would at `count` deals.
                ratio, cpu_ratio = (count / ot) / (theirs / dt), (count / oc) / (theirs / dc)
                capped = f" (dealer: {theirs} deals)" if theirs != count else ""
                print(
                    f"{name:4} {count:>7} {ot:>8.2f} {count / ot:>9.0f} {our_mb:>5} {dt:>9.2f} {theirs / dt:>9.0f}"
                    f" {dealer_mb:>4} {ratio:>6.1f}x {oc:>9.2f} {dc:>10.2f} {cpu_ratio:>8.1f}x{capped}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
