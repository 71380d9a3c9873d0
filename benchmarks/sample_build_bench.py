"""Cold build of the bundled sample wiki (examples/sample-wiki.xml), as a user's first run:
a fresh state store synced from the export, an empty disk cache (deals counts, the parser),
then `build`, whole processes. Each round builds twice, each time from a fresh state and an
empty cache: `build --no-dd`, the figure issue 15's targets (3 s, 200 MB) were set for
before the double-dummy analysis existed, and plain `build`, what a user's first run costs
(DDS within the build's `dd_budget`; see docs/DECISIONS.md). Each prints its wall time,
its CPU time (the build's processes together), its peak memory (the largest process of
that build alone: its own rusage of children, read by a small wrapper process) and the count of scenarios whose probability is an
estimate. `--skip-dd` leaves the second build out (it takes a minute or two here).

Run: .venv/bin/python benchmarks/sample_build_bench.py [--rounds N] [--skip-dd] [--baseline DIR]
`--baseline DIR` builds from another revision's source tree as well (say `git archive main |
tar -x -C DIR`), alternating with this one: on a busy machine the ratio is the figure to read.

"Cold" is the user's first run: a fresh state and an empty cache, but our modules' bytecode
written, as an installed copy has it (pip compiles at install; an editable one writes it on
its first run). So every build's processes share one bytecode folder, filled by a first,
unreported build of each tree, even where the caller's environment says
PYTHONDONTWRITEBYTECODE (which made every process compile every module from source: about
0.2 s in each of the build's three processes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).with_name("bridgeshape-mirror"))
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
PYCACHE = tempfile.mkdtemp(prefix="sample-build-pycache-")


def command(tree: str | None, args: list[str]) -> list[str]:
    if tree is None:
        return [SCRIPT, *args]
    # The console script's own entry (`run`), or `main` in a tree from before it.
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from bridgeshape_mirror import cli; "
        "sys.exit(cli.run() if hasattr(cli, 'run') else cli.main())"
    )
    return [sys.executable, "-c", code, *args]


#: Runs its arguments as a child and prints the largest resident size (KB) of that child and
#: of every process under it (the build's pool workers), and their CPU time (user + system,
#: seconds): a fresh process per build, so one build's figures are never mixed with an
#: earlier one's. The CPU time is what the load of other work on the machine moves least.
PEAK_WRAPPER = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
    "r = resource.getrusage(resource.RUSAGE_CHILDREN); print(r.ru_maxrss, r.ru_utime + r.ru_stime)"
)


def one_build(tree: str | None, dd: bool) -> tuple[float, float, float, int, int]:
    work = Path(tempfile.mkdtemp(prefix="sample-build-"))
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"), PYTHONPYCACHEPREFIX=PYCACHE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    state, out = str(work / "state.sqlite"), str(work / "out")
    subprocess.run(command(tree, ["sync", "-q", "--dump", str(SAMPLE), "--state", state]), env=env, check=True)
    build = command(tree, ["build", "-q", "--state", state, "--out", out, *([] if dd else ["--no-dd"])])
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK_WRAPPER, *build], env=env, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak_kb, cpu = done.stdout.split()[-2:]
    scenarios = estimated = 0
    for path in (Path(out) / "api" / "deals").glob("*.json"):
        for entry in json.loads(path.read_text(encoding="utf-8"))["scenarios"]:
            scenarios += 1
            estimated += entry.get("probability_exact") is False
    return seconds, float(cpu), int(peak_kb) / 1024, scenarios, estimated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-dd", action="store_true", help="only the --no-dd build")
    parser.add_argument("--baseline", metavar="DIR", help="another revision's source tree, built alongside")
    args = parser.parse_args()
    trees = [None] + ([args.baseline] if args.baseline else [])
    kinds = [False] + ([] if args.skip_dd else [True])
    for tree in trees:  # the bytecode (see the docstring); not reported
        one_build(tree, False)
    for round_ in range(1, args.rounds + 1):
        for dd in kinds:
            for tree in trees:
                load = os.getloadavg()[0]
                seconds, cpu, peak, scenarios, estimated = one_build(tree, dd)
                what = "build (with double dummy)" if dd else "build --no-dd (the target's)"
                targets = "" if dd else f" (target 3 s: {seconds / 3:.2f}x)"
                print(
                    f"round {round_}{' [baseline]' if tree else ''}: cold {what} {seconds:.2f} s{targets}, CPU {cpu:.2f} s, "
                    f"peak {peak:.0f} MB (largest process; target 200 MB), {scenarios} scenarios, {estimated} estimated; "
                    f"load average {load:.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
