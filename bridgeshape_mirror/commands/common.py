"""What the subcommands share: reading a DSL argument, help texts that name the defaults,
the skeleton of a run that holds the lock, and turning library errors into exit statuses."""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol

from ..exit_codes import ExitCode
from ..logs import setup_logging

if TYPE_CHECKING:
    from ..config import Config

log = logging.getLogger("bridgeshape_mirror")


@cache
def exit_codes() -> tuple[tuple[type[Exception] | tuple[type[Exception], ...], ExitCode], ...]:
    """Library errors a run can end with, and what cron is told for each (first match wins).
    Built on first use: the modules holding the errors are slow to import, and `validate`
    and `deals` never need them (`EXIT_CODES` names the same table)."""
    from bridgeshape_mirror.site_builder.object_store import BucketLocked
    from bridgeshape_mirror.site_builder.publish import PublishError
    from bridgeshape_mirror.store.errors import LockHeld, StateError, SuspiciousChange
    from bridgeshape_mirror.sync.errors import BadSetting, BadSource, DumpError, FeedError, UnknownName, WikiApiError, WikiGarbage, WikiUnavailable

    from bridgeshape_mirror.deals.errors import NotExpressible
    from bridgeshape_mirror.dsl.language import UnknownLanguage

    from ..config import ConfigError

    return (
        ((LockHeld, BucketLocked), ExitCode.LOCKED),
        (SuspiciousChange, ExitCode.REFUSED),
        ((WikiUnavailable, WikiGarbage, WikiApiError), ExitCode.WIKI_ERROR),
        ((ConfigError, BadSetting, BadSource, FeedError, UnknownName, UnknownLanguage), ExitCode.USAGE),
        ((DumpError, NotExpressible), ExitCode.INVALID),
        (StateError, ExitCode.STATE_ERROR),
        (PublishError, ExitCode.BUILD_ERROR),
    )


@cache
def expected_errors() -> tuple[type[Exception], ...]:
    """What a run catches and reports; anything else is a bug (ExitCode.INTERNAL, with a trace)."""
    return tuple(kind for kinds, _ in exit_codes() for kind in (kinds if isinstance(kinds, tuple) else (kinds,)))


def __getattr__(name: str) -> object:
    if name == "EXIT_CODES":
        return exit_codes()
    if name == "EXPECTED_ERRORS":
        return expected_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def described(exc: Exception) -> str:
    """An error's message, with what the operator can do about it where the CLI knows."""
    from bridgeshape_mirror.store.errors import SuspiciousChange

    if isinstance(exc, SuspiciousChange):
        return f"{exc} (if it is meant, run again with --allow-removals, or set allow_removals = true in [sync]; it applies to sync and build)"
    return str(exc)


def exit_code_for(exc: Exception) -> ExitCode:
    for kinds, code in exit_codes():
        if isinstance(exc, kinds):
            return code
    return ExitCode.INTERNAL


class Report(Protocol):
    def summary(self) -> str: ...

    #: What went wrong although the run published (a scenario that failed), or "".
    def warning(self) -> str: ...


@dataclass(frozen=True)
class Failure:
    """How `work` ends a run that failed without raising (update's failed sync step): the
    status, and the sentence its summary line gives as the cause."""

    code: ExitCode
    cause: str


@dataclass(frozen=True)
class Overlap:
    """A run that found another one holding the state's lock (exit 3): what it found."""

    held: Exception


def run_locked(
    args: argparse.Namespace,
    configure: Callable[[argparse.Namespace], Config],
    work: Callable[[Config], Report | Failure | ExitCode],
    failure: str,
) -> ExitCode:
    """A run of sync, build or update: logging as -q/-v say, the configuration, `work` under
    the state store's lock, then one summary line, the run's last. An expected library
    error gives its exit status, its cause after `failure` (what it means for the user);
    `work` may also end the run with a `Failure` or a status of its own. Anything else is a
    bug: cli.main reports it."""
    setup_logging(args.verbose - args.quiet)
    started = time.monotonic()
    try:
        config = configure(args)
    except expected_errors() as exc:
        outcome: Report | Failure | Overlap | ExitCode = Failure(exit_code_for(exc), f"{failure}: {described(exc)}")
    else:
        outcome = locked(config, work, failure, kind=getattr(args, "command", None) or "run")
    return summary_line(getattr(args, "command", None) or "run", outcome, time.monotonic() - started)


def locked(
    config: Config,
    work: Callable[[Config], Report | Failure | ExitCode],
    failure: str,
    *,
    kind: str = "run",
    follower: bool = False,
) -> Report | Failure | Overlap | ExitCode:
    """`work` under the state store's lock, an expected library error as its `Failure`. A
    run waits (up to its deadline) while a follower holds the lock for one publish; the
    follower (`follow`, between its publishes) waits for any run, as long as it takes. `kind`:
    what the lock file names the holder (the command)."""
    from bridgeshape_mirror.store.lock import FOLLOWER, RunLock

    lock = (
        RunLock(config.state, kind=FOLLOWER, wait=math.inf, wait_for_any=True) if follower
        else RunLock(config.state, kind=kind, wait=config.deadline)
    )
    try:
        with lock:
            outcome = work(config)
    except expected_errors() as exc:
        if exit_code_for(exc) == ExitCode.LOCKED:
            return Overlap(exc)
        outcome = Failure(exit_code_for(exc), f"{failure}: {described(exc)}")
    if isinstance(outcome, ExitCode) and outcome != ExitCode.OK:
        outcome = Failure(outcome, "")
    return outcome


