"""Cold build of the bundled sample wiki (examples/sample-wiki.xml), as a user's first run:
a fresh state store synced from the export, an empty disk cache (deals counts, the parser),
then `build`, whole processes. Prints the build's wall time and peak memory (largest
process, from the children's rusage) against the targets (3 s, 200 MB), and the count of
scenarios whose probability is an estimate.

Run: .venv/bin/python benchmarks/sample_build_bench.py [--rounds N] [--baseline DIR]
`--baseline DIR` builds from another revision's source tree as well (say `git archive main |
tar -x -C DIR`), alternating with this one: on a busy machine the ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).with_name("bridgeshape-mirror"))
SAMPLE = ROOT / "examples" / "sample-wiki.xml"


def command(tree: str | None, args: list[str]) -> list[str]:
    if tree is None:
        return [SCRIPT, *args]
    code = f"import sys; sys.path.insert(0, {tree!r}); from bridgeshape_mirror.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code, *args]


def one_build(tree: str | None = None) -> tuple[float, float, int, int]:
    work = Path(tempfile.mkdtemp(prefix="sample-build-"))
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
    state, out = str(work / "state.sqlite"), str(work / "out")
    subprocess.run(command(tree, ["sync", "-q", "--dump", str(SAMPLE), "--state", state]), env=env, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(command(tree, ["build", "-q", "--state", state, "--out", out]), env=env, check=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB, the largest child so far
    scenarios = estimated = 0
    for path in (Path(out) / "api" / "deals").glob("*.json"):
        for entry in json.loads(path.read_text(encoding="utf-8"))["scenarios"]:
            scenarios += 1
            estimated += entry.get("probability_exact") is False
    return seconds, max(peak, before) / 1024, scenarios, estimated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="DIR", help="another revision's source tree, built alongside")
    args = parser.parse_args()
    trees = [None] + ([args.baseline] if args.baseline else [])
    for round_ in range(1, args.rounds + 1):
        for tree in trees:
            load = os.getloadavg()[0]
            seconds, peak, scenarios, estimated = one_build(tree)
            print(
                f"round {round_}{' [baseline]' if tree else ''}: cold build {seconds:.2f} s (target 3 s: {seconds / 3:.2f}x), "
                f"peak {peak:.0f} MB so far (target 200 MB), {scenarios} scenarios, {estimated} estimated; "
                f"load average {load:.2f}"
            )


if __name__ == "__main__":
    main()
