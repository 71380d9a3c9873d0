"""Links back to the wiki: a page, and its edit form (for editors reading the report)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from store.model import SiteInfo


@dataclass(frozen=True)
class WikiLinks:
    site: SiteInfo

    def _title(self, title: str) -> str:
        # MediaWiki's own encoding of titles in URLs: "/" and ":" stay readable.
        return quote(title.replace(" ", "_"), safe="/:,()!*'@$;")

    def view(self, title: str) -> str | None:
        if not self.site.server or not self.site.article_path:
            return None
        return self.site.server + self.site.article_path.replace("$1", self._title(title))

    def edit(self, title: str) -> str | None:
        if not self.site.server:
            return None
        script = f"{self.site.server}{self.site.script_path}/index.php"
        return f"{script}?title={quote(title.replace(' ', '_'), safe='/:')}&action=edit"
