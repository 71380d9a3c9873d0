"""What is wrong with a DSL string, as data: a code that never changes, and where it is.

The English wording lives in `messages.py`, one table, so it can be translated or reworded
without touching the validator.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    EMPTY_SCENARIO = "empty-scenario"
    EMPTY_POSITION = "empty-position"
    UNKNOWN_ROLE = "unknown-role"
    DUPLICATE_ROLE = "duplicate-role"
    CONSTRAINT_BEFORE_ROLE = "constraint-before-role"
    MISSING_SEPARATOR = "missing-separator"
    NOT_KEY_VALUE = "not-key-value"
    UNKNOWN_KEY = "unknown-key"
    MISSING_VALUE = "missing-value"
    BAD_RANGE = "bad-range"
    RANGE_OUT_OF_BOUNDS = "range-out-of-bounds"
    MIN_GREATER_THAN_MAX = "min-greater-than-max"
    DUPLICATE_KEY = "duplicate-key"
    WILDCARD_WITHOUT_CANDIDATE = "wildcard-without-candidate"
    UNKNOWN_SHAPE = "unknown-shape"
    BAD_FIT = "bad-fit"
    #: The string is past one of `dsl.limits.LIMITS` (the message says which); not read further.
    LIMIT_EXCEEDED = "limit-exceeded"
    #: The last entry of a list cut at `Limits.errors`: how many more errors there are.
    MORE_ERRORS = "more-errors"
    #: The grammar accepts every string by design; this is only a safety net.
    SYNTAX_ERROR = "syntax-error"


@dataclass(frozen=True, slots=True)
class DslError:
    """One mistake. `scenario` counts from 1 (as an editor says "scenario 2"); `offset` and
    `length` are in characters (code points) of the raw string; `line`/`column` count from 1."""

    code: ErrorCode
    message: str
    scenario: int
    offset: int
    length: int
    line: int
    column: int
    token: str
    hint: str | None = None


class InvalidDsl(ValueError):
    """Raised by `parse_scenarios` for a string with errors; `.errors` lists them all."""

    def __init__(self, raw: str, errors: tuple[DslError, ...]):
        self.raw = raw
        self.errors = errors
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"scenario {first.scenario}, character {first.offset}: {first.message}{more}")
