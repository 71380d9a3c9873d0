"""`bridgeshape-mirror serve`: the mirror over HTTP for preview, with the extension's `api.php`.

What it answers (SEMANTICS 4 is the layout it reads):

- `GET /health`: 200 `{"status": "ok"}`.
- `GET /api.php?action=bridgeshape&shapeaction=get|list|listall|validate...` (also under
  `/w/api.php`): the mirror's files for get/list/listall, byte for byte, and `validate`
  answered live with `dsl.validate_document(dsl.parse(dsl_value.strip(" \\t\\r\\n")))`.
  Errors are MediaWiki's (HTTP 200, `{"error": {"code", "info"}}`, a `MediaWiki-API-Error`
  header); the catalogue is `ApiError` below and the nginx drop-in (`site_builder.nginx`)
  answers with the very same documents, because it is generated from the same table and
  the same regular expressions.
- Anything else: a static file of the mirror (percent-decoded UTF-8 path, `index.html` for
  a folder, no way out of the mirror: a `..` segment is refused and symlinks are followed
  only when they stay inside).

The output folder is usually a symlink that the build flips atomically: it is resolved on
every request, never cached.

Parameter reading follows the nginx drop-in, so that both give the same answers: the first
occurrence of a parameter counts, names match case-insensitively, an empty value counts as
absent; the rules for titles and page ids are applied to the raw (still percent-encoded)
value exactly as nginx sees it, and a title is then decoded like nginx does (`+` and `%20`
become `_`, the rest is percent-decoded to the UTF-8 bytes of the file name).
"""

from __future__ import annotations

import argparse
import json
import logging
import mimetypes
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, unquote_plus, unquote_to_bytes, urlsplit

import dsl

log = logging.getLogger("bridgeshape_mirror.serve")

DEFAULT_PORT = 8080
DEFAULT_HOST = "127.0.0.1"
#: Paths that answer like the wiki's api.php (a wiki lives at /api.php or /w/api.php).
API_PATHS = ("/api.php", "/w/api.php")
JSON_TYPE = "application/json; charset=utf-8"

# --------------------------------------------------------------------------------------
# The API's rules, shared with the nginx drop-in (site_builder/nginx.py embeds these
# expressions in the generated configuration; keep them plain PCRE-compatible syntax).
# --------------------------------------------------------------------------------------

#: A raw parameter value that may be echoed in an error's info (JSON-safe, URL-safe).
ECHO_SAFE_RE = r"^[A-Za-z0-9_.-]{1,64}$"
#: A raw title with a character MediaWiki forbids (`# < > [ ] | { }`), raw or encoded, or
#: an encoded control character. Case-insensitive.
TITLE_FORBIDDEN_RE = r"[#<>\[\]|{}]|%(2[3]|3[CE]|5[BD]|7[BCDF]|[01][0-9A-F])"
#: An encoded `%` followed by two hex digits: the title would contain `%XX`, which
#: MediaWiki refuses. Case-insensitive.
TITLE_PERCENT_RE = r"%25[0-9A-F]{2}"
#: What spells a space in a raw query value: `+` or `%20`; the file names use `_`.
SPACE_TOKEN_RE = r"\+|%20"
#: Longer than 765 raw characters: more than 255 bytes however it is encoded, too long
#: for a MediaWiki title.
TITLE_TOO_LONG_RE = r"^.{766}"
#: After spaces became `_`: a title made of nothing, or a `.`/`..` path segment.
TITLE_EMPTY_RE = r"^_*$"
TITLE_DOT_SEGMENT_RE = r"(^|/|%2F)(\.|%2E){1,2}(/|%2F|$)"
#: A page id: digits (leading zeros ignored), or a negative number (never a page).
PAGEID_RE = r"^0*([0-9]+)$"
PAGEID_NEGATIVE_RE = r"^-0*([1-9][0-9]*)$"
PAGEID_NEGATIVE_ZERO_RE = r"^-0+$"

_ECHO_SAFE = re.compile(ECHO_SAFE_RE)
_TITLE_FORBIDDEN = re.compile(TITLE_FORBIDDEN_RE, re.IGNORECASE)
_TITLE_PERCENT = re.compile(TITLE_PERCENT_RE, re.IGNORECASE)
_TITLE_TOO_LONG = re.compile(TITLE_TOO_LONG_RE, re.DOTALL)
_SPACE_TOKEN = re.compile(SPACE_TOKEN_RE)
_TITLE_EMPTY = re.compile(TITLE_EMPTY_RE)
_TITLE_DOT_SEGMENT = re.compile(TITLE_DOT_SEGMENT_RE, re.IGNORECASE)
_PAGEID = re.compile(PAGEID_RE)
_PAGEID_NEGATIVE = re.compile(PAGEID_NEGATIVE_RE)
_PAGEID_NEGATIVE_ZERO = re.compile(PAGEID_NEGATIVE_ZERO_RE)


