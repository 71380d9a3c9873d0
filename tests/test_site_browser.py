"""The human site in a real browser: Debian's headless Chromium driven by Selenium.

One mirror of the bundled sample wiki (3 deals per scenario) is loaded over `file://` and
over a static HTTP server on loopback: the pages render with no console errors, the front
page links every convention and the report, the hand diagrams hold real deals (13 cards,
the right HCP, dealer on North, red hearts and diamonds), the report marks every error,
relative links resolve, and the convention page fits a phone. A second mirror, with
`<script>` and `<img onerror>` in a title and in the DSL, proves that wiki text is shown
escaped on every page. The sample wiki is Italian: these mirrors are built in English
(--lang en), and an Italian one (the wiki's own language) is shot at 1280 and 390 px beside
an English one; a mirror of 10 deals per scenario is printed to PDF. Screenshots of every
page loaded go to $BSM_TEST_ARTIFACTS/screenshots/ when CI sets it, else to a temporary folder.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import math
import os
import re
import shutil
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urldefrag

import pytest

from bridgeshape_mirror.deals.boards.board import page_boards
from bridgeshape_mirror.dsl import language
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.page_files import page_downloads
from bridgeshape_mirror.store.model import parse_timestamp
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings
from support.chromium import CHROMIUM, chromium_driver, require_chromium

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
#: Where screenshots go: set by the `browser` fixture (never outside a temporary folder unless asked).
SHOTS = Path()

SPLINTER = 42
HOSTILE_TITLE = "Contro sputnik/Varianti d'autore & \"X\" su 1♣–(1♥)"
HOSTILE_ID = 26

SCRIPT = "<script>window.__pwned=1</script>"
IMG = "<img src=x onerror=window.__pwned=2>"
#: Page 4 (Apertura 1SA, valid in the sample) becomes a valid page with markup everywhere.
EVIL_VALID = (4, f"Apertura {SCRIPT} {IMG}", f"{SCRIPT} {IMG}: opener H:5+ hcp:12-21 // {IMG}: opener S:5+ hcp:12+")
#: Page 21 (Smolen, broken in the sample) stays broken, with markup in its labels and in its errors.
EVIL_BROKEN = (21, f"Smolen {IMG} {SCRIPT}", f"{SCRIPT} {IMG}: opener H:5+ {IMG} // {SCRIPT}: opener H:5+ {SCRIPT}")

HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
SUITS = (("spades", "♠"), ("hearts", "♥"), ("diamonds", "♦"), ("clubs", "♣"))
VOID = "—"
PHONE = (390, 844)
DESKTOP = (1280, 900)


# ---------------------------------------------------------------------------------- mirrors


def _sync_and_build(base: Path, lang: str | None = "en", deals: int = 3) -> Path:
    state = base / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    build(state, BuildSettings(out=base / "output", deals=deals, lang=lang, dd_budget=0))
    return base / "output"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """OUT of the sample mirror (a symlink to its version folder)."""
    return _sync_and_build(tmp_path_factory.mktemp("sample"))


@pytest.fixture(scope="module")
def hostile(sample, tmp_path_factory) -> Path:
    """A copy of the sample mirror where two pages carry markup in their title and DSL."""
    base = tmp_path_factory.mktemp("hostile")
    shutil.rmtree(base)
    shutil.copytree(sample.parent, base, symlinks=True)
    state = base / "state.sqlite"
    with StateStore(state) as store:
        for revid, (page_id, title, raw) in enumerate((EVIL_VALID, EVIL_BROKEN), start=5000):
            page = store.page(page_id)
            with store.transaction() as db:
                StateStore.upsert(db, replace(page, title=title, raw=raw, revid=revid, timestamp="2026-11-29T12:00:00Z"))
    build(state, BuildSettings(out=base / "output", deals=3, lang="en", dd_budget=0))
    return base / "output"


def _json(out: Path, path: str) -> Any:
    return json.loads((out / path).read_text(encoding="utf-8"))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        self.server.requests.append((self.path, int(getattr(code, "value", code))))  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@dataclass
class Served:
    base: str  # "http://127.0.0.1:PORT/"
    requests: list[tuple[str, int]]  # (path, status) of every request answered


@contextlib.contextmanager
def static_server(directory: Path) -> Iterator[Served]:
    """A plain static server (the stdlib's) on a free loopback port, a new origin each time."""
    handler = functools.partial(_Quiet, directory=str(directory.resolve()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}/", server.requests)  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def http_base(sample) -> Iterator[str]:
    with static_server(sample) as served:
        yield served.base


def base_url(transport: str, out: Path, http_base: str) -> str:
    return http_base if transport == "http" else out.resolve().as_uri() + "/"


# ---------------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[Any]:
    require_chromium()
    global SHOTS
    artifacts = os.environ.get("BSM_TEST_ARTIFACTS")
    SHOTS = Path(artifacts) / "screenshots" if artifacts else tmp_path_factory.mktemp("screenshots")
    SHOTS.mkdir(parents=True, exist_ok=True)
    flags = (
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
        "--lang=en-US", f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    )
    with chromium_driver(*flags, capabilities={"goog:loggingPrefs": {"browser": "ALL"}}, script_timeout=30) as driver:
        yield driver


def screenshot(driver: Any, name: str, full: bool = True) -> None:
    """The whole page (up to 12000 CSS pixels tall), or only the viewport (fast)."""
    path = SHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    if not full:
        driver.save_screenshot(str(path))
        return
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": math.ceil(size["width"]), "height": min(math.ceil(size["height"]), 12000), "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
    path.write_bytes(base64.b64decode(shot["data"]))


def open_page(driver: Any, url: str, shot: str, full: bool = True) -> list[dict[str, Any]]:
    """Load `url`, save a screenshot as `shot`, return the console's SEVERE entries of this load."""
    driver.get_log("browser")  # drain what earlier pages logged
    driver.get(url)
    assert driver.execute_script("return document.readyState") == "complete"
    screenshot(driver, shot, full)
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and not _favicon(e)]


def _favicon(entry: dict[str, Any]) -> bool:
    """Chromium's own request for /favicon.ico at the server root: see test_no_request_misses."""
    return "/favicon.ico - Failed to load resource" in entry["message"]


#: The four pages every test looks at: (name, path under OUT).
PAGES = (
    ("front", "index.html"),
    ("splinter", f"conventions/{SPLINTER}.html"),
    ("hostile-title", f"conventions/{HOSTILE_ID}.html"),
    ("report", "report/index.html"),
)


# ------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("transport", ["file", "http"])
def test_pages_render_without_console_errors(browser, sample, http_base, transport):
    base = base_url(transport, sample, http_base)
    titles = {}
    for name, path in PAGES:
        severe = open_page(browser, base + path, f"desktop-{transport}-{name}")
        assert severe == [], (path, severe)
        state = browser.execute_script(
            "const link = document.querySelector('link[rel=stylesheet]');"
            "return {h1: document.querySelector('h1') && document.querySelector('h1').textContent,"
            " title: document.title, maxWidth: getComputedStyle(document.body).maxWidth,"
            " sheet: !!(link && link.sheet), nav: document.querySelectorAll('header nav a').length}"
        )
        # The stylesheet is found by its relative URL from every folder (and sets a body width).
        assert state["sheet"] and state["maxWidth"] != "none", (path, state)
        assert state["nav"] == 2 and state["h1"], (path, state)
        titles[name] = state
    assert titles["splinter"]["h1"] == "Splinter"
    assert titles["hostile-title"]["h1"] == HOSTILE_TITLE and titles["hostile-title"]["title"].startswith(HOSTILE_TITLE)
    assert titles["front"]["h1"] == "Conventions" and titles["report"]["h1"] == "Validation report"


def test_front_page_links_every_convention_and_the_report(browser, sample, http_base):
    assert open_page(browser, http_base + "index.html", "desktop-http-front-links", full=False) == []
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('main a')).map(a => [a.getAttribute('href'), a.textContent])"
    )
    pages = _json(sample, "api/listall.json")["pages"]
    assert len(pages) == 24
    expected = {(f"conventions/{p['pageId']}.html", p["title"]) for p in pages}
    conventions = {(href, text) for href, text in links if href.startswith("conventions/")}
    assert conventions == expected
    assert ["report/index.html", "validation report"] in links
    # Each row shows the status and, for served pages, one line per scenario.
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.conventions tbody tr')).map(tr =>"
        " [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim(), tr.cells[2].querySelectorAll('div').length])"
    )
    listed = {p["title"]: p for p in _json(sample, "api/list.json")["pages"]}
    assert len(rows) == 24
    for title, status, scenario_lines in rows:
        if title in listed:
            assert status == "ok" and scenario_lines == listed[title]["scenarioCount"], title
        else:
            assert status in ("broken", "no constraints") and scenario_lines == 0, title


