"""Bounds on one shape_constraints string, checked before any parsing work.

A wiki page is written by anyone; without these, one page of 2,000 scenarios, 100 KB of
`//` or a number of 5,000 digits could stop every build. Each limit is far above what a
real convention page needs (the longest page of the sample wiki has 6 scenarios and a few
hundred characters), so only a hostile or broken page reaches one. A string past a limit
gets one `limit-exceeded` error saying which, and nothing else of it is read: that is what
keeps the work bounded. README lists these values; docs/DECISIONS.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import messages
from .errors import DslError, ErrorCode


@dataclass(frozen=True)
class Limits:
    #: Characters (code points) of the whole string.
    characters: int = 20_000
    #: Scenarios, the parts between `//`.
    scenarios: int = 64
    #: Positions in one scenario, the parts between `;` (there are only four roles).
    positions: int = 16
    #: Constraints in one scenario, counted as its colons (a label's colon included); a
    #: position has at most 13 keys, and fits may repeat.
    keys: int = 100
    #: Digits of one number in a value. No bound of the DSL needs more than 2, but leading
    #: zeros are allowed, and below this a long number is range-out-of-bounds as before.
    #: CPython refuses int() past 4,300 digits (and is quadratic before): keep far below.
    digits: int = 100
    #: Errors listed for one string; the rest are counted in a last `more-errors` entry.
    errors: int = 100


LIMITS = Limits()


def limit_error(raw: str, name: str, offset: int, scenario: int, **fields: object) -> DslError:
    """The one error of a string past limit `name`, placed at `offset` (the first character
    past it)."""
    offset = min(offset, len(raw))
    token = raw[offset : offset + 1]
    return DslError(
        code=ErrorCode.LIMIT_EXCEEDED,
        message=messages.limit(name, scenario=scenario, **fields),
        scenario=scenario,
        offset=offset,
        length=len(token),
        line=raw.count("\n", 0, offset) + 1,
        column=offset - (raw.rfind("\n", 0, offset) + 1) + 1,
        token=token,
    )


def _nth(text: str, needle: str, n: int, start: int) -> int:
    """The offset of the `n`-th (from 1) `needle` in `text` from `start` (it exists)."""
    at = start - len(needle)
    for _ in range(n):
        at = text.find(needle, at + len(needle))
    return at


def check(raw: str, limits: Limits = LIMITS) -> DslError | None:
    """The first limit `raw` is past (length, then scenarios, then each scenario's positions
    and constraints), or None. Linear in the length, which is checked first."""
    if len(raw) > limits.characters:
        return limit_error(raw, "characters", limits.characters, 1, count=len(raw), limit=limits.characters)
    # A label cannot hold "//", so every "//" separates scenarios, as in the grammar.
    scenarios = raw.count("//") + 1
    if scenarios > limits.scenarios:
        offset = _nth(raw, "//", limits.scenarios, 0)
        return limit_error(raw, "scenarios", offset, limits.scenarios + 1, count=scenarios, limit=limits.scenarios)
    start = 0
    for number, part in enumerate(raw.split("//"), start=1):
        positions = part.count(";") + 1
        if positions > limits.positions:
            offset = _nth(raw, ";", limits.positions, start)
            return limit_error(raw, "positions", offset, number, count=positions, limit=limits.positions)
        keys = part.count(":")
        if keys > limits.keys:
            offset = _nth(raw, ":", limits.keys + 1, start)
            return limit_error(raw, "keys", offset, number, count=keys, limit=limits.keys)
        start += len(part) + 2
    return None


def too_many_digits(text: str, limits: Limits = LIMITS) -> bool:
    """Whether `text` (a value token) holds a number longer than the limit: checked before
    `int()` is ever called on it."""
    run = 0
    for ch in text:
        run = run + 1 if "0" <= ch <= "9" else 0
        if run > limits.digits:
            return True
    return False


def cap_errors(raw: str, errors: list[DslError], limits: Limits = LIMITS) -> tuple[DslError, ...]:
    """The first `limits.errors` errors (sorted by place), and one last entry counting the
    rest, placed at the first one left out."""
    if len(errors) <= limits.errors:
        return tuple(errors)
    left_out = errors[limits.errors]
    more = DslError(
        code=ErrorCode.MORE_ERRORS,
        message=messages.render(ErrorCode.MORE_ERRORS, count=len(errors) - limits.errors, limit=limits.errors),
        scenario=left_out.scenario,
        offset=left_out.offset,
        length=0,
        line=left_out.line,
        column=left_out.column,
        token="",
    )
    return (*errors[: limits.errors], more)
