"""A build killed while dealing leaves no process behind (its pool workers and the resource
tracker die with it), and SIGTERM stops it with a message and status 143, the published
mirror and the state as a failed run leaves them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bridgeshape_mirror.site_builder import build as build_module
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.publish import current_version
from bridgeshape_mirror.store.model import WikiPage
from bridgeshape_mirror.store.state import StateStore

from support.mirror import intact

pytestmark = pytest.mark.slow

#: Pages of three scenarios each: far past PARALLEL_FROM, so the pool is used.
PAGES = 60
DEALS = 20_000  # each job deals for a while, so the build is caught dealing


def make_state(path: Path, revid: int) -> None:
    assert PAGES * 3 > build_module.PARALLEL_FROM
    raw = "opener H:5+ hcp:12-14; responder S:4+ // opener hcp:15-17 shape:balanced // opener hcp:12-21; opp1 hcp:12+; responder hcp:0-8"
    with StateStore(path) as store, store.transaction() as db:
        for pid in range(1, PAGES + 1):
            StateStore.upsert(db, WikiPage(pid, f"Pagina {pid}", 0, revid + pid, "2026-11-29T10:00:00Z", raw, ()))


def stat(pid: str) -> tuple[int, int, str] | None:
    """(parent pid, process group, state) of a process, from /proc (psutil is not a dependency)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[2]), fields[0]


def living_in_group(group: int) -> list[int]:
    """Processes of process group `group` that are still running (zombies are dead)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = stat(entry)
            if info is not None and info[1] == group and info[2] != "Z":
                found.append(int(entry))
    return found


def children_of(pid: int) -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and (stat(e) or (0,))[0] == pid]


def start_dealing(state: Path, out: Path) -> subprocess.Popen:
    """A build in a process group of its own, once its workers exist (dealing has begun)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "build", "--state", str(state), "--out", str(out), "--deals", str(DEALS), "--no-dd"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(children_of(child.pid)) < 2 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.poll() is None, "the build ended before it was caught dealing"
    assert len(children_of(child.pid)) >= 2, "no worker processes appeared"
    time.sleep(1.0)  # the workers are dealing
    return child


def wait_empty(group: int, seconds: float = 10) -> list[int]:
    deadline = time.monotonic() + seconds
    while (alive := living_in_group(group)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


@pytest.fixture
def published(tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    make_state(state, 100)
    build(state, BuildSettings(out=out, deals=0))
    make_state(state, 1000)  # every revision new: every scenario to deal again
    return state, out, current_version(out)


def test_sigkill_while_dealing_leaves_no_process(published):
    state, out, old = published
    child = start_dealing(state, out)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    leftover = wait_empty(child.pid)
    for pid in leftover:  # never leave them to the machine, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert leftover == []
    assert current_version(out) == old and intact(old)


def test_sigterm_while_dealing_stops_the_pool_and_says_so(published):
    state, out, old = published
    child = start_dealing(state, out)
    started = time.monotonic()
    os.kill(child.pid, signal.SIGTERM)
    try:
        status = child.wait(timeout=30)
    finally:
        leftover = wait_empty(child.pid)
        for pid in leftover:
            os.kill(pid, signal.SIGKILL)
    stderr = child.stderr.read().decode()
    assert status == 143, stderr
    assert "terminated (SIGTERM)" in stderr and "Traceback" not in stderr
    assert time.monotonic() - started < 15
    assert leftover == []
    assert current_version(out) == old and intact(old)
    # The lock is free and the state readable: the next build runs and publishes.
    build(state, BuildSettings(out=out, deals=0))
    assert current_version(out) != old


def test_a_pool_worker_leaves_its_objects_to_the_exit_after_the_exit_handlers_run():
    # `workers.start_worker` (the pool's initializer) freezes the objects at exit, so that the
    # build's shutdown does not wait for a collection over every model a worker made; the
    # handlers registered before it still run, after it (atexit's order: last in, first out).
    probe = (
        "import atexit, gc, os, sys\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "from site_builder.workers import start_worker\nstart_worker(os.getppid())\nprint('frozen now:', gc.get_freeze_count() > 0)"
    )
    done = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["frozen now: False", "frozen at exit: True"]
