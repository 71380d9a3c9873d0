"""Headless Chromium for the browser tests: its binaries (missing: a failure in CI, a skip
elsewhere) and a driver with a profile of its own in a temporary folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: What every test's Chromium runs with (a root user in a container, no GPU, a small /dev/shm).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage")


def require_chromium() -> None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            message = f"{path} is missing: apt-get install chromium chromium-driver fonts-dejavu-core"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)


@contextlib.contextmanager
def chromium_driver(*flags: str, capabilities: dict[str, Any] | None = None, script_timeout: float | None = None) -> Iterator[Any]:
    """A Selenium driver of headless Chromium with `FLAGS` and `flags`; quit, and its profile
    removed, on leaving."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *flags, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    for name, value in (capabilities or {}).items():
        options.set_capability(name, value)
    driver = None
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(30)
        if script_timeout is not None:
            driver.set_script_timeout(script_timeout)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
