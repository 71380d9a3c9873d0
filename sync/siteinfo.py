"""The wiki's `meta=siteinfo` answer read as the title rules of `SiteInfo`: for the sync,
and for the servers reading a mirror's `api/siteinfo.json` (which need none of the client)."""

from __future__ import annotations

import json
from typing import Any

from bridgeshape_mirror.store.model import SiteInfo

from .errors import WikiGarbage
from .titles import CANONICAL_NAMESPACES


def site_info_from_api(query: dict[str, Any]) -> SiteInfo:
    general = query.get("general") or {}
    namespaces_raw = query.get("namespaces") or {}
    if not isinstance(namespaces_raw, dict) or not namespaces_raw:
        raise WikiGarbage("the wiki's siteinfo has no namespaces")
    namespaces: dict[int, str] = {}
    lookup: dict[str, int] = dict(CANONICAL_NAMESPACES)
    case_sensitive = set()
    for ns in namespaces_raw.values():
        ns_id = int(ns["id"])
        name = ns.get("name", ns.get("*", ""))
        namespaces[ns_id] = name
        if name:
            lookup[name.lower()] = ns_id
        if ns.get("canonical"):
            lookup[ns["canonical"].lower()] = ns_id
        if ns.get("case") == "case-sensitive":
            case_sensitive.add(ns_id)
    for alias in query.get("namespacealiases") or []:
        lookup[alias.get("alias", alias.get("*", "")).lower()] = int(alias["id"])
    return SiteInfo(
        namespaces=namespaces,
        namespace_lookup=lookup,
        case_sensitive=frozenset(case_sensitive),
        article_path=general.get("articlepath", ""),
        server=general.get("server", ""),
        script_path=general.get("scriptpath", ""),
        sitename=general.get("sitename", ""),
        # Without `time`, the server's clock: the block stays the same between runs.
        general=json.dumps({k: v for k, v in general.items() if k != "time"}, ensure_ascii=False, sort_keys=True)
        if isinstance(general, dict)
        else "",
        lang=general.get("lang", "") if isinstance(general.get("lang"), str) else "",
    )
