"""The `bridgeshape-mirror` console script: argument parsing and exit statuses, nothing else."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

# numpy's OpenBLAS starts a thread per core when numpy is imported (60 ms of a one-deal run
# on this 2-core machine, and those threads spin against the run's own), while every count
# runs with one BLAS thread anyway (deals.counting.blas): so one thread from the start, unless the
# environment says otherwise. Before any command imports numpy; build workers inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .exit_codes import ExitCode, Terminated, signal_handled  # noqa: E402

#: The commands, in the order the help lists them: each a module of `commands` with a
#: `register(subparsers)`, imported only when its options are wanted (see `build_parser`).
COMMANDS = ("validate", "deals", "export", "sync", "build", "update", "follow", "serve")

#: Exit statuses of a run stopped by a signal, as a shell reports a process killed by it
#: (128 + the signal's number), but after the run has cleaned up and said so.
INTERRUPTED = 128 + signal.SIGINT
TERMINATED = 128 + signal.SIGTERM


class _Version(argparse.Action):
    """`--version`, reading the version only when asked (see store.version)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the program's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option: str | None = None) -> None:
        from bridgeshape_mirror.store.version import version

        print(f"{parser.prog} {version()}")  # on standard output, as argparse's own action
        parser.exit()


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


def _stopped(what: str, status: int) -> int:
    print(f"bridgeshape-mirror: {what}: stopped; the published mirror and the state are as a failed run leaves them", file=sys.stderr)
    return status


def _invoked(argv: Sequence[str] | None) -> str | None:
    """The command `argv` names, when it can be told before parsing: its first argument.
    (After a top-level option, `--help` say, the top level is parsed with every command.)"""
    args = sys.argv[1:] if argv is None else argv
    return args[0] if args and args[0] in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None, *, every_command: bool = True) -> argparse.ArgumentParser:
    """The parser of the command line. With `every_command=False` and a command named in
    `argv` (the process's arguments when None), only that command's options are built, and
    only its module imported: the parse of that command line, its errors and its `--help` are
    the same (each command's options are its own subparser's), at a few ms less of every run.
    Anything else (no command, an unknown one, the top level's `--help`) gets every command."""
    parser = argparse.ArgumentParser(
        prog="bridgeshape-mirror",
        description="Mirror the BridgeShape API of a bridge wiki as static files.",
        epilog="Exit statuses: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode) + ".",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    only = None if every_command else _invoked(argv)
    for name in COMMANDS:
        if only is None or name == only:
            importlib.import_module(f".commands.{name}", __package__).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser(argv, every_command=False).parse_args(argv)
    try:
        with signal_handled(signal.SIGTERM, _terminated):
            return int(args.handler(args))
    except KeyboardInterrupt:
        return _stopped("interrupted (SIGINT)", INTERRUPTED)
    except Terminated:
        return _stopped("terminated (SIGTERM)", TERMINATED)
    except BrokenPipeError:
        # The reader (`head`, a closed pipe) went away: nothing left to say, and no failure.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.OK)
    except Exception as exc:  # noqa: BLE001 - the one place where a bug becomes a message and a status
        traceback.print_exc(file=sys.stderr)
        print(f"bridgeshape-mirror: internal error: {exc!r}; please report it with the trace above", file=sys.stderr)
        return int(ExitCode.INTERNAL)


def run() -> NoReturn:
    """The console script (and `python -m bridgeshape_mirror.cli`): `main()`, then exit with
    its status. Tests call `main()`, which leaves the process as it was."""
    status = main()
    # The process ends here. Finalizing the interpreter runs the cyclic collector over every
    # object the command leaves (numpy's, the parser's, the models): 20 ms of a deals run
    # (measured, from the command's end to the process's: 30-37 ms, 10-13 ms frozen). Frozen
    # objects are left to the exit: atexit handlers and weakref finalizers (temporary
    # folders) still run, and every object freed by its last reference still is (files
    # closed, standard streams flushed); only garbage in reference cycles is not collected.
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    run()
