"""Parse and render 10,000 realistic DSL strings; print scenarios per second (target: 5,000 on one core).

Run: .venv/bin/python benchmarks/dsl_bench.py [--strings N] [--seed S]
The strings are built from the reference page's conventions with varied suits, ranges and
labels, 1 to 6 scenarios each, so their mix resembles a real wiki's.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from bridgeshape_mirror import dsl

SUITS = "SHDC"


def realistic_scenario(rng: random.Random) -> str:
    a, b = rng.sample(SUITS, 2)
    low = rng.randint(10, 15)
    kind = rng.randrange(6)
    if kind == 0:  # splinter
        return f"1{a}-4{b}: opener {a}:5+ hcp:{low}-21; responder {a}:4+ {b}:0-1 {b}hcp:0 hcp:10-15"
    if kind == 1:  # compact splinter
        return f"dopo 1{a}: fit:{a}8+ opener {a}:5+ hcp:{low}-21; responder x:0-1 xhcp:0 hcp:10-15"
    if kind == 2:  # stayman
        return f"fit a {a}: fit:{a}8+ opener hcp:15-17 S:2-4 H:2-4 D:2-5 C:2-5; responder {a}:4+ hcp:8+"
    if kind == 3:  # take-out double
        return f"base {low}: opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"
    if kind == 4:  # preempt
        return f"opener {a}:7+ x:0-1 hcp:5-10 shape:one_suiter"
    return f"overcall {a}: opener hcp:12-21 x:5+; opp1 hcp:{low - 4}+ {a}:5+; opp2 fit:{rng.randint(8, 10)}+"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--strings", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    strings = [" // ".join(realistic_scenario(rng) for _ in range(rng.randint(1, 6))) for _ in range(args.strings)]

    dsl.parse("opener H:5+")  # build the parser once, as a long run would
    scenarios = 0
    started = time.perf_counter()
    for raw in strings:
        result = dsl.parse(raw)
        assert result.valid, result.errors
        scenarios += len(result.scenarios)
        json.dumps(dsl.validate_document(result))
    elapsed = time.perf_counter() - started
    rate = scenarios / elapsed
    print(f"strings: {len(strings)}  scenarios: {scenarios}  seconds: {elapsed:.2f}")
    print(f"parse+render: {rate:,.0f} scenarios/s  ({len(strings) / elapsed:,.0f} strings/s)")
    print(f"target 5,000 scenarios/s: ratio {rate / 5000:.2f}x")


if __name__ == "__main__":
    main()
