"""How long exact probabilities take, with an empty disk cache: the reference's examples
that tie both partnerships together, and scenarios beyond them. Prints, per scenario, the
method that counted it (`honour placements`, `crossing`, `column products`, `length
matrices`, or `estimate` past the budgets), its figures (terms and work against the budget
for the column products; admissible length matrices and planned work for the length
matrices), the seconds (wall, and the process's CPU: the machine may be shared), and the
probability; at the end, how many are estimated, the slowest, and the load. Not part
of the test suite; no speed target of its own (the counts feed the `deals` command and the
mirror build, whose benchmarks have targets).

Run: .venv/bin/python benchmarks/exact_count_bench.py [DSL ...]
"""

from __future__ import annotations

import os
import sys
import time

os.environ["BSM_DEALS_CACHE"] = "0"  # measure the counting, not the disk cache

from bridgeshape_mirror import dsl  # noqa: E402
from bridgeshape_mirror.deals.counting import column_products as cp  # noqa: E402
from bridgeshape_mirror.deals.counting import length_matrices as lm  # noqa: E402
from bridgeshape_mirror.deals.counting.crossing import cross_count  # noqa: E402
from bridgeshape_mirror.deals.counting.honour_placements import scenario_count  # noqa: E402
from bridgeshape_mirror.deals.rules.compiled import compile_scenario  # noqa: E402
from bridgeshape_mirror.deals.counting.tables import ALL_DEALS  # noqa: E402

SCENARIOS = [
    # the reference's take-out doubles (three seats with HCP rules) and overcalls
    "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8",
    "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; opp2 hcp:8+ x:5+",
    "opener hcp:12-21 x:5+; opp1 hcp:10+ x:5+; opp2 fit:8+",
    "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+",
    # beyond the reference
    "opener hcp:15-17; opp1 hcp:8+; responder x:5+",
    "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8; opp2 hcp:0-8",
    "opener hcp:15-17 shape:balanced; opp1 hcp:8+ x:5+; responder hcp:8+ x:4+",
    "opener H:5+ hcp:12-21; opp1 S:5+ hcp:8-16; responder H:3+ hcp:6-10",
    "opener hcp:12-21; opp1 hcp:12+; responder hcp:0-8",
    "opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10; opp2 hcp:0-7",
    # the sample wiki's Cue-bid and Contro sputnik scenarios
    "opener H:5+ hcp:12-21; opp1 C:5+ hcp:8-16; responder H:3+ hcp:10+",
    "opener C:3+ hcp:12-21; opp1 H:5+ hcp:8-16; responder S:4 hcp:7+",
    "opener D:4+ hcp:12-21; opp1 S:5+ hcp:8-16; responder H:4+ hcp:7+",
    # wildcards with an HCP part: an overcall in a good suit
    "opener H:5+ hcp:12-21; opp1 x:5+ xhcp:5+ hcp:8-16; responder H:3+ hcp:10+",
    "opener hcp:12-21 x:5+; opp1 hcp:8-16 x:5+ xhcp:4+; responder hcp:6+",
    # two seats with shapes: a 1NT opening, a two-suited overcall and a response
    "opener hcp:15-17 shape:balanced; opp1 hcp:8+ shape:two_suiter; responder hcp:8+",
    # four seats with HCP rules and length rules (one seat's rule a band on the others' sum)
    "opener H:5+ hcp:12-21; opp1 C:5+ hcp:8-16; responder H:3+ hcp:10+; opp2 hcp:0-7",
    "opener C:3+ hcp:12-21; opp1 H:5+ hcp:8-16; responder S:4 hcp:7+; opp2 hcp:0-6",
    "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; opp2 hcp:8+ x:5+; responder hcp:0-5",
    "opener hcp:15-17 shape:balanced; opp1 hcp:8+ x:5+; responder hcp:8+ x:4+; opp2 hcp:0-5",
    "opener hcp:12+ S:5+; opp1 hcp:8+ H:5+; responder hcp:6+ S:3+; opp2 hcp:4+",  # four capped axes
]


def main() -> None:
    texts = sys.argv[1:] or SCENARIOS
    print(f"budget: column products {cp.MAX_WORK:.1e} multiply-adds and {cp.MAX_TABLE_BYTES // 2**20} MB a table;")
    print(f"        length matrices {lm.MAX_MATRICES:,} matrices, {lm.MAX_WORK:.1e} multiply-adds")
    estimated, slowest = 0, 0.0
    for text in texts:
        compiled = compile_scenario(dsl.parse_scenarios(text)[0])
        started, cpu = time.perf_counter(), time.process_time()
        count, method, figures = scenario_count(compiled), "honour placements", []
        if count is None:
            count, method = cross_count(compiled), "crossing"
        if count is None and cp.counts(compiled):
            method = "column products"
            columns = cp.ColumnCount(compiled)
            if columns.table_bytes > cp.MAX_TABLE_BYTES:
                figures.append(f"tables of {columns.table_bytes / 2**20:.0f} MB, past the budget")
            elif not columns.within(cp.MAX_WORK):
                figures.append(f"{len(columns.terms)} terms, past the work budget")
            else:
                figures.append(f"{len(columns.terms)} terms, work {columns.work:.2e} ({columns.work / cp.MAX_WORK:.2f} of the budget)")
                count = columns.total()
        if count is None:
            method = "length matrices"
            found = lm.length_matrices(compiled)
            if found is None:
                figures.append("matrices past the budget")
            else:
                counter = lm.LengthMatrixCount(compiled)
                plan = counter.plan(found)
                figures.append(f"{len(found):,} matrices, work {plan.work:.2e} ({plan.work / lm.MAX_WORK:.2f} of the budget)")
                if plan.work <= lm.MAX_WORK:
                    count = counter.total(plan)
            if count is None:
                method = "estimate (past the budgets)"
                estimated += 1
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        slowest = max(slowest, seconds)
        probability = f"p = {count / ALL_DEALS:.6g}" if count is not None else "p estimated by the sampler"
        print(f"\n{text}\n  {method}: {'; '.join(figures) or '-'}; {seconds:.2f} s (cpu {cpu:.2f} s); {probability}")
    print(f"\nestimated: {estimated} of {len(texts)}; slowest {slowest:.2f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
