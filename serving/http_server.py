"""The preview server behind `bridgeshape-mirror serve`: the mirror over HTTP.

- `GET /health`: 200 `{"status": "ok"}`.
- `GET /api.php?...` (also under `/w/api.php`): `api_answers.Api`, with `validate` live;
  POST with a form body answered alike; OPTIONS, CORS and JSONP as MediaWiki answers
  anonymous requests (`api_headers`).
- Anything else: a static file of the mirror (`static_files`).

Every answer carries an ETag, Last-Modified and Cache-Control, and a conditional request
that matches gets 304.

Every response leaves in one write; the server stops cleanly on SIGTERM or SIGINT
(`serve_until_signal`).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote_from_bytes, urlsplit

from . import DEFAULT_HOST, DEFAULT_PORT
from . import api_headers
from .api_answers import Api, Response
from .api_headers import ServeSettings
from .api_rules import API_PATHS, JSON_TYPE, MAX_FORM_BODY
from .static_files import content_type, resolve_static

log = logging.getLogger("bridgeshape_mirror.serve")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "bridgeshape-mirror"
    #: An idle keep-alive connection is dropped after this many seconds.
    timeout = 30
    #: Every response leaves in one write (see _send); TCP_NODELAY keeps Nagle from holding
    #: a keep-alive response back for the client's delayed ACK (40 ms each otherwise).
    disable_nagle_algorithm = True
    server: "MirrorServer"

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle(head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle(head=True)

    def do_POST(self) -> None:  # noqa: N802
        """api.php with its parameters in a form body (as mwclient sends them), like GET."""
        parts = self._api_only()
        if parts is None:
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_FORM_BODY:
            self.close_connection = True  # the body is left unread
            self._send(Response(413 if length > 0 else 400, "text/plain; charset=utf-8", b"bad form body\n"), False)
            return
        body = self.rfile.read(length).decode("latin-1")
        if "multipart/form-data" in (self.headers.get("Content-Type") or ""):
            body = ""  # no file uploads to a mirror: the query string alone counts
        query = "&".join(part for part in (_ascii_query(parts.query), _ascii_query(body)) if part)
        self._api(query, head=False)

    def do_OPTIONS(self) -> None:  # noqa: N802
        """A CORS preflight: MediaWiki answers api.php's with an empty 200."""
        parts = self._api_only()
        if parts is None:
            return
        query = _ascii_query(parts.query)
        preflight = self.headers.get("Access-Control-Request-Method") is not None
        headers = api_headers.cors_headers(query, preflight, self.headers.get("Access-Control-Request-Headers"))
        self._send(Response(200, "text/html; charset=utf-8", b"", tuple(headers)), False)

    def _api_only(self):  # type: ignore[no-untyped-def]
        """The request's parts when it is for api.php; else a 405 is sent and None returned."""
        parts = self._parts()
        if parts is not None and not _is_api(parts.path or "/"):
            self._send(Response(405, "text/plain; charset=utf-8", b"method not allowed\n", (("Allow", "GET, HEAD"),)), False)
            return None
        return parts

    def _parts(self):  # type: ignore[no-untyped-def]
        try:
            return urlsplit(self.path)
        except ValueError:
            self._send(Response(400, "text/plain; charset=utf-8", b"bad request\n"), False)
            return None

    def _handle(self, head: bool) -> None:
        parts = self._parts()
        if parts is None:
            return
        path = parts.path or "/"
        if path == "/health":
            self._send(Response(200, JSON_TYPE, b'{"status":"ok"}', (("Cache-Control", "no-cache"),)), head)
        elif _is_api(path):
            self._api(_ascii_query(parts.query), head)
        else:
            self._static(path, head)

    def _api(self, query: str, head: bool) -> None:
        response = self.server.api.answer(query)
        headers = list(response.headers) + api_headers.cors_headers(query, False, None)
        callback = api_headers.jsonp_callback(query)
        body, content_type = response.body, response.content_type
        if callback is not None and content_type == JSON_TYPE:
            body, content_type = api_headers.wrap_jsonp(body, callback), api_headers.JSONP_TYPE
        self._send(Response(response.status, content_type, body, tuple(headers), response.modified), head)

    def _static(self, path: str, head: bool) -> None:
        result = resolve_static(self.server.root, path)
        if result.redirect:
            self._send(Response(301, "text/plain; charset=utf-8", b"", (("Location", result.redirect),)), head)
            return
        if result.file is None:
            message = b"bad request\n" if result.status == 400 else b"not found\n"
            self._send(Response(result.status, "text/plain; charset=utf-8", message), head)
            return
        try:
            body = result.file.read_bytes()
        except OSError:
            self._send(Response(404, "text/plain; charset=utf-8", b"not found\n"), head)
            return
        try:
            modified = result.file.stat().st_mtime
        except OSError:
            modified = None
        self._send(Response(200, content_type(result.file), body, (), modified), head)

    def _send(self, response: Response, head: bool) -> None:
        """The whole response in one write (status line, headers, body): one syscall, one
        TCP segment for small answers."""
        status, body = response.status, response.body
        caching: list[str] = []
        if status == 200:
            tag = api_headers.etag(body)
            modified = response.modified or self.server.api.built_at() or time.time()
            caching = [f"ETag: {tag}", f"Last-Modified: {api_headers.http_date(modified)}"]
            if not any(name.lower() == "cache-control" for name, _ in response.headers):
                caching.append(f"Cache-Control: {api_headers.cache_control(self.server.settings.max_age)}")
            if self.command in ("GET", "HEAD") and api_headers.not_modified(
                tag, modified, self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
            ):
                status, body = 304, b""
        else:
            caching = ["Cache-Control: no-cache"]
        self.log_request(status)
        phrase = HTTPStatus(status).phrase if status in _STATUSES else ""
        lines = [
            f"{self.protocol_version} {status} {phrase}",
            f"Server: {self.version_string()}",
            f"Date: {self.date_time_string()}",
            f"Content-Type: {response.content_type}",
            *([] if status == 304 else [f"Content-Length: {len(body)}"]),
            "X-Content-Type-Options: nosniff",
            *caching,
            *(f"{name}: {value}" for name, value in response.headers),
        ]
        if self.close_connection:
            lines.append("Connection: close")
        head_bytes = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace")
        self.wfile.write(head_bytes if head else head_bytes + body)