DIAGRAMS_JS = """
const rect = el => { const r = el.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height}; };
return Array.from(document.querySelectorAll('section.scenario')).map(section => ({
  label: section.querySelector('h2').textContent,
  deals: Array.from(section.querySelectorAll('div.deal')).map(deal => ({
    rect: rect(deal),
    overflow: deal.scrollWidth - deal.clientWidth,
    dealers: deal.querySelectorAll('.dealer').length,
    number: deal.querySelector('.board-number').textContent,
    label: deal.getAttribute('aria-label'),
    hands: Array.from(deal.querySelectorAll('div.hand')).map(hand => ({
      cls: hand.className,
      role: hand.querySelector('.role') ? hand.querySelector('.role').textContent : null,
      rect: rect(hand),
      hcp: hand.querySelector('.hcp') ? hand.querySelector('.hcp').textContent : null,
      dealer: hand.querySelectorAll('.dealer').length,
      suits: Array.from(hand.querySelectorAll('.suit')).map(line => {
        const symbol = line.querySelector('.symbol');
        const spoken = line.querySelector('.sr-only');
        return {
          spoken: spoken ? spoken.textContent : null,
          hidden: symbol ? symbol.getAttribute('aria-hidden') : null,
          cls: line.className,
          symbol: symbol ? symbol.textContent : null,
          color: symbol ? getComputedStyle(symbol).color : null,
          cards: Array.from(line.childNodes).filter(n => n !== symbol && n !== spoken).map(n => n.textContent).join('').trim(),
        };
      }),
    })),
  })),
}));
"""


