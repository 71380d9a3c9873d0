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


class Progress:
    """A tqdm counter on a terminal; nothing under cron. Use as a context manager."""

    def __init__(self, description: str, unit: str):
        self._bar: Any = None
        self._description = description
        self._unit = unit

    def __enter__(self) -> Callable[[int], None] | None:
        if not sys.stderr.isatty():
            return None
        from tqdm import tqdm

        self._bar = tqdm(desc=self._description, unit=self._unit, leave=False, file=sys.stderr)
        return self._bar.update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
