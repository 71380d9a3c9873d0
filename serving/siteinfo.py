"""`action=query&meta=siteinfo`, answered from the mirror: the build writes the answer as
`api/siteinfo.json` (the synced `general` block, the namespaces, an anonymous user), both
servers give that file, and `serve` reads the namespaces and case rules back from it to
normalise titles as the wiki does.

It answers what `mwclient.Site()` asks first (`meta=siteinfo|userinfo`,
`siprop=general|namespaces`) whatever `siprop` names: the mirror has no other part.
"""

from __future__ import annotations

import json
import os
from typing import Any

from bridgeshape_mirror.store.model import SiteInfo
from bridgeshape_mirror.sync.siteinfo import site_info_from_api
from bridgeshape_mirror.sync.titles import CANONICAL_NAMESPACES

#: Below the mirror's root (SEMANTICS 4 lists the public files; this one is ours).
SITEINFO_FILE = "api/siteinfo.json"
#: The user every mirror answer is for: MediaWiki names an anonymous user by its address,
#: which a static file cannot know.
ANONYMOUS = {"id": 0, "name": "127.0.0.1", "anon": ""}


def _canonical_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, ns_id in CANONICAL_NAMESPACES.items():
        names.setdefault(ns_id, name[:1].upper() + name[1:])
    return names


def siteinfo_document(site: SiteInfo) -> dict[str, Any]:
    """The answer to `action=query&meta=siteinfo|userinfo` (formatversion 1, as MediaWiki
    answers by default)."""
    general: dict[str, Any] = json.loads(site.general) if site.general else {}
    for key, value in (("sitename", site.sitename), ("server", site.server), ("scriptpath", site.script_path),
                       ("articlepath", site.article_path)):
        if value and key not in general:
            general[key] = value
    canonical = _canonical_names()
    namespaces: dict[str, Any] = {}
    spelled: dict[int, set[str]] = {}
    for ns_id in sorted(site.namespaces):
        name = site.namespaces[ns_id]
        entry: dict[str, Any] = {"id": ns_id, "case": "case-sensitive" if ns_id in site.case_sensitive else "first-letter"}
        if ns_id in canonical:
            entry["canonical"] = canonical[ns_id]
        entry["*"] = name
        namespaces[str(ns_id)] = entry
        spelled[ns_id] = {name.lower(), canonical.get(ns_id, "").lower()}
    aliases = [
        {"id": ns_id, "*": alias}
        for alias, ns_id in sorted(site.namespace_lookup.items(), key=lambda item: (item[1], item[0]))
        if ns_id in spelled and alias not in spelled[ns_id] and CANONICAL_NAMESPACES.get(alias) != ns_id
    ]
    query = {"general": general, "namespaces": namespaces, "namespacealiases": aliases, "userinfo": ANONYMOUS}
    return {"batchcomplete": "", "query": query}


def read_site(root: bytes) -> SiteInfo:
    """The wiki's title rules from a mirror's siteinfo file; MediaWiki's defaults (first
    letter upper-cased everywhere) for a mirror built before it had one."""
    try:
        with open(root + b"/" + SITEINFO_FILE.encode(), "rb") as handle:
            return site_info_from_api(json.loads(handle.read())["query"])
    except (OSError, ValueError, KeyError, TypeError):
        return SiteInfo()


class SiteCache:
    """`read_site` again only when the file changed (the build flips the whole folder)."""

    def __init__(self, root: bytes):
        self.root = root
        self._key: tuple[int, int, int] | None = None
        self._site = SiteInfo()

    def get(self) -> SiteInfo:
        try:
            stat = os.stat(self.root + b"/" + SITEINFO_FILE.encode())
            key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = None
        if key != self._key or key is None:
            self._site = read_site(self.root) if key is not None else SiteInfo()
            self._key = key
        return self._site
