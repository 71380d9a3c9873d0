"""Bounds on one answer of the wiki, whatever the server does: the request's timeout holds
for the whole answer, not only for each gap between bytes (an answer dripping one byte a
second passed `--timeout 5` for minutes, the run lock held), and an answer larger than
`max_bytes` is refused without being read whole (a 3 GB answer took 6 GB of memory).

Mounted on the client's requests session (`sync/client.py`), so mwclient, which reads
`response.content` and `.json()`, needs no change. A too-slow answer is a
`requests.Timeout` and a too-large one a `requests.ConnectionError`, which the client's
retry policy already turns into `WikiUnavailable` (exit 4). Not bounded here: a server
dripping its status line and headers (only the gap between their bytes is).
"""

from __future__ import annotations

import time
from typing import Any

import requests
from requests.adapters import HTTPAdapter

#: The largest answer read: far beyond any API answer of 50 pages (a few MB).
MAX_BYTES = 64 * 1024 * 1024
#: Bytes asked of the socket at a time; `read1` returns what has arrived, so a drip cannot
#: hold a read for long.
CHUNK = 64 * 1024


class AnswerTooSlow(requests.exceptions.ReadTimeout):
    """The whole answer took longer than the request's timeout."""


class AnswerTooLarge(requests.exceptions.ConnectionError):
    """The answer is larger than the limit; it was not read to the end."""


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

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None, **kwargs: Any) -> requests.Response:
        started = time.monotonic()
        bound = _seconds(timeout)
        response = super().send(request, stream=True, timeout=timeout, **kwargs)
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
