"""Bring the state store up to date with the wiki: a full sync, or an incremental one from the cursor.

Full: one request for site information and the newest recent-change and log ids (the
cursor, taken *before* the content so nothing edited meanwhile is missed), then the pages
transcluding the template with their content, 50 per request (`generator=embeddedin`).

Incremental: `list=recentchanges` and `list=logevents` from the cursor in one request
(`rcstart` is inclusive, so entries at or below the last seen id are dropped); the pages
they name are fetched again by id (edits) or title (deletes, undeletes, moves, imports)
and classified from their text and `prop=templates`. A periodic `prop=info` pass over the
template's transclusions compares `lastrevid` with the store, for what recent changes do
not show (imports, expired entries). Nothing is written until everything is read; then all
changes and the new cursor go to the store in one transaction, as a `reading.Reading`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from bridgeshape_mirror.store.model import SiteInfo, WikiPage, format_timestamp, parse_timestamp
from bridgeshape_mirror.store.state import REDIRECTS, StateStore

from .client import WikiClient, merge_pages
from .errors import WikiGarbage
from .extract import extract, template_title
from .names import check_names_exist
from .reading import Reading, write_reading
from .report import SyncReport
from .settings import SyncSettings
from .siteinfo import site_info_from_api
from .titles import normalise, overlong_title

log = logging.getLogger(__name__)

BATCH = 50
CATEGORY_NAMESPACE = 14
LOG_TYPES_THAT_MOVE_PAGES = frozenset({"delete", "move", "import", "merge", "upload"})


class ApiSync:
    """One sync run against a live wiki. `run()` reads everything, then writes once."""

    def __init__(
        self,
        client: WikiClient,
        store: StateStore,
        settings: SyncSettings,
        now: datetime | None = None,
        progress: Callable[[int], None] | None = None,
    ):
        self.client = client
        self.store = store
        self.settings = settings
        self.now = now or datetime.now(UTC)
        self._progress = progress
        #: Pages read in and refused this run, with why (`Reading.refused`).
        self._refused: list[str] = []

    def _ticking(self, responses: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Pass responses through, telling the progress display how many pages each carried."""
        for data in responses:
            if self._progress is not None:
                self._progress(len((data.get("query") or {}).get("pages") or []))
            yield data

    # -- entry -----------------------------------------------------------------------------

    def run(self) -> SyncReport:
        return write_reading(self.store, self.read(), self.settings.allow_removals)

    def read(self) -> Reading:
        self.client.login()
        reason = self._full_sync_reason()
        if reason:
            log.info("full sync: %s", reason)
            return self._full()
        return self._incremental()

    def _full_sync_reason(self) -> str | None:
        if self.settings.full:
            return "asked for (--full)"
        cursor = self.store.get_json("cursor")
        if cursor is None or self.store.site_info() is None:
            return "no previous state"
        if self.store.get_json("selection") != self.settings.selection(self.client.settings.api_url):
            return "the wiki, template, parameter or category changed since the last run"
        # What matters is when the cursor was last read: a quiet wiki's newest change may be
        # old, but nothing newer can have expired unread since the last run.
        last_sync = self.store.get_meta("last_sync")
        if last_sync is None or self.now - parse_timestamp(last_sync) > self.settings.rc_max_age:
            return f"the last sync is older than {self.settings.rc_max_age.days} days; recent changes may have expired"
        return None

    # -- full ------------------------------------------------------------------------------

    def _full(self) -> Reading:
        first = self.client.call(
            "query",
            meta="siteinfo",
            siprop="general|namespaces|namespacealiases",
            list="recentchanges|logevents",
            rcprop="ids|timestamp",
            rclimit=1,
            lelimit=1,
            leprop="ids|timestamp",
        )
        query = first.get("query")
        if not isinstance(query, dict):
            raise WikiGarbage("the wiki's answer to the first query has no query block")
        site = site_info_from_api(query)
        cursor = self._initial_cursor(query)
        template = template_title(self.settings.template, site)
        pages = merge_pages(
            self._ticking(self.client.query(
                generator="embeddedin",
                geititle=template,
                geilimit=BATCH,
                prop="revisions|redirects" + ("|categories" if self.settings.category else ""),
                rvprop="ids|timestamp|content",
                rvslots="main",
                **REDIRECT_PARAMS,
                **self._category_params(site),
            ))
        )
        found = [self._convention_page(p, site, template, listed=True) for p in pages.values() if not p.get("missing")]
        new = {p.page_id: p for p in found if p is not None}
        if not new:
            # Nothing found: a misspelt template or category is the likely cause, and an
            # error naming it beats "0 pages" (one request, only in this case).
            check_names_exist(self.client, {10: template} | ({14: self._category_title(site)} if self.settings.category else {}))
        redirects = {page_id: _redirects_of(pages[page_id]) for page_id in new}
        return self._reading("full", site, new.values(), cursor, fetched=len(pages), info_checked=True, redirects=redirects)

    def _initial_cursor(self, query: dict[str, Any]) -> dict[str, Any]:
        server_time = (query.get("general") or {}).get("time") or format_timestamp(self.now)
        rc = (query.get("recentchanges") or [{}])[0]
        le = (query.get("logevents") or [{}])[0]
        return {
            "rc_timestamp": rc.get("timestamp", server_time),
            "rcid": int(rc.get("rcid", 0)),
            "log_timestamp": le.get("timestamp", server_time),
            "logid": int(le.get("logid", 0)),
        }

    # -- incremental -----------------------------------------------------------------------

    def _incremental(self) -> Reading:
        site = self.store.site_info()
        assert site is not None  # _full_sync_reason checked it
        cursor = dict(self.store.get_json("cursor"))
        template = template_title(self.settings.template, site)
        recent, logged = [], []
        for data in self.client.query(
            list="recentchanges|logevents",
            rcstart=cursor["rc_timestamp"],
            rcdir="newer",
            rcprop="ids|title|timestamp|loginfo",
            rctype="edit|new|log",
            rclimit="max",
            lestart=cursor["log_timestamp"],
            ledir="newer",
            leprop="ids|title|type|timestamp|details",
            lelimit="max",
        ):
            query = data.get("query") or {}
            recent += [e for e in query.get("recentchanges") or [] if int(e.get("rcid", 0)) > cursor["rcid"]]
            logged += [e for e in query.get("logevents") or [] if int(e.get("logid", 0)) > cursor["logid"]]

        ids: set[int] = set()
        titles: set[str] = set()
        for entry in recent:
            # An entry whose action an admin hid has no title; the info check catches its page.
            if entry.get("type") == "log":
                if entry.get("title"):
                    titles.add(entry["title"])
            elif entry.get("pageid"):
                ids.add(int(entry["pageid"]))
        for entry in logged:
            if entry.get("type") not in LOG_TYPES_THAT_MOVE_PAGES:
                continue
            if entry.get("title"):
                titles.add(entry["title"])
            target = (entry.get("params") or {}).get("target_title")
            if target:
                titles.add(target)
            if entry.get("logpage"):
                ids.add(int(entry["logpage"]))

        info_checked = self._info_check_due()
        redirects = self.store.redirects()
        if info_checked:
            ids |= self._info_check(template, self.store.revisions(), redirects)

        fetched = self._fetch(site, template, ids, titles)
        upserts, deletes = self._classify(fetched, titles)
        for page in upserts:
            redirects[page.page_id] = _redirects_of(fetched.get(page.page_id) or {})
        for page_id in deletes:
            redirects.pop(page_id, None)
        if recent:
            cursor["rcid"] = max(int(e["rcid"]) for e in recent)
            cursor["rc_timestamp"] = max(e["timestamp"] for e in recent)
        if logged:
            cursor["logid"] = max(int(e["logid"]) for e in logged)
            cursor["log_timestamp"] = max(e["timestamp"] for e in logged)
        return self._reading(
            "incremental", site, upserts, cursor, fetched=len(fetched), info_checked=info_checked, removed=deletes,
            redirects=redirects,
        )

    def _info_check_due(self) -> bool:
        every = self.settings.info_check_every
        if every is None:
            return False
        last = self.store.get_meta("last_info_check")
        return last is None or self.now - parse_timestamp(last) >= every

    def _info_check(
        self, template: str, stored: dict[int, int], redirects: dict[int, tuple[tuple[int, str], ...]]
    ) -> set[int]:
        """Ids whose newest revision differs from the store, or that joined or left the template;
        `redirects` of the stored pages refreshed on the way (a new redirect to a page is no
        change of the page, so only this check and a full sync see it)."""
        listed: dict[int, int] = {}
        pages = merge_pages(
            self.client.query(generator="embeddedin", geititle=template, geilimit="max", prop="info|redirects", **REDIRECT_PARAMS)
        )
        for page in pages.values():
            if page.get("pageid") and "lastrevid" in page:
                listed[int(page["pageid"])] = int(page["lastrevid"])
                if int(page["pageid"]) in stored:
                    redirects[int(page["pageid"])] = _redirects_of(page)
        changed = {pid for pid, rev in listed.items() if stored.get(pid) != rev}
        return changed | (stored.keys() - listed.keys())

    def _fetch(self, site: SiteInfo, template: str, ids: set[int], titles: set[str]) -> dict[int | str, dict[str, Any]]:
        common = dict(
            prop="revisions|templates|redirects" + ("|categories" if self.settings.category else ""),
            rvprop="ids|timestamp|content",
            rvslots="main",
            tltemplates=template,
            tllimit="max",
            **REDIRECT_PARAMS,
            **self._category_params(site),
        )
        responses: list[Iterator[dict[str, Any]]] = []
        for batch in _batches(sorted(ids)):
            responses.append(self.client.query(http_method="POST", pageids="|".join(map(str, batch)), **common))
        for batch in _batches(sorted(titles)):
            responses.append(self.client.query(http_method="POST", titles="|".join(batch), **common))
        return merge_pages(self._ticking(data for stream in responses for data in stream))

    def _classify(self, fetched: dict[int | str, dict[str, Any]], titles: set[str]) -> tuple[list[WikiPage], set[int]]:
        """Pages to write, and page ids to delete if stored."""
        site = self.store.site_info()
        assert site is not None
        template = template_title(self.settings.template, site)
        upserts: list[WikiPage] = []
        present: set[int] = set()
        deletes: set[int] = set()
        gone_titles: set[str] = set()
        for page in fetched.values():
            if page.get("missing") or page.get("invalid"):
                if page.get("pageid"):
                    deletes.add(int(page["pageid"]))
                else:
                    gone_titles.add(page["title"])
                continue
            if not page.get("pageid") or int(page.get("ns", 0)) < 0:
                continue  # a special page named by a log entry (Special:Tags, Special:Log/...)
            page_id = int(page["pageid"])
            present.add(page_id)
            listed = any(t.get("title") == template for t in page.get("templates") or [])
            found = self._convention_page(page, site, template, listed=listed)
            if found is not None:
                upserts.append(found)
            else:
                deletes.add(page_id)
        # A title that is gone (deleted, or moved without a redirect) takes its stored page
        # with it, unless that page id was just seen alive elsewhere (moved).
        for ids in self.store.ids_with_titles(gone_titles).values():
            deletes.update(i for i in ids if i not in present)
        return upserts, deletes

    # -- shared ----------------------------------------------------------------------------

    def _category_params(self, site: SiteInfo) -> dict[str, Any]:
        if not self.settings.category:
            return {}
        return {"clcategories": self._category_title(site), "cllimit": "max"}

    def _category_title(self, site: SiteInfo) -> str:
        return normalise(self.settings.category or "", site, default_namespace=CATEGORY_NAMESPACE)[1]

    def _convention_page(self, page: dict[str, Any], site: SiteInfo, template: str, listed: bool) -> WikiPage | None:
        revisions = page.get("revisions") or []
        if not revisions:
            return None
        overlong = overlong_title(int(page["pageid"]), str(page.get("title", "")), int(page.get("ns", 0)), site)
        if overlong:
            self._refused.append(overlong)
            return None
        revision = revisions[0]
        main = (revision.get("slots") or {}).get("main") or {}
        text = main.get("content", "") if isinstance(main.get("content", ""), str) else ""
        found = extract(text, template, self.settings.parameter, site)
        if found.instances == 0 and not listed:
            return None
        if self.settings.category:
            category = self._category_title(site)
            if not any(c.get("title") == category for c in page.get("categories") or []):
                return None
        return WikiPage(
            page_id=int(page["pageid"]),
            title=page["title"],
            namespace=int(page.get("ns", 0)),
            revid=int(revision["revid"]),
            timestamp=revision.get("timestamp", ""),
            raw=found.raw,
            problems=found.problems,
        )

    def _reading(
        self,
        mode: str,
        site: SiteInfo,
        pages: Iterable[WikiPage],
        cursor: dict[str, Any],
        fetched: int,
        info_checked: bool,
        removed: Iterable[int] = (),
        redirects: dict[int, tuple[tuple[int, str], ...]] | None = None,
    ) -> Reading:
        now = format_timestamp(self.now)
        meta: dict[str, Any] = {"cursor": cursor}
        if redirects is not None:
            meta[REDIRECTS] = redirects_meta(redirects)
        if mode == "full":
            meta["last_full_sync"] = now
        if info_checked:
            meta["last_info_check"] = now
        return Reading(
            mode=mode,
            site=site,
            pages=tuple(pages),
            complete=mode == "full",
            selection=self.settings.selection(self.client.settings.api_url),
            synced_at=now,
            removed=frozenset(removed),
            meta=meta,
            fetched=fetched,
            requests=self.client.requests,
            refused=tuple(self._refused),
        )


#: What `prop=redirects` is asked for: every redirect to the page, by namespace and title.
REDIRECT_PARAMS = {"rdprop": "title", "rdlimit": "max"}


def _redirects_of(page: dict[str, Any]) -> tuple[tuple[int, str], ...]:
    """The redirects MediaWiki lists for `page` (`prop=redirects`), sorted."""
    found = {
        (int(entry.get("ns", 0)), entry["title"])
        for entry in page.get("redirects") or []
        if isinstance(entry, dict) and isinstance(entry.get("title"), str)
    }
    return tuple(sorted(found))


def redirects_meta(redirects: dict[int, tuple[tuple[int, str], ...]]) -> dict[str, list[list[Any]]]:
    """The store's form of the redirects (`store.state.REDIRECTS`): pages without any left out."""
    return {str(page_id): [list(pair) for pair in pairs] for page_id, pairs in sorted(redirects.items()) if pairs}


def _batches(items: list[Any], size: int = BATCH) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
