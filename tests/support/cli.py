"""The command line as the tests run it: `main()`'s status (argparse's exits included), and
the `deals` command run in this process, its standard streams captured."""

from __future__ import annotations

import argparse
import io
import sys

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.commands import deals as deals_command
from bridgeshape_mirror.commands import export as export_command


def status(*argv: str) -> int:
    """main's status, argparse's own exits (SystemExit) included."""
    try:
        return main(list(argv))
    except SystemExit as stop:
        return int(stop.code or 0)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bridgeshape-mirror")
    deals_command.register(p.add_subparsers(dest="command"))
    return p


def run(monkeypatch, *argv: str, stdin: str = "") -> tuple[int, bytes, str]:
    out = io.BytesIO()
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8"))
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    args = parser().parse_args(["deals", *argv])
    code = args.handler(args)
    sys.stdout.flush()
    return int(code), out.getvalue(), err.getvalue()


def run_export(monkeypatch, *argv: str) -> tuple[int, str, str]:
    """The `export` command run in this process: its status, standard output and error."""
    p = argparse.ArgumentParser(prog="bridgeshape-mirror")
    export_command.register(p.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    args = p.parse_args(["export", *argv])
    return int(args.handler(args)), out.getvalue(), err.getvalue()
