"""The `bridgeshape-mirror` console script: argument parsing and exit statuses, nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

from . import __version__
from .commands import build, deals, serve, sync, update, validate
from .exit_codes import ExitCode

COMMANDS = (validate, deals, sync, build, update, serve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bridgeshape-mirror",
        description="Mirror the BridgeShape API of a bridge wiki as static files.",
        epilog="Exit statuses: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode) + ".",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("bridgeshape-mirror: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (`head`, a closed pipe) went away: nothing left to say, and no failure.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.OK)
    except Exception as exc:  # noqa: BLE001 - the one place where a bug becomes a message and a status
        traceback.print_exc(file=sys.stderr)
        print(f"bridgeshape-mirror: internal error: {exc!r}; please report it with the trace above", file=sys.stderr)
        return int(ExitCode.INTERNAL)


if __name__ == "__main__":
    sys.exit(main())
