"""MediaWiki title normalisation: what the wiki itself does to a title before looking it up.

Spaces and underscores are the same character; runs of them collapse; leading and trailing
ones go; a known namespace prefix (any case, local name or alias) is recognised and written
in its canonical form; the first letter of the rest is upper-cased unless the namespace is
case-sensitive. Titles are compared only after this.
"""

from __future__ import annotations

import re

from store.model import SiteInfo

_SPACES = re.compile(r"[ _\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")

#: The English canonical names every wiki accepts besides its local ones.
CANONICAL_NAMESPACES = {
    "media": -2, "special": -1, "talk": 1, "user": 2, "user talk": 3, "project": 4, "project talk": 5,
    "file": 6, "image": 6, "file talk": 7, "mediawiki": 8, "mediawiki talk": 9, "template": 10,
    "template talk": 11, "help": 12, "help talk": 13, "category": 14, "category talk": 15,
}


def _upper_first(text: str) -> str:
    if not text:
        return text
    # MediaWiki upper-cases with the language's rules; Python's str.upper is the same for
    # the letters an Italian or English wiki uses (ß -> SS aside, which MediaWiki keeps).
    first = text[0]
    upper = first.upper()
    return (upper if len(upper) == 1 else first) + text[1:]


def normalise(title: str, site: SiteInfo, default_namespace: int = 0) -> tuple[int, str]:
    """(namespace id, full normalised title) for `title` as the wiki would read it.

    `default_namespace` applies when no prefix names another one (10 for a template name
    written bare, as in `{{Convenzione}}`). A leading colon makes the default the main
    namespace (`{{:Convenzione}}` is an article, `{{:Template:Convenzione}}` the template).
    """
    text = _SPACES.sub(" ", title).strip(" ")
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
    if namespace not in site.case_sensitive:
        text = _upper_first(text)
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
