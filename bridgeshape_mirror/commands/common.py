"""Argument helpers shared by subcommands."""

from __future__ import annotations

import sys


def read_dsl_argument(value: str) -> str:
    """The DSL given on the command line, or standard input for "-"; trimmed like a template value."""
    text = sys.stdin.read() if value == "-" else value
    return text.strip(" \t\r\n")
