"""Another process holding a state store's run lock, as an overlapping cron run does."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_HOLD = (
    "import sys\nfrom bridgeshape_mirror.store.lock import RunLock\n"
    "with RunLock(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.read()\n"
)


@contextmanager
def held_elsewhere(state: Path) -> Iterator[subprocess.Popen[str]]:
    """A second Python process holding `state`'s lock until the block ends; its pid is the holder's."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(state)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n", "the holder did not take the lock"
        yield holder
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=30)
