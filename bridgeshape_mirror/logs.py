"""Log lines for cron (timestamped, plain) and a progress bar only when a person is watching."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any


def setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity < 0 else logging.DEBUG if verbosity > 0 else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    if sys.stderr.isatty():
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s bridgeshape-mirror %(levelname)s %(message)s"))
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