def _rgb(color: str) -> tuple[int, int, int]:
    r, g, b = (int(float(v)) for v in re.findall(r"[\d.]+", color)[:3])
    return r, g, b


def _is_red(color: str) -> bool:
    r, g, b = _rgb(color)
    return r >= 150 and g <= 90 and b <= 90


def _pbn_hands(pbn: str) -> dict[str, list[list[str]]]:
    """{"north": [[spades], [hearts], ...], ...} from "N:AT75.AK765..KJ43 ..." (ranks as shown, T as 10)."""
    seats = "NESW"
    names = {"N": "north", "E": "east", "S": "south", "W": "west"}
    first, _, body = pbn.partition(":")
    out = {}
    for i, hand in enumerate(body.split()):
        seat = seats[(seats.index(first) + i) % 4]
        out[names[seat]] = [["10" if c == "T" else c for c in holding] for holding in hand.split(".")]
    return out


@pytest.mark.parametrize("page_id", [SPLINTER, HOSTILE_ID])
def test_convention_page_draws_real_deals(browser, sample, http_base, page_id):
    assert open_page(browser, f"{http_base}conventions/{page_id}.html", f"desktop-http-diagrams-{page_id}", full=False) == []
    scenarios = browser.execute_script(DIAGRAMS_JS)
    deals_doc = _json(sample, f"api/deals/{page_id}.json")
    listed = next(p for p in _json(sample, "api/list.json")["pages"] if p["pageId"] == page_id)
    assert len(scenarios) == listed["scenarioCount"] == len(deals_doc["scenarios"]) >= 2
    # The deals are drawn as the page's boards (as its PBN file numbers them): turned so the
    # opener sits at the board's dealer, who is marked.
    boards = {
        (b.scenario, b.deal_index): b
        for b in page_boards((d["index"], d["label"], [x["pbn"] for x in d["deals"]]) for d in deals_doc["scenarios"])
    }
    for scenario, doc in zip(scenarios, deals_doc["scenarios"]):
        assert scenario["label"] == (doc["label"] or f"Scenario {doc['index']}")
        assert len(scenario["deals"]) == 3 == len(doc["deals"]), scenario["label"]
        for n, (deal, sampled) in enumerate(zip(scenario["deals"], doc["deals"])):
            where = (scenario["label"], sampled["pbn"])
            board = boards[(doc["index"], n)]
            dealer_area = {"N": "north", "E": "east", "S": "south", "W": "west"}[board.board.dealer_letter]
            assert deal["number"] == str(board.board.number) and deal["label"] == f"Board {board.board.number}", where
            assert [h["cls"] for h in deal["hands"]] == ["hand north", "hand west", "hand east", "hand south"], where
            assert deal["dealers"] == 1, where
            seen = set()
            hands = {h["cls"].split()[1]: h for h in deal["hands"]}
            for area, hand in hands.items():
                assert hand["dealer"] == (1 if area == dealer_area else 0), (where, area)
                assert (hand["role"] == "Opener") == (area == dealer_area), (where, area, hand["role"])
                assert [(s["cls"], s["symbol"]) for s in hand["suits"]] == [(f"suit {n}", sym) for n, sym in SUITS]
                cards = []
                for line, (suit, _) in zip(hand["suits"], SUITS):
                    # The symbol is hidden from screen readers, which read the suit's name instead.
                    assert line["hidden"] == "true" and line["spoken"] == suit, (where, area, line)
                    tokens = [] if line["cards"] == VOID else line["cards"].split()
                    assert all(t in RANKS for t in tokens), (where, area, line)
                    assert tokens == sorted(tokens, key=RANKS.index), (where, area, line)  # high to low
                    cards += [(suit, t) for t in tokens]
                    if suit in ("hearts", "diamonds"):
                        assert _is_red(line["color"]), (where, area, line)
                    else:
                        assert not _is_red(line["color"]), (where, area, line)
                assert len(cards) == 13, (where, area)
                seen.update(cards)
                shown_hcp = re.fullmatch(r"\s*(\d+)\s*HCP\s*", hand["hcp"] or "")
                assert shown_hcp, (where, area, hand["hcp"])
                assert int(shown_hcp[1]) == sum(HCP.get(rank, 0) for _, rank in cards), (where, area)
            assert len(seen) == 52, where  # four hands of a single deck
            # The diagram is the deal the JSON publishes, turned to its board.
            assert board.pbn == sampled["pbn"]
            for area, holdings in _pbn_hands(board.board_pbn).items():
                shown = [[] if s["cards"] == VOID else s["cards"].split() for s in hands[area]["suits"]]
                assert shown == holdings, (where, area)
            # Compass layout: North above West and East, which are above South; West left of East.
            r = {area: hand["rect"] for area, hand in hands.items()}
            assert r["north"]["bottom"] <= min(r["west"]["top"], r["east"]["top"]) + 1, where
            assert max(r["west"]["bottom"], r["east"]["bottom"]) <= r["south"]["top"] + 1, where
            assert r["west"]["right"] <= r["east"]["left"], where
            assert deal["rect"]["width"] > 0 and deal["rect"]["height"] > 0 and deal["overflow"] <= 1, where


