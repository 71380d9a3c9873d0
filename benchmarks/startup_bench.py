"""Start-up of the console script, whole processes: `validate` of one string (target 0.25 s)
and `deals` of one deal (target 0.4 s), beside the interpreter's own start-up and numpy's
import as floors, measured alternately in one run (hyperfine-like: warm-up, then N rounds).

Then `deals 'opener hcp:12+' --dd --count 1` (target 0.5 s, issue 35) over `--dd-seeds`
seeds, each the median of `--dd-rounds` runs: the time is mostly DDS's one table, which
varies with the deal tenfold, so the figure is its spread over deals (median, 90th
percentile, the slowest, how many within the target), as a user typing it without a seed
meets it.

Run: .venv/bin/python benchmarks/startup_bench.py [--rounds N] [--baseline DIR] [--dd-seeds N] [--dd-rounds N]
`--baseline DIR` also runs both commands from another revision's source tree (say
`git archive main | tar -x -C DIR`), with this interpreter, in the same rounds: on a busy
machine the ratio is the figure to read, and so is each command's CPU time (user + system: a
one-threaded process's wall time on an idle machine).
Each process gets the same fresh XDG_CACHE_HOME (the deals cache is off: one deal of a
one-partnership scenario is counted in every run, as for a scenario never dealt before).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).with_name("bridgeshape-mirror"))

COMMANDS = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    # As the console script imports it (bridgeshape_mirror/cli.py): OpenBLAS with one thread.
    "import numpy, one BLAS thread (floor of dealing)": [
        sys.executable, "-c", "import os; os.environ.setdefault('OPENBLAS_NUM_THREADS', '1'); import numpy"
    ],
    "validate 'opener hcp:12+'": [SCRIPT, "validate", "opener hcp:12+"],
    "deals 'opener hcp:12+' --count 1": [SCRIPT, "deals", "opener hcp:12+", "--count", "1"],
}
TARGETS = {"validate 'opener hcp:12+'": 0.25, "deals 'opener hcp:12+' --count 1": 0.4}
DD_TARGET = 0.5


def from_tree(tree: str, args: list[str]) -> list[str]:
    """The console script's command line, run from the source tree `tree`."""
    # The console script's own entry (`run`), or `main` in a tree from before it.
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from bridgeshape_mirror import cli; "
        "sys.exit(cli.run() if hasattr(cli, 'run') else cli.main())"
    )
    return [sys.executable, "-c", code, *args]


def wall(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run. Every command here runs in
    one thread (the console script starts numpy's BLAS with one), so its CPU time is what
    its wall time would be on an idle machine: the figure to read beside the wall time on
    a machine that other work keeps busy."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {command}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", metavar="DIR", help="another revision's source tree, measured alongside")
    parser.add_argument("--dd-seeds", type=int, default=30, help="deals (seeds 0..N-1) of the one-table run; 0: none")
    parser.add_argument("--dd-rounds", type=int, default=3)
    args = parser.parse_args()
    commands = dict(COMMANDS)
    if args.baseline:
        for name, command in COMMANDS.items():
            if name in TARGETS:
                commands[f"{name} [baseline]"] = from_tree(args.baseline, command[1:])
    cache = tempfile.mkdtemp(prefix="startup-bench-")
    # Bytecode as an installed copy has it (pip compiles it; a source tree writes it on its
    # first run): kept in the bench's own folder, so a PYTHONDONTWRITEBYTECODE in the caller's
    # environment does not add the compiling of every module to every run (0.15 s here).
    env = dict(os.environ, XDG_CACHE_HOME=cache, BSM_DEALS_CACHE="0", PYTHONPYCACHEPREFIX=os.path.join(cache, "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm-up: the OS's file cache, and the bytecode
        wall(command, env)
    for _ in range(args.rounds):
        for name, command in commands.items():
            seconds, cpu_seconds = wall(command, env)
            times[name].append(seconds)
            cpu[name].append(cpu_seconds)
    print(f"load average {os.getloadavg()[0]:.2f}, {args.rounds} rounds")
    for name, values in times.items():
        median = statistics.median(values)
        line = f"{name:48} median {median:.3f} s  min {min(values):.3f} s  max {max(values):.3f} s  cpu median {statistics.median(cpu[name]):.3f} s"
        if name in TARGETS:
            line += f"  target {TARGETS[name]} s: {'ok' if median <= TARGETS[name] else 'FAIL'}"
        baseline = times.get(f"{name} [baseline]")
        if baseline:
            line += f"  baseline/this {statistics.median(baseline) / median:.2f}x"
        print(line)
    if args.dd_seeds:
        one_table(args, env)


def one_table(args: argparse.Namespace, env: dict[str, str]) -> None:
    base = [SCRIPT, "deals", "opener hcp:12+", "--dd", "--count", "1"]
    wall(base + ["--seed", "0"], env)  # warm-up: DDS's library into the OS's file cache
    medians = []
    for seed in range(args.dd_seeds):
        medians.append(statistics.median(wall(base + ["--seed", str(seed)], env)[0] for _ in range(args.dd_rounds)))
    ordered = sorted(medians)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    within = sum(m <= DD_TARGET for m in medians)
    slowest = max(range(len(medians)), key=medians.__getitem__)
    print(
        f"deals 'opener hcp:12+' --dd --count 1, {args.dd_seeds} seeds x {args.dd_rounds} runs: median "
        f"{statistics.median(medians):.3f} s  90th percentile {p90:.3f} s  slowest {medians[slowest]:.3f} s "
        f"(seed {slowest})  within {DD_TARGET} s: {within} of {len(medians)}; load average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
