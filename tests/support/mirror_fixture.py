"""A small mirror folder in the layout of SEMANTICS 4, and the api.php requests a client
would send to it with the answers it must get. Shared by the `serve` and nginx tests: both
servers must give the same documents and the same errors.

The expected error documents are spelled out here, independently of site_builder, with
MediaWiki's own codes and wordings (checked against MediaWiki 1.39's api.php).
"""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote_to_bytes, urlsplit

from bridgeshape_mirror import dsl
import requests

from bridgeshape_mirror.serving.nginx_errors import ERRORS_DIR, error_files
from bridgeshape_mirror.serving.siteinfo import SITEINFO_FILE, siteinfo_document
from bridgeshape_mirror.serving.title_lookup import case_spellings, namespace_spellings
from bridgeshape_mirror.store.model import SiteInfo

SPLINTER = (
    "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15 // "
    "1H-4D: opener H:5+ hcp:12-21; responder H:4+ D:0-1 Dhcp:0 hcp:10-15"
)
STAYMAN = (
    "fit a cuori: fit:H8+ opener hcp:15-17 S:2-4 H:2-4 D:2-5 C:2-5; responder H:4+ hcp:8+ // "
    "fit a picche: fit:S8+ opener hcp:15-17 S:2-4 H:2-4 D:2-5 C:2-5; responder S:4+ hcp:8+"
)
#: A label that would be markup or SSI if anything along the way interpreted the files.
HOSTILE_DSL = '<!--# echo var="host" --> <script>alert(1)</script>: opener H:5+ hcp:12-21'
#: A realistic 2-scenario DSL (for validate and the benchmark).
TWO_SCENARIOS = (
    "dopo 1H: fit:H8+ opener H:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15 // "
    "dopo 1S: fit:S8+ opener S:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15"
)


#: The wiki the mirror comes from: MediaWiki's defaults (every namespace first-letter).
SITE = SiteInfo(
    namespaces={0: "", 4: "Progetto", 10: "Template", 14: "Categoria"},
    namespace_lookup={"progetto": 4, "project": 4, "pj": 4, "template": 10, "categoria": 14, "category": 14},
    sitename="Prova",
    general='{"generator": "MediaWiki 1.39.17", "sitename": "Prova"}',
)


@dataclass(frozen=True)
class Page:
    page_id: int
    title: str  # MediaWiki display form (spaces)
    raw: str | None  # None: a convention page without shape_constraints
    namespace: int = 0

    @property
    def url_title(self) -> str:
        return self.title.replace(" ", "_")


PAGES = (
    Page(42, "Splinter", SPLINTER),
    Page(15, "Stayman", STAYMAN),
    Page(101, "Contro \"sputnik\"/Varianti d'autore", "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+"),
    Page(102, "Segnali & scarti", "opener H:7+ x:0-1 hcp:5-10"),
    Page(103, "C++ e 1+1", "opener S:5+ hcp:12-21; responder S:3+ hcp:6-9"),
    Page(104, "Perché?", "opener hcp:15-17 shape:balanced"),
    Page(105, "Ècarté: 100%", "opener hcp:20-21 shape:balanced"),
    Page(106, "Prezzo $5 \\ barra", "opener D:6+ hcp:10-15"),
    Page(107, "Uno due tre quattro cinque sei sette otto nove dieci undici dodici", "opener C:6+"),
    Page(108, "Etichette ostili", HOSTILE_DSL),
    # 40 spaces: more than one 32-wide step of the nginx cascade.
    Page(110, "Sequenza" + " a" * 40, "opener S:4+ H:4+"),
    Page(109, "Senza vincoli", None),
    Page(7, "Contro", "opener hcp:12+"),
    Page(111, "Progetto:Regole del sistema", "opener hcp:12-14 shape:balanced", namespace=4),
)


#: What the build passes the nginx snippet for these pages' namespaces.
NAMESPACES = namespace_spellings(SITE, {page.namespace for page in PAGES})
#: ... and for the characters of their titles (it decodes their escapes).
TITLE_CHARACTERS = frozenset("".join(page.title + "".join(case_spellings(page.title, page.namespace, SITE)) for page in PAGES))