def test_report_marks_every_error_and_links_to_the_editor(browser, sample, http_base):
    assert open_page(browser, http_base + "report/index.html", "desktop-http-report-marks", full=False) == []
    broken = _json(sample, "report/report.json")["broken"]
    assert {row["title"] for row in broken} == {"Gazzilli", "Roudi", "Smolen"}
    sections = browser.execute_script(
        "return Array.from(document.querySelectorAll('section.page.broken')).map(s => ({"
        " id: s.id,"
        " edit: Array.from(s.querySelectorAll('a.edit')).map(a => a.href),"
        " view: s.querySelector('h3 a:not(.edit)') ? s.querySelector('h3 a:not(.edit)').href : null,"
        " errors: s.querySelectorAll('ol.errors li').length,"
        " codes: Array.from(s.querySelectorAll('ol.errors code.code')).map(c => c.textContent),"
        " marks: Array.from(s.querySelectorAll('pre.dsl mark')).map(m => ({"
        "   numbers: m.querySelector('sup') ? m.querySelector('sup').textContent : '',"
        "   text: Array.from(m.childNodes).filter(n => n.nodeName !== 'SUP').map(n => n.textContent).join(''),"
        "   background: getComputedStyle(m).backgroundColor,"
        "   visible: m.getBoundingClientRect().width > 0})),"
        " pre: s.querySelector('pre.dsl') ? s.querySelector('pre.dsl').textContent : null}))"
    )
    by_id = {s["id"]: s for s in sections}
    assert set(by_id) == {f"page-{row['pageId']}" for row in broken}
    for row in broken:
        section = by_id[f"page-{row['pageId']}"]
        errors = row["errors"]
        assert errors, row["title"]
        assert section["edit"] == [row["editUrl"]] and section["view"] == row["url"], row["title"]
        assert section["errors"] == len(errors) and section["codes"] == [e["code"] for e in errors]
        for mark in section["marks"]:
            assert mark["visible"] and _rgb(mark["background"]) != (0, 0, 0), (row["title"], mark)
        for n, error in enumerate(errors, start=1):
            covered = "".join(m["text"] for m in section["marks"] if str(n) in mark_numbers(m["numbers"]))
            if error["offset"] >= len(row["raw"]):
                assert covered == "\u2038", (row["title"], error)
            else:
                assert covered == row["raw"][error["offset"] : error["offset"] + max(error["length"], 1)], (row["title"], error)
        # Without the marks' numbers, the highlighted text is the raw value, character for character.
        plain = section["pre"]
        for mark in section["marks"]:
            plain = plain.replace(mark["text"] + mark["numbers"], mark["text"], 1)
        assert plain == row["raw"], row["title"]


def mark_numbers(sup: str) -> set[str]:
    return set(sup.split(","))


