"""Levelled sets (`deals --level`) against levelling by rejection with Debian's `dealer`.

For each case, 1,000 boards in equal shares of the classes:
- ours: `bridgeshape-mirror deals DSL --count 1000 --level BY [--level BY2] --format pbn`, a
  whole process, its counts made afresh (an empty disk cache), its bytecode compiled once
  beforehand, as an installed copy has it (this machine's environment
  says PYTHONDONTWRITEBYTECODE, which would compile every module in every run); the classes
  read back from the PBN's `Level` tags;
- rejection: `dealer` deals the scenario uniformly (the script `export --to dealer` writes,
  exact) and boards are kept until every class has its share. The deals that takes are
  counted from dealer's stream, then dealer is timed alone producing exactly that many (the
  classifying, done here in Python, is left out of its time: in its favour).

Prints both times (wall and CPU), the ratio, the deals rejection needed, each class's natural
share (ours exact) beside its frequency among dealer's deals and the z-score of the
difference (within sampling error: |z| < 3), and the boards each class got.

Run: .venv/bin/python benchmarks/levels_vs_rejection.py [--boards 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bridgeshape_mirror import dsl  # noqa: E402
from bridgeshape_mirror.deals.boards.pbn import parse_deal  # noqa: E402
from bridgeshape_mirror.deals.levels import class_probability, product  # noqa: E402
from bridgeshape_mirror.deals.rules.predicate import violations  # noqa: E402

CASES = [
    ("three HCP bands", "opener hcp:12-21 H:5+; responder hcp:6-10 H:3+", ["hcp:opener"]),
    ("3 x 3 product", "opener hcp:12-21 x:5+; opp1 hcp:8-16 H:0-3 x:5+", ["hcp:opener", "suit:opp1"]),
    # a strong two-suiter: its top band is rare among its own deals, the scenario among all
    ("rare bands", "opener hcp:20-25 shape:two_suiter; opp1 hcp:6+ x:5+", ["hcp:opener"]),
    # a class of one in a few hundred of its scenario's deals: what rejection pays most for
    ("a rare class", "opener hcp:20-25 shape:two_suiter; opp1 hcp:6+ x:5+", ["hcp:opener:20-22,23-24,25"]),
    # The kind of set the issue counts rejection at about 195,000 deals a board for: a convention
    # that comes up rarely (the sample wiki's strong two-suited overcall over 1H, 3.8e-5 of all
    # deals), levelled in three bands and as a 3 x 3 product of two measures.
    ("a rare convention, three bands", "opener H:5+ hcp:12-21; opp1 S:5+ D:5+ hcp:16+", ["hcp:opener:12-14,15-17,18-21"]),
    (
        "a rare convention, 3 x 3",
        "opener H:5+ hcp:12-21; opp1 S:5+ D:5+ hcp:16+",
        ["hcp:opener:12-13,14-15,16-21", "hcp:opp1:16,17-18,19+"],
    ),
]
SEATS = "nesw"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, out


def dealer_line_pbn(line: str) -> str:
    """`n K32.AKQJ96.53.K7 e ... s ... w ...` as a PBN deal string."""
    hands = dict(re.findall(r"([nesw]) (\S+)", line))
    return "N:" + " ".join(hands[s] for s in SEATS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--case", action="append", help="only the cases of these names (default: every case)")
    args = parser.parse_args()
    dealer = shutil.which("dealer") or "/usr/games/dealer"
    cli = str(Path(sys.executable).parent / "bridgeshape-mirror")
    print(f"load average {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "XDG_CACHE_HOME": home, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": os.path.join(home, "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        timed([cli, "deals", "opener hcp:12-21", "--level", "hcp:opener", "--count", "3"], env)  # the bytecode
        for name, text, bys in CASES:
            if args.case and name not in args.case:
                continue
            scenario = dsl.parse_scenarios(text)[0]
            level = product(scenario, bys)
            classes = level.classes
            share = [args.boards // len(classes) + (1 if i < args.boards % len(classes) else 0) for i in range(len(classes))]
            ours_cmd = [cli, "deals", text, "--count", str(args.boards), "--seed", str(args.seed), "--format", "pbn"]
            for by in bys:
                ours_cmd += ["--level", by]
            shutil.rmtree(os.path.join(home, "bridgeshape-mirror"), ignore_errors=True)  # counted afresh
            wall, cpu, out = timed(ours_cmd, env)
            got = re.findall(r'\[Level "([^"]+)"\]', out.decode())
            delivered = [got.count(c.name) for c in classes]

            script = subprocess.run([cli, "export", text, "--to", "dealer"], capture_output=True, text=True, env=env, check=True).stdout
            path = Path(home) / "scenario.dlr"
            path.write_text(script)
            # -g: dealer's own bound on the deals it makes (10 million unless told) would end the
            # stream before a rare scenario's classes are full
            def dealing(produce: int) -> list[str]:
                return [dealer, "-p", str(produce), "-g", "2000000000", "-s", str(args.seed), str(path)]

            stream = subprocess.Popen(dealing(1_000_000_000), stdout=subprocess.PIPE, text=True)
            kept, seen, needed = [0] * len(classes), [0] * len(classes), 0
            assert stream.stdout is not None
            for line in stream.stdout:
                if not line.startswith("n "):
                    continue
                needed += 1
                deal = parse_deal(dealer_line_pbn(line))
                k = next(i for i, c in enumerate(classes) if not violations(deal, c.base) and all(violations(deal, e) for e in c.earlier))
                seen[k] += 1
                kept[k] = min(share[k], kept[k] + 1)
                if kept == share:
                    break
            stream.kill()
            stream.wait()
            if kept != share:
                raise SystemExit(f"{name}: dealer's stream ended with the classes at {kept} of {share}")
            d_wall, d_cpu, d_out = timed(dealing(needed), env)
            generated = re.search(rb"Generated (\d+) hands", d_out)

            print(f"\n{name}: {text}  --level {' --level '.join(bys)}  ({len(classes)} classes, {args.boards} boards)")
            print(f"  ours     {wall:7.2f} s wall, {cpu:7.2f} s CPU")
            print(f"  dealer   {d_wall:7.2f} s wall, {d_cpu:7.2f} s CPU for the {needed:,} deals rejection needed "
                  f"({needed / args.boards:.1f} a board)")
            if generated:
                print(f"           dealt {int(generated.group(1)):,} deals to find them: {int(generated.group(1)) / args.boards:,.0f} a board")
            print(f"  ratio    {d_wall / wall:7.1f}x wall, {d_cpu / cpu:7.1f}x CPU (dealer / ours)")
            print("  class         natural (exact)  dealer's frequency     z   ours  rejection")
            for c, n_ours, k in zip(classes, delivered, seen):
                p = float(class_probability(c).value) / float(sum(class_probability(x).value for x in classes))
                z = (k - needed * p) / math.sqrt(needed * p * (1 - p)) if 0 < p < 1 else 0.0
                print(f"  {c.name:12s}  {p:15.4f}  {k / needed:18.4f}  {z:5.1f}  {n_ours:5d}  {share[classes.index(c)]:9d}")
    print(f"\nload average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
