"""Fixtures shared by the tests: a private cache folder for the session, and the real MediaWiki."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from wiki_server import ensure_installed, is_installed
except ImportError:  # tests/ imported as a package
    from tests.wiki_server import ensure_installed, is_installed  # type: ignore[no-redef]


@pytest.fixture(scope="session", autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """XDG_CACHE_HOME in the session's temporary folder, so the deals cache (deals/cache.py)
    and anything else honouring it never writes to the real ~/.cache. Session-wide, set
    before any module fixture builds a mirror, and inherited by the CLI subprocesses;
    tests of the cache set their own. BSM_DEALS_CACHE is left as the environment has it."""
    cache_home = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache_home))
        yield cache_home


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
