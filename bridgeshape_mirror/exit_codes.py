"""Exit statuses of the `bridgeshape-mirror` command. Cron and scripts read them: never renumber."""

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    #: The input was understood and is wrong: invalid DSL, an unsatisfiable scenario.
    INVALID = 1
    #: The command line itself is wrong (argparse uses 2 as well).
    USAGE = 2
    #: Another run holds the lock; this one did nothing.
    LOCKED = 3
    #: The wiki could not be read (unreachable, errors, garbage, deadline passed); state kept.
    WIKI_ERROR = 4
    #: The local state store or configuration could not be read or written.
    STATE_ERROR = 5
    #: The mirror could not be built or published; the published mirror is unchanged.
    BUILD_ERROR = 6
    #: Refused: the run would remove too many convention pages (a suspicious change); state
    #: and mirror untouched. --allow-removals accepts it on purpose.
    REFUSED = 7
    #: A bug: an exception nobody expected. The message asks for a report.
    INTERNAL = 70


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt for SIGINT (`cli.main` sets
    the handler; a run stopped by it exits 143): the run unwinds (the worker pool is
    stopped, the lock released, a half-made version left for the next build to clear)
    instead of dying where it stands. Not an Exception: nothing catches it by accident.
    Here, not in `cli`, so that a command catching it meets the same class when `cli` runs
    as `__main__`."""


@contextmanager
def signal_handled(signum: int, handler: Callable[[int, object], object]) -> Iterator[None]:
    """`handler` for `signum` while the block runs, the previous one back after it (the
    default when Python's was not one of its own); nothing in a thread other than the main
    one, the only one that may set handlers (tests call commands from others)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
