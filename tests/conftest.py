"""Fixtures shared by the tests: a private cache folder for the session, the real MediaWiki,
and moto's S3 server with a fresh bucket per test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from support.wiki_server import ensure_installed, is_installed
except ImportError:  # tests/ imported as a package
    from tests.support.wiki_server import ensure_installed, is_installed  # type: ignore[no-redef]


@pytest.fixture(scope="session", autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """XDG_CACHE_HOME in the session's temporary folder, so the deals cache (deals/counting/cache.py)
    and anything else honouring it never writes to the real ~/.cache. Session-wide, set
    before any module fixture builds a mirror, and inherited by the CLI subprocesses;
    tests of the cache set their own. BSM_DEALS_CACHE is left as the environment has it."""
    cache_home = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache_home))
        yield cache_home


@pytest.fixture(scope="session")
def sample_synced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample wiki synced into a state store, once a session: copy it
    (`sample_state`) before a test writes to it."""
    from bridgeshape_mirror.store.state import StateStore
    from bridgeshape_mirror.sync.dump import sync_from_dump
    from bridgeshape_mirror.sync.syncer import SyncSettings

    state = tmp_path_factory.mktemp("sample-synced") / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(Path(__file__).resolve().parents[1] / "examples" / "sample-wiki.xml", store, SyncSettings())
    return state


@pytest.fixture
def sample_state(sample_synced: Path, tmp_path: Path) -> Path:
    """A copy of the synced sample wiki's state store, this test's own."""
    import shutil

    copy = tmp_path / "state.sqlite"
    shutil.copy(sample_synced, copy)
    return copy


@pytest.fixture(scope="session")
def mediawiki_installed() -> None:
    """Fails (never skips) when the real MediaWiki is missing: CI must run these tests."""
    if is_installed():
        return
    if os.environ.get("BSM_MEDIAWIKI_AUTO_INSTALL") == "1":
        ensure_installed()
        return
    pytest.fail(
        "MediaWiki for the harness is not installed: run `bash scripts/mediawiki/install-deps.sh` "
        "(or set BSM_MEDIAWIKI_AUTO_INSTALL=1)",
        pytrace=False,
    )


# --- moto's S3 server (tests/test_object_store.py, tests/test_nginx_dropin.py) ------------

BUCKET = "mirror-bucket"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_server():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail("the S3 server (moto) did not start")
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def s3(s3_server, monkeypatch, request):
    """A fresh bucket on the server; credentials from the environment, as the usual chain reads them."""
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    boto3.setup_default_session()  # one that reads this environment, with hooks of its own
    client = boto3.client("s3", endpoint_url=s3_server)
    bucket = f"{BUCKET}-{abs(hash(request.node.name)) % 10**8}"
    client.create_bucket(Bucket=bucket)
    return client, bucket
