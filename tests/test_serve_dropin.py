"""`serve` as a drop-in for the wiki's api.php beyond the documents: POST as mwclient sends
it, `meta=siteinfo` so `mwclient.Site()` connects, CORS and JSONP as MediaWiki answers
anonymous requests, and ETag/Last-Modified/Cache-Control with 304."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import mwclient
import pytest
import requests

from support import mirror_fixture as mf
from bridgeshape_mirror.serving.api_headers import ServeSettings
from bridgeshape_mirror.serving.http_server import MirrorServer
from support.serve import running

GET = {"action": "bridgeshape", "shapeaction": "get", "title": "splinter", "format": "json"}


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return mf.build_mirror(tmp_path_factory.mktemp("dropin-mirror") / "out")


@pytest.fixture(scope="module")
def server(mirror: Path) -> Iterator[MirrorServer]:
    with running(mirror, ServeSettings(max_age=120)) as live:
        yield live


def splinter(mirror: Path) -> bytes:
    return (mirror / "api/get/title/Splinter.json").read_bytes()


def test_post_form_body_is_answered_like_get(server: MirrorServer, mirror: Path) -> None:
    answer = requests.post(server.url + "/api.php", data=GET, timeout=10)
    assert answer.status_code == 200 and answer.content == splinter(mirror)
    # Query string and body together, as mwclient's POST carries some of both.
    answer = requests.post(server.url + "/api.php?action=bridgeshape", data={"shapeaction": "list", "format": "json"}, timeout=10)
    assert answer.content == (mirror / "api/list.json").read_bytes()
    assert requests.post(server.url + "/index.html", data=GET, timeout=10).status_code == 405


def test_mwclient_connects_and_gets_by_title(server: MirrorServer, mirror: Path) -> None:
    host = server.url.removeprefix("http://")
    site = mwclient.Site(host, path="/", scheme="http", clients_useragent="bridgeshape-mirror tests")
    assert site.site["sitename"] == "Prova" and site.version[:2] == (1, 39)
    document = site.get("bridgeshape", shapeaction="get", title="Splinter")
    assert document == json.loads(splinter(mirror))
    # site.api() sends POST by default.
    assert site.api("bridgeshape", shapeaction="get", title="stayman") == json.loads((mirror / "api/get/title/Stayman.json").read_bytes())


def test_cors_for_anonymous_requests(server: MirrorServer) -> None:
    mf.check_cors(server.url)


def test_jsonp_wraps_the_same_body(server: MirrorServer, mirror: Path) -> None:
    answer = requests.get(server.url + "/api.php", params={**GET, "callback": "show<script>"}, timeout=10)
    assert answer.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert answer.content == b"/**/showscript(" + splinter(mirror) + b")"
    error = requests.get(server.url + "/api.php", params={"action": "bridgeshape", "callback": "cb", "format": "json"}, timeout=10)
    assert error.content.startswith(b'/**/cb({"error":{"code":"missingparam"')
    assert error.headers["MediaWiki-API-Error"] == "missingparam"


def test_etag_last_modified_and_304(server: MirrorServer) -> None:
    for params in (GET, {"action": "bridgeshape", "shapeaction": "get", "title": "Non esiste"}, {"action": "query", "meta": "siteinfo"}):
        answer = requests.get(server.url + "/api.php", params=params, timeout=10)
        assert answer.headers["Cache-Control"] == "public, max-age=120"
        tag, modified = answer.headers["ETag"], answer.headers["Last-Modified"]
        again = requests.get(server.url + "/api.php", params=params, headers={"If-None-Match": tag}, timeout=10)
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == tag
        since = requests.get(server.url + "/api.php", params=params, headers={"If-Modified-Since": modified}, timeout=10)
        assert since.status_code == 304
        other = requests.get(server.url + "/api.php", params=params, headers={"If-None-Match": '"other"', "If-Modified-Since": modified}, timeout=10)
        assert other.status_code == 200  # If-None-Match decides when both are sent
    static = requests.get(server.url + "/index.html", timeout=10)
    assert static.headers["ETag"] and static.headers["Last-Modified"] and static.headers["Cache-Control"] == "public, max-age=120"
    assert requests.get(server.url + "/index.html", headers={"If-None-Match": static.headers["ETag"]}, timeout=10).status_code == 304


def test_raw_utf8_bytes_in_the_query(server: MirrorServer, mirror: Path) -> None:
    host, port = server.server_address[:2]
    import socket

    with socket.create_connection((host, port), timeout=10) as connection:
        connection.sendall("GET /api.php?action=bridgeshape&shapeaction=get&title=Perché?&format=json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode("utf-8"))
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    assert data.split(b"\r\n\r\n", 1)[1] == (mirror / "api/get/title/Perché?.json").read_bytes()


def test_max_age_is_an_option_and_a_configuration_key(tmp_path: Path) -> None:
    from bridgeshape_mirror.config import load
    from bridgeshape_mirror.serving.nginx import render_snippet

    config = tmp_path / "mirror.toml"
    config.write_text("[serve]\nmax_age = 60\n", encoding="utf-8")
    assert load(str(config), {}).max_age == 60
    assert load(str(config), {"max_age": 5}).max_age == 5
    assert load(None, {}).max_age == ServeSettings.max_age == 300
    assert "add_header Cache-Control 'public, max-age=60' always;" in render_snippet(max_age=60)
    for bad in (-1, 31_536_001, True, 1.5):
        with pytest.raises(ValueError):
            render_snippet(max_age=bad)  # type: ignore[arg-type]


def test_any_entry_path(server: MirrorServer, mirror: Path) -> None:
    answer = requests.get(server.url + "/wiki/w/api.php", params=GET, timeout=10)
    assert answer.content == splinter(mirror)


# --- MediaWiki's answers detail for detail (issue 32; tests/test_dropin_wiki.py compares
# them with the real wiki) ---------------------------------------------------------------------


def _get(server: MirrorServer, query: str) -> requests.Response:
    return requests.get(server.url + "/api.php?" + query, timeout=10)


def test_error_formats(server: MirrorServer) -> None:
    base = "action=bridgeshape&shapeaction=get&title=Non+esiste&format=json"
    info = "The page you specified doesn't exist."
    assert _get(server, base).json() == mf.MISSINGTITLE
    for errorformat in ("plaintext", "wikitext", "html", "raw"):
        assert _get(server, f"{base}&errorformat={errorformat}").json() == {
            "errors": [{"code": "missingtitle", "module": "bridgeshape", "*": info}], "*": mf.DOCREF}
    assert _get(server, base + "&errorformat=none").json() == {"errors": [{"code": "missingtitle", "module": "bridgeshape"}], "*": mf.DOCREF}
    assert _get(server, base + "&errorformat=plaintext&formatversion=2").json() == {
        "errors": [{"code": "missingtitle", "text": info, "module": "bridgeshape"}], "docref": mf.DOCREF}
    assert _get(server, base + "&formatversion=2").json() == {"error": {"code": "missingtitle", "info": info, "docref": mf.DOCREF}}
    bad = _get(server, base + "&errorformat=fancy")
    assert bad.json() == mf.error("badvalue", 'Unrecognized value for parameter "errorformat": fancy.')
    assert bad.headers["MediaWiki-API-Error"] == "badvalue"


def test_requestid_curtimestamp_and_warnings_come_before_the_file(server: MirrorServer, mirror: Path) -> None:
    answer = _get(server, "action=bridgeshape&shapeaction=get&title=Splinter&format=json&requestid=a%22b&curtimestamp=1&foo=1&b.r=2")
    document = answer.json()
    assert list(document)[:3] == ["warnings", "requestid", "curtimestamp"]
    assert document["warnings"] == {"main": {"*": "Unrecognized parameters: foo, b_r."}}
    assert document["requestid"] == 'a"b' and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", document["curtimestamp"])
    assert {k: v for k, v in document.items() if k not in ("warnings", "requestid", "curtimestamp")} == json.loads(splinter(mirror))
    error = _get(server, "action=bridgeshape&shapeaction=get&title=Non+esiste&format=json&requestid=7&foo=1").json()
    assert error == {**mf.MISSINGTITLE, "requestid": "7"}  # no warnings with an error, as MediaWiki
    assert _get(server, "action=bridgeshape&shapeaction=list&format=json").content == (mirror / "api/list.json").read_bytes()


def test_bad_titles_are_echoed_as_sent(server: MirrorServer) -> None:
    answer = _get(server, "action=bridgeshape&shapeaction=get&title=Foo%7Cbar&format=json")
    assert answer.json() == mf.error("invalidtitle", 'Bad title "Foo|bar".')
    assert b'"Bad title \\"\\u00e8|\\"."' in _get(server, "action=bridgeshape&shapeaction=get&title=%C3%A8%7C&format=json").content


def test_no_format_is_the_html_page(server: MirrorServer, mirror: Path) -> None:
    answer = _get(server, "action=bridgeshape&shapeaction=get&title=Splinter")
    assert answer.headers["Content-Type"] == "text/html; charset=UTF-8"
    pre = re.search(r'<pre class="api-pretty-content">(.*)</pre>', answer.text, re.S)
    assert pre is not None and json.loads(html.unescape(pre.group(1))) == json.loads(splinter(mirror))
    error = _get(server, "action=nope")
    assert error.headers["MediaWiki-API-Error"] == "badvalue" and "Unrecognized value for parameter" in error.text
    assert _get(server, "action=bridgeshape&shapeaction=list&format=jsonfm").headers["Content-Type"] == "text/html; charset=UTF-8"
