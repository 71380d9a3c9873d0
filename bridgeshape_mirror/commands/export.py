"""`bridgeshape-mirror export DSL --to dealer|deal|bridgechamp [--scenario N] [--level BY
--class C]`: a scenario (or one class of it, levelled as `deals --level` levels it) as a script
for Debian's `dealer`, for Deal 3.1 or a Bridge Champ expression that accepts exactly its deals
(the work is in `deals.scripts`); without --scenario, the union of the DSL's scenarios."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..exit_codes import ExitCode
from .common import chosen_scenarios, described, exit_code_for, positive

if TYPE_CHECKING:
    from bridgeshape_mirror.deals.scripts.header import ScriptScenario

TARGETS = ("dealer", "deal", "bridgechamp")  # keys of `deals.scripts.render.TARGETS`


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a scenario as an exact dealer or Deal 3.1 script or Bridge Champ expression",
        description=(
            "Print a script for Debian's dealer (--to dealer), for Deal 3.1 (--to deal) or a "
            "Bridge Champ expression (--to bridgechamp) that accepts exactly the deals of scenario N (opener North and dealer, opp1 East, "
            "responder South, opp2 West), so its acceptance rate is the scenario's probability; "
            "without --scenario, the union of all the scenarios. With --level BY --class C, the deals of "
            "class C of the scenario levelled by BY (as the deals command levels it), so its acceptance "
            "rate is the class's exact probability. Give the counts on the tool's "
            "command line (dealer -p N -g G; deal N): the script sets none. Exit status 0, 1 "
            "when the DSL is invalid or a part cannot be written exactly, 2 on a usage error."
        ),
    )
    parser.add_argument("dsl", metavar="DSL", help="the DSL string, or - to read it from standard input")
    parser.add_argument("--to", choices=TARGETS, required=True, help="the script language: dealer, deal (Tcl) or bridgechamp")
    parser.add_argument("--scenario", type=positive, metavar="N", help="scenario N only (counting from 1)")
    parser.add_argument(
        "--level", metavar="BY", action="append",
        help="the measure the class is of, as the deals command's --level takes it (twice: a product class)",
    )
    parser.add_argument("--class", dest="level_class", metavar="C", help="the class to write, as the deals command names it (like 18-21, H or 12-14/S)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    picked = chosen_scenarios(args.dsl, args.scenario)
    if isinstance(picked, ExitCode):
        return picked
    scenarios, total = picked
    if not scenarios:
        print("the DSL has no scenario: there is nothing to write", file=sys.stderr)
        return ExitCode.INVALID

    from bridgeshape_mirror.deals.errors import NotExpressible
    from bridgeshape_mirror.deals.outcome import deal_outcome
    from bridgeshape_mirror.deals.drawing.rng import make_rng
    from bridgeshape_mirror.deals.scripts.export import script
    from bridgeshape_mirror.deals.scripts.header import ScriptScenario
    from bridgeshape_mirror.store.version import VERSION

    if args.level is not None or args.level_class is not None:
        picked_class = _level_class(args, scenarios)
        if isinstance(picked_class, ExitCode):
            return picked_class
        chosen = [picked_class]
    else:
        # The header's probability: the count the deals command makes (no deal drawn).
        chosen = [ScriptScenario(i, s, deal_outcome(s, i, 0, make_rng(0, i)).probability) for i, s in scenarios]
    try:
        text = script(args.to, chosen, tool=f"bridgeshape-mirror {VERSION}", total=total)
    except NotExpressible as exc:
        print(f"no {args.to} script: {described(exc)}", file=sys.stderr)
        return exit_code_for(exc)
    sys.stdout.write(text)
    return ExitCode.OK


def _level_class(args: argparse.Namespace, scenarios: list) -> ScriptScenario | ExitCode:
    """The class `--class` of the one scenario levelled `--level`, as a scenario to write; or,
    having said why on stderr, the usage status."""
    from bridgeshape_mirror.deals.levels import LevelError, class_probability, product
    from bridgeshape_mirror.deals.scripts.header import ScriptScenario

    def usage(message: str) -> ExitCode:
        print(f"bridgeshape-mirror export: {message}", file=sys.stderr)
        return ExitCode.USAGE

    if args.level is None or args.level_class is None:
        return usage("--level and --class go together: the measure, and which of its classes to write")
    if len(scenarios) != 1:
        return usage(f"the DSL has {len(scenarios)} scenarios: say which one to level with --scenario N")
    index, scenario = scenarios[0]
    try:
        levelled = product(scenario, args.level)
    except LevelError as exc:
        return usage(str(exc))
    found = [c for c in levelled.classes if c.name == args.level_class]
    if not found:
        names = ", ".join(c.name for c in levelled.classes)
        return usage(f"no class {args.level_class!r} in {levelled.by}: its classes are {names}")
    cls = found[0]
    return ScriptScenario(index, cls.base, class_probability(cls), part=f"{cls.name} of {levelled.by}", without=cls.earlier)