def _is_api(path: str) -> bool:
    """The wiki's entry point wherever it lives (`/api.php`, `/w/api.php`, `/wiki/w/api.php`)."""
    return path in API_PATHS or path.endswith("/api.php")


#: Every printable ASCII character but the space: what a query keeps as it is.
_QUERY_SAFE = "".join(chr(c) for c in range(0x21, 0x7F))


def _ascii_query(query: str) -> str:
    """The query with raw non-ASCII bytes percent-encoded, as nginx reads them (http.server
    hands the request line over decoded as Latin-1, one character per byte)."""
    return quote_from_bytes(query.encode("latin-1", errors="replace"), safe=_QUERY_SAFE)


_STATUSES = {status.value for status in HTTPStatus}


class MirrorServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, root: str | os.PathLike[str], address: tuple[str, int], settings: ServeSettings = ServeSettings()):
        self.root = os.fspath(root)
        self.api = Api(self.root, live=True)
        self.settings = settings
        super().__init__(address, Handler)

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        # A client that goes away mid-answer (a reset, a closed pipe, a timeout) is routine
        # for a server on the internet: one debug line, not a traceback on stderr each time.
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            log.debug("%s went away: %s", client_address[0], error.__class__.__name__)
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def make_server(
    root: str | os.PathLike[str], host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, settings: ServeSettings = ServeSettings()
) -> MirrorServer:
    """A bound server (port 0: any free port; see `.url`); call serve_forever() to run it."""
    return MirrorServer(root, (host, port), settings)


def port_from_environment(environ: dict[str, str] | None = None) -> int:
    """$PORT, default 8080. Raises ValueError for anything that is not a port number."""
    value = (environ if environ is not None else os.environ).get("PORT", "").strip()
    if not value:
        return DEFAULT_PORT
    try:
        port = int(value)
    except ValueError:
        raise ValueError(f"PORT={value} is not a port number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"PORT={value} is not a port number")
    return port


def serve_until_signal(server: MirrorServer) -> None:
    """Serve until SIGTERM or SIGINT, then stop accepting, close and return."""
    stop = threading.Event()
    previous = {}

    def on_signal(signum: int, frame: object) -> None:
        log.info("signal %s: stopping", signal.Signals(signum).name)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        previous[signum] = signal.signal(signum, on_signal)
    worker = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="serve", daemon=True)
    worker.start()
    try:
        while not stop.wait(0.5):
            if not worker.is_alive():
                break
    finally:
        server.shutdown()
        server.server_close()
        worker.join(timeout=5)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
