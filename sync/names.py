"""Does the template (and category) asked for exist on the wiki, and if not, what is it
likely to have been? A typo there is a configuration error, not "0 convention pages".

Asked only when a full sync found no convention page at all: a name that exists costs
nothing then, and an idle incremental run never asks. (A template that does not exist but
is still used, as a red link, on some pages is not caught: those pages are synced.)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from .client import WikiClient
from .errors import UnknownName

#: Names of the namespace compared with the missing one: one request, a bounded list.
CANDIDATES = 500
#: Close names offered, best first.
SUGGESTIONS = 3
CATEGORY = 14
KINDS = {10: "template", CATEGORY: "category"}


def check_names_exist(client: WikiClient, titles: Mapping[int, str]) -> None:
    """`titles`: namespace id (10, 14) -> full normalised title. Raises UnknownName naming
    every one the wiki does not have, with close names it does have."""
    answer = client.call("query", titles="|".join(titles.values()), prop="info|categoryinfo")
    pages = (answer.get("query") or {}).get("pages") or []
    missing = {int(p.get("ns", 0)): str(p["title"]) for p in pages if not _exists(p)}
    if not missing:
        return
    raise UnknownName(
        "; ".join(_described(namespace, title, close_names(client, namespace, title)) for namespace, title in missing.items())
    )


def _exists(page: Mapping[str, Any]) -> bool:
    """A page that exists, or a category with members: pages may name a category nobody
    has written a page for, and MediaWiki counts it as a category all the same."""
    if page.get("invalid"):
        return False
    return not page.get("missing") or int((page.get("categoryinfo") or {}).get("size", 0)) > 0


def close_names(client: WikiClient, namespace: int, title: str) -> list[str]:
    """Titles of `namespace` like `title`: from the wiki's prefix search on its first letters
    (a typo late in the name) and the namespace's first CANDIDATES pages or categories (a
    typo early on)."""
    prefix, _, name = title.rpartition(":")
    # Categories need no page of their own: those with members come from allcategories.
    first = "allcategories" if namespace == CATEGORY else "allpages"
    answer = client.call(
        "query",
        list=f"{first}|prefixsearch",
        apnamespace=namespace,
        aplimit=CANDIDATES,
        aclimit=CANDIDATES,
        pssearch=name[:3] or name,
        psnamespace=namespace,
        pslimit=50,
    )
    query = answer.get("query") or {}
    found = {str(p["title"]) for key in ("allpages", "prefixsearch") for p in query.get(key) or [] if p.get("title")}
    found |= {f"{prefix}:{c['category']}" for c in query.get("allcategories") or [] if c.get("category")}
    by_name = {(t.split(":", 1)[1] if ":" in t else t).lower(): t for t in sorted(found)}
    close = difflib.get_close_matches(name.lower(), list(by_name), n=SUGGESTIONS, cutoff=0.6)
    return [by_name[c] for c in close]


def _described(namespace: int, title: str, close: list[str]) -> str:
    kind = KINDS.get(namespace, "page")
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else f"; the wiki has no {kind} with a close name"
    return f"the {kind} {title!r} does not exist on the wiki{hint}"
