"""A `get` title as the wiki reads it, for both servers: the value decoded, normalised by
`sync.titles` (the one rule set), checked as MediaWiki checks a title, and turned into the
name of its file under `api/get/title/`.

`serve` applies this per request. nginx cannot upper-case a letter or decode a value in its
rewrite phase, so the build writes the spellings that only those steps would reach as files
of their own (`case_spellings`, and the titles of redirects), and the snippet does the rest
with regular expressions (`serving.nginx`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from functools import cache
from urllib.parse import unquote_to_bytes

from bridgeshape_mirror.store.model import SiteInfo
from bridgeshape_mirror.sync.titles import CANONICAL_NAMESPACES, MAX_TITLE_BYTES, normalise, upper_first

#: Characters MediaWiki never allows in a title ($wgLegalTitleChars' complement that a
#: decoded value can hold), a `%XX` sequence, an XML entity, three tildes (a signature);
#: U+FFFD stands for bytes that were no UTF-8.
_ILLEGAL = re.compile(r"[<>\[\]|{}\x00-\x1f\x7f\ufffd]|%[0-9A-Fa-f]{2}|&[A-Za-z0-9\x80-\uffff]+;|~~~")
#: A `.` or `..` path segment (MediaWiki refuses relative-path titles).
_DOT_SEGMENT = re.compile(r"(^|/)\.{1,2}(/|$)")


def decode_value(raw: str) -> str:
    """A raw query value as PHP decodes it: `+` is a space, `%XX` a byte, bytes UTF-8 (what
    is not becomes U+FFFD, which no title may hold)."""
    return unquote_to_bytes(raw.replace("+", " ")).decode("utf-8", errors="replace")


def api_title(text: str, site: SiteInfo) -> str | None:
    """The normalised title `text` names, or None when MediaWiki would call it bad."""
    namespace, title = normalise(text, site)
    prefix = site.namespaces.get(namespace, "")
    key = title[len(prefix) + 1 :] if prefix else title
    if not key or key.startswith(":") or _ILLEGAL.search(title) or _DOT_SEGMENT.search(key):
        return None
    if len(key.replace(" ", "_").encode("utf-8")) > MAX_TITLE_BYTES:
        return None
    return title


def illegal_in_title(text: str) -> bool:
    """`text` holds what no MediaWiki title may: a character, `%XX`, an entity, `~~~`."""
    return _ILLEGAL.search(text) is not None


def file_name(title: str) -> bytes:
    """The file of a normalised title below `api/get/title/`, without `.json`."""
    return title.replace(" ", "_").encode("utf-8")


@cache
def _lower_spellings() -> dict[str, tuple[str, ...]]:
    """Upper-cased form -> the characters `upper_first` turns into it.

    Every code point is looked at, but in blocks: a block's `upper()` equals the block only
    when no character in it changes (upper-casing never shortens a character, and one that
    changes either differs or lengthens the text), so only the few blocks of cased scripts
    are read character by character. A loop over all 1.1 million characters took 0.37 s of
    every cold build."""
    found: dict[str, list[str]] = {}
    everything = _all_characters()

    def scan(start: int, stop: int, width: int) -> None:
        for lo in range(start, stop, width):
            block = everything[lo : lo + width]
            if block.upper() == block:
                continue
            if width > 16:
                scan(lo, min(lo + width, stop), width // 16)
                continue
            for char in block:
                upper = char.upper()
                if upper != char:
                    found.setdefault(upper, []).append(char)

    scan(0, len(everything), 4096)
    return {upper: tuple(chars) for upper, chars in found.items()}


def _all_characters() -> str:
    """Every code point in order (lone surrogates included), in milliseconds: their UTF-32
    bytes laid out byte column by byte column (joining a million `chr`s takes 0.16 s)."""
    n = sys.maxunicode + 1  # 17 * 65536
    raw = bytearray(4 * n)
    raw[0::4] = bytes(range(256)) * (n // 256)
    raw[1::4] = b"".join(bytes([b]) * 256 for b in range(256)) * (n // 65536)
    raw[2::4] = b"".join(bytes([b]) * 65536 for b in range(n // 65536))
    return raw.decode("utf-32-le", "surrogatepass")


def case_spellings(title: str, namespace: int, site: SiteInfo) -> list[str]:
    """The other titles a client may send for the normalised `title` that differ only in
    the first letter MediaWiki upper-cases (`splinter` for `Splinter`; `ßeta` for `SSeta`)."""
    if namespace in site.case_sensitive:
        return []
    prefix = site.namespaces.get(namespace, "")
    head = prefix + ":" if prefix and title.startswith(prefix + ":") else ""
    rest = title[len(head) :]
    spellings = []
    lower = _lower_spellings()
    for width in (1, 2, 3):  # the longest full upper-case mapping is three characters
        for char in lower.get(rest[:width], ()) if len(rest) >= width else ():
            spelling = char + rest[width:]
            if upper_first(spelling) == rest:
                spellings.append(head + spelling)
    return spellings


def namespace_spellings(site: SiteInfo, namespaces: Iterable[int]) -> dict[str, tuple[str, ...]]:
    """Each of `namespaces` (but the main one) by its local name -> every name the wiki
    reads as it (local, canonical, aliases), lower-cased: what the nginx snippet rewrites
    a title's prefix from."""
    spellings: dict[str, tuple[str, ...]] = {}
    for ns_id in sorted(set(namespaces) - {0}):
        name = site.namespaces.get(ns_id)
        if not name:
            continue
        names = {key for key in site.namespace_lookup if site.namespace_lookup[key] == ns_id}
        names |= {key for key, value in CANONICAL_NAMESPACES.items() if value == ns_id}
        spellings[name] = tuple(sorted(names | {name.lower()}))
    return spellings