def page_document(page: Page) -> dict[str, Any] | None:
    if page.raw is None:
        return None
    result = dsl.parse(page.raw)
    assert result.valid, (page.title, result.errors)
    return dsl.get_document(page.page_id, page.raw, result.scenarios)


def _write(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def list_document(pages: tuple[Page, ...] = PAGES) -> dict[str, Any]:
    """`shapeaction=list`: the pages with valid constraints."""
    listed = []
    for page in pages:
        document = page_document(page)
        if document is not None:
            scenarios = document["shapeconstraints"]["scenarios"]
            listed.append(
                {
                    "pageId": page.page_id,
                    "title": page.title,
                    "scenarioCount": len(scenarios),
                    "labels": [s["label"] for s in scenarios],
                }
            )
    return {"pages": listed}


def listall_document(pages: tuple[Page, ...] = PAGES) -> dict[str, Any]:
    return {"pages": [{"pageId": p.page_id, "title": p.title, "hasConstraints": p.raw is not None} for p in pages]}


def build_mirror(out: Path, pages: tuple[Page, ...] = PAGES, site: SiteInfo = SITE) -> Path:
    """Write a mirror folder at `out` (created) for the wiki `site` and return it."""
    out.mkdir(parents=True, exist_ok=True)
    for page in pages:
        document = page_document(page)
        if document is None:
            continue
        _write(out / "api" / "get" / "pageid" / f"{page.page_id}.json", document)
        _write(out / "api" / "get" / "title" / f"{page.url_title}.json", document)
        # What the build writes for nginx, which cannot upper-case a first letter.
        for spelling in case_spellings(page.title, page.namespace, site):
            _write(out / "api" / "get" / "title" / f"{spelling.replace(' ', '_')}.json", document)
        _write(out / "api" / "deals" / f"{page.page_id}.json", {"pageId": page.page_id, "scenarios": []})
        (out / "deals").mkdir(exist_ok=True)
        (out / "deals" / f"{page.page_id}.pbn").write_text(f'[Event "{page.title}"]\n', encoding="utf-8")
    _write(out / SITEINFO_FILE, siteinfo_document(site))
    (out / ERRORS_DIR).mkdir(parents=True)
    for name, body in error_files().items():  # the nginx drop-in's error answers
        (out / ERRORS_DIR / name).write_bytes(body)
    _write(out / "api" / "list.json", list_document(pages))
    _write(out / "api" / "listall.json", listall_document(pages))
    (out / "report").mkdir(exist_ok=True)
    _write(out / "report" / "report.json", {"broken": []})
    (out / "report" / "index.html").write_text("<!doctype html><title>Rapporto</title><h1>Rapporto</h1>\n", encoding="utf-8")
    (out / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><title>Convenzioni</title><h1>Convenzioni – Perché?</h1>\n",
        encoding="utf-8",
    )
    return out


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------
# Requests and expected answers
# --------------------------------------------------------------------------------------


#: The docref text every error carries: MediaWiki's, naming the wiki's api.php (the
#: fixture's wiki has no `server` in its siteinfo).
DOCREF = (
    "See /api.php for API usage. Subscribe to the mediawiki-api-announce mailing list at "
    "&lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/&gt; "
    "for notice of API deprecations and breaking changes."
)


def error(code: str, info: str) -> dict[str, Any]:
    return {"error": {"code": code, "info": info, "*": DOCREF}}


MISSINGTITLE = error("missingtitle", "The page you specified doesn't exist.")


@dataclass(frozen=True)
class Case:
    """One api.php request: `query` is sent byte for byte (already encoded, as a client
    builds it); `expected` is the JSON document of the answer."""

    name: str
    query: str
    expected: Any
    #: The file whose bytes the answer must be (None for errors).
    file: str | None = None
    path: str = "/api.php"
    #: What `serve` answers where the static drop-in (nginx) cannot say as much (a warning,
    #: a decoded value echoed); None: the same document.
    served: Any = None


def title_spellings(title: str) -> dict[str, str]:
    """The ways a client spells a title in a query value."""
    url_form = title.replace(" ", "_")
    return {
        "plus": quote_plus(title, safe=""),  # urlencode / requests params: spaces as +
        "pct20": quote(title, safe=""),  # encodeURIComponent-like: spaces as %20
        "underscore": quote(url_form, safe=""),  # the URL form, fully encoded
        # Hand-built: only what a query cannot hold raw is encoded; / ' : ? $ " \ stay raw.
        "raw": quote(url_form, safe="/'\":?$\\!*(),;@=~"),
    }


def _lower_hex(value: str) -> str:
    """Percent-escapes with lower-case hex digits (%c3%a9), as some clients send them."""
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), value)


