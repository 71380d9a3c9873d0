"""Links back to the wiki: a page, its edit form and the diff of one edit (for editors
reading the report)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from bridgeshape_mirror.store.model import SiteInfo


#: A server as MediaWiki gives it: http(s), or protocol-relative ("//host"), then a host and
#: port only. Anything else (`javascript:`, `data:`, control characters that browsers drop
#: from a scheme) comes from a hostile or broken siteinfo: no link is made from it at all.
_SERVER = re.compile(r"(?:https?:)?//[^\x00-\x20\x7f/\\?#@]+", re.IGNORECASE)
_PATH_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")


@dataclass(frozen=True)
class WikiLinks:
    site: SiteInfo

    @property
    def _safe(self) -> bool:
        site = self.site
        return bool(_SERVER.fullmatch(site.server)) and not _PATH_UNSAFE.search(site.article_path + site.script_path)

    def _title(self, title: str) -> str:
        # MediaWiki's own encoding of titles in URLs: "/" and ":" stay readable.
        return quote(title.replace(" ", "_"), safe="/:,()!*'@$;")

    def view(self, title: str) -> str | None:
        if not self.site.server or not self.site.article_path or not self._safe:
            return None
        return self.site.server + self.site.article_path.replace("$1", self._title(title))

    def edit(self, title: str) -> str | None:
        return self._index(title, "action=edit")

    def diff(self, title: str, revid: int) -> str | None:
        """The diff of revision `revid` against the one before it (the edit that made it)."""
        return self._index(title, f"diff=prev&oldid={int(revid)}")

    def _index(self, title: str, query: str) -> str | None:
        if not self.site.server or not self._safe:
            return None
        script = f"{self.site.server}{self.site.script_path}/index.php"
        return f"{script}?title={quote(title.replace(' ', '_'), safe='/:')}&{query}"
