"""Find a wiki's api.php from a URL that is not one (its front page, index.php, a path
without api.php): MediaWiki's pages name their API in
`<link rel="EditURI" type="application/rsd+xml" href=".../api.php?action=rsd">`.

An endpoint the page names on the same host is used (and the log says so); one on another
host is only suggested ("did you mean ..."), since a proxy or a different wiki may stand
between. One request, only when the URL given is not an api.php URL.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin, urlsplit, urlunsplit

import requests

from .diagnosis import connection_failure, http_failure
from .errors import BadSource

#: The head of a page is enough; a page larger than this is read no further.
MAX_BYTES = 512 * 1024
_EDIT_URI = re.compile(r"<link\b[^>]*\brel\s*=\s*[\"']?EditURI\b[^>]*>", re.IGNORECASE)
_HREF = re.compile(r"\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)


def is_api_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.path.endswith("/api.php")


def advertised_api(page_url: str, text: str) -> str | None:
    """The api.php URL a MediaWiki page names in its EditURI link, made absolute, or None."""
    link = _EDIT_URI.search(text)
    href = _HREF.search(link.group(0)) if link else None
    if href is None:
        return None
    target = urlsplit(urljoin(page_url, html.unescape(href.group(1) or href.group(2) or "")))
    if not target.path.endswith("/api.php"):
        return None
    return urlunsplit((target.scheme, target.netloc, target.path, "", ""))


def find_api(url: str, *, timeout: float, user_agent: str) -> str:
    """The api.php URL to use for `url`, which is not one; BadSource when there is none to
    use without asking the operator (the message says what was found)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadSource(f"the API URL must be an http(s) URL ending in /api.php, got {url!r}")
    not_api = f"{url} is not an api.php URL"
    try:
        with requests.get(url, timeout=timeout, headers={"User-Agent": user_agent}, stream=True) as response:
            body = response.raw.read(MAX_BYTES, decode_content=True) or b""
            final_url = response.url
            failed = None if response.ok else http_failure(url, "the page request", response)
    except requests.RequestException as exc:
        raise BadSource(f"{not_api}, and the page there could not be read to look for one: {connection_failure(url, exc)}") from exc
    found = advertised_api(final_url, body.decode("utf-8", "replace"))
    if found is None:
        reason = failed or "the page there names no API (no EditURI link: not a MediaWiki page?)"
        raise BadSource(f"{not_api}, and {reason}; a wiki's API is usually at .../w/api.php or .../api.php")
    if urlsplit(found).hostname != parts.hostname:
        raise BadSource(f"{not_api}; did you mean {found} (the API the page there names, on another host)?")
    return found