def _with_format(query: str) -> str:
    """`format=json` added where it is missing (without it MediaWiki, and `serve`, answer
    an HTML page: tested apart)."""
    return query if re.search(r"(?:^|&)format=", query) else (query + "&" if query else "") + "format=json"


def _echoed_title(case: Case) -> Case:
    """An invalid title's case with what `serve` echoes: the title as sent, decoded."""
    if not (isinstance(case.expected, dict) and case.expected.get("error", {}).get("code") == "invalidtitle"):
        return case
    raw = re.findall(r"(?:^|&)title=([^&]*)", case.query)[-1]
    text = unquote_to_bytes(raw.replace("+", " ")).decode("utf-8", errors="replace")
    return replace(case, served=error("invalidtitle", f'Bad title "{text}".'))


def api_cases(pages: tuple[Page, ...] = PAGES) -> list[Case]:
    """Every request both servers must answer alike (validate excluded: it differs), with
    `format=json`; `served` says where `serve` says more."""
    return [_echoed_title(replace(case, query=_with_format(case.query))) for case in _api_cases(pages)]


def _api_cases(pages: tuple[Page, ...] = PAGES) -> list[Case]:
    cases = [
        Case("list", "action=bridgeshape&shapeaction=list&format=json", list_document(pages), "api/list.json"),
        Case(
            "listall",
            "format=json&shapeaction=listall&action=bridgeshape",
            listall_document(pages),
            "api/listall.json",
        ),
        Case(
            "list under /w",
            "action=bridgeshape&shapeaction=list&format=json",
            list_document(pages),
            "api/list.json",
            path="/w/api.php",
        ),
    ]
    for page in pages:
        document = page_document(page)
        if document is None:
            cases.append(
                Case(f"no constraints {page.title}", f"action=bridgeshape&shapeaction=get&pageid={page.page_id}&format=json",
                     error("nosuchpageid", f"There is no page with ID {page.page_id}."))
            )
            continue
        by_id = f"api/get/pageid/{page.page_id}.json"
        by_title = f"api/get/title/{page.url_title}.json"
        cases.append(Case(f"pageid {page.page_id}", f"action=bridgeshape&shapeaction=get&pageid={page.page_id}&format=json", document, by_id))
        cases.append(Case(f"pageid 00{page.page_id} first", f"pageid=00{page.page_id}&format=json&action=bridgeshape&shapeaction=get", document, by_id))
        spellings = title_spellings(page.title)
        spellings["lowercase-hex"] = _lower_hex(spellings["underscore"])
        for how, value in spellings.items():
            cases.append(Case(f"title {how} {page.title}", f"action=bridgeshape&shapeaction=get&title={value}&format=json", document, by_title))
        cases.append(
            Case(f"title last {page.title}", f"format=json&shapeaction=get&action=bridgeshape&title={spellings['plus']}", document, by_title)
        )
    cases += [
        # PHP's reading of a query string: names exactly, the last of repeated ones counts.
        Case("parameter names are exact", "ACTION=bridgeshape&ShapeAction=list", error("missingparam", 'The "action" parameter must be set.')),
        Case("last of repeated actions wins", "action=query&action=bridgeshape&shapeaction=list", list_document(pages), "api/list.json"),
        Case("last of repeated shapeactions wins", "shapeaction=get&action=bridgeshape&shapeaction=listall&format=json",
             listall_document(pages), "api/listall.json"),
        Case("last of repeated pageids wins", "action=bridgeshape&shapeaction=get&pageid=42&pageid=15", page_document(pages[1]), "api/get/pageid/15.json"),
        Case("a last bare name empties it", "action=bridgeshape&shapeaction=list&shapeaction",
             error("missingparam", 'The "shapeaction" parameter must be set.')),
        Case("a longer name is another", "action=bridgeshape&shapeaction=list&shapeactionx=get", list_document(pages), "api/list.json",
             served={"warnings": {"main": {"*": "Unrecognized parameter: shapeactionx."}}, **list_document(pages)}),
        # PHP's reading of a title: the last of repeated ones counts.
        Case("last of repeated titles wins", "action=bridgeshape&shapeaction=get&title=Splinter&title=Stayman",
             page_document(pages[1]), "api/get/title/Stayman.json"),
        Case("meta=siteinfo", "action=query&meta=siteinfo%7Cuserinfo&siprop=general%7Cnamespaces&format=json",
             siteinfo_document(SITE), SITEINFO_FILE),
        Case("missing title", "action=bridgeshape&shapeaction=get&title=Non+esiste&format=json", MISSINGTITLE),
        Case("subpage of nothing", "action=bridgeshape&shapeaction=get&title=Contro%2FNon_esiste&format=json", MISSINGTITLE),
        Case("folder is no page", "action=bridgeshape&shapeaction=get&title=Contro_%22sputnik%22&format=json", MISSINGTITLE),
        Case("wrong case inside the title", "action=bridgeshape&shapeaction=get&title=SPLINTER&format=json", MISSINGTITLE),
        Case("literal plus is not a space", "action=bridgeshape&shapeaction=get&title=C%2B%2B%2Be%2B1%2B1&format=json", MISSINGTITLE),
        Case("missing pageid", "action=bridgeshape&shapeaction=get&pageid=99999&format=json", error("nosuchpageid", "There is no page with ID 99999.")),
        Case("pageid 0", "action=bridgeshape&shapeaction=get&pageid=000&format=json", error("nosuchpageid", "There is no page with ID 0.")),
        Case("negative pageid", "action=bridgeshape&shapeaction=get&pageid=-3&format=json", error("nosuchpageid", "There is no page with ID -3.")),
        Case("bad pageid", "action=bridgeshape&shapeaction=get&pageid=abc&format=json", error("badinteger", 'Invalid value "abc" for integer parameter "pageid".')),
        Case("bad pageid unsafe", "action=bridgeshape&shapeaction=get&pageid=1%2B1&format=json", error("badinteger", 'Invalid value for integer parameter "pageid".')),
        Case("pageid with a space", "action=bridgeshape&shapeaction=get&pageid=+7&format=json", error("badinteger", 'Invalid value for integer parameter "pageid".')),
        Case("title and pageid", "action=bridgeshape&shapeaction=get&title=Splinter&pageid=42&format=json",
             error("invalidparammix", 'The parameters "title" and "pageid" can not be used together.')),
        Case("neither", "action=bridgeshape&shapeaction=get&format=json", error("missingparam", 'One of the parameters "title" and "pageid" is required.')),
        Case("empty title and pageid", "action=bridgeshape&shapeaction=get&title=&pageid=&format=json",
             error("missingparam", 'One of the parameters "title" and "pageid" is required.')),
        Case("empty title counts as absent", "action=bridgeshape&shapeaction=get&title=&pageid=42&format=json", page_document(pages[0]), "api/get/pageid/42.json"),
        Case("unknown shapeaction", "action=bridgeshape&shapeaction=delete&format=json",
             error("badvalue", 'Unrecognized value for parameter "shapeaction": delete.')),
        Case("unknown shapeaction unsafe", "action=bridgeshape&shapeaction=%3Cscript%3E&format=json",
             error("badvalue", 'Unrecognized value for parameter "shapeaction".')),
        Case("no shapeaction", "action=bridgeshape&format=json", error("missingparam", 'The "shapeaction" parameter must be set.')),
        Case("other action", "action=query&list=allpages&format=json", error("badvalue", 'Unrecognized value for parameter "action": query.')),
        # assert, for the anonymous user every mirror answer is for (MediaWiki's wordings).
        Case("assert user", "action=bridgeshape&shapeaction=list&assert=user",
             error("assertuserfailed", "You are no longer logged in, so the action could not be completed.")),
        Case("assert bot", "action=query&meta=siteinfo&assert=bot",
             error("assertbotfailed", 'You do not have the "bot" right, so the action could not be completed.')),
        Case("assert anon", "action=bridgeshape&shapeaction=list&assert=anon", list_document(pages), "api/list.json"),
        Case("assert other", "action=bridgeshape&shapeaction=list&assert=admin",
             error("badvalue", 'Unrecognized value for parameter "assert": admin.')),
        Case("assert unsafe", "action=bridgeshape&shapeaction=list&assert=%3Cx%3E",
             error("badvalue", 'Unrecognized value for parameter "assert".')),
        Case("assert after the action", "action=nope&assert=user", error("badvalue", 'Unrecognized value for parameter "action": nope.')),
        # The error formats (errorformat, formatversion), each error's own file in nginx.
        Case("errorformat plaintext", "action=bridgeshape&shapeaction=get&title=Non+esiste&errorformat=plaintext",
             {"errors": [{"code": "missingtitle", "module": "bridgeshape", "*": "The page you specified doesn't exist."}], "*": DOCREF}),
        Case("errorformat html, formatversion 2", "action=bridgeshape&shapeaction=get&pageid=abc&errorformat=html&formatversion=2",
             {"errors": [{"code": "badinteger", "text": 'Invalid value "abc" for integer parameter "pageid".', "module": "bridgeshape"}],
              "docref": DOCREF}),
        Case("errorformat none", "action=bridgeshape&errorformat=none", {"errors": [{"code": "missingparam", "module": "bridgeshape"}], "*": DOCREF}),
        Case("formatversion 2", "action=bridgeshape&shapeaction=get&pageid=999&formatversion=2",
             {"error": {"code": "nosuchpageid", "info": "There is no page with ID 999.", "docref": DOCREF}}),
        Case("bad errorformat", "action=bridgeshape&shapeaction=list&errorformat=fancy",
             error("badvalue", 'Unrecognized value for parameter "errorformat": fancy.')),
        Case("assert in the new format", "action=bridgeshape&shapeaction=list&assert=bot&errorformat=raw",
             {"errors": [{"code": "assertbotfailed", "module": "main", "*": 'You do not have the "bot" right, so the action could not be completed.'}],
              "*": DOCREF}),
        Case("no action", "format=json", error("missingparam", 'The "action" parameter must be set.')),
        Case("no query", "", error("missingparam", 'The "action" parameter must be set.')),
        Case("forbidden character", "action=bridgeshape&shapeaction=get&title=A%5BB&format=json", error("invalidtitle", "Bad title.")),
        Case("forbidden raw character", "action=bridgeshape&shapeaction=get&title=A|B&format=json", error("invalidtitle", "Bad title.")),
        Case("control character", "action=bridgeshape&shapeaction=get&title=A%00B&format=json", error("invalidtitle", "Bad title.")),
        Case("percent sequence", "action=bridgeshape&shapeaction=get&title=100%2541&format=json", error("invalidtitle", "Bad title.")),
        Case("only spaces", "action=bridgeshape&shapeaction=get&title=+%20_&format=json", error("invalidtitle", "Bad title.")),
        Case("dot dot", "action=bridgeshape&shapeaction=get&title=..&format=json", error("invalidtitle", 'Bad title "..".')),
        Case("traversal", "action=bridgeshape&shapeaction=get&title=..%2F..%2Flist&format=json", error("invalidtitle", "Bad title.")),
        Case("encoded traversal", "action=bridgeshape&shapeaction=get&title=%2e%2e%2f%2e%2e%2flist&format=json", error("invalidtitle", "Bad title.")),
        Case("inner traversal", "action=bridgeshape&shapeaction=get&title=Contro/../../list&format=json", error("invalidtitle", "Bad title.")),
        Case("too long a title", "action=bridgeshape&shapeaction=get&title=" + "%C3%A9" * 128, error("invalidtitle", "Bad title.")),
        Case("255 bytes", "action=bridgeshape&shapeaction=get&title=" + "a" * 253 + "%C3%A9", MISSINGTITLE),
        Case("256 bytes", "action=bridgeshape&shapeaction=get&title=" + "a" * 254 + "%C3%A9", error("invalidtitle", "Bad title.")),
        Case("255 bytes after trimming", "action=bridgeshape&shapeaction=get&title=__" + "b" * 255 + "+%20", MISSINGTITLE),
        Case("long folder names", "action=bridgeshape&shapeaction=get&title=" + "%2F".join(["b" * 80] * 3), MISSINGTITLE),
        Case("long pageid", "action=bridgeshape&shapeaction=get&pageid=" + "9" * 300,
             error("nosuchpageid", "There is no page with ID " + "9" * 300 + ".")),
        Case("dot segment", "action=bridgeshape&shapeaction=get&title=./Splinter&format=json", error("invalidtitle", "Bad title.")),
        # Namespace prefixes in any case, by any name the wiki reads as them.
        *(Case(f"namespace {spelling}", "action=bridgeshape&shapeaction=get&title=" + spelling, page_document(PAGES[-1]),
               "api/get/title/Progetto:Regole_del_sistema.json")
          for spelling in ("project:regole_del_sistema", "PJ%3A_regole+del+sistema", "progetto+:+Regole_del_sistema",
                           "%3AProGetto:regole_del_sistema")),
        Case("no such namespace", "action=bridgeshape&shapeaction=get&title=Progetti:Regole_del_sistema", MISSINGTITLE),
    ]
    return cases + normalisation_cases(pages)


