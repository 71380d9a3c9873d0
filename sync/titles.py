"""MediaWiki title normalisation: what the wiki itself does to a title before looking it up.

Spaces and underscores are the same character (so is any Unicode space); runs of them
collapse; leading and trailing ones go; bidi marks go; a leading `:` goes; a known namespace
prefix (any case, local name or alias) is recognised and written in its canonical form; a
`#fragment` goes; the first letter of the rest is upper-cased unless the namespace is
case-sensitive. Titles are compared only after this. (MediaWikiTitleCodec::splitTitleString,
MediaWiki 1.39, in that order.)
"""

from __future__ import annotations

import re

from bridgeshape_mirror.store.model import SiteInfo

#: What MediaWiki reads as a space in a title (the nginx drop-in spells these out too).
SPACE_CHARACTERS = " _\u00a0\u1680\u180e" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_SPACES = re.compile("[" + re.escape(SPACE_CHARACTERS) + "]+")
#: Bidi marks and overrides, which MediaWiki strips from titles before anything else.
_BIDI = re.compile(r"[\u200e\u200f\u202a-\u202e]+")

#: MediaWiki's limit on a title's database key (the title without its namespace prefix,
#: spaces as `_`), in UTF-8 bytes: no page of a real wiki has a longer one.
MAX_TITLE_BYTES = 255

#: The English canonical names every wiki accepts besides its local ones.
CANONICAL_NAMESPACES = {
    "media": -2, "special": -1, "talk": 1, "user": 2, "user talk": 3, "project": 4, "project talk": 5,
    "file": 6, "image": 6, "file talk": 7, "mediawiki": 8, "mediawiki talk": 9, "template": 10,
    "template talk": 11, "help": 12, "help talk": 13, "category": 14, "category talk": 15,
}


def upper_first(text: str) -> str:
    """MediaWiki's Language::ucfirst without overrides ($wgOverrideUcfirstCharacters is empty
    by default): `mb_strtoupper` of the first character, full case mapping included
    (`ß` -> `SS`, `ŉ` -> `ʼN`). Python's `str.upper` is the same mapping; a test holds it
    to PHP's, character by character."""
    return text[:1].upper() + text[1:]


def normalise(title: str, site: SiteInfo, default_namespace: int = 0) -> tuple[int, str]:
    """(namespace id, full normalised title) for `title` as the wiki would read it.

    `default_namespace` applies when no prefix names another one (10 for a template name
    written bare, as in `{{Convenzione}}`). A leading colon makes the default the main
    namespace (`{{:Convenzione}}` is an article, `{{:Template:Convenzione}}` the template).
    """
    text = _SPACES.sub(" ", _BIDI.sub("", title)).strip(" ")
    namespace = default_namespace
    if text.startswith(":"):
        # A leading colon only drops the default namespace; a prefix after it still counts.
        namespace = 0
        text = text[1:].strip(" ")
    if ":" in text:
        prefix, _, rest = text.partition(":")
        found = lookup_namespace(prefix.strip(" "), site)
        if found is not None:
            namespace, text = found, rest.strip(" ")
    if "#" in text:
        text = text.partition("#")[0].rstrip(" ")
    if namespace not in site.case_sensitive:
        text = upper_first(text)
    name = site.namespaces.get(namespace, "")
    return namespace, f"{name}:{text}" if name else text


def lookup_namespace(prefix: str, site: SiteInfo) -> int | None:
    key = _SPACES.sub(" ", prefix).strip(" ").lower()
    if key in site.namespace_lookup:
        return site.namespace_lookup[key]
    for ns_id, name in site.namespaces.items():
        if name and name.lower() == key:
            return ns_id
    return CANONICAL_NAMESPACES.get(key)


def url_form(title: str) -> str:
    """The title as it appears in a URL path before percent-encoding: spaces as underscores."""
    return title.replace(" ", "_")


def title_bytes(title: str, namespace: int, site: SiteInfo) -> int:
    """The UTF-8 bytes of `title`'s database key: MediaWiki bounds these (`MAX_TITLE_BYTES`)."""
    prefix = site.namespaces.get(namespace, "")
    key = title[len(prefix) + 1 :] if prefix and title.startswith(prefix + ":") else title
    return len(key.encode("utf-8", errors="surrogatepass"))


def overlong_title(page_id: int, title: str, namespace: int, site: SiteInfo) -> str | None:
    """Why a page read in is refused for its title (longer than any MediaWiki title, so from
    a forged export or answer, and copied into every file of the page), or None."""
    size = title_bytes(title, namespace, site)
    if size <= MAX_TITLE_BYTES:
        return None
    return (
        f"page {page_id} not synced: its title is {size:,} bytes of UTF-8, more than MediaWiki's {MAX_TITLE_BYTES} "
        f"({title[:40]!r}...)"
    )
