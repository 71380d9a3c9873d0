"""Log lines for cron (timestamped, plain) and a progress bar only when a person is watching."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any


#: Control characters but the line end, and the bidi controls that reorder a line: a page
#: title or a DSL value in a message could otherwise move the cursor, recolour or rewrite
#: the terminal of whoever reads the log.
_UNPRINTABLE = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x0A), *range(0x0B, 0x20), *range(0x7F, 0xA0))}
_UNPRINTABLE.update({c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})


class _Printable(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        return super().formatMessage(record).translate(_UNPRINTABLE)


def setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity < 0 else logging.DEBUG if verbosity > 0 else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    if sys.stderr.isatty():
        handler.setFormatter(_Printable("%(levelname)s: %(message)s"))
    else:
        handler.setFormatter(_Printable("%(asctime)s bridgeshape-mirror %(levelname)s %(message)s"))
    handler.set_name("bridgeshape-mirror")
    root = logging.getLogger()
    # Replace only our own handler, so a second call (or a test's capture handler) keeps working.
    root.handlers[:] = [h for h in root.handlers if h.get_name() != "bridgeshape-mirror"] + [handler]
    root.setLevel(level)
    # mwclient logs every retry it would do itself; ours says it better.
    logging.getLogger("mwclient").setLevel(logging.ERROR)


def watched() -> bool:
    """A person is watching: standard error is a terminal and info lines are shown (-q, as
    cron runs it, turns them off; so does a pipe or a file)."""
    return sys.stderr.isatty() and logging.getLogger().isEnabledFor(logging.INFO)


class Progress:
    """Progress bars on a terminal, one stage at a time (`stage`); nothing when nobody
    watches (see `watched`). A context manager: it gives itself, or None when nobody
    watches. While it is open, log lines are written above the bar, each on its own line
    (tqdm's logging redirect): a line written to the terminal directly would land on the
    bar's line. Implements the build's progress protocol (`site_builder.build.Progress`)."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._redirect: Any = None

    def __enter__(self) -> Progress | None:
        if not watched():
            return None
        from tqdm.contrib.logging import logging_redirect_tqdm  # only on a terminal

        self._redirect = logging_redirect_tqdm()
        self._redirect.__enter__()
        return self

    def stage(self, description: str, unit: str, total: int | None = None) -> Callable[[int], None]:
        """Begin a stage (ending the one before): returns the function that counts units done."""
        from tqdm import tqdm

        self._close_bar()
        # mininterval: counts that move when work is quick (the sample's 24 pages) are still seen.
        self._bar = tqdm(desc=description, unit=unit, total=total, leave=False, file=sys.stderr, mininterval=0.05)
        return self._bar.update

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.refresh()  # the stage's last count, which a quick stage would not show
            self._bar.close()
            self._bar = None

    def __exit__(self, *exc: object) -> None:
        self._close_bar()
        if self._redirect is not None:
            self._redirect.__exit__(*exc)
            self._redirect = None