@dataclass(frozen=True)
class ApiError:
    """One MediaWiki-style error. `info` may hold one `{value}` (a parameter value, echoed
    only when it is ECHO_SAFE) or `{id}` (a page id); `info_without_value` is used otherwise."""

    code: str
    info: str
    info_without_value: str | None = None

    def document(self, value: str | None = None) -> dict[str, dict[str, str]]:
        if "{value}" in self.info:
            if value is not None and _ECHO_SAFE.match(value):
                info = self.info.replace("{value}", value)
            else:
                info = self.info_without_value or self.info
        elif "{id}" in self.info:
            info = self.info.replace("{id}", value or "")
        else:
            info = self.info
        return {"error": {"code": self.code, "info": info}}


# Codes and wordings are MediaWiki's own (api i18n, checked against MediaWiki 1.39).
MISSING_ACTION = ApiError("missingparam", 'The "action" parameter must be set.')
BAD_ACTION = ApiError(
    "badvalue", 'Unrecognized value for parameter "action": {value}.', 'Unrecognized value for parameter "action".'
)
MISSING_SHAPEACTION = ApiError("missingparam", 'The "shapeaction" parameter must be set.')
BAD_SHAPEACTION = ApiError(
    "badvalue",
    'Unrecognized value for parameter "shapeaction": {value}.',
    'Unrecognized value for parameter "shapeaction".',
)
MISSING_TITLE_OR_PAGEID = ApiError("missingparam", 'One of the parameters "title" and "pageid" is required.')
TITLE_AND_PAGEID = ApiError("invalidparammix", 'The parameters "title" and "pageid" can not be used together.')
BAD_PAGEID = ApiError(
    "badinteger",
    'Invalid value "{value}" for integer parameter "pageid".',
    'Invalid value for integer parameter "pageid".',
)
NO_SUCH_PAGEID = ApiError("nosuchpageid", "There is no page with ID {id}.")
MISSING_TITLE = ApiError("missingtitle", "The page you specified doesn't exist.")
INVALID_TITLE = ApiError("invalidtitle", 'Bad title "{value}".', "Bad title.")
MISSING_DSL = ApiError("missingparam", 'The "dsl" parameter must be set.')
#: The static mirror (nginx) cannot validate; `serve` can.
VALIDATE_NEEDS_SERVICE = ApiError(
    "moduledisabled",
    'The "validate" action needs the live service ("bridgeshape-mirror serve"); '
    "this static mirror answers get, list and listall only.",
)


def json_bytes(document: object) -> bytes:
    """Compact UTF-8 JSON, as MediaWiki's API prints it."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# --------------------------------------------------------------------------------------
# Query strings, read the way nginx's $arg_NAME reads them.
# --------------------------------------------------------------------------------------


def raw_args(query: str) -> dict[str, str]:
    """name (lower-cased, still raw) -> raw value of its first occurrence."""
    args: dict[str, str] = {}
    for part in query.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        args.setdefault(name.lower(), value)
    return args


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


def _error(error: ApiError, value: str | None = None) -> Response:
    return Response(200, JSON_TYPE, json_bytes(error.document(value)), (("MediaWiki-API-Error", error.code),))


def _file(path: bytes) -> Response | None:
    try:
        with open(path, "rb") as handle:
            return Response(200, JSON_TYPE, handle.read())
    except OSError:  # not found, a folder, a name too long...: no such page
        return None


def title_file_name(raw_title: str) -> bytes | None:
    """The file name (bytes, below api/get/title/, without `.json`) for a raw title value, or
    None when MediaWiki would call the title bad."""
    if _TITLE_FORBIDDEN.search(raw_title) or _TITLE_PERCENT.search(raw_title) or _TITLE_TOO_LONG.search(raw_title):
        return None
    spaced = _SPACE_TOKEN.sub("_", raw_title)
    if _TITLE_EMPTY.search(spaced) or _TITLE_DOT_SEGMENT.search(spaced):
        return None
    return unquote_to_bytes(spaced)


class Api:
    """The `api.php` answers over one mirror folder; `live` adds `validate`."""

    def __init__(self, root: str | os.PathLike[str], *, live: bool = True):
        self.root = os.fsencode(os.fspath(root))
        self.live = live

    def answer(self, query: str) -> Response:
        args = raw_args(query)
        action = args.get("action", "")
        if action == "":
            return _error(MISSING_ACTION)
        if action != "bridgeshape":
            return _error(BAD_ACTION, action)
        shapeaction = args.get("shapeaction", "")
        if shapeaction == "":
            return _error(MISSING_SHAPEACTION)
        if shapeaction == "list":
            return self._list("list.json")
        if shapeaction == "listall":
            return self._list("listall.json")
        if shapeaction == "get":
            return self._get(args)
        if shapeaction == "validate":
            return self._validate(args)
        return _error(BAD_SHAPEACTION, shapeaction)

    def _list(self, name: str) -> Response:
        found = _file(self.root + b"/api/" + name.encode())
        if found is None:
            return Response(404, "text/plain; charset=utf-8", b"the mirror has no " + name.encode() + b" (not built yet?)\n")
        return found

    def _get(self, args: dict[str, str]) -> Response:
        title = args.get("title", "")
        pageid = args.get("pageid", "")
        if title and pageid:
            return _error(TITLE_AND_PAGEID)
        if pageid:
            match = _PAGEID.match(pageid)
            if match:
                number = match.group(1)
                found = _file(self.root + b"/api/get/pageid/" + number.encode("ascii") + b".json")
                return found or _error(NO_SUCH_PAGEID, number)
            match = _PAGEID_NEGATIVE.match(pageid)
            if match:
                return _error(NO_SUCH_PAGEID, "-" + match.group(1))
            if _PAGEID_NEGATIVE_ZERO.match(pageid):
                return _error(NO_SUCH_PAGEID, "0")
            return _error(BAD_PAGEID, pageid)
        if title:
            name = title_file_name(title)
            if name is None:
                return _error(INVALID_TITLE, title)
            return _file(self.root + b"/api/get/title/" + name + b".json") or _error(MISSING_TITLE)
        return _error(MISSING_TITLE_OR_PAGEID)

    def _validate(self, args: dict[str, str]) -> Response:
        if not self.live:
            return _error(VALIDATE_NEEDS_SERVICE)
        if "dsl" not in args:
            return _error(MISSING_DSL)
        raw = unquote_plus(args["dsl"], encoding="utf-8", errors="replace").strip(" \t\r\n")
        return Response(200, JSON_TYPE, json_bytes(dsl.validate_document(dsl.parse(raw))))


# --------------------------------------------------------------------------------------
# Static files
# --------------------------------------------------------------------------------------

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".json": JSON_TYPE,
    ".pbn": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".xml": "application/xml; charset=utf-8",
}


def content_type(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in _TYPES:
        return _TYPES[suffix]
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


class StaticResult:
    """What a static path maps to: a file, a redirect to the folder's slash form, or nothing."""

    def __init__(self, file: Path | None = None, redirect: str | None = None, status: int = 200):
        self.file = file
        self.redirect = redirect
        self.status = status