#: Spellings of a title that MediaWiki reads as the title itself (SEMANTICS 6); `{}` is
#: the title's URL form, fully encoded. Each was checked against the test wiki's own
#: `action=query&titles=` (tests/test_dropin_wiki.py does it again).
NORMALISED_SPELLINGS = {
    "leading spaces": "+_%20{}",
    "trailing spaces": "{}_+%5F",
    "leading colon": "%3A{}",
    "leading colon and spaces": "_%3A_{}",
    "raw colon": ":{}",
    "fragment": "{}%23Varianti",
    "fragment after a space": "{}_%23x%5By%5D",
    "no-break space": "%C2%A0{}",
    "ideographic space": "{}%E3%80%80",
}


def lower_first(url_title: str) -> str:
    """The URL form with its first letter lower-cased (percent-encoded if it is not ASCII)."""
    text = url_title[0].lower() + url_title[1:]
    return quote(text, safe="")


def normalisation_cases(pages: tuple[Page, ...] = PAGES) -> list[Case]:
    cases = []
    for page in pages:
        document = page_document(page)
        if document is None:
            continue
        by_title = f"api/get/title/{page.url_title}.json"
        encoded = quote(page.url_title, safe="")
        for how, spelling in NORMALISED_SPELLINGS.items():
            cases.append(Case(f"{how} {page.title}", "action=bridgeshape&shapeaction=get&title=" + spelling.format(encoded), document, by_title))
        cases.append(Case(f"first letter {page.title}", "action=bridgeshape&shapeaction=get&title=" + lower_first(page.url_title), document, by_title))
        runs = encoded.replace("_", "_%20+_")
        cases.append(Case(f"runs of spaces {page.title}", "action=bridgeshape&shapeaction=get&title=" + runs, document, by_title))
    return cases


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes = field(repr=False)

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


