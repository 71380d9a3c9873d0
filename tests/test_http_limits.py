"""A slow or huge answer of the wiki: the request's timeout bounds the whole answer, and an
answer past the size limit is refused without being read whole (a tiny HTTP server on
127.0.0.1 drips bytes or sends a huge body)."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from bridgeshape_mirror.sync import http_limits
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient
from bridgeshape_mirror.sync.errors import WikiUnavailable

BODY = b'{"batchcomplete": true, "query": {"general": {"sitename": "x"}}}'


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        mode = self.server.mode
        if mode == "drip-headers":
            head = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"x" * 60 + b"\r\n"
            try:
                for byte in head:  # 80 bytes at 0.2 s each: 16 s, each gap far below the timeout
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                return
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if mode == "declared-huge":
            self.send_header("Content-Length", str(3 * 1024**3))
            self.end_headers()
            self.wfile.write(b" " * 65536)
            return
        if mode == "endless":
            self.send_header("Connection", "close")  # no length: read to the end
            self.end_headers()
            block = b" " * 65536
            try:
                for _ in range(3 * 1024**3 // len(block)):
                    self.wfile.write(block)
                    self.server.sent += len(block)
            except OSError:
                return
            return
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        try:
            for byte in BODY:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.2 if mode == "drip" else 0)
        except OSError:
            return


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.mode, httpd.sent = "ok", 0
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def client(httpd, timeout=1.0):
    url = f"http://127.0.0.1:{httpd.server_address[1]}/w/api.php"
    return WikiClient(ClientSettings(api_url=url, timeout=timeout, max_retries=0, deadline=30))


def test_a_normal_answer_still_reads(server):
    assert client(server).call("query", meta="siteinfo")["query"]["general"]["sitename"] == "x"


# Each byte 0.2 s after the last, far below the timeout: the body's ("drip", 13 s in all)
# or the status line's and headers' ("drip-headers", 16 s).
@pytest.mark.parametrize("mode", ["drip", "drip-headers"])
def test_an_answer_dripping_is_stopped_at_the_timeout(server, mode):
    server.mode = mode
    started = time.monotonic()
    with pytest.raises(WikiUnavailable, match="no answer"):
        client(server, timeout=1.0).call("query", meta="siteinfo")
    assert time.monotonic() - started < 3


def test_an_answer_declared_huge_is_refused_unread(server):
    server.mode = "declared-huge"
    started = time.monotonic()
    # The server sends 64 KB and then waits: reading on would wait for the timeout, so the
    # refusal must come from the declared length, at once.
    with pytest.raises(WikiUnavailable, match="3,221,225,472 bytes"):
        client(server, timeout=20).call("query", meta="siteinfo")
    assert time.monotonic() - started < 5


def test_an_endless_answer_is_cut_at_the_size_limit(server, monkeypatch):
    monkeypatch.setattr(http_limits, "MAX_BYTES", 1024 * 1024)
    server.mode = "endless"
    with pytest.raises(WikiUnavailable):
        client(server, timeout=20).call("query", meta="siteinfo")
    time.sleep(0.2)
    assert server.sent < 64 * 1024 * 1024  # it stopped reading long before 3 GB
