"""What went wrong with a request, in words an operator can act on: which host and port,
and the cause (name not resolved, connection refused, TLS failure, timed out, an HTTP
status with the start of the body), instead of an exception class name.

requests wraps urllib3 wraps the socket error; the cause is found by walking that chain.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from urllib.parse import urlsplit

import requests
import urllib3.exceptions

#: How much of an error body is quoted: enough to recognise a proxy's or a PHP error page.
BODY_BYTES = 120


def where(url: str) -> str:
    """`host:port` of a URL, the port the scheme implies when none is written."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname or '?'}:{port}"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it wraps: causes, contexts, urllib3's `reason`, first arguments."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        wrapped = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        wrapped += [a for a in getattr(current, "args", ()) if isinstance(a, BaseException)]
        todo += [w for w in wrapped if isinstance(w, BaseException)]


def connection_cause(exc: BaseException) -> str:
    """The cause of a failed connection, in words."""
    chain = list(_chain(exc))
    for kind, words in (
        ((urllib3.exceptions.NameResolutionError, socket.gaierror), "the host name could not be resolved"),
        ((ConnectionRefusedError,), "connection refused (nothing listens there, or a firewall rejects it)"),
        ((ConnectionResetError,), "the connection was reset by the other end"),
    ):
        if any(isinstance(e, kind) for e in chain):
            return words
    for error in chain:
        if isinstance(error, (ssl.SSLError, requests.exceptions.SSLError)):
            return f"TLS failure: {_innermost_text(error)}"
    return _innermost_text(exc)


def _innermost_text(exc: BaseException) -> str:
    """The most specific message of the chain (an OSError's strerror when there is one)."""
    for error in reversed(list(_chain(exc))):
        if isinstance(error, OSError) and error.strerror:
            return error.strerror
    return str(exc) or exc.__class__.__name__


def connection_failure(url: str, exc: BaseException) -> str:
    return f"cannot connect to the wiki at {where(url)}: {connection_cause(exc)}"


def timeout_failure(url: str, action: str, seconds: float) -> str:
    return f"no answer from the wiki at {where(url)} to {action}: timed out after {seconds:g} s"


def http_failure(url: str, action: str, response: requests.Response | None) -> str:
    """The status and the first bytes of the body: a proxy's or PHP's error page says why."""
    if response is None:
        return f"the wiki at {where(url)} answered {action} with an HTTP error"
    body = (response.content or b"")[:BODY_BYTES].decode("utf-8", "replace")
    snippet = " ".join(body.split())
    return f"the wiki at {where(url)} answered HTTP {response.status_code} to {action}" + (
        f": {snippet!r}" if snippet else ""
    )