def fetch(base_url: str, target: str, timeout: float = 10.0, headers: dict[str, str] | None = None) -> Answer:
    """GET `target` (path and query) exactly as given: no re-encoding, unlike requests."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("GET", target, headers=headers or {})
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def post(base_url: str, target: str, body: str, timeout: float = 10.0) -> Answer:
    """POST `body` (already encoded) as a form to `target`, byte for byte."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", target, body=body.encode("ascii"), headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def error_code(document: Any) -> str | None:
    """The code of an error document in either format (None: no error)."""
    if isinstance(document, dict) and "error" in document:
        return document["error"]["code"]
    if isinstance(document, dict) and "errors" in document:
        return document["errors"][0]["code"]
    return None


def both_invalid_titles(*answers: Answer) -> bool:
    """Every answer is an `invalidtitle` error (whose text `serve` and nginx word apart)."""
    try:
        return all(answer.json().get("error", {}).get("code") == "invalidtitle" for answer in answers)
    except ValueError:
        return False


#: What a POST's answer must share with `serve`'s (validators apart: POST is not cached).
POST_HEADERS = ("content-type", "mediawiki-api-error", "access-control-allow-origin", "cache-control")


def post_differences(reference_url: str, url: str, cases: list[Case] | None = None) -> list[str]:
    """Every case POSTed to both servers (all in the body, and split between the query string
    and the body, with and without a JSONP callback): what `url` answers otherwise."""
    problems = []
    for case in cases if cases is not None else api_cases():
        if case.served is not None:
            continue  # serve says more than nginx can (docs/OPERATING.md)
        head, _, tail = case.query.partition("&")
        for name, target, body in (
            ("body", case.path, case.query),
            ("split", case.path + "?" + head, tail),
            ("jsonp", case.path, case.query + "&callback=cb&origin=*"),
        ):
            wanted, answer = post(reference_url, target, body), post(url, target, body)
            if (answer.status, answer.body) != (wanted.status, wanted.body):
                problems.append(f"{case.name} ({name}): {answer.status} {answer.body[:150]!r}, not {wanted.status} {wanted.body[:150]!r}")
            for header in POST_HEADERS:
                if answer.headers.get(header) != wanted.headers.get(header):
                    problems.append(f"{case.name} ({name}): {header} {answer.headers.get(header)!r}, not {wanted.headers.get(header)!r}")
    return problems