RELATIVE_LINKS_JS = """
return Array.from(document.querySelectorAll('a[href], link[href], img[src], script[src]')).map(el => {
  const attr = el.hasAttribute('href') ? 'href' : 'src';
  return [el.getAttribute(attr), el[attr]];
});
"""


def _is_relative(href: str) -> bool:
    return not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", href) and not href.startswith("//")


def _fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def check_relative_links(driver: Any, page: str) -> list[str]:
    """Every relative link of the loaded page answers 200 and, with a #fragment, holds that id."""
    problems = []
    for raw, absolute in driver.execute_script(RELATIVE_LINKS_JS):
        if not _is_relative(raw):
            continue
        target, fragment = urldefrag(absolute)
        status, body = _fetch(target)
        if status != 200:
            problems.append(f"{page}: {raw!r} -> {target} answered {status}")
        elif fragment and f'id="{fragment}"'.encode() not in body:
            problems.append(f"{page}: {raw!r} -> no element with id {fragment!r} in {target}")
    return problems


def test_relative_links_resolve(browser, http_base):
    problems = []
    for name, path in PAGES:
        assert open_page(browser, http_base + path, f"desktop-http-links-{name}", full=False) == []
        problems += check_relative_links(browser, path)
    assert problems == []


def test_relative_links_resolve_on_every_convention_page(browser, sample, http_base):
    problems = []
    for page in _json(sample, "api/listall.json")["pages"]:
        path = f"conventions/{page['pageId']}.html"
        assert open_page(browser, http_base + path, f"desktop-http-every-{page['pageId']}", full=False) == []
        problems += check_relative_links(browser, path)
    assert problems == []


def test_broken_convention_page_points_to_its_errors(browser, sample, http_base):
    broken = _json(sample, "report/report.json")["broken"]
    for row in broken:
        assert open_page(browser, f"{http_base}conventions/{row['pageId']}.html", f"desktop-http-broken-{row['pageId']}") == []
        text = browser.execute_script("return document.querySelector('main').innerText")
        hrefs = browser.execute_script("return Array.from(document.querySelectorAll('main a')).map(a => a.getAttribute('href'))")
        assert "no shape constraints" not in text, row["title"]
        assert f"../report/index.html#page-{row['pageId']}" in hrefs, row["title"]


def test_no_request_misses(browser, sample):
    """Over a static server nothing the browser asks for by itself is missing (favicon included)."""
    with static_server(sample) as served:  # a new origin: no favicon cached from earlier tests
        for name, path in PAGES:
            assert open_page(browser, served.base + path, f"desktop-http-misses-{name}", full=False) == []
        deadline = time.monotonic() + 3  # the icon is fetched after the load event
        while time.monotonic() < deadline and all(status < 400 for _, status in served.requests):
            time.sleep(0.1)
        assert [(path, status) for path, status in served.requests if status >= 400] == []


PWNED_JS = """
const planted = Array.from(document.querySelectorAll('script, img, iframe, svg, object, embed')).filter(el =>
  el.textContent.includes('__pwned') || Array.from(el.attributes).some(a => a.value.includes('__pwned')));
const handlers = Array.from(document.querySelectorAll('*')).filter(el =>
  Array.from(el.attributes).some(a => a.name.startsWith('on')));
return {pwned: typeof window.__pwned, planted: planted.length, handlers: handlers.length,
        text: document.body.innerText, title: document.title};
"""


@pytest.mark.parametrize("transport", ["file", "http"])
def test_markup_from_the_wiki_is_shown_escaped_on_every_page(browser, hostile, transport):
    valid_id, valid_title, _ = EVIL_VALID
    broken_id, broken_title, broken_raw = EVIL_BROKEN
    # The build took the markup in: the valid page is served, the broken one reported.
    listed = {p["pageId"]: p for p in _json(hostile, "api/list.json")["pages"]}
    assert listed[valid_id]["title"] == valid_title and broken_id not in listed
    assert any(row["raw"] == broken_raw for row in _json(hostile, "report/report.json")["broken"])
    with static_server(hostile) as served:
        base = base_url(transport, hostile, served.base)
        pages = {
            "front": ("index.html", [valid_title, broken_title, SCRIPT, IMG]),
            "convention": (f"conventions/{valid_id}.html", [valid_title, f"{SCRIPT} {IMG}", IMG]),
            "broken-convention": (f"conventions/{broken_id}.html", [broken_title]),
            "report": ("report/index.html", [broken_title, f"{SCRIPT} {IMG}: opener H:5+", SCRIPT]),
        }
        for name, (path, literals) in pages.items():
            severe = open_page(browser, base + path, f"hostile-{transport}-{name}")
            state = browser.execute_script(PWNED_JS)
            assert state["pwned"] == "undefined", (path, state["pwned"])
            assert state["planted"] == 0 and state["handlers"] == 0, path
            for literal in literals:
                assert literal in state["text"], (path, literal)
            if name in ("convention", "broken-convention"):
                assert state["title"].startswith(valid_title if name == "convention" else broken_title)
            # `<img src=x>` would have logged a failed load; nothing is logged at all.
            assert severe == [], (path, severe)


