"""The settings of a sync: how the API client talks to the wiki (`ClientSettings`) and what
a sync reads (`SyncSettings`). Their own module, without the client: the CLI reads their
defaults for every command's configuration, and a `build` or `serve` should not import
mwclient and requests to learn them."""

from __future__ import annotations

import string
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from .errors import BadSetting
from .titles import SPACE_CHARACTERS

#: What a header value may hold (RFC 9110's visible ASCII and the space): a contact goes into
#: the User-Agent, and a line break there would be a header of its own (requests refuses it).
_HEADER_CHARACTERS = frozenset(map(chr, range(0x20, 0x7F)))


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

    def __post_init__(self) -> None:
        check_contact(self.contact)


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

    def __post_init__(self) -> None:
        check_names(self.template, self.parameter)

    def selection(self, source: str) -> dict[str, Any]:
        return {"source": source, "template": self.template, "parameter": self.parameter, "category": self.category}


@dataclass(frozen=True)
class FollowSettings:
    """How `follow` waits (its feed is `change_feed`). The defaults here are the only ones:
    the CLI's configuration and help read them."""

    #: `udp://HOST:PORT` the wiki's `$wgRCFeeds` sends to; None: polling only.
    listen: str | None = None
    #: Seconds between the polls of `list=recentchanges`, the safety net of a lost datagram.
    poll: float = 60.0
    #: Seconds from one publish's start to the next one's at the soonest: the saves of a
    #: burst after the first go out together at the end of it (docs/DECISIONS.md).
    coalesce: float = 10.0


def check_contact(contact: str) -> None:
    """`BadSetting` unless `contact` can go into the User-Agent header as it is."""
    if not set(contact) <= _HEADER_CHARACTERS:
        raise BadSetting(
            f"contact = {contact!r:.80} cannot go into the User-Agent header: "
            "printable ASCII only (an email or URL), no line breaks or control characters"
        )


def check_names(template: str, parameter: str) -> None:
    """`BadSetting` for a blank template or parameter name: no page would ever match it, and
    a sync of 0 pages would look like a success."""
    for key, value in (("template", template), ("parameter", parameter)):
        if not value.strip(SPACE_CHARACTERS + string.whitespace):
            default = getattr(SyncSettings, key)
            raise BadSetting(f"{key} = {value!r:.40} is blank: a {key} name is needed (the default is {default!r})")
