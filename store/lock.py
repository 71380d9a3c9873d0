"""One run at a time per state store: an advisory lock that the kernel drops if the process dies.

The lock file says who holds it, for the operator who looks and for the run that finds it
held (`LockHeld`), one `key: value` a line:

    pid: 4242
    host: mirror-1
    since: 2026-12-03T13:55:16Z
"""

from __future__ import annotations

import fcntl
import os
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType

from .errors import LockHeld, StateError

#: A run takes at most its wiki deadline and its build: a lock held longer belongs to a run
#: that hangs (or was killed on another host, for a lock the kernel does not drop).
HUNG_AFTER = timedelta(hours=1)


def lock_text(pid: int, host: str, since: datetime) -> str:
    """What a lock file holds: who took it, and when (UTC, to the second)."""
    stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"pid: {pid}\nhost: {host}\nsince: {stamp}\n"


def read_holder(path: Path) -> LockHeld:
    """The `LockHeld` a held lock file gives: its holder as the file says, each part None
    where it does not (a holder that has not written it yet, a file edited by hand)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    said = dict(line.partition(":")[::2] for line in text.splitlines() if ":" in line)
    said = {key.strip(): value.strip() for key, value in said.items()}
    pid = int(said["pid"]) if said.get("pid", "").isdigit() else None
    host = said.get("host") or None
    try:
        since: datetime | None = datetime.fromisoformat(said.get("since", "")).astimezone(UTC)
    except ValueError:
        since = None
    who = f"pid {pid if pid is not None else '?'} on {host or '?'}" + (f", since {since:%Y-%m-%d %H:%M:%S} UTC" if since else "")
    return LockHeld(f"another run holds {path} ({who}); this one does nothing", pid=pid, host=host, since=since)


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
            raise read_holder(self.path) from None
        os.ftruncate(fd, 0)
        os.write(fd, lock_text(os.getpid(), socket.gethostname(), datetime.now(UTC)).encode())
        self._fd = fd
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
