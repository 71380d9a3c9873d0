"""Connection errors say where and why (issue 10): host and port, and the cause in words.
Real sockets on 127.0.0.1 where a real fault can be made; `responses` for an HTTP error page."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator

import pytest
import responses

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient
from bridgeshape_mirror.sync.errors import WikiUnavailable


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SilentServer:
    """A listening socket on 127.0.0.1 that accepts and then says nothing (what a hung
    server does), or answers whatever it is sent with `reply` when that is set."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.port = self.socket.getsockname()[1]
        self.reply = b""
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.reply:
                conn.recv(4096)
                conn.sendall(self.reply)

    def close(self) -> None:
        self.socket.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def client(url: str, **options: float) -> WikiClient:
    return WikiClient(ClientSettings(api_url=url, max_retries=0, **options))


def test_connection_refused_names_host_port_and_cause(tmp_path, caplog):
    port = closed_port()
    argv = ["sync", "--api", f"http://127.0.0.1:{port}/api.php", "--state", str(tmp_path / "s"), "--max-retries", "0"]
    with caplog.at_level(logging.ERROR):
        assert main(argv) == ExitCode.WIKI_ERROR
    assert f"cannot connect to the wiki at 127.0.0.1:{port}: connection refused" in caplog.text


def test_a_name_that_does_not_resolve_is_said_so():
    with pytest.raises(WikiUnavailable, match=r"at no-such-host\.invalid:443: the host name could not be resolved"):
        client("https://no-such-host.invalid/w/api.php").call("query", meta="siteinfo")


def test_a_timeout_says_after_how_long(silent_server):
    port = silent_server.port
    with pytest.raises(WikiUnavailable, match=rf"127\.0\.0\.1:{port} to query: timed out after 0\.5 s"):
        client(f"http://127.0.0.1:{port}/api.php", timeout=0.5).call("query", meta="siteinfo")


def test_tls_to_a_plain_http_server_is_a_tls_failure(silent_server):
    silent_server.reply = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    port = silent_server.port
    with pytest.raises(WikiUnavailable, match=rf"at 127\.0\.0\.1:{port}: TLS failure"):
        client(f"https://127.0.0.1:{port}/api.php", timeout=5).call("query", meta="siteinfo")


def test_an_http_error_quotes_the_start_of_the_body():
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, "http://wiki.test/w/api.php", status=502, body="<html><h1>502 Bad Gateway</h1> nginx</html>")
        with pytest.raises(WikiUnavailable, match=r"wiki\.test:80 answered HTTP 502 to query: '<html><h1>502 Bad Gateway"):
            client("http://wiki.test/w/api.php").call("query", meta="siteinfo")
