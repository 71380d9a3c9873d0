"""The settings of a sync: how the API client talks to the wiki (`ClientSettings`) and what
a sync reads (`SyncSettings`). Their own module, without the client: the CLI reads their
defaults for every command's configuration, and a `build` or `serve` should not import
mwclient and requests to learn them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any


@dataclass(frozen=True)
class ClientSettings:
    """The defaults here are the only ones: the CLI's configuration and help read them."""

    api_url: str
    contact: str = ""
    #: Seconds for one request (connect and read), never more than what is left of the deadline.
    timeout: float = 30.0
    #: Retries after the first attempt of one request.
    max_retries: int = 4
    #: First backoff in seconds; it doubles on each retry of the same request.
    backoff: float = 2.0
    #: Longest single wait, Retry-After included; a longer Retry-After ends the run instead.
    max_wait: float = 120.0
    #: Seconds for the whole run; no request starts or waits past it.
    deadline: float = 600.0
    maxlag: int = 5
    username: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class SyncSettings:
    """The defaults here are the only ones: the CLI's configuration and help read them."""

    template: str = "Convenzione"
    parameter: str = "shape_constraints"
    category: str | None = None
    full: bool = False
    #: Older cursors fall back to a full sync: recent changes expire ($wgRCMaxAge, 90 days by
    #: default); the margin covers clock skew and purge timing.
    rc_max_age: timedelta = timedelta(days=80)
    #: How often the cheap `prop=info` comparison runs (None: never; zero: every run).
    info_check_every: timedelta | None = timedelta(hours=6)
    #: Accept a mass removal of stored pages (`guard.py`) this once, on purpose.
    allow_removals: bool = False

    def selection(self, source: str) -> dict[str, Any]:
        return {"source": source, "template": self.template, "parameter": self.parameter, "category": self.category}