PHONE_JS = """
const doc = document.documentElement;
return {
  innerWidth: window.innerWidth, scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
  wide: Array.from(document.querySelectorAll('main *')).filter(el => el.getBoundingClientRect().right > doc.clientWidth + 1)
    .slice(0, 5).map(el => el.tagName + '.' + el.className + ': ' + el.textContent.slice(0, 40)),
  deals: Array.from(document.querySelectorAll('div.deal')).map(d => { const r = d.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width, height: r.height, overflow: d.scrollWidth - d.clientWidth,
            visibility: getComputedStyle(d).visibility, display: getComputedStyle(d).display}; }),
};
"""


@contextlib.contextmanager
def phone(driver: Any) -> Iterator[None]:
    """A 390x844 window, emulated as a phone (the viewport meta tag applies), restored afterwards."""
    driver.set_window_size(*PHONE)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True}
    )
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.set_window_size(*DESKTOP)


@pytest.mark.parametrize("name, path", PAGES, ids=[name for name, _ in PAGES])
def test_pages_fit_a_phone(browser, http_base, name, path):
    with phone(browser):
        assert open_page(browser, http_base + path, f"phone-{name}") == []
        state = browser.execute_script(PHONE_JS)
    assert state["innerWidth"] == PHONE[0], state["innerWidth"]
    assert state["scrollWidth"] <= state["clientWidth"] + 1, (state["scrollWidth"], state["clientWidth"], state["wide"])
    if name in ("splinter", "hostile-title"):
        assert len(state["deals"]) >= 6
        for deal in state["deals"]:
            assert deal["display"] != "none" and deal["visibility"] == "visible", deal
            assert deal["width"] > 200 and deal["height"] > 100, deal
            assert deal["left"] >= 0 and deal["right"] <= state["clientWidth"] + 1 and deal["overflow"] <= 1, deal


@pytest.mark.parametrize("transport", ["file", "http"])
def test_every_page_shows_when_the_mirror_was_updated(browser, sample, http_base, transport):
    """The front page and the report carry "updated at" as text; a convention page (reused
    unchanged between builds) has it filled in from api/status.json over HTTP, and points to
    the front page from file://, with no console error either way."""
    status = _json(sample, "api/status.json")
    expected = "Updated at " + language.when(parse_timestamp(status["lastSync"]), "en")
    base = base_url(transport, sample, http_base)
    for name, path in PAGES:
        severe = open_page(browser, base + path, f"updated-{transport}-{name}", full=False)
        assert severe == [], (path, severe)
        deadline = time.monotonic() + 5
        while True:
            text = browser.execute_script("const f = document.querySelector('footer'); return f ? f.innerText : ''")
            if expected in text or time.monotonic() > deadline or (transport == "file" and name in ("splinter", "hostile-title")):
                break
            time.sleep(0.1)
        if transport == "file" and name in ("splinter", "hostile-title"):
            assert "front page" in text, (path, text)
        else:
            assert expected in text and "sample-wiki.xml" in text, (path, text)


# ------------------------------------------------------------------ the API from another origin

CROSS_ORIGIN_PAGE = "<!doctype html><meta charset=utf-8><title>Altro sito</title><p>Un altro sito.</p>"
FETCH_SCRIPT = """
const [url, done] = [arguments[0], arguments[arguments.length - 1]];
const results = {};
fetch(url + "&origin=*").then(r => r.json()).then(j => { results.simple = j; })
  .then(() => fetch(url + "&origin=*", {headers: {"Api-User-Agent": "bridgeshape-tests"}}))  // a preflight first
  .then(r => r.json()).then(j => { results.preflighted = j; })
  .then(() => fetch(url).then(() => { results.without = "read"; }, () => { results.without = "blocked"; }))
  .then(() => done(results), e => done({failed: String(e)}));
"""
JSONP_SCRIPT = """
const [url, done] = [arguments[0], arguments[arguments.length - 1]];
window.onShape = document => done(document);
const tag = document.createElement("script");
tag.src = url + "&callback=onShape";
tag.onerror = () => done({failed: "script"});
document.head.appendChild(tag);
"""


