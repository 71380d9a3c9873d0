"""Hand records printed with their double-dummy tables (issue 31): a convention page of a build
WITH double dummy, printed to PDF by headless Chromium (A4, the page's own `@page`), has four
boards on every printed page, each with its table and par, read back from the PDF's text by
pypdf; under print media, at the width of an A4 page's print area, no board's diagram, table or
par runs out of its box onto the next board (what the PDF's text cannot show)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings
from support.chromium import chromium_driver, require_chromium
from support.wiki_pages import EXPORT

pytestmark = pytest.mark.slow

#: Two scenarios of 12 boards each: 24 boards, six pages of four.
TWO = "opener H:5+ hcp:12-21 // major: opener S:5+ hcp:12-21; responder S:3+"
DEALS = 12
PAGE = 7
#: An A4 page less the 12 mm margins of the page's `@page`, in CSS pixels (96 to the inch).
PRINT_WIDTH = round((210 - 2 * 12) / 25.4 * 96)
#: The table's first column heading and the par line, in each language.
WORDS = {"en": ("Declarer", "Par:"), "it": ("Giocante", "Par:")}


@pytest.fixture(scope="module", params=["it", "en"])
def mirror(tmp_path_factory, request) -> tuple[str, Path]:
    base = tmp_path_factory.mktemp(f"print-dd-{request.param}")
    export = base / "export.xml"
    export.write_text(EXPORT.replace("opener H:5+ &lt;!-- ok --&gt;", TWO), encoding="utf-8")
    state = base / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(export, store, SyncSettings())
    report = build(state, BuildSettings(out=base / "out", deals=DEALS, seed=5, lang=request.param))
    assert report.dd_waiting == 0 and report.dd_computed == 2 * DEALS
    return request.param, base / "out"


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    require_chromium()
    with chromium_driver() as chrome:
        yield chrome


def printed_pages(driver: Any, url: str) -> list[str]:
    """The text of each page Chromium prints `url` to, with the page's own page size."""
    from pypdf import PdfReader
    import io

    driver.get(url)
    pdf = driver.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "displayHeaderFooter": False})
    return [page.extract_text() for page in PdfReader(io.BytesIO(base64.b64decode(pdf["data"]))).pages]


OVERFLOW_JS = """
return Array.from(document.querySelectorAll('.deal-with-dd')).map(box => {
  const r = box.getBoundingClientRect();
  const parts = ['.deal', 'table.dd', 'p.par'].map(s => box.querySelector(s));
  return {visible: parts.map(p => !!p && getComputedStyle(p).display !== 'none' && p.getBoundingClientRect().height > 0),
          inside: parts.every(p => p && p.getBoundingClientRect().bottom <= r.bottom + 0.5 && p.getBoundingClientRect().right <= r.right + 0.5),
          width: r.width, height: r.height};
});
"""


def test_four_boards_a_page_each_with_its_table_and_par(driver, mirror):
    lang, out = mirror
    heading, par = WORDS[lang]
    url = (out / f"conventions/{PAGE}.html").resolve().as_uri()
    pages = printed_pages(driver, url)
    assert len(pages) == 2 * DEALS // 4, [p[:80] for p in pages]
    for i, text in enumerate(pages):
        # A table's heading row and a par line for every board on the page, and four boards.
        assert len(re.findall(rf"(?m)^{heading}\b", text)) == 4, (i, text)
        assert text.count(par) == 4, (i, text)
    # Under print media, at an A4 print area's width: two boards a row, each showing its
    # diagram, table and par inside its own box.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PRINT_WIDTH, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        driver.get(url)
        boxes = driver.execute_script(OVERFLOW_JS)
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert len(boxes) == 2 * DEALS
    for box in boxes:
        assert all(box["visible"]) and box["inside"], box
        assert box["width"] < PRINT_WIDTH / 2, box
