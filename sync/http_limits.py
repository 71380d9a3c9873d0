"""Bounds on one answer of the wiki, whatever the server does: the request's timeout holds
for the whole answer, not only for each gap between bytes (an answer dripping one byte a
second passed `--timeout 5` for minutes, the run lock held), and an answer larger than
`max_bytes` is refused without being read whole (a 3 GB answer took 6 GB of memory).

Mounted on the client's requests session (`sync/client.py`), so mwclient, which reads
`response.content` and `.json()`, needs no change. A too-slow answer is a
`requests.Timeout` and a too-large one a `requests.ConnectionError`, which the client's
retry policy already turns into `WikiUnavailable` (exit 4).

The status line and headers are read inside urllib3, out of this module's reading loop, so
a server dripping them is cut by a watcher: the connections of these pools arm a timer for
what is left of the bound before reading the headers, and the timer shuts the socket down,
which ends the blocked read at once (urllib3 leaves such a wall-clock cut to the caller).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

#: The largest answer read: far beyond any API answer of 50 pages (a few MB).
MAX_BYTES = 64 * 1024 * 1024
#: Bytes asked of the socket at a time; `read1` returns what has arrived, so a drip cannot
#: hold a read for long.
CHUNK = 64 * 1024


class AnswerTooSlow(requests.exceptions.ReadTimeout):
    """The whole answer took longer than the request's timeout."""


class AnswerTooLarge(requests.exceptions.ConnectionError):
    """The answer is larger than the limit; it was not read to the end."""


#: The wall-clock end of the answer this thread is waiting for (None: unbounded).
_answer = threading.local()


class _WatchedHeaders:
    """Reads the status line and headers under the thread's deadline (a mixin of the
    pools' connection classes)."""

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        deadline = getattr(_answer, "deadline", None)
        if deadline is None:
            return super().getresponse(*args, **kwargs)  # type: ignore[misc]
        timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._cut)
        timer.daemon = True
        timer.start()
        try:
            return super().getresponse(*args, **kwargs)  # type: ignore[misc]
        finally:
            timer.cancel()

    def _cut(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            pass  # already closed: nothing is waiting on it


class _HTTPConnection(_WatchedHeaders, HTTPConnection):
    pass


class _HTTPSConnection(_WatchedHeaders, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


def _seconds(timeout: Any) -> float | None:
    """requests' timeout (None, a number, or (connect, read)) as one wall-clock bound."""
    if timeout is None:
        return None
    if isinstance(timeout, tuple):
        parts = [t for t in timeout if t is not None]
        return sum(parts) if parts else None
    return float(timeout)


class BoundedAdapter(HTTPAdapter):
    def __init__(self, max_bytes: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, *args: Any, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(*args, **kwargs)
        manager.pool_classes_by_scheme = _POOLS
        return manager

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None, **kwargs: Any) -> requests.Response:
        started = time.monotonic()
        bound = _seconds(timeout)
        _answer.deadline = None if bound is None else started + bound
        try:
            response = super().send(request, stream=True, timeout=timeout, **kwargs)
        except requests.ConnectionError as exc:
            if bound is not None and time.monotonic() - started >= bound:
                raise AnswerTooSlow(f"the answer's headers took more than {bound:g} s") from exc
            raise
        finally:
            _answer.deadline = None
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            response.close()
            raise AnswerTooLarge(f"an answer of {int(declared):,} bytes, more than the limit of {self.max_bytes:,}")
        if stream:
            return response  # the caller reads it, and bounds it
        chunks, size = [], 0
        try:
            while chunk := response.raw.read1(CHUNK, decode_content=True):
                size += len(chunk)
                if size > self.max_bytes:
                    raise AnswerTooLarge(f"an answer of more than the limit of {self.max_bytes:,} bytes")
                if bound is not None and time.monotonic() - started > bound:
                    raise AnswerTooSlow(f"the answer took more than {bound:g} s")
                chunks.append(chunk)
        except BaseException:
            response.close()
            raise
        response._content = b"".join(chunks)  # what requests' own read would have set
        response._content_consumed = True
        return response
