"""`serve` running in a thread on a free port of 127.0.0.1."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from bridgeshape_mirror.serving.api_headers import ServeSettings
from bridgeshape_mirror.serving.http_server import MirrorServer, make_server


@contextlib.contextmanager
def running(root: Path, settings: ServeSettings = ServeSettings()) -> Iterator[MirrorServer]:
    server = make_server(root, "127.0.0.1", 0, settings)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
