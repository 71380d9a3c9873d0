"""Named failures of the state store and the run lock. The CLI turns each into a message and an exit status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class StoreError(Exception):
    """Base: the state file could not be used; what it held is as it was before the run."""


class StateError(StoreError):
    """The local state store cannot be read or written (corrupt, locked by SQLite, wrong schema)."""


class LockHeld(StoreError):
    """Another run holds the lock on this state store: its process, host and when it took
    the lock, as the lock file says (None where it does not: a holder that has not written
    it yet)."""

    def __init__(self, message: str, pid: int | None = None, host: str | None = None, since: datetime | None = None):
        self.pid = pid
        self.host = host
        self.since = since
        super().__init__(message)

    def held_for(self, now: datetime | None = None) -> timedelta | None:
        """How long the holder has held the lock, or None when the file does not say."""
        return None if self.since is None else (now or datetime.now(UTC)) - self.since


class SuspiciousChange(StoreError):
    """The run would remove too many convention pages, from the store (a sync) or from the
    published mirror (a build), to be trusted unattended (a mistyped template or category, a
    wrong wiki or state store, a truncated export); nothing was written."""

    def __init__(self, message: str, removed: int, stored: int):
        self.removed = removed
        self.stored = stored
        super().__init__(message)
