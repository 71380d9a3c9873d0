"""Fixtures shared by the real-server tests."""

from __future__ import annotations

import os

import pytest

try:
    from wiki_server import ensure_installed, is_installed
except ImportError:  # tests/ imported as a package
    from tests.wiki_server import ensure_installed, is_installed  # type: ignore[no-redef]


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
