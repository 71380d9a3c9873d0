"""The drop-in against the real wiki it stands in for: for every spelling of a title, what
the test MediaWiki itself reads (`action=query&titles=...&redirects`, the normalised title
and the redirect's target) is what the mirror answers, through `serve` and the real nginx.
And a client written for the wiki (mwclient, requests) works on the mirror unchanged, and
errors, warnings and echoes are MediaWiki's, detail for detail (core modules answer the
same requests on the wiki)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import mwclient
import pytest
import requests

from support import mirror_fixture as mf
from bridgeshape_mirror.serving.http_server import make_server
from support.nginx import start_nginx, stop_nginx
from support.serve import running as serve_running

try:
    from support.wiki_server import WikiServer
except ImportError:  # tests/ imported as a package
    from tests.support.wiki_server import WikiServer  # type: ignore[no-redef]

pytestmark = pytest.mark.slow

PAGES = {
    "Splinter": "opener H:5+ hcp:12-21; responder H:4+ C:0-1",
    "Ècarté": "opener hcp:20-21 shape:balanced",
    "SSeta": "opener S:5+",  # what MediaWiki makes of "ßeta"
    "Contro/Varianti": "opener hcp:12+",
    "Ǆungla": "opener C:6+",
}
REDIRECTS = {"Splinter (convenzione)": "Splinter", "Écarté": "Ècarté"}
#: (how a client spells it, raw as it goes into the query string).
SPELLINGS = [
    "splinter", "Splinter", "+Splinter+", "__Splinter_", "%3Asplinter", ":+splinter", "splinter%23Risposte",
    "Splinter_%23", "%C2%A0splinter", "splinter%E3%80%80", "SPLINTER", "%C3%A8cart%C3%A9", "%C3%9Feta", "sSeta",
    "%C7%86ungla", "%C7%85ungla", "contro/Varianti", "Contro/varianti", "Contro_/Varianti", "Contro%2FVarianti",
    "Splinter_(convenzione)", "splinter+(convenzione)", "%C3%A9cart%C3%A9", "Non+esiste", "A%5BB", "..", "%23solo",
    "Splinter&title=Contro%2FVarianti",
]


def text(value: str) -> str:
    return f"Una convenzione.\n{{{{Convenzione\n|nome=X\n|shape_constraints={value}\n}}}}\n"


@pytest.fixture(scope="module")
def built(mediawiki_installed, tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("dropin-wiki")
    with WikiServer().start() as wiki:
        wiki.admin.edit("Template:Convenzione", "<code>{{{shape_constraints|}}}</code>")
        for title, value in PAGES.items():
            wiki.admin.edit(title, text(value))
        for title, target in REDIRECTS.items():
            wiki.admin.edit(title, f"#REDIRECT [[{target}]]")
        wiki.run_jobs()
        out = work / "output"
        done = subprocess.run(
            [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--api", wiki.api_url, "--state", str(work / "state.sqlite"),
             "--out", str(out), "--deals", "1", "--no-dd", "--contact", "tests@example.org"],
            capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, done.stderr
        yield wiki, out


def wiki_reads(wiki, raw: str) -> str | None:
    """The title MediaWiki finds for `raw` (a title= value), following a redirect; None when
    it calls the title bad."""
    # PHP takes the last of repeated parameters: the same raw value in titles= reads alike.
    raw = raw.rsplit("&title=", 1)[-1]
    answer = requests.get(f"{wiki.api_url}?action=query&format=json&formatversion=2&redirects=1&titles={raw}", timeout=30).json()
    pages = answer["query"].get("pages")  # none at all for a bare fragment: no title
    return None if not pages or pages[0].get("invalid") else pages[0]["title"]


def expected_body(out: Path, title: str | None) -> bytes | dict:
    if title is None:
        return {"invalidtitle"}  # type: ignore[return-value]
    path = out / "api/get/title" / (title.replace(" ", "_") + ".json")
    return path.read_bytes() if path.exists() else {"missingtitle"}  # type: ignore[return-value]


def check(base_url: str, wiki, out: Path) -> list[str]:
    problems = []
    for raw in SPELLINGS:
        wanted = expected_body(out, wiki_reads(wiki, raw))
        answer = mf.fetch(base_url, "/api.php?action=bridgeshape&shapeaction=get&format=json&title=" + raw)
        if isinstance(wanted, bytes):
            if answer.body != wanted:
                problems.append(f"{raw}: {answer.body[:120]!r}")
        elif answer.json().get("error", {}).get("code") not in wanted:
            problems.append(f"{raw}: {answer.body[:120]!r}, the wiki says {wanted}")
    return problems


def test_the_wiki_agrees_with_itself_about_the_cases(built) -> None:
    """The matrix means something: the wiki finds the pages by these spellings."""
    wiki, _ = built
    assert wiki_reads(wiki, "%C3%9Feta") == "SSeta"
    assert wiki_reads(wiki, "%C7%86ungla") == "Ǆungla"
    assert wiki_reads(wiki, "splinter+(convenzione)") == "Splinter"
    assert wiki_reads(wiki, "Contro_/Varianti") == "Contro /Varianti"


def test_serve_reads_titles_as_the_wiki_does(built) -> None:
    wiki, out = built
    live = make_server(out, "127.0.0.1", 0)
    thread = threading.Thread(target=live.serve_forever, daemon=True)
    thread.start()
    try:
        assert check(live.url, wiki, out) == []
        host = live.url.removeprefix("http://")
        site = mwclient.Site(host, path="/", scheme="http", clients_useragent="bridgeshape-mirror tests")
        assert site.site["generator"].startswith("MediaWiki 1.39")
        document = site.get("bridgeshape", shapeaction="get", title="Splinter (convenzione)")
        assert document == json.loads((out / "api/get/title/Splinter.json").read_bytes())
    finally:
        live.shutdown()
        live.server_close()


def test_nginx_reads_titles_as_the_wiki_does(built, tmp_path: Path) -> None:
    wiki, out = built
    running = start_nginx(tmp_path / "prefix", out, (out / "nginx/bridgeshape-api.conf").read_text(encoding="utf-8"), post=True)
    try:
        assert check(running.url, wiki, out) == []
        site = mwclient.Site(running.url.removeprefix("http://"), path="/", scheme="http", clients_useragent="bridgeshape-mirror tests")
        assert site.get("bridgeshape", shapeaction="get", title="écarté") == json.loads((out / "api/get/title/Ècarté.json").read_bytes())
        # mwclient's default, a form-body POST (the POST snippet, with njs: the build's files).
        from bridgeshape_mirror.serving import nginx as dropin

        assert (out / "nginx" / dropin.POST_SNIPPET).read_text(encoding="utf-8") == dropin.render_post_snippet()
        assert (out / "nginx" / dropin.POST_SCRIPT).read_bytes() == dropin.post_script()
        assert site.api("bridgeshape", shapeaction="get", title="ßeta") == json.loads((out / "api/get/title/SSeta.json").read_bytes())
        params = {"action": "bridgeshape", "shapeaction": "get", "title": "splinter (convenzione)", "format": "json"}
        assert requests.get(running.url + "/api.php", params=params, timeout=10).content == (out / "api/get/title/Splinter.json").read_bytes()
    finally:
        stop_nginx(running.process)


# --- MediaWiki's answers, detail for detail (issue 32) ------------------------------------------
# The test wiki has no BridgeShape extension: each request goes to both with a core module
# that answers alike (action=query&meta=siteinfo, whose `query` part apart is the mirror's
# file; an unknown action; action=parse, which reads a title as `get` does).

#: Whether nginx answers as the wiki too: "same", "code" (the same error, worded apart), or
#: "" (serve only: docs/OPERATING.md says why).
SAME, CODE, SERVE_ONLY = "same", "code", ""
SITEINFO = "action=query&meta=siteinfo&format=json"
REQUESTS = [
    ("action=nope&format=json", SAME),
    *((f"action=nope&format=json&errorformat={f}", SAME) for f in ("plaintext", "wikitext", "html", "none")),
    ("action=nope&format=json&errorformat=plaintext&formatversion=2", SAME),
    ("action=nope&format=json&errorformat=none&formatversion=2", SAME),
    ("action=nope&format=json&formatversion=2", SAME),
    (SITEINFO + "&errorformat=fancy", SAME),
    (SITEINFO + "&errorformat=fancy&formatversion=2", SAME),
    (SITEINFO + "&assert=user", SAME),
    (SITEINFO + "&assert=bot", SAME),
    (SITEINFO + "&assert=admin", SAME),
    (SITEINFO + "&assert=user&errorformat=plaintext", SAME),
    (SITEINFO + "&assert=bot&errorformat=none&formatversion=2", SAME),
    (SITEINFO + "&assertuser=Bob", SERVE_ONLY),
    (SITEINFO + "&assert=anon", SAME),
    ("action=nope&format=json&requestid=r%22q&curtimestamp=1", SERVE_ONLY),
    (SITEINFO + "&requestid=r1&curtimestamp=1", SERVE_ONLY),
    (SITEINFO + "&requestid=", SERVE_ONLY),
    (SITEINFO + "&foo=1", SERVE_ONLY),
    (SITEINFO + "&foo=1&b.r=2&c%5B%5D=3", SERVE_ONLY),
    (SITEINFO + "&foo=1&errorformat=plaintext", SERVE_ONLY),
    ("action=nope&format=json&foo=1&errorformat=plaintext&formatversion=2", SERVE_ONLY),
]
#: Bad titles, `get` on the mirror and `action=parse&page=` on the wiki.
BAD_TITLES = [("..", SAME), ("Foo%7Cbar", CODE), ("Foo_bar%7Cx+y", CODE), ("A%22b%5Cc%3Cd%7C", CODE), ("%C3%A8%7C", CODE), ("Foo|bar", CODE)]
_TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def _comparable(answer: mf.Answer) -> tuple[object, ...]:
    """What must be equal: status, type, error header, and the document in its order, the
    wiki's own siteinfo (`query`) and the clock (`curtimestamp`) aside."""
    document = answer.json()
    if isinstance(document, dict):
        document.pop("query", None)
        if re.fullmatch(_TIMESTAMP, str(document.get("curtimestamp", "x"))):
            document["curtimestamp"] = "<now>"
        document = list(document.items())
    return answer.status, answer.headers.get("content-type"), answer.headers.get("mediawiki-api-error"), document