def _cross_origin_gets(browser, api_base: str, tmp_path: Path, expected: Any) -> None:
    page_dir = tmp_path / "other-site"
    page_dir.mkdir()
    (page_dir / "index.html").write_text(CROSS_ORIGIN_PAGE, encoding="utf-8")
    url = api_base + "/api.php?action=bridgeshape&shapeaction=get&format=json&title=" + urllib.request.quote(expected["_title"].lower())
    del expected["_title"]
    with static_server(page_dir) as other:
        assert not other.base.startswith(api_base)  # another port: another origin
        browser.get(other.base + "index.html")
        results = browser.execute_async_script(FETCH_SCRIPT, url)
        assert results.get("simple") == expected and results.get("preflighted") == expected, results
        assert results["without"] == "blocked"  # no origin=*: the browser keeps the answer from the page
        assert browser.execute_async_script(JSONP_SCRIPT, url) == expected


def _splinter_document(sample: Path) -> Any:
    document = _json(sample, f"api/get/pageid/{SPLINTER}.json")
    title = next(p["title"] for p in _json(sample, "api/list.json")["pages"] if p["pageId"] == SPLINTER)
    return {**document, "_title": title}


def test_a_page_on_another_origin_gets_from_serve(browser, sample, tmp_path):
    from bridgeshape_mirror.serving.http_server import make_server

    live = make_server(sample, "127.0.0.1", 0)
    thread = threading.Thread(target=live.serve_forever, daemon=True)
    thread.start()
    try:
        _cross_origin_gets(browser, live.url, tmp_path, _splinter_document(sample))
    finally:
        live.shutdown()
        live.server_close()


def test_a_page_on_another_origin_gets_from_nginx(browser, sample, tmp_path):
    from support.nginx import start_nginx, stop_nginx

    running = start_nginx(tmp_path / "prefix", sample, (sample / "nginx/bridgeshape-api.conf").read_text(encoding="utf-8"))
    try:
        _cross_origin_gets(browser, running.url, tmp_path, _splinter_document(sample))
    finally:
        stop_nginx(running.process)
# ------------------------------------------------------------------ languages, print, filter, downloads


@pytest.fixture(scope="module")
def italian(tmp_path_factory) -> Path:
    """The sample mirror in the wiki's own language (its export says xml:lang="it")."""
    return _sync_and_build(tmp_path_factory.mktemp("italian"), lang=None)


@pytest.fixture(scope="module", params=["it", "en"])
def printable(tmp_path_factory, request) -> Path:
    """10 deals per scenario: Splinter has 60 boards; in the wiki's language and in English."""
    return _sync_and_build(tmp_path_factory.mktemp("printable"), lang=None if request.param == "it" else "en", deals=10)


OVERFLOW_JS = """
const doc = document.documentElement;
return {lang: doc.lang, scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, h1: document.querySelector('h1').textContent,
        headings: Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).map(h => Number(h.tagName[1]))};
"""


@pytest.mark.parametrize("lang", ["en", "it"])
def test_both_languages_at_desktop_and_phone_width(browser, sample, italian, lang):
    """Screenshots of every page at 1280 and 390 px, in English and in Italian: the page is
    in its language, nothing is wider than the window, and headings never skip a level."""
    out = sample if lang == "en" else italian
    h1 = {"en": {"front": "Conventions", "report": "Validation report"}, "it": {"front": "Convenzioni", "report": "Rapporto di validazione"}}
    with static_server(out) as served:
        for width in (DESKTOP, PHONE):
            context = phone(browser) if width == PHONE else contextlib.nullcontext()
            with context:
                for name, path in PAGES:
                    assert open_page(browser, served.base + path, f"{lang}-{width[0]}-{name}") == [], path
                    state = browser.execute_script(OVERFLOW_JS)
                    assert state["lang"] == lang, path
                    assert state["scrollWidth"] <= state["clientWidth"] + 1, (lang, width, path, state)
                    assert all(b - a <= 1 for a, b in zip(state["headings"], state["headings"][1:])), (path, state["headings"])
                    if name in h1[lang]:
                        assert state["h1"] == h1[lang][name]


def _pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