def check_case(base_url: str, mirror: Path, case: Case, live: bool = False) -> list[str]:
    """The problems of one case against a running server (empty: all good); `live`: the
    server is `serve` (which answers `case.served` where it is given)."""
    target = case.path + ("?" + case.query if case.query else "")
    answer = fetch(base_url, target)
    problems = []
    if answer.status != 200:
        problems.append(f"status {answer.status}")
    if answer.headers.get("content-type") != "application/json; charset=utf-8":
        problems.append(f"content-type {answer.headers.get('content-type')!r}")
    try:
        document = answer.json()
    except ValueError:
        return problems + [f"not JSON: {answer.body[:200]!r}"]
    served = live and case.served is not None
    if document != (case.served if served else case.expected):
        problems.append(f"document {json.dumps(document, ensure_ascii=False)[:300]}")
    if served and list(document) != list(case.served):
        problems.append(f"members in the order {list(document)}")
    if case.file is not None and not served and answer.body != (mirror / case.file).read_bytes():
        problems.append("body differs from the file's bytes")
    return [f"{case.name} [{target}]: {p}" for p in problems]


def check_client_titles(base_url: str, mirror: Path, pages: tuple[Page, ...] = PAGES) -> list[str]:
    """Every page by title as `requests.get(url, params=...)` sends it (spaces as +, a
    literal + as %2B, every other hostile character percent-encoded)."""
    problems = []
    for page in pages:
        document = page_document(page)
        params = {"action": "bridgeshape", "shapeaction": "get", "title": page.title, "format": "json"}
        answer = requests.get(base_url + "/api.php", params=params, timeout=10)
        where = f"{page.title!r} [{answer.url}]"
        if answer.status_code != 200 or answer.headers.get("Content-Type") != "application/json; charset=utf-8":
            problems.append(f"{where}: {answer.status_code} {answer.headers.get('Content-Type')}")
        elif document is None:
            if answer.json() != MISSINGTITLE:
                problems.append(f"{where}: {answer.text[:200]}")
        elif answer.content != (mirror / f"api/get/title/{page.url_title}.json").read_bytes():
            problems.append(f"{where}: not the file: {answer.text[:200]}")
    return problems


