"""`bridgeshape-mirror follow` run as a separate process, as systemd runs it, for the tests and
the latency benchmark: started against a wiki, watched through its log and its mirror, stopped
with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_revid(out: Path, title: str) -> int | None:
    """The revision api/get/title/<title>.json serves, or None when there is none (yet)."""
    path = out / "api" / "get" / "title" / (title.replace(" ", "_") + ".json")
    try:
        return int(json.loads(path.read_text(encoding="utf-8"))["shapeconstraints"]["revid"])
    except (OSError, ValueError, KeyError):
        return None


def wait_for(condition: Callable[[], Any], timeout: float, every: float = 0.02) -> Any:
    """`condition()`'s first true value within `timeout` seconds, else AssertionError."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(every)


class Follow:
    """One `follow` process; its standard error goes to `log_path` (read with `log()`)."""

    def __init__(
        self, api_url: str, folder: Path, *extra: str, listen: str | None = None, poll: float = 60.0,
        state: Path | None = None, sigint_ignored: bool = False,
    ):
        """`sigint_ignored`: started as a shell without job control starts a background job,
        SIGINT ignored (and so, by Python's rule, no KeyboardInterrupt unless the program
        asks for it)."""
        self.sigint_ignored = sigint_ignored
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.state = state or folder / "state.sqlite"
        self.out = folder / "output"
        self.log_path = folder / f"follow-{time.monotonic_ns()}.log"
        self.argv = [
            sys.executable, "-m", "bridgeshape_mirror.cli", "follow", "--api", api_url, "--state", str(self.state),
            "--out", str(self.out), "--deals", "2", "--no-dd", "--contact", "tests@example.org", "--poll", f"{poll:g}", *extra,
        ]
        if listen:
            self.argv += ["--listen", listen]
        self.process: subprocess.Popen | None = None

    def start(self) -> Follow:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ),
                preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if self.sigint_ignored else None,
            )
        return self

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def published(self) -> int:
        """Publishes that changed the mirror so far (one info line each)."""
        return sum(1 for line in self.log().splitlines() if " INFO follow: ok: " in line and "nothing written" not in line)

    def wait_until_ready(self, timeout: float = 120.0) -> None:
        """Until the first publish (the catch-up at start) is done."""
        wait_for(lambda: self.published() >= 1 or self._dead(), timeout, every=0.1)
        assert not self._dead(), self.log()

    def _dead(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def __enter__(self) -> Follow:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.stop()