def differences(base_url: str, wiki, nginx: bool) -> list[str]:
    problems = []
    cases = [(query, query, how) for query, how in REQUESTS]
    cases += [(f"action=bridgeshape&shapeaction=get&format=json&title={raw}", f"action=parse&format=json&page={raw}", how)
              for raw, how in BAD_TITLES]
    for ours, theirs, how in cases:
        if nginx and how == SERVE_ONLY:
            continue
        wanted = _comparable(mf.fetch(wiki.api_url.removesuffix("/api.php"), "/api.php?" + theirs))
        got = _comparable(mf.fetch(base_url, "/api.php?" + ours))
        if nginx and how == CODE:
            wanted, got = wanted[:3], got[:3]
        if got != wanted:
            problems.append(f"{ours}:\n  mirror {got}\n  wiki   {wanted}")
    return problems


def test_serve_answers_as_the_wiki_does(built) -> None:
    wiki, out = built
    with serve_running(out) as live:
        assert differences(live.url, wiki, nginx=False) == []
        # No format: MediaWiki's HTML page, the same pretty-printed answer in it.
        pages = [mf.fetch(url, "/api.php?action=nope") for url in (live.url, wiki.api_url.removesuffix("/api.php"))]
        assert pages[0].headers["content-type"] == pages[1].headers["content-type"] == "text/html; charset=UTF-8"
        pre = [re.search(rb'<pre class="api-pretty-content">(.*?)</pre>', page.body, re.S) for page in pages]
        assert pre[0] is not None and pre[1] is not None and pre[0].group(1) == pre[1].group(1)


def test_nginx_answers_as_the_wiki_does_where_it_can(built, tmp_path: Path) -> None:
    wiki, out = built
    running = start_nginx(tmp_path / "prefix", out, (out / "nginx/bridgeshape-api.conf").read_text(encoding="utf-8"))
    try:
        assert differences(running.url, wiki, nginx=True) == []
    finally:
        stop_nginx(running.process)
