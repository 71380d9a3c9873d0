"""What browsers and caches are told, as MediaWiki's api.php tells them (1.39's
ApiMain::handleCORS and ApiFormatJson), for anonymous requests: the only kind a mirror has.

- `origin=*`: `Access-Control-Allow-Origin: *`, credentials false, the API's own headers
  exposed; a preflight (OPTIONS with Access-Control-Request-Method) gets the methods and,
  when every requested header is one MediaWiki allows, the headers echoed.
- `callback=NAME` (JSONP): the same JSON body as `/**/NAME(...)`, `text/javascript`; the
  name keeps only the characters MediaWiki keeps.
- Caching: an ETag (the body's digest), Last-Modified, `Cache-Control: public,
  max-age=N` (`ServeSettings.max_age`), and 304 for a matching If-None-Match or, without
  one, an If-Modified-Since not older than the answer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from urllib.parse import unquote_plus

from .api_rules import last_arg

#: MediaWiki's $wgAllowedCorsHeaders default, lower-cased.
ALLOWED_CORS_HEADERS = frozenset(
    h.lower()
    for h in ("Accept", "Accept-Language", "Content-Language", "Content-Type", "Accept-Encoding", "DNT", "Origin",
              "User-Agent", "Api-User-Agent", "Access-Control-Max-Age", "Authorization")
)
CORS_METHODS = "POST, GET, HEAD"
CORS_EXPOSE = "MediaWiki-API-Error, Retry-After, X-Database-Lag, MediaWiki-Login-Suppressed"
JSONP_TYPE = "text/javascript; charset=utf-8"
#: What MediaWiki strips from a JSONP callback name (also a JavaScript regex: the POST script's).
CALLBACK_UNSAFE_RE = r"[^\]\[.\\'\"_A-Za-z0-9]"
_CALLBACK_UNSAFE = re.compile(CALLBACK_UNSAFE_RE)
#: Longest a max-age may be: a year, past which caches cap it anyway.
MAX_AGE_LIMIT = 31_536_000


@dataclass(frozen=True)
class ServeSettings:
    """The defaults here are the only ones: the CLI's configuration and help read them."""

    #: Seconds a cache may keep an answer: short, as cron rebuilds every few minutes.
    max_age: int = 300


def anonymous_cors(query: str) -> bool:
    return last_arg(query, "origin") in ("*", "%2A", "%2a")


def cors_headers(query: str, preflight: bool, requested_headers: str | None) -> list[tuple[str, str]]:
    """The CORS headers of an answer to `query` ([] unless `origin=*`)."""
    if not anonymous_cors(query):
        return []
    headers: list[tuple[str, str]] = []
    if preflight:
        if requested_headers is not None:
            names = {h.strip().lower() for h in requested_headers.split(",") if h.strip()}
            if not names <= ALLOWED_CORS_HEADERS:
                return [("MediaWiki-CORS-Rejection", "Unsupported header requested in preflight")]
            headers.append(("Access-Control-Allow-Headers", requested_headers))
        headers.append(("Access-Control-Allow-Methods", CORS_METHODS))
    headers += [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Credentials", "false")]
    if not preflight:
        headers.append(("Access-Control-Expose-Headers", CORS_EXPOSE))
    return headers


def jsonp_callback(query: str) -> str | None:
    """The callback name a JSON answer is wrapped in, or None."""
    raw = last_arg(query, "callback")
    if not raw:
        return None
    return _CALLBACK_UNSAFE.sub("", unquote_plus(raw))


def wrap_jsonp(body: bytes, callback: str) -> bytes:
    return b"/**/" + callback.encode("ascii") + b"(" + body + b")"


def etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def http_date(timestamp: float) -> str:
    return formatdate(timestamp, usegmt=True)


def not_modified(tag: str, modified: float, if_none_match: str | None, if_modified_since: str | None) -> bool:
    """Whether a conditional request may be answered 304 (RFC 9110: If-None-Match first)."""
    if if_none_match is not None:
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return "*" in tags or tag in tags
    if if_modified_since is not None:
        try:
            since = parsedate_to_datetime(if_modified_since).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
        return int(modified) <= since
    return False


def cache_control(max_age: int) -> str:
    return f"public, max-age={max_age}"
