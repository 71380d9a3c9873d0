"""`bridgeshape-mirror serve`: static files, the api.php routes (the same expectations as the
nginx drop-in, from support.mirror_fixture), validate live, health, path traversal, clean stop."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bridgeshape_mirror import dsl
from support import mirror_fixture as mf
from bridgeshape_mirror.commands import serve as serve_command
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.serving import http_server as serve
from bridgeshape_mirror.serving.http_server import MirrorServer
from support.serve import running

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-mirror")
    (root / "secret.txt").write_text("outside the mirror\n", encoding="utf-8")
    out = mf.build_mirror(root / "out")
    (out / "escape").symlink_to(root / "secret.txt")  # a symlink inside that points outside
    return out


@pytest.fixture(scope="module")
def server(mirror: Path) -> Iterator[MirrorServer]:
    with running(mirror) as live:
        yield live


def api(server: MirrorServer, **params: str) -> requests.Response:
    return requests.get(server.url + "/api.php", params={"action": "bridgeshape", "format": "json", **params}, timeout=10)


def test_health(server: MirrorServer) -> None:
    answer = requests.get(server.url + "/health", timeout=10)
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}
    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"


@pytest.mark.parametrize("case", mf.api_cases(), ids=lambda c: c.name)
def test_api_case(server: MirrorServer, mirror: Path, case: mf.Case) -> None:
    assert mf.check_case(server.url, mirror, case, live=True) == []


def test_requests_params_as_a_client_sends_them(server: MirrorServer, mirror: Path) -> None:
    assert mf.check_client_titles(server.url, mirror) == []


def test_error_header(server: MirrorServer) -> None:
    assert api(server, shapeaction="get", title="Non esiste").headers["MediaWiki-API-Error"] == "missingtitle"
    assert api(server, shapeaction="nope").headers["MediaWiki-API-Error"] == "badvalue"
    assert "MediaWiki-API-Error" not in api(server, shapeaction="list").headers


def test_validate_valid(server: MirrorServer) -> None:
    answer = api(server, shapeaction="validate", dsl=f"\n  {mf.TWO_SCENARIOS} \t")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
    assert answer.json() == dsl.validate_document(dsl.parse(mf.TWO_SCENARIOS))
    assert answer.json()["validate"]["valid"] is True
    assert len(answer.json()["validate"]["scenarios"]) == 2


def test_validate_reference_example_spelling(server: MirrorServer) -> None:
    """The extension's own example: spaces as +, the literal + of `5+` as %2B."""
    answer = requests.get(
        server.url + "/api.php?action=bridgeshape&shapeaction=validate&dsl=opener+H:5%2B+hcp:12-21&format=json", timeout=10
    )
    document = answer.json()["validate"]
    assert document["valid"] is True
    assert document["raw"] == "opener H:5+ hcp:12-21"
    assert document["scenarios"][0]["positions"]["opener"]["suits"]["H"] == {"min": 5, "max": None}


def test_validate_invalid(server: MirrorServer) -> None:
    raw = "opener H:5+ hcp:12-40; opener S:3"
    document = api(server, shapeaction="validate", dsl=raw).json()
    assert document == dsl.validate_document(dsl.parse(raw))
    assert document["validate"]["valid"] is False
    assert {"code", "message", "scenario", "offset"} <= set(document["validate"]["errors"][0])


@pytest.mark.parametrize("blank", ["", "   ", "\n\t "])
def test_validate_blank_is_no_constraints(server: MirrorServer, blank: str) -> None:
    assert api(server, shapeaction="validate", dsl=blank).json() == {"validate": {"valid": True, "raw": "", "scenarios": []}}


def test_validate_without_dsl(server: MirrorServer) -> None:
    answer = api(server, shapeaction="validate")
    assert answer.json() == mf.error("missingparam", 'The "dsl" parameter must be set.')
    assert answer.headers["MediaWiki-API-Error"] == "missingparam"


def test_validate_unicode_and_markup(server: MirrorServer) -> None:
    raw = "Contro «sputnik» <script>: opener H:5+"
    document = api(server, shapeaction="validate", dsl=raw).json()
    assert document["validate"]["scenarios"][0]["label"] == "Contro «sputnik» <script>"


