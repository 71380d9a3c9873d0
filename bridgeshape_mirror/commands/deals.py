"""`bridgeshape-mirror deals DSL [--scenario N] [--count N] [--seed S] [--format json|pbn]`:
uniform sample deals for the scenarios of a shape_constraints string (the work is in `deals`)."""

from __future__ import annotations

import argparse
import sys

from ..exit_codes import ExitCode
from .common import read_dsl_argument


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "deals",
        help="deal uniform random deals that satisfy each scenario of a shape_constraints string",
        description=(
            "Deal random deals satisfying each scenario (opener North and dealer, opp1 East, "
            "responder South, opp2 West), every satisfying deal equally likely, with each "
            "scenario's probability. Exit status 0 when every scenario was dealt, 1 when the "
            "DSL is invalid or a scenario is unsatisfiable (the others are still printed), 2 on "
            "a usage error."
        ),
    )
    parser.add_argument("dsl", metavar="DSL", help="the DSL string, or - to read it from standard input")
    parser.add_argument("--scenario", type=_positive, metavar="N", help="deal only scenario N (counting from 1)")
    parser.add_argument("--count", type=_non_negative, default=10, metavar="N", help="deals per scenario (default 10)")
    parser.add_argument(
        "--seed", type=_non_negative, default=0, metavar="S",
        help="random seed (default 0); the same DSL, count and seed give the same deals",
    )
    parser.add_argument("--format", choices=("json", "pbn"), default="json", help="output format (default json)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    import dsl

    raw = read_dsl_argument(args.dsl)
    result = dsl.parse(raw)
    if not result.valid:
        for error in result.errors:
            print(f"scenario {error.scenario}, character {error.offset}: {error.message}", file=sys.stderr)
        return ExitCode.INVALID
    scenarios = list(enumerate(result.scenarios, start=1))
    if args.scenario is not None:
        if args.scenario > len(scenarios):
            print(f"--scenario {args.scenario}: the DSL has {len(scenarios)} scenario(s)", file=sys.stderr)
            return ExitCode.USAGE
        scenarios = [scenarios[args.scenario - 1]]

    from deals.errors import DealsError, Unsatisfiable
    from deals.output import JsonDealsWriter, PbnDealsWriter, probability_fields
    from deals.rng import make_rng
    from deals.sampler import ScenarioSampler

    out = sys.stdout.buffer
    writer = JsonDealsWriter(out) if args.format == "json" else PbnDealsWriter(out)
    status = ExitCode.OK
    writer.begin()
    for index, scenario in scenarios:
        name = f"scenario {index}" + (f" ({scenario.label})" if scenario.label else "")
        try:
            sampler = ScenarioSampler(scenario)
            rng = make_rng(args.seed, index)
            writer.scenario(
                index,
                scenario.label,
                sampler.batches(args.count, rng),
                lambda: probability_fields(sampler.estimate_probability(rng)),
            )
        except Unsatisfiable as exc:
            out.flush()
            print(f"{name} is unsatisfiable: {exc.reason}", file=sys.stderr)
            writer.failed(index, scenario.label, "unsatisfiable", exc.reason)
            status = ExitCode.INVALID
        except DealsError as exc:  # TooRare: not proved empty, and no deal found either
            out.flush()
            print(f"{name}: {exc}", file=sys.stderr)
            writer.failed(index, scenario.label, "too_rare", str(exc))
            status = ExitCode.INVALID
    writer.end()
    out.flush()
    return status
