"""One run at a time per state store: an advisory lock that the kernel drops if the process dies.

The lock file says who holds it, for the operator who looks and for the run that finds it
held (`LockHeld`), one `key: value` a line:

    pid: 4242
    host: mirror-1
    since: 2026-12-03T13:55:16Z
    command: update

A `follow` run holds the lock only for one publish at a time, so a run that finds a follower
holding it waits its turn instead of failing; two cron runs that overlap still do not wait for
each other (the second does nothing, `LockHeld`). A follower itself waits for any holder
(`wait_for_any`).
"""

from __future__ import annotations

import fcntl
import math
import os
import socket
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType

from .errors import LockHeld, StateError

#: A run takes at most its wiki deadline and its build: a lock held longer belongs to a run
#: that hangs (or was killed on another host, for a lock the kernel does not drop).
HUNG_AFTER = timedelta(hours=1)
#: The command a `follow` run writes into the lock file.
FOLLOWER = "follow"
#: How often a waiting run tries the lock again.
RETRY_EVERY = 0.1


def lock_text(pid: int, host: str, since: datetime, command: str = "run") -> str:
    """What a lock file holds: who took it, when (UTC, to the second) and for which command."""
    stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"pid: {pid}\nhost: {host}\nsince: {stamp}\ncommand: {command}\n"


def _said(text: str) -> dict[str, str]:
    said = dict(line.partition(":")[::2] for line in text.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in said.items()}


def read_holder(path: Path) -> LockHeld:
    """The `LockHeld` a held lock file gives: its holder as the file says, each part None
    where it does not (a holder that has not written it yet, a file edited by hand)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    said = _said(text)
    pid = int(said["pid"]) if said.get("pid", "").isdigit() else None
    host = said.get("host") or None
    try:
        since: datetime | None = datetime.fromisoformat(said.get("since", "")).astimezone(UTC)
    except ValueError:
        since = None
    command = said.get("command", "")
    holder = "another run" if command in ("", "run") else f"another run ({command})"
    who = f"pid {pid if pid is not None else '?'} on {host or '?'}" + (f", since {since:%Y-%m-%d %H:%M:%S} UTC" if since else "")
    return LockHeld(f"{holder} holds {path} ({who}); this one does nothing", pid=pid, host=host, since=since)


class RunLock:
    def __init__(self, state_path: str | Path, *, kind: str = "run", wait: float = 0.0, wait_for_any: bool = False):
        """`kind`: the command taking the lock; `wait`: seconds a run waits for a follower's
        turn to end (for any holder with `wait_for_any`; `math.inf`: as long as it takes)
        before `LockHeld`."""
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
                    raise read_holder(self.path) from None
                time.sleep(RETRY_EVERY)  # a signal ends the wait: its handler raises
            except BaseException:
                os.close(fd)
                raise
        os.ftruncate(fd, 0)
        os.write(fd, lock_text(os.getpid(), socket.gethostname(), datetime.now(UTC), self.kind).encode())
        self._fd = fd
        return self

    @staticmethod
    def _holder(fd: int) -> str:
        """The command the holder wrote ("" while it is still writing it, or an older holder's
        file without one, which is then waited for until the deadline)."""
        try:
            text = os.pread(fd, 256, 0).decode("ascii", "replace")
        except OSError:
            return ""
        return _said(text).get("command", "")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