def resolve_static(root_dir: str | os.PathLike[str], raw_path: str) -> StaticResult:
    """Map a request path (still percent-encoded) onto a file of the mirror."""
    try:
        path = unquote(raw_path, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        return StaticResult(status=404)
    segments = path.split("/")
    if any(s in ("..", ".") for s in segments) or "\x00" in path or "\\" in path:
        return StaticResult(status=400)
    try:
        root = Path(root_dir).resolve(strict=True)  # per request: the build flips a symlink
    except OSError:
        return StaticResult(status=404)
    relative = [s for s in segments if s]
    candidate = root.joinpath(*relative) if relative else root
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return StaticResult(status=404)
    if real != root and not real.is_relative_to(root):
        return StaticResult(status=404)
    if real.is_dir():
        if not path.endswith("/"):
            return StaticResult(redirect=raw_path + "/", status=301)
        index = real / "index.html"
        if index.is_file():
            return StaticResult(file=index)
        return StaticResult(status=404)
    if real.is_file():
        return StaticResult(file=real)
    return StaticResult(status=404)


# --------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------


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

    def _handle(self, head: bool) -> None:
        try:
            parts = urlsplit(self.path)
        except ValueError:
            self._send(Response(400, "text/plain; charset=utf-8", b"bad request\n"), head)
            return
        path = parts.path or "/"
        if path == "/health":
            self._send(Response(200, JSON_TYPE, b'{"status":"ok"}'), head)
        elif path in API_PATHS:
            self._send(self.server.api.answer(parts.query), head)
        else:
            self._static(path, head)

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
        self._send(Response(200, content_type(result.file), body), head)

    def _send(self, response: Response, head: bool) -> None:
        """The whole response in one write (status line, headers, body): one syscall, one
        TCP segment for small answers."""
        self.log_request(response.status)
        phrase = HTTPStatus(response.status).phrase if response.status in _STATUSES else ""
        lines = [
            f"{self.protocol_version} {response.status} {phrase}",
            f"Server: {self.version_string()}",
            f"Date: {self.date_time_string()}",
            f"Content-Type: {response.content_type}",
            f"Content-Length: {len(response.body)}",
            "X-Content-Type-Options: nosniff",
            *(f"{name}: {value}" for name, value in response.headers),
        ]
        if self.close_connection:
            lines.append("Connection: close")
        head_bytes = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace")
        self.wfile.write(head_bytes if head else head_bytes + response.body)


_STATUSES = {status.value for status in HTTPStatus}


class MirrorServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, root: str | os.PathLike[str], address: tuple[str, int]):
        self.root = os.fspath(root)
        self.api = Api(self.root, live=True)
        super().__init__(address, Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def make_server(root: str | os.PathLike[str], host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> MirrorServer:
    """A bound server (port 0: any free port; see `.url`); call serve_forever() to run it."""
    return MirrorServer(root, (host, port))


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


def main(argv: list[str] | None = None) -> int:
    """`python -m site_builder.serve [--out DIR] [--host H] [--port N]` (the CLI's `serve`)."""
    parser = argparse.ArgumentParser(prog="python -m site_builder.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="output")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(message)s")
    try:
        port = args.port if args.port is not None else port_from_environment()
    except ValueError as exc:
        parser.error(str(exc))
    server = make_server(args.out, args.host, port)
    log.info("serving %s on %s", args.out, server.url)
    serve_until_signal(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