@pytest.mark.parametrize(
    ("path", "file", "content_type"),
    [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
        ("/report/", "report/index.html", "text/html; charset=utf-8"),
        ("/report/report.json", "report/report.json", "application/json; charset=utf-8"),
        ("/api/list.json", "api/list.json", "application/json; charset=utf-8"),
        ("/api/deals/42.json", "api/deals/42.json", "application/json; charset=utf-8"),
        ("/deals/42.pbn", "deals/42.pbn", "text/plain; charset=utf-8"),
        ("/api/get/title/Perch%C3%A9%3F.json", "api/get/title/Perché?.json", "application/json; charset=utf-8"),
        ("/api/get/title/%C3%88cart%C3%A9:_100%25.json", "api/get/title/Ècarté:_100%.json", "application/json; charset=utf-8"),
        (
            "/api/get/title/Contro_%22sputnik%22/Varianti_d'autore.json",
            "api/get/title/Contro_\"sputnik\"/Varianti_d'autore.json",
            "application/json; charset=utf-8",
        ),
        ("/api/get/title/C++_e_1+1.json", "api/get/title/C++_e_1+1.json", "application/json; charset=utf-8"),
    ],
)
def test_static_files(server: MirrorServer, mirror: Path, path: str, file: str, content_type: str) -> None:
    answer = mf.fetch(server.url, path)
    assert answer.status == 200, path
    assert answer.headers["content-type"] == content_type
    assert answer.body == (mirror / file).read_bytes()


def test_the_other_deals_files_and_the_scripts_are_served_as_text(tmp_path: Path) -> None:
    """LIN, dealer and Deal (Tcl) files, as the build writes them, open in a browser as text."""
    files = {"deals/42.lin": "qx|o1|md|3SAKQ,HAKQ,DAKQ,CAKQJ|\n", "scripts/42/1.dlr": "condition hcp(north) >= 12\n",
             "scripts/42/1.tcl": "main { accept }\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    with running(tmp_path) as server:
        for name, text in files.items():
            answer = mf.fetch(server.url, "/" + name)
            assert answer.status == 200 and answer.body == text.encode("utf-8"), name
            assert answer.headers["content-type"] == "text/plain; charset=utf-8", name


def test_folder_without_slash_redirects(server: MirrorServer) -> None:
    answer = mf.fetch(server.url, "/report")
    assert answer.status == 301
    assert answer.headers["location"] == "/report/"


def test_head(server: MirrorServer, mirror: Path) -> None:
    answer = requests.head(server.url + "/api/list.json", timeout=10)
    assert answer.status_code == 200
    assert int(answer.headers["Content-Length"]) == len((mirror / "api/list.json").read_bytes())
    assert answer.content == b""


def test_not_found(server: MirrorServer) -> None:
    assert mf.fetch(server.url, "/nope.html").status == 404
    assert mf.fetch(server.url, "/api/get/title/Non_esiste.json").status == 404
    assert mf.fetch(server.url, "/api/").status == 404  # a folder without index.html: no listing


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/api/..%2f..%2fsecret.txt",
        "/api/%2e%2e%2f%2e%2e%2fsecret.txt",
        "/report/../../secret.txt",
        "/..%5csecret.txt",
        "/escape",
        "/%00secret.txt",
        "//etc/passwd",
        "/%2fetc/passwd",
    ],
)
def test_path_traversal(server: MirrorServer, path: str) -> None:
    answer = mf.fetch(server.url, path)
    assert answer.status in (400, 404), path
    assert b"outside the mirror" not in answer.body
    assert b"root:" not in answer.body


def test_symlink_flip_is_seen_at_once(tmp_path: Path) -> None:
    first = mf.build_mirror(tmp_path / "v1")
    second_pages = (mf.Page(42, "Splinter", "opener H:6+"),)
    second = mf.build_mirror(tmp_path / "v2", pages=second_pages)
    published = tmp_path / "out"
    published.symlink_to(first)
    with running(published) as live:
        assert api(live, shapeaction="get", title="Splinter").json() == mf.page_document(mf.PAGES[0])
        flip = tmp_path / "out.new"
        flip.symlink_to(second)
        os.replace(flip, published)
        assert api(live, shapeaction="get", title="Splinter").json()["shapeconstraints"]["raw"] == "opener H:6+"
        assert api(live, shapeaction="get", pageid="15").json()["error"]["code"] == "nosuchpageid"
        assert requests.get(live.url + "/api/list.json", timeout=10).json() == mf.list_document(second_pages)