def _overlap(command: str, exc: Exception) -> ExitCode:
    """The summary line of a run that found another one running (exit 3). Cron starts runs
    that overlap a long one as a matter of course: the line is at info level, so -q mails
    nothing, unless the state's lock has been held past `HUNG_AFTER`; then a WARNING names
    the holder and since when, so a hung run is seen. (A bucket's lock that old is taken
    over, with a warning: object_store.LOCK_STALE; its exit 3 is a younger lock.)"""
    from bridgeshape_mirror.store.errors import LockHeld
    from bridgeshape_mirror.store.lock import HUNG_AFTER

    held_for = exc.held_for() if isinstance(exc, LockHeld) else None
    if held_for is not None and held_for > HUNG_AFTER:
        log.warning(
            "%s: not run (exit %d %s) with WARNING: the lock has been held for %.1f h, longer than a run takes (a hung run?): %s",
            command, ExitCode.LOCKED, ExitCode.LOCKED.name.lower(), held_for.total_seconds() / 3600, exc,
        )
    else:
        log.info("%s: not run (exit %d %s): %s", command, ExitCode.LOCKED, ExitCode.LOCKED.name.lower(), exc)
    return ExitCode.LOCKED


def summary_line(
    command: str, outcome: Report | Failure | Overlap | ExitCode, seconds: float, *, quiet_when_unchanged: bool = False
) -> ExitCode:
    """Log the line a cron mail is read from, and return the run's status. A success is
    logged at info level (so -q, as cron runs it, mails nothing), a failure as an error, and
    a success with a warning (a scenario that failed and was published without its deals)
    as a warning: still exit 0, but -q prints it, so cron mails it. With
    `quiet_when_unchanged` (a follower's poll), a success that published nothing is a debug line."""
    if isinstance(outcome, Overlap):
        return _overlap(command, outcome.held)
    if isinstance(outcome, Failure):
        cause = f": {outcome.cause}" if outcome.cause else ""
        log.error("%s: FAILED (exit %d %s)%s", command, outcome.code, outcome.code.name.lower(), cause)
        return outcome.code
    detail = "" if isinstance(outcome, ExitCode) else f"{outcome.summary()}; "
    warning = "" if isinstance(outcome, ExitCode) else outcome.warning()
    if warning:
        log.warning("%s: ok with WARNING: %s: %sin %.1f s", command, warning, detail, seconds)
    elif quiet_when_unchanged and getattr(outcome, "changed", True) is False:
        log.debug("%s: ok: %sin %.1f s", command, detail, seconds)
    else:
        log.info("%s: ok: %sin %.1f s", command, detail, seconds)
    return ExitCode.OK


@cache
def _defaults() -> dict[str, object]:
    from ..config import Config, upper_bounds

    return {**vars(Config()), **{f"{name}_limit": bound for name, bound in upper_bounds().items()}}


class HelpWithDefaults(argparse.HelpFormatter):
    """Fills `{name}` in a help text with Config's default for `name` (format spec allowed:
    `{timeout:g}`). Only when help is shown: most defaults are the library's, whose modules
    are slow to import (see config._library)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        return text.format_map(_defaults()) if text and "{" in text else text


def read_dsl_argument(value: str) -> str:
    """The DSL given on the command line, or standard input for "-"; trimmed like a template value."""
    text = sys.stdin.read() if value == "-" else value
    return text.strip(" \t\r\n")


def non_negative(text: str) -> int:
    """An argparse type: an integer of 0 or more (a count of deals, a seed)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def at_most(text: str, limit: int, why: str) -> int:
    """An integer of 0 to `limit`; the message says why there is a bound."""
    value = non_negative(text)
    if value > limit:
        raise argparse.ArgumentTypeError(f"must be at most {limit} ({why}), not {text:.40}")
    return value


def seed(text: str) -> int:
    """An argparse type: a seed, 0 to what the state store keeps (`config.upper_bound`)."""
    from ..config import upper_bound

    return at_most(text, *upper_bound("seed"))


def deals_per_scenario(text: str) -> int:
    """An argparse type: the build's deals per scenario, 0 to what a page carries (`config.upper_bound`)."""
    from ..config import upper_bound

    return at_most(text, *upper_bound("deals"))


def positive(text: str) -> int:
    """An argparse type: an integer of 1 or more (a scenario number, a count)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def chosen_scenarios(dsl_argument: str, scenario: int | None) -> tuple[list, int] | ExitCode:
    """For `deals` and `export`: the DSL argument's scenarios as (number, Scenario), all or
    only `scenario`, and how many the DSL has; or, having said why on stderr, the exit
    status (an invalid DSL, a scenario number past the last)."""
    from bridgeshape_mirror import dsl

    result = dsl.parse(read_dsl_argument(dsl_argument))
    if not result.valid:
        for error in result.errors:
            print(f"scenario {error.scenario}, character {error.offset}: {error.message}", file=sys.stderr)
        return ExitCode.INVALID
    scenarios = list(enumerate(result.scenarios, start=1))
    if scenario is not None:
        if scenario > len(scenarios):
            print(f"--scenario {scenario}: the DSL has {len(scenarios)} scenario(s)", file=sys.stderr)
            return ExitCode.USAGE
        scenarios = [scenarios[scenario - 1]]
    return scenarios, len(result.scenarios)
