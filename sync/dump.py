"""The offline source: a MediaWiki XML export (Special:Export, dumpBackup.php), read streaming.

Only the newest revision of each page counts. A page is a convention page when its text
contains the template; there are no link tables in an export to say otherwise. The pages
reach the store as one complete `reading.Reading`, as a full API sync's do.
"""

from __future__ import annotations

import json
import logging
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bridgeshape_mirror.store.model import SiteInfo, WikiPage, now_timestamp
from bridgeshape_mirror.store.state import REDIRECTS, StateStore

from .errors import DumpError
from .extract import extract, template_title
from .reading import Reading, write_reading
from .report import SyncReport
from .syncer import SyncSettings, redirects_meta
from .titles import CANONICAL_NAMESPACES, overlong_title

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DumpPage:
    page_id: int
    title: str
    namespace: int
    revid: int
    timestamp: str
    text: str
    #: The title this page redirects to (`<redirect title="..."/>`), if it is a redirect.
    redirect: str | None = None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(element: ET.Element, name: str) -> str | None:
    for child in element:
        if _local(child.tag) == name:
            return child.text or ""
    return None


#: The attribute name ElementTree gives `xml:lang`.
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _site_info(element: ET.Element, lang: str = "") -> SiteInfo:
    namespaces: dict[int, str] = {}
    lookup = dict(CANONICAL_NAMESPACES)
    case_sensitive = set()
    base = _child_text(element, "base") or ""
    for child in element:
        if _local(child.tag) != "namespaces":
            continue
        for ns in child:
            ns_id = _number(ns.get("key", "0"), "namespace key", None)
            name = ns.text or ""
            namespaces[ns_id] = name
            if name:
                lookup[name.lower()] = ns_id
            if ns.get("case") == "case-sensitive":
                case_sensitive.add(ns_id)
    # <base> is the main page's URL: "http://host/index.php/Pagina_principale" gives the
    # server and, with the title replaced by $1, the article path (for links in the report).
    parts = base.split("/", 3)
    server = "/".join(parts[:3]) if len(parts) >= 3 and "://" in base else ""
    path = "/" + parts[3] if len(parts) == 4 else ""
    article_path = path.rsplit("/", 1)[0] + "/$1" if "/" in path else ""
    script_path = article_path[: -len("/index.php/$1")] if article_path.endswith("/index.php/$1") else ""
    return SiteInfo(
        namespaces=namespaces or SiteInfo().namespaces,
        namespace_lookup=lookup,
        case_sensitive=frozenset(case_sensitive),
        article_path=article_path,
        server=server,
        script_path=script_path,
        sitename=_child_text(element, "sitename") or "",
        general=_general(element),
        lang=lang,
    )


def _general(element: ET.Element) -> str:
    """What an export's <siteinfo> says of siteinfo's `general` block, in its words."""
    general = {name: _child_text(element, name) for name in ("sitename", "dbname", "base", "generator", "case")}
    return json.dumps({k: v for k, v in general.items() if v is not None}, ensure_ascii=False, sort_keys=True)


def read_dump(path: str | Path) -> tuple[SiteInfo, Iterator[DumpPage]]:
    """Site information, then the pages one by one (memory stays flat for any export size)."""
    try:
        # The root's start too: <mediawiki xml:lang="it"> is the wiki's content language.
        events = ET.iterparse(str(path), events=("start", "end"))
        site = SiteInfo()
        lang = ""
        first: list[DumpPage] = []
        # Read up to the first page so the site information is known before any page.
        for event, element in events:
            tag = _local(element.tag)
            if event == "start":
                if tag == "mediawiki":
                    lang = element.get(XML_LANG, "")
                continue
            if tag == "siteinfo":
                site = _site_info(element, lang)
            elif tag == "page":
                first.append(_page(element))
                element.clear()
                break
    except (ET.ParseError, OSError) as exc:
        raise DumpError(f"cannot read the export {path}: {exc}") from exc

    def pages() -> Iterator[DumpPage]:
        yield from first
        try:
            for event, element in events:
                if event == "end" and _local(element.tag) == "page":
                    yield _page(element)
                    element.clear()
        except ET.ParseError as exc:
            raise DumpError(f"cannot read the export {path}: {exc}") from exc

    return site, pages()


def _number(text: str | None, what: str, title: str | None) -> int:
    """An id or namespace of the export; not a number means the export is broken, not us."""
    try:
        return int(text or 0)
    except ValueError:
        raise DumpError(f"the export's {what} {text[:40]!r} of the page {title!r} is not a number") from None


def _page(element: ET.Element) -> DumpPage:
    newest: ET.Element | None = None
    newest_id = -1
    title = _child_text(element, "title")
    for child in element:
        if _local(child.tag) == "revision":
            rev_id = _number(_child_text(child, "id"), "revision id", title)
            if rev_id > newest_id:
                newest, newest_id = child, rev_id
    page_id = _child_text(element, "id")
    if title is None or page_id is None or newest is None:
        raise DumpError(f"a page in the export lacks a title, an id or a revision (title {title!r})")
    return DumpPage(
        page_id=_number(page_id, "page id", title),
        title=title,
        namespace=_number(_child_text(element, "ns"), "namespace", title),
        revid=newest_id,
        timestamp=_child_text(newest, "timestamp") or "",
        text=_child_text(newest, "text") or "",
        redirect=next((child.get("title") for child in element if _local(child.tag) == "redirect"), None),
    )


def read_export(path: str | Path, settings: SyncSettings, progress: Callable[[int], None] | None = None) -> Reading:
    """The export's convention pages, as the whole set of pages; `progress` is told of each page read."""
    site, pages = read_dump(path)
    template = template_title(settings.template, site)
    found: dict[int, WikiPage] = {}
    redirecting: dict[str, set[tuple[int, str]]] = {}
    fetched = 0
    refused: list[str] = []
    for page in pages:
        fetched += 1
        if progress is not None:
            progress(1)
        overlong = overlong_title(page.page_id, page.title, page.namespace, site)
        if overlong:
            refused.append(overlong)
            continue
        if page.redirect:
            redirecting.setdefault(page.redirect, set()).add((page.namespace, page.title))
        result = extract(page.text, template, settings.parameter, site)
        if result.instances == 0:
            continue
        found[page.page_id] = WikiPage(
            page_id=page.page_id,
            title=page.title,
            namespace=page.namespace,
            revid=page.revid,
            timestamp=page.timestamp,
            raw=result.raw,
            problems=result.problems,
        )
    redirects = {p.page_id: tuple(sorted(redirecting.get(p.title, ()))) for p in found.values()}
    return Reading(
        mode="dump",
        site=site,
        pages=tuple(found.values()),
        complete=True,
        selection=settings.selection(f"dump:{Path(path).resolve()}"),
        synced_at=now_timestamp(),
        # An export has no recent-changes cursor: a later --api run must start with a full sync.
        forget=("cursor",),
        meta={REDIRECTS: redirects_meta(redirects)},
        fetched=fetched,
        refused=tuple(refused),
    )


def sync_from_dump(
    path: str | Path, store: StateStore, settings: SyncSettings, progress: Callable[[int], None] | None = None
) -> SyncReport:
    """Replace the store's pages with the export's convention pages, in one transaction."""
    return write_reading(store, read_export(path, settings, progress), settings.allow_removals)