def test_sixty_boards_print_on_at_most_sixteen_pages(browser, printable, tmp_path):
    page = printable / f"conventions/{SPLINTER}.html"
    boards = sum(len(s["deals"]) for s in _json(printable, f"api/deals/{SPLINTER}.json")["scenarios"])
    assert boards == 60
    pdf = tmp_path / "splinter.pdf"
    profile = tmp_path / "profile"
    import subprocess

    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", f"--user-data-dir={profile}",
         f"--print-to-pdf={pdf}", page.resolve().as_uri()],
        check=True, timeout=120, capture_output=True,
    )
    pages = _pdf_pages(pdf.read_bytes())
    # At most four boards to a page, so 60 boards take at least 15 pages; at most 16 with headings.
    assert 15 <= pages <= 16, pages
    # Printed, the page has no navigation, links or downloads.
    browser.get(page.resolve().as_uri())
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        hidden = browser.execute_script(
            "return ['header', 'footer', 'nav.downloads', 'p.links'].map(s => document.querySelector(s))"
            ".map(el => !el || getComputedStyle(el).display === 'none')"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert all(hidden), hidden


FILTER_JS = """
const visible = () => Array.from(document.querySelectorAll('table.conventions tbody tr')).filter(tr => !tr.hidden)
  .map(tr => tr.cells[0].textContent.trim());
const form = document.getElementById('filter'), name = document.getElementById('filter-name'),
      status = document.getElementById('filter-status');
const out = {shown: !form.hidden, all: visible().length};
name.value = 'smol'; name.dispatchEvent(new Event('input', {bubbles: true})); out.smol = visible();
name.value = ''; status.value = 'broken'; status.dispatchEvent(new Event('input', {bubbles: true})); out.broken = visible();
name.value = 'GAZ'; name.dispatchEvent(new Event('input', {bubbles: true})); out.both = visible();
out.count = document.getElementById('filter-count').textContent;
return out;
"""


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_front_page_filters_by_name_and_status(browser, sample, italian, lang):
    out = sample if lang == "en" else italian
    source = (out / "index.html").read_text(encoding="utf-8")
    # Without scripts the form stays hidden and every convention is listed.
    assert re.search(r'<form class="filter" id="filter" role="search" hidden>', source)
    assert source.count("<tr class=\"status-") == 24
    with static_server(out) as served:
        assert open_page(browser, served.base + "index.html", f"{lang}-filter", full=False) == []
        state = browser.execute_script(FILTER_JS)
    broken = {row["title"] for row in _json(out, "report/report.json")["broken"] if not row["servingRevid"]}
    assert state["shown"] and state["all"] == 24
    assert state["smol"] == ["Smolen"]
    assert set(state["broken"]) == broken and broken
    assert state["both"] == ["Gazzilli"] and state["count"] == "1 / 24"


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_deals_file_is_offered_for_download(browser, sample, italian, lang):
    out = sample if lang == "en" else italian
    with static_server(out) as served:
        assert open_page(browser, f"{served.base}conventions/{SPLINTER}.html", f"{lang}-downloads", full=False) == []
        links = browser.execute_script(
            "return Array.from(document.querySelectorAll('nav.downloads a')).map(a => [a.getAttribute('href'), a.href, a.hasAttribute('download')])"
        )
        assert [href for href, _, _ in links] == [f"../{d.path}" for d in page_downloads(SPLINTER)]
        for href, absolute, download in links:
            status, body = _fetch(absolute)
            assert status == 200 and download, href
            assert body == (out / href[3:]).read_bytes() and body


CONTRAST_JS = """
const rgba = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
const background = el => { for (; el; el = el.parentElement) { const c = rgba(getComputedStyle(el).backgroundColor);
  if (c[3] > 0.5) return c; } return [255, 255, 255, 1]; };
const seen = {};
for (const el of document.querySelectorAll('body *')) {
  const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  const style = getComputedStyle(el);
  if (!own || style.display === 'none' || style.visibility === 'hidden' || el.closest('.sr-only')) continue;
  const fg = lum(rgba(style.color)), bg = lum(background(el));
  const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  const key = el.tagName + '.' + el.className;
  if (!(key in seen) || ratio < seen[key]) seen[key] = Math.round(ratio * 100) / 100;
}
return seen;
"""


def test_text_has_sufficient_contrast(browser, italian):
    """WCAG AA: every piece of text at least 4.5:1 against the background it sits on."""
    low, checked = {}, set()
    for name, path in PAGES:
        browser.get((italian / path).resolve().as_uri())
        for element, ratio in browser.execute_script(CONTRAST_JS).items():
            checked.add(element)
            if ratio < 4.5:
                low[f"{name}: {element}"] = ratio
    # The kinds of text of the three pages were all measured (the diagrams' grey HCP, the
    # red suits' text, the report's marks and hints among them).
    assert {"SPAN.hcp", "DIV.suit hearts", "MARK.", "SPAN.hint", "SPAN.dealer"} <= checked, sorted(checked)
    assert low == {}
