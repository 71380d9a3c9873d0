"""A plain-text account of a parse result for a terminal: each error under its line, with a caret."""

from __future__ import annotations

from .errors import DslError
from .parser import ParseResult


def _caret_block(raw: str, error: DslError) -> list[str]:
    lines = raw.split("\n")
    text = lines[error.line - 1] if error.line - 1 < len(lines) else ""
    start = error.column - 1
    # Tabs would shift the caret; show them as single spaces, as the offsets count them.
    shown = text.replace("\t", " ").replace("\r", " ")
    width = max(1, min(error.length, len(shown) - start) if start < len(shown) else 1)
    return ["    " + shown, "    " + " " * start + "^" * width]


def explain(result: ParseResult) -> str:
    if result.valid:
        if not result.scenarios:
            return "valid: no constraints (the string is blank)"
        labels = ", ".join(s.label or f"#{i}" for i, s in enumerate(result.scenarios, start=1))
        count = len(result.scenarios)
        return f"valid: {count} scenario{'s' if count != 1 else ''} ({labels})"
    count = len(result.errors)
    out = [f"invalid: {count} error{'s' if count != 1 else ''}"]
    for error in result.errors:
        out.append("")
        out.append(f"scenario {error.scenario}, line {error.line}, column {error.column} [{error.code.value}]")
        out.append(f"  {error.message}")
        out.extend(_caret_block(result.raw, error))
        if error.hint:
            out.append(f"  hint: {error.hint}")
    return "\n".join(out)
