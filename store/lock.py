"""One run at a time per state store: an advisory lock that the kernel drops if the process dies."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from .errors import LockHeld, StateError


class RunLock:
    def __init__(self, state_path: str | Path):
        self.path = Path(f"{state_path}.lock")
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # the state's folder is a file, or not writable: the state's fault
            raise StateError(f"cannot make the lock file {self.path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LockHeld(f"another run holds {self.path}; this one does nothing") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
