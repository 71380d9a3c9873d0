#!/usr/bin/env python3
"""Benchmark: `bridgeshape-mirror deals --count N` streamed (issue 29, item 5), beside the code
of another git ref (main by default).

For each format and count, runs the command as a whole process with its output in a pipe
that this script reads and discards, and prints its peak RSS, the seconds to its first 100
bytes of output and to its end and its CPU seconds, for this worktree's code and the ref's (`git archive` of the
ref in a temporary folder, run from there), one after the other, with the load average
before each. Not part of the test suite.

    python benchmarks/deals_streaming.py                          # D, 1 M, 3 M and 10 M deals
    python benchmarks/deals_streaming.py --counts 100000000 --formats lin --no-ref
    python benchmarks/deals_streaming.py --scenario "A // D" --ref main~3
    python benchmarks/deals_streaming.py --dd --counts 1000 --formats pbn --scenario "opener hcp:12+ H:5+" --seed 5 --rounds 2

`--scenario` takes the letters of `deals_vs_dealer.py`'s scenarios, joined by `//` for a
DSL of several (A-E), or a DSL.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from deals_vs_dealer import SCENARIOS  # noqa: E402

FIRST_BYTES = 100


def dsl_of(text: str) -> str:
    parts = [p.strip() for p in text.split("//")]
    if all(p in SCENARIOS for p in parts):
        return " // ".join(SCENARIOS[p][0] for p in parts)
    return text


def piped(code: Path, argv: list[str], cache: str) -> tuple[int, float, float, float, int, int, str]:
    """Status, seconds to the first `FIRST_BYTES` bytes and to the end, CPU seconds (user and
    system: the steadier figure on a busy machine), bytes, peak RSS (MB) and the output's
    SHA-1 (its first 10 digits: the codes' outputs compare) of `deals ARGV` run with the code
    under `code`."""
    env = dict(os.environ, PYTHONPATH=str(code), XDG_CACHE_HOME=tempfile.mkdtemp(dir=cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "deals", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=code, env=env,
    )
    assert child.stdout is not None
    head = child.stdout.read(FIRST_BYTES)
    first = time.perf_counter() - start
    size, digest = len(head), hashlib.sha1(head)
    for block in iter(lambda: child.stdout.read(1 << 20), b""):
        size += len(block)
        digest.update(block)
    _, status, usage = os.wait4(child.pid, 0)
    end = time.perf_counter() - start
    return os.waitstatus_to_exitcode(status), first, end, usage.ru_utime + usage.ru_stime, size, usage.ru_maxrss // 1024, digest.hexdigest()[:10]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="1000000,3000000,10000000")
    ap.add_argument("--formats", default="json,pbn,lin")
    ap.add_argument("--scenario", default="D", help="letters of deals_vs_dealer's scenarios (A // D), or a DSL")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--ref", default="main", help="the git ref to run beside this worktree (default main)")
    ap.add_argument("--no-ref", action="store_true", help="this worktree's code alone")
    ap.add_argument("--dd", action="store_true", help="with each deal's double-dummy table (deals --dd)")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each, the order of the codes turned round each round")
    args = ap.parse_args()
    dsl = dsl_of(args.scenario)
    with tempfile.TemporaryDirectory(prefix="deals-streaming-") as tmp:
        codes = [("this", ROOT)]
        if not args.no_ref:
            ref = Path(tmp) / "ref"
            ref.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(ref)], input=archive, check=True)
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.ref], check=True, capture_output=True, text=True)
            codes.append((f"{args.ref} {commit.stdout.strip()}", ref))
        extra = ["--dd"] if args.dd else []
        print(f"deals {dsl!r} --seed {args.seed} {' '.join(extra)}; {os.cpu_count()} cores")
        print(f"{'format':6} {'count':>11} {'code':16} {'status':>6} {'peak MB':>8} {'first 100 B s':>13} {'total s':>8} {'cpu s':>7} {'MB out':>9} {'sha1':10}  load 1/5/15 min")
        for fmt in args.formats.split(","):
            for count in [int(c) for c in args.counts.split(",")]:
                runs = [code for n in range(args.rounds) for code in codes[:: -1 if n % 2 else 1]]
                for name, code in runs:
                    before = load()
                    status, first, end, cpu, size, peak, sha = piped(code, [dsl, "--count", str(count), "--seed", args.seed, "--format", fmt, *extra], tmp)
                    print(f"{fmt:6} {count:>11,} {name:16} {status:>6} {peak:>8} {first:>13.2f} {end:>8.2f} {cpu:>7.2f} {size / 1e6:>9.1f} {sha}  {before}", flush=True)


if __name__ == "__main__":
    main()