def test_concurrent_validate(server: MirrorServer) -> None:
    """Threaded: 16 clients at once all get their own answer."""

    def one(i: int) -> bool:
        raw = f"opener hcp:{i}-{i + 5}"
        return api(server, shapeaction="validate", dsl=raw).json()["validate"]["raw"] == raw

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        assert all(pool.map(one, range(64)))


def test_port_from_environment() -> None:
    assert serve.port_from_environment({}) == 8080
    assert serve.port_from_environment({"PORT": "9123"}) == 9123
    with pytest.raises(ValueError):
        serve.port_from_environment({"PORT": "eighty"})


# --------------------------------------------------------------------------------------
# The command, as a process: $PORT, SIGTERM/SIGINT, exit statuses
# --------------------------------------------------------------------------------------

RUNNER = (
    "import argparse, sys\n"
    "from bridgeshape_mirror.commands import serve\n"
    "parser = argparse.ArgumentParser()\n"
    "serve.register(parser.add_subparsers())\n"
    "args = parser.parse_args(sys.argv[1:])\n"
    "sys.exit(int(args.handler(args)))\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_command(mirror: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PORT": str(port)}
    return subprocess.Popen(
        [sys.executable, "-c", RUNNER, "serve", "--out", str(mirror), *extra],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_healthy(url: str, process: subprocess.Popen[str], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited {process.returncode}: {process.stderr.read() if process.stderr else ''}")
        try:
            if requests.get(url + "/health", timeout=1).status_code == 200:
                return
        except requests.ConnectionError:
            time.sleep(0.05)
    raise AssertionError("serve did not become healthy")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_command_listens_on_port_and_stops_cleanly(mirror: Path, signum: int) -> None:
    port = free_port()
    process = start_command(mirror, port)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, process)
        assert requests.get(url + "/api.php", params={"action": "bridgeshape", "shapeaction": "list", "format": "json"}, timeout=5).json() == mf.list_document()
        # An idle keep-alive connection must not hold the shutdown up.
        session = requests.Session()
        session.get(url + "/health", timeout=5)
        started = time.monotonic()
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=10)
        assert process.returncode == ExitCode.OK, stderr
        assert time.monotonic() - started < 5
        assert "GET /health" not in stderr  # requests are logged at debug level only
        with pytest.raises(requests.ConnectionError):
            requests.get(url + "/health", timeout=2)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=5)


@pytest.mark.slow
def test_command_verbose_logs_requests(mirror: Path) -> None:
    port = free_port()
    process = start_command(mirror, port, "-v")
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
        assert "GET /health" in stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=5)


def test_command_bad_port(mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORT", "eighty")
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--out", str(mirror)])
    assert args.handler(args) == ExitCode.USAGE


def test_command_port_in_use(mirror: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        parser = argparse.ArgumentParser()
        serve_command.register(parser.add_subparsers())
        args = parser.parse_args(["serve", "--out", str(mirror), "--port", str(taken.getsockname()[1])])
        assert args.handler(args) == ExitCode.USAGE


def test_documents_are_compact_utf8(server: MirrorServer) -> None:
    body = api(server, shapeaction="validate", dsl="Perché: opener H:5+").content
    assert "Perché".encode() in body
    assert json.loads(body)["validate"]["scenarios"][0]["label"] == "Perché"


@pytest.mark.parametrize("kind", ["missing", "empty", "no-list"])
def test_command_without_a_mirror_is_a_usage_error(tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """A folder that holds no mirror is refused before listening (it used to be served,
    every api.php answer a 404)."""
    out = tmp_path / "out"
    if kind != "missing":
        out.mkdir()
    if kind == "no-list":
        (out / "api").mkdir()
        (out / "index.html").write_text("<!doctype html>\n", encoding="utf-8")
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--out", str(out), "--port", "0"])
    assert args.handler(args) == ExitCode.USAGE
    assert "nothing to serve" in caplog.text and str(out) in caplog.text
