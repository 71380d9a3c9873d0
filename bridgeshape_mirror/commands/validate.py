"""`bridgeshape-mirror validate [--json] DSL`: check one shape_constraints string."""

from __future__ import annotations

import argparse
import json
import sys

from ..exit_codes import ExitCode
from .common import read_dsl_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check a shape_constraints string and explain its errors",
        description="Check a shape_constraints string. Exit status 0 when valid, 1 when not, 2 on a usage error.",
    )
    parser.add_argument("dsl", metavar="DSL", help="the DSL string, or - to read it from standard input")
    parser.add_argument("--json", action="store_true", help="print the API's validate document instead of a report")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    import dsl
    from dsl.explain import explain

    raw = read_dsl_argument(args.dsl)
    result = dsl.parse(raw)
    if args.json:
        json.dump(dsl.validate_document(result), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(explain(result))
    return ExitCode.OK if result.valid else ExitCode.INVALID
