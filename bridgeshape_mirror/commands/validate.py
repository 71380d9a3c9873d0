"""`bridgeshape-mirror validate [--json] DSL`: check one shape_constraints string."""

from __future__ import annotations

import argparse
import json
import sys

from ..config import ConfigError, checked_language
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
    parser.add_argument(
        "--lang", type=_language, metavar="LANG",
        help="the language of the messages (default: English; with --json, each error adds localMessage and localHint)",
    )
    parser.set_defaults(handler=run)


def _language(tag: str) -> str:
    try:
        return checked_language(tag)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def run(args: argparse.Namespace) -> ExitCode:
    from bridgeshape_mirror import dsl
    from bridgeshape_mirror.dsl import language, messages
    from bridgeshape_mirror.dsl.explain import explain

    raw = read_dsl_argument(args.dsl)
    lang = args.lang or language.SOURCE
    result = dsl.parse(raw)  # English: what the API's JSON says (clients read its message)
    with messages.speaking(lang):
        local = dsl.parse(raw) if lang != language.SOURCE else result
    if args.json:
        document = dsl.validate_document(result)
        if local is not result:
            for error, said in zip(document["validate"].get("errors", ()), local.errors, strict=True):
                error["localMessage"] = said.message
                if said.hint:
                    error["localHint"] = said.hint
        json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(explain(local, lang))
    return ExitCode.OK if result.valid else ExitCode.INVALID
