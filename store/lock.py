"""One run at a time per state store: an advisory lock that the kernel drops if the process dies.

The holder writes its pid and its kind into the lock file. A `follow` run holds the lock
only for one publish at a time, so a run that finds a follower holding it waits its turn
instead of failing; two cron runs that overlap still do not wait for each other (the second
does nothing, `LockHeld`). A follower itself waits for any holder (`wait_for_any`)."""

from __future__ import annotations

import fcntl
import math
import os
import time
from pathlib import Path
from types import TracebackType

from .errors import LockHeld, StateError

#: The kind a `follow` run writes into the lock file.
FOLLOWER = "follow"
#: How often a waiting run tries the lock again.
RETRY_EVERY = 0.1


class RunLock:
    def __init__(self, state_path: str | Path, *, kind: str = "run", wait: float = 0.0, wait_for_any: bool = False):
        """`wait`: seconds a run waits for a follower's turn to end (for any holder with
        `wait_for_any`; `math.inf`: as long as it takes) before `LockHeld`."""
        self.path = Path(f"{state_path}.lock")
        self.kind = kind
        self.wait = wait
        self.wait_for_any = wait_for_any
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # the state's folder is a file, or not writable: the state's fault
            raise StateError(f"cannot make the lock file {self.path}: {exc}") from exc
        deadline = time.monotonic() + self.wait if math.isfinite(self.wait) else math.inf
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = self._holder(fd)
                waits = self.wait_for_any or holder in (FOLLOWER, "")
                if not waits or time.monotonic() >= deadline:
                    os.close(fd)
                    who = "another run" if holder in ("", "run") else f"another run ({holder})"
                    raise LockHeld(f"{who} holds {self.path}; this one does nothing") from None
                time.sleep(RETRY_EVERY)  # a signal ends the wait: its handler raises
            except BaseException:
                os.close(fd)
                raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {self.kind}\n".encode())
        self._fd = fd
        return self

    @staticmethod
    def _holder(fd: int) -> str:
        """The kind the holder wrote ("" while it is still writing it, or an older holder's
        file without one, which is then waited for until the deadline)."""
        try:
            words = os.pread(fd, 64, 0).decode("ascii", "replace").split()
        except OSError:
            return ""
        return words[1] if len(words) > 1 else ""

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
