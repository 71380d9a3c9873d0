"""A build killed with SIGKILL in the middle of publishing leaves the published mirror whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.publish import MANIFEST, current_version, versions_dir
from bridgeshape_mirror.store.model import WikiPage
from bridgeshape_mirror.store.state import StateStore
from support.mirror import intact

pytestmark = pytest.mark.slow

PAGES = 1500


def make_state(path: Path) -> None:
    with StateStore(path) as store, store.transaction() as db:
        for pid in range(1, PAGES + 1):
            # No constraints: no deals to draw, yet two get files a page, so publishing is long.
            StateStore.upsert(db, WikiPage(pid, f"Pagina {pid}", 0, pid, "2026-11-29T10:00:00Z", None, ()))


def rename_all(path: Path, suffix: str) -> None:
    with StateStore(path) as store:
        pages = store.pages()
        with store.transaction() as db:
            for page in pages:
                StateStore.upsert(db, replace(page, title=f"{page.title} {suffix}", revid=page.revid + 1))


def test_sigkill_during_publish_keeps_the_old_mirror(tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    make_state(state)
    build(state, BuildSettings(out=out, deals=0))
    killed_midway = False
    for attempt in range(5):
        old = current_version(out)
        rename_all(state, f"v{attempt}")
        before = set(versions_dir(out).iterdir())
        child = subprocess.Popen(
            [sys.executable, "-m", "bridgeshape_mirror.cli", "build", "--state", str(state), "--out", str(out), "--deals", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        new: set[Path] = set()
        while not new and child.poll() is None and time.monotonic() < deadline:
            new = set(versions_dir(out).iterdir()) - before
            time.sleep(0.002)
        if new:
            time.sleep(0.05)  # well inside the writing of ~3,000 files
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        partial = [v for v in new if not (v / MANIFEST).exists()]
        if partial:
            killed_midway = True
            assert current_version(out) == old
            assert intact(old)
            listed = json.loads((out / "api/listall.json").read_text())["pages"]
            assert len(listed) == PAGES and not listed[0]["title"].endswith(f"v{attempt}")
            break
    assert killed_midway, "the build was never caught in the middle of publishing"
    # The next build publishes normally and clears the half-written version away.
    build(state, BuildSettings(out=out, deals=0))
    assert intact(current_version(out))
    assert not any(not (v / MANIFEST).exists() for v in versions_dir(out).iterdir())
    assert json.loads((out / "api/listall.json").read_text())["pages"][0]["title"].endswith(f"v{attempt}")
