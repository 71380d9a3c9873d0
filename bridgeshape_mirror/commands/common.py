"""What the subcommands share: reading a DSL argument, and turning library errors into exit statuses."""

from __future__ import annotations

import sys

from site_builder.publish import PublishError
from store.errors import LockHeld, StateError
from sync.errors import BadSource, DumpError, WikiApiError, WikiGarbage, WikiUnavailable

from ..config import ConfigError
from ..exit_codes import ExitCode

#: Library errors a run can end with, and what cron is told for each (first match wins).
EXIT_CODES: tuple[tuple[type[Exception] | tuple[type[Exception], ...], ExitCode], ...] = (
    (LockHeld, ExitCode.LOCKED),
    ((WikiUnavailable, WikiGarbage, WikiApiError), ExitCode.WIKI_ERROR),
    ((ConfigError, BadSource), ExitCode.USAGE),
    (DumpError, ExitCode.INVALID),
    (StateError, ExitCode.STATE_ERROR),
    (PublishError, ExitCode.BUILD_ERROR),
)

#: What a run catches and reports; anything else is a bug (ExitCode.INTERNAL, with a trace).
EXPECTED_ERRORS: tuple[type[Exception], ...] = tuple(
    kind for kinds, _ in EXIT_CODES for kind in (kinds if isinstance(kinds, tuple) else (kinds,))
)


def exit_code_for(exc: Exception) -> ExitCode:
    for kinds, code in EXIT_CODES:
        if isinstance(exc, kinds):
            return code
    return ExitCode.INTERNAL


def read_dsl_argument(value: str) -> str:
    """The DSL given on the command line, or standard input for "-"; trimmed like a template value."""
    text = sys.stdin.read() if value == "-" else value
    return text.strip(" \t\r\n")