def check_cors(base_url: str) -> None:
    """`origin=*` and preflights answered as MediaWiki answers anonymous CORS (both servers)."""
    get = {"action": "bridgeshape", "shapeaction": "get", "title": "splinter", "format": "json"}
    answer = requests.get(base_url + "/api.php", params={**get, "origin": "*"}, headers={"Origin": "https://x.example"}, timeout=10)
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Access-Control-Allow-Credentials"] == "false"
    assert "MediaWiki-API-Error" in answer.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Origin" not in requests.get(base_url + "/api.php", params=get, timeout=10).headers
    preflight = requests.options(
        base_url + "/api.php", params={**get, "origin": "*"},
        headers={"Origin": "https://x.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "Api-User-Agent"},
        timeout=10,
    )
    assert preflight.status_code == 200 and preflight.content == b""
    assert preflight.headers["Access-Control-Allow-Methods"] == "POST, GET, HEAD"
    assert preflight.headers["Access-Control-Allow-Headers"] == "Api-User-Agent"
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Expose-Headers" not in preflight.headers
    refused = requests.options(
        base_url + "/api.php", params={"origin": "*"},
        headers={"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "X-Secret"}, timeout=10,
    )
    assert refused.headers["MediaWiki-CORS-Rejection"] == "Unsupported header requested in preflight"
    assert "Access-Control-Allow-Origin" not in refused.headers
