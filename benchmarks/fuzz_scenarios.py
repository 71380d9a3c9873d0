"""Random valid scenarios, dealt in whole processes: no crash, no time-out, no wrong deal.

Draws `--count` random valid scenarios (seeded by `--seed`), as `tests/test_deals_fuzz.py`
does (around a random deal, so that most are satisfiable): one to four seats, both
partnerships, every key of `dsl.keys` (suit lengths, HCP, suit HCP, `x:`/`xhcp:` wildcards
beside named suits or none, shapes, fits of every class at a seat and at scenario level).
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

from bridgeshape_mirror import dsl  # noqa: E402
from bridgeshape_mirror.deals.boards.cards import Deal  # noqa: E402
from bridgeshape_mirror.deals.boards.pbn import parse_deal  # noqa: E402
from bridgeshape_mirror.deals.rules.predicate import shape_class, violations  # noqa: E402
from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH, SUIT_INDEX  # noqa: E402
from bridgeshape_mirror.dsl.keys import KEY_BY_NAME  # noqa: E402
from bridgeshape_mirror.dsl.model import MAJORS, MINORS, SUITS, Pair, Role, ShapeClass, Suit  # noqa: E402

DEALS = 5
TARGET_SECONDS = 10.0
FIT_HEADS = ("S", "H", "D", "C", "M", "m", "")  # a named suit, a major, a minor, any suit


def _range(rng: random.Random, value: int, limit: int, width: int, around: bool) -> str:
    """A range token's value, `lo+`, `lo-hi`, `n` or `0-n`, within 0..limit and at most
    `width` wide when bounded; holding `value` when `around`."""
    if around:
        lo, hi = max(0, value - rng.randint(0, width)), min(limit, value + rng.randint(0, width))
    else:
        lo = rng.randint(0, min(limit, 2 * value + 2))
        hi = min(limit, lo + rng.randint(0, width))
    kind = rng.choice(("plus", "between", "exact", "upto"))
    if kind == "plus":
        return f"{lo}+"
    if kind == "exact":
        return str(value if around else lo)
    if kind == "upto":
        return f"0-{hi}"
    return f"{lo}-{hi}"


def _fit(rng: random.Random, deal: Deal, pair: Pair, around: bool) -> str:
    head = rng.choice(FIT_HEADS)
    suits = {"M": MAJORS, "m": MINORS, "": SUITS}.get(head) or (Suit(head),)
    first, second = (deal.role_hand(role) for role in pair.roles)
    best = max(first.length(SUIT_INDEX[s]) + second.length(SUIT_INDEX[s]) for s in suits)
    minimum = rng.randint(6, 10)
    return f"{KEY_BY_NAME['fit'].token}{head}{min(minimum, best) if around else minimum}+"


def random_position(rng: random.Random, role: Role, deal: Deal, around: bool) -> str:
    """One position's text: each key of `dsl.keys` written or not, its values around the
    deal's hand for that role when `around`."""
    hand = deal.role_hand(role)
    length = {s: hand.length(SUIT_INDEX[s]) for s in SUITS}
    points = {s: hand.suit_hcp(SUIT_INDEX[s]) for s in SUITS}
    tokens, named = [], set()
    for suit in SUITS:
        if rng.random() < 0.25:
            tokens.append(f"{KEY_BY_NAME[suit.value].token}{_range(rng, length[suit], MAX_SUIT_LENGTH, 4, around)}")
            named.add(suit)
    if rng.random() < 0.6:
        tokens.append(f"{KEY_BY_NAME['hcp'].token}{_range(rng, hand.hcp, MAX_HAND_HCP, 8, around)}")
    for suit in SUITS:
        if rng.random() < 0.08:
            tokens.append(f"{KEY_BY_NAME[suit.value + 'hcp'].token}{_range(rng, points[suit], MAX_SUIT_HCP, 4, around)}")
            named.add(suit)
    if len(named) < len(SUITS) and rng.random() < 0.4:
        suit = rng.choice([s for s in SUITS if s not in named])
        with_length, with_points = rng.choice(((True, False), (True, True), (False, True)))
        if with_length:
            tokens.append(f"{KEY_BY_NAME['x'].token}{_range(rng, length[suit], MAX_SUIT_LENGTH, 3, around)}")
        if with_points:
            tokens.append(f"{KEY_BY_NAME['xhcp'].token}{_range(rng, points[suit], MAX_SUIT_HCP, 4, around)}")
    if rng.random() < 0.2:
        shape = shape_class(tuple(length[s] for s in SUITS))
        tokens.append(f"{KEY_BY_NAME['shape'].token}{rng.choice([shape, ShapeClass.ANY] if around else list(ShapeClass)).value}")
    if rng.random() < 0.15:
        tokens.append(_fit(rng, deal, role.pair, around))
    rng.shuffle(tokens)
    return " ".join([role.value, *tokens])


def random_dsl(rng: random.Random) -> str:
    """One random valid scenario's DSL text: one to four seats in a random order, written
    around a random deal five times in six (most are satisfiable), freely otherwise."""
    seats = [seat for seat in range(4) for _ in range(CARDS_PER_SUIT)]
    rng.shuffle(seats)
    deal = Deal.from_seat_of_card(seats)
    around = rng.random() < 5 / 6
    roles = rng.sample(list(Role), rng.randint(1, len(Role)))
    fits = [_fit(rng, deal, Pair.DECLARER, around) for _ in range(rng.random() < 0.15)]
    return " ".join([*fits, "; ".join(random_position(rng, role, deal, around) for role in roles)])


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="scenarios to draw (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the scenarios (default 1)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a process may take (default 30)")
    parser.add_argument("--jobs", type=int, default=1, help="processes at a time (default 1: a shared machine)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    texts = [random_dsl(rng) for _ in range(args.count)]
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
