"""`bridgeshape-mirror deals DSL [--scenario N] [--count N] [--seed S] [--format json|pbn|lin]`:
uniform sample deals for the scenarios of a shape_constraints string (the work is in `deals`),
as boards numbered 1..n that take the scenarios in turn (`deals.boards.board`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bridgeshape_mirror.deals.formats import FORMATS

from ..exit_codes import ExitCode
from .common import at_most, chosen_scenarios, positive, seed

if TYPE_CHECKING:
    from bridgeshape_mirror.deals.boards.board import BoardDeal
    from bridgeshape_mirror.deals.formats import DealsWriter
    from bridgeshape_mirror.deals.outcome import ScenarioDeals
    from bridgeshape_mirror.deals.boards.pbn import PbnTag
    from bridgeshape_mirror.dsl.model import Scenario


#: The most deals per scenario one run writes: deals are streamed, so this bounds the run's
#: time and output, not its memory; it is far above any use, and below it `--count` with a
#: number of 20 digits is refused at once rather than left to run for ever.
COUNT_LIMIT = 10**9


def count(text: str) -> int:
    """An argparse type: deals per scenario, 0 to `COUNT_LIMIT`."""
    return at_most(text, COUNT_LIMIT, "deals per scenario in one run")


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
    parser.add_argument("--scenario", type=positive, metavar="N", help="deal only scenario N (counting from 1)")
    parser.add_argument(
        "--count", type=count, default=10, metavar="N", help=f"deals per scenario, at most {COUNT_LIMIT:,} (default 10)"
    )
    parser.add_argument(
        "--seed", type=seed, default=0, metavar="S",
        help="random seed (default 0); the same DSL, count and seed give the same deals",
    )
    parser.add_argument("--format", choices=tuple(FORMATS), default="json", help="output format (default json)")
    parser.add_argument(
        "--dd", action="store_true",
        help=(
            "add each deal's double-dummy table and par (DDS; a few tables a second per core): `dd` and `par` "
            "in JSON, the result table in PBN; deal k of the output is scored on board k's vulnerability"
        ),
    )
    parser.add_argument(
        "--level", metavar="BY", action="append",
        help=(
            "a levelled set: each class of the measure BY gets its share of the boards, every deal uniform "
            "within its class: hcp:ROLE[:BANDS] (bands like 12-14,15-17,18-21; by default the role's range in "
            "three), suit:ROLE (the suit the role's wildcard takes), fit (the scenario's first fit), shape:ROLE; twice, the product of two measures' classes"
        ),
    )
    parser.add_argument("--mix", metavar="SHARES", help="the classes' shares of the boards, like 2:1:1 (default equal)")
    parser.set_defaults(handler=run)


class _DoubleDummy:
    """The tables of the deals written, and what each format adds of them, each deal on its
    board (the format's numbering: scenarios in turn)."""

    def __init__(self) -> None:
        self.tables: dict[str, object] = {}

    def solve(self, pbns: tuple[str, ...]) -> None:
        from bridgeshape_mirror.deals.double_dummy import solve

        for pbn, table in zip(pbns, solve(pbns)):
            if table is None:
                print(f"double dummy: DDS failed on {pbn}; written without its table", file=sys.stderr)
            else:
                self.tables[pbn] = table

    def options(self, name: str) -> dict[str, object]:
        return {"json": {"deal_fields": self.json_fields}, "pbn": {"extra_tags": self.pbn_tags}}.get(name, {})

    def json_fields(self, pbn: str, number: int) -> dict[str, object] | None:
        from bridgeshape_mirror.deals.boards.board import board
        from bridgeshape_mirror.deals.double_dummy import par

        table = self.tables.get(pbn)
        return None if table is None else {"dd": table.to_json(), "par": par(table, board(number)).to_json()}

    def pbn_tags(self, deal: BoardDeal) -> tuple[PbnTag, ...]:
        from bridgeshape_mirror.deals.double_dummy import pbn_tags

        table = self.tables.get(deal.pbn)
        return () if table is None else pbn_tags(table, deal.board)


def _tool() -> str:
    # Asked for only by the formats that print it: the version is read from the package's
    # metadata (importlib.metadata, 20 ms of a one-deal run).
    from bridgeshape_mirror.store.version import version

    return f"bridgeshape-mirror {version()}"


def run(args: argparse.Namespace) -> ExitCode:
    chosen = chosen_scenarios(args.dsl, args.scenario)
    if isinstance(chosen, ExitCode):
        return chosen
    scenarios, _ = chosen
    if args.level is not None or args.mix is not None:
        return _levelled(args, scenarios)

    from bridgeshape_mirror.deals.formats import open_writer
    from bridgeshape_mirror.deals.drawing.rng import make_rng

    out = sys.stdout.buffer
    dd = _DoubleDummy() if args.dd else None
    writer = open_writer(args.format, out, tool=_tool, seed=f"seed {args.seed}", **(dd.options(args.format) if dd else {}))
    if dd:
        return _held(writer, scenarios, args.count, args.seed, dd)
    from bridgeshape_mirror.deals.formats.stream import open_streams

    # Every scenario to its first batch (or why it has none) before a byte is written: the
    # boards' numbers depend on which scenarios have deals.
    streams = open_streams(scenarios, args.count, [make_rng(args.seed, index) for index, _ in scenarios])
    failed = [s.failed for s in streams if s.failed]
    for outcome in failed:
        _say_no_deals(outcome)
    writer.streamed(streams)
    out.flush()
    return ExitCode.INVALID if failed else ExitCode.OK


def _held(writer: DealsWriter, scenarios: list[tuple[int, Scenario]], count: int, seed: int, dd: _DoubleDummy) -> ExitCode:
    """With --dd each scenario is dealt whole, then solved in DDS's batches, then written."""
    from bridgeshape_mirror.deals.outcome import deal_outcome
    from bridgeshape_mirror.deals.drawing.rng import make_rng

    status = ExitCode.OK
    writer.begin()
    for index, scenario in scenarios:
        outcome = deal_outcome(scenario, index, count, make_rng(seed, index))
        dd.solve(outcome.deals)
        if outcome.no_deals_reason:
            _say_no_deals(outcome)
            status = ExitCode.INVALID
        writer.scenario(outcome)
    writer.end()
    sys.stdout.buffer.flush()
    return status


def _say_no_deals(outcome: ScenarioDeals) -> None:
    name = f"scenario {outcome.index}" + (f" ({outcome.label})" if outcome.label else "")
    if outcome.unsatisfiable:
        print(f"{name} is unsatisfiable: {outcome.unsatisfiable}", file=sys.stderr)
    else:  # too rare: not proved empty, and no deal found either
        print(f"{name}: {outcome.too_rare}", file=sys.stderr)


def _levelled(args: argparse.Namespace, scenarios: list[tuple[int, Scenario]]) -> ExitCode:
    """`--level`: each scenario as a levelled set (`deals.levels`), held whole, then written."""
    from bridgeshape_mirror.deals.drawing.rng import make_rng
    from bridgeshape_mirror.deals.formats import open_writer
    from bridgeshape_mirror.deals.levels import LevelError, levelled_outcome, parse_mix, product

    if args.level is None:
        print("bridgeshape-mirror deals: --mix needs --level", file=sys.stderr)
        return ExitCode.USAGE
    try:
        shares = parse_mix(args.mix) if args.mix is not None else None
        levels = [(index, scenario, product(scenario, args.level)) for index, scenario in scenarios]
        outcomes = [
            levelled_outcome(scenario, index, args.count, by, shares, lambda k, i=index: make_rng(args.seed, i, k))
            for index, scenario, by in levels
        ]
    except LevelError as exc:
        print(f"bridgeshape-mirror deals: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    dd = _DoubleDummy() if args.dd else None
    classes = {pbn: name for o in outcomes for pbn, name in zip(o.deals, o.deal_classes)}
    options = dd.options(args.format) if dd else {}
    fields, tags = options.get("deal_fields"), options.get("extra_tags")

    def deal_fields(pbn: str, number: int) -> dict[str, object]:
        return {"class": classes[pbn], **((fields(pbn, number) or {}) if fields else {})}

    # PBN and LIN name each board's class themselves (the outcomes hold them)
    per_format = {"json": {"deal_fields": deal_fields}, "pbn": {"extra_tags": tags}}.get(args.format, {})
    writer = open_writer(args.format, sys.stdout.buffer, tool=_tool, seed=f"seed {args.seed}", **per_format)
    status = ExitCode.OK
    writer.begin()
    for outcome in outcomes:
        if dd:
            dd.solve(outcome.deals)
        if outcome.no_deals_reason:
            _say_no_deals(outcome)
            status = ExitCode.INVALID
        elif outcome.levels is not None:
            _say_mix(outcome)
        writer.scenario(outcome)
    writer.end()
    sys.stdout.buffer.flush()
    return status


def _say_mix(outcome: ScenarioDeals) -> None:
    """The natural mix beside the delivered one, on standard error (the output stays a document)."""
    assert outcome.levels is not None
    total = sum(c.boards for c in outcome.levels.classes) or 1
    name = f"scenario {outcome.index}" + (f" ({outcome.label})" if outcome.label else "")
    print(f"{name} levelled by {outcome.levels.by}:", file=sys.stderr)
    for c in outcome.levels.classes:
        line = f"  {c.name}: natural {float(c.natural_share):.1%}, delivered {c.boards / total:.1%} ({c.boards} board{'' if c.boards == 1 else 's'})"
        print(line + (f"; none: {c.empty.english()}" if c.empty else ""), file=sys.stderr)
