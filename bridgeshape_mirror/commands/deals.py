"""`bridgeshape-mirror deals DSL [--scenario N] [--count N] [--seed S] [--format json|pbn|lin]`:
uniform sample deals for the scenarios of a shape_constraints string (the work is in `deals`),
as boards numbered 1..n that take the scenarios in turn (`deals.boards.board`)."""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from bridgeshape_mirror.deals.dds_memory import DDS_MEMORY_MB_LEAST, DDS_TABLE_MB, STREAM_TABLE_MB, stream_bound_mb
from bridgeshape_mirror.deals.formats import FORMATS

from ..exit_codes import ExitCode
from .common import at_most, chosen_scenarios, positive, seed

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import numpy as np

    from bridgeshape_mirror.deals.formats.stream import ScenarioStream
    from bridgeshape_mirror.deals.boards.board import BoardDeal
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


def dd_memory(text: str) -> int:
    """An argparse type: a bound on DDS's memory (MB), from what DDS needs at least."""
    value = positive(text)
    if value < DDS_MEMORY_MB_LEAST:
        raise argparse.ArgumentTypeError(f"must be {DDS_MEMORY_MB_LEAST} or more (DDS's least table), not {value}")
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
            "in JSON, the result table in PBN; deal k of the output is scored on board k's vulnerability; the deals "
            "are written as they are solved, with a progress bar on standard error when it is a terminal"
        ),
    )
    parser.add_argument(
        "--dd-memory", type=dd_memory, metavar="MB",
        help=(
            f"with --dd: bound the memory of DDS's tables to MB in all, shared among its threads (default "
            f"{STREAM_TABLE_MB} a core, a little slower than DDS's own {DDS_TABLE_MB}); a tighter bound is "
            f"slower, a looser one quicker on hard deals, the same tricks (a thread a core while each gets "
            f"{DDS_MEMORY_MB_LEAST} at least)"
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
    board (the format's numbering: scenarios in turn). Held deals (`solve`) keep every
    table; streamed ones (`streaming`) only those of the last few batches, so memory stays
    bounded whatever the count."""

    def __init__(self) -> None:
        self.tables: dict[str, object] = {}
        self._batches: collections.deque[list[str]] = collections.deque()
        self._in_window: collections.Counter[str] = collections.Counter()
        self._window = 0
        self._thread: Executor | None = None
        self._progress = None

    def solve(self, pbns: tuple[str, ...]) -> None:
        from bridgeshape_mirror.deals.double_dummy import solve

        self._keep(pbns, solve(pbns))

    def _keep(self, pbns: Sequence[str], tables: Sequence[object | None]) -> None:
        for pbn, table in zip(pbns, tables):
            if table is None:
                self._say(f"double dummy: DDS failed on {pbn}; written without its table")
            else:
                self.tables[pbn] = table

    def _say(self, line: str) -> None:
        if self._progress is not None:
            self._progress.write(line, file=sys.stderr)  # above the bar, which stays
        else:
            print(line, file=sys.stderr)

    def streaming(self, streams: list[ScenarioStream]) -> list[ScenarioStream]:
        """`streams` as the writer reads them, each batch solved before the writer has it
        (DDS solving the next meanwhile: `deals.double_dummy.solved`), with a progress bar
        of the deals solved on standard error when it is a terminal."""
        from bridgeshape_mirror.deals.double_dummy import dds_thread

        self._thread = dds_thread()
        if sys.stderr.isatty():  # tqdm only then: its import is 16 ms of a one-deal run
            from tqdm import tqdm

            self._progress = tqdm(total=sum(s.count for s in streams), unit="deal", desc="double dummy", file=sys.stderr)
        # A window of batches: a board is written at most a batch of each scenario after
        # its own was solved (`board_chunks` takes the scenarios in turn).
        self._window = 3 * len(streams) + 2
        return [_Solved(s, self) for s in streams]

    def solved_rows(self, batches: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
        """`batches` (PBN rows) cut to DDS's batches, each given back once its tables are kept."""
        from bridgeshape_mirror.deals.boards.pbn import row_strings
        from bridgeshape_mirror.deals.double_dummy import BATCH_LIMIT, solved

        held: collections.deque[tuple[np.ndarray, list[str]]] = collections.deque()

        def cut() -> Iterator[list[str]]:
            size = FIRST_BATCH  # a few deals first, so the first boards come out at once
            for rows in batches:
                start = 0
                while start < len(rows):
                    part, size = rows[start : start + size], BATCH_LIMIT
                    start += len(part)
                    pbns = row_strings(part)
                    held.append((part, pbns))
                    yield pbns

        for tables in solved(cut(), self._thread):
            rows, pbns = held.popleft()
            self._keep(pbns, tables)
            self._batches.append(pbns)
            self._in_window.update(pbns)
            while len(self._batches) > self._window:
                self._in_window.subtract(gone := self._batches.popleft())
                for pbn in gone:
                    if self._in_window[pbn] <= 0:  # a deal dealt twice keeps its table while either is held
                        del self._in_window[pbn]
                        self.tables.pop(pbn, None)
            if self._progress is not None:
                self._progress.update(len(rows))
            yield rows

    def close(self) -> None:
        if self._progress is not None:
            self._progress.close()
        if self._thread is not None:
            self._thread.shutdown(cancel_futures=True)

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


class _Solved:
    """A scenario stream (`deals.formats.stream.ScenarioStream`) whose batches come solved."""

    def __init__(self, stream: ScenarioStream, dd: _DoubleDummy):
        self._stream, self._dd = stream, dd
        self.index, self.label, self.count = stream.index, stream.label, stream.count

    @property
    def failed(self) -> ScenarioDeals | None:
        return self._stream.failed

    @property
    def outcome(self) -> ScenarioDeals:
        return self._stream.outcome

    def rows(self) -> Iterator[np.ndarray]:
        return self._dd.solved_rows(self._stream.rows())


#: Deals of a stream's first DDS call (then `deals.double_dummy.BATCH_LIMIT` a call): a
#: second's work on both cores, so the first boards do not wait for 40 tables.
FIRST_BATCH = 4


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
    if args.dd_memory is not None and not args.dd:
        print("bridgeshape-mirror deals: --dd-memory bounds the double dummy: give it with --dd", file=sys.stderr)
        return ExitCode.USAGE
    if args.dd:
        from bridgeshape_mirror.deals.double_dummy import bound_memory

        bound_memory(stream_bound_mb() if args.dd_memory is None else args.dd_memory)
    if args.level is not None or args.mix is not None:
        return _levelled(args, scenarios)

    from bridgeshape_mirror.deals.formats import open_writer
    from bridgeshape_mirror.deals.drawing.rng import make_rng

    out = sys.stdout.buffer
    # LIN has no place for tables: its deals are written as without --dd.
    dd = _DoubleDummy() if args.dd and args.format in ("json", "pbn") else None
    writer = open_writer(args.format, out, tool=_tool, seed=f"seed {args.seed}", **(dd.options(args.format) if dd else {}))
    from bridgeshape_mirror.deals.formats.stream import open_streams

    # Every scenario to its first batch (or why it has none) before a byte is written: the
    # boards' numbers depend on which scenarios have deals.
    streams = open_streams(scenarios, args.count, [make_rng(args.seed, index) for index, _ in scenarios])
    failed = [s.failed for s in streams if s.failed]
    for outcome in failed:
        _say_no_deals(outcome)
    try:
        writer.streamed(dd.streaming(streams) if dd else streams)
    finally:
        if dd:
            dd.close()
    out.flush()
    return ExitCode.INVALID if failed else ExitCode.OK


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
    # LIN has no place for tables; every format names each deal's class (the outcomes hold them)
    dd = _DoubleDummy() if args.dd and args.format in ("json", "pbn") else None
    writer = open_writer(args.format, sys.stdout.buffer, tool=_tool, seed=f"seed {args.seed}", **(dd.options(args.format) if dd else {}))
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
