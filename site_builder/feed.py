"""`report/feed.atom`: the report as an Atom 1.0 feed, an entry per page that broke or was
fixed (`store.report_events`), newest first. Which pages changed is found here, from what
the last build remembered and what this one sees; the build records them once, after its
publish, so the feed it publishes already holds them."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bridgeshape_mirror.store.history import PageHistory
from bridgeshape_mirror.store.model import SiteInfo
from bridgeshape_mirror.store.report_events import EventKind, ReportEvent, newest_first

from .analysis import PageAnalysis, Status, local_errors
from .html import render
from .wiki_links import WikiLinks

#: When a feed has no entry: Atom wants a time, and a fixed one keeps the file (and the
#: mirror's content key) the same from run to run.
NO_TIME = "1970-01-01T00:00:00Z"

#: What XML 1.0 cannot hold at all, not even escaped (a DSL value may quote it).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def changes(before: Mapping[int, PageHistory], analyses: Iterable[PageAnalysis]) -> list[ReportEvent]:
    """The pages this build sees broken that the last one did not (`before` has no breakage
    for them: a first build reports every broken page), and those it sees valid that were
    broken. A page broken by one revision and still broken by the next changes nothing."""
    events = []
    for a in analyses:
        page, was = a.page, before.get(a.page.page_id)
        was_broken = was is not None and was.broken_revid is not None
        if a.status in (Status.STALE, Status.BROKEN) and not was_broken:
            assert a.current is not None and a.history.broken_revid is not None and a.history.broken_since is not None
            events.append(ReportEvent(page.page_id, page.title, EventKind.BROKE, a.history.broken_revid, a.history.broken_since, page.raw))
        elif a.status in (Status.OK, Status.NO_CONSTRAINTS) and was_broken:
            events.append(ReportEvent(page.page_id, page.title, EventKind.FIXED, page.revid, page.timestamp))
    return events


@dataclass(frozen=True)
class FeedEntry:
    """One entry as the template writes it (every text already fit for XML)."""

    id: str
    title: str
    kind: str
    updated: str
    page_url: str | None
    diff_url: str | None
    revid: int
    #: The errors of a broken revision, in the site's language (none for a fix).
    errors: tuple[tuple[int, int, int, str], ...]


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def feed_id(site: SiteInfo) -> str:
    """The feed's permanent id: the same for every mirror of one wiki."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{site.server}{site.script_path}#bridgeshape-mirror-report").urn


def render_feed(events: Sequence[ReportEvent], links: WikiLinks, lang: str) -> bytes:
    """The feed of `events` (any order), in `lang`."""
    base = feed_id(links.site)
    entries = []
    for e in newest_first(events):
        errors = local_errors(e.raw, lang) if e.kind is EventKind.BROKE and e.raw is not None else ()
        entries.append(
            FeedEntry(
                id=uuid.uuid5(uuid.NAMESPACE_URL, f"{base}/{e.page_id}/{e.kind.value}/{e.revid}").urn,
                title=xml_text(e.title),
                kind=e.kind.value,
                updated=e.timestamp,
                page_url=links.view(e.title),
                diff_url=links.diff(e.title, e.revid),
                revid=e.revid,
                errors=tuple((x.scenario, x.line, x.column, xml_text(x.message)) for x in errors),
            )
        )
    return render(
        "feed.atom.j2", lang, id=base, entries=entries, updated=entries[0].updated if entries else NO_TIME,
        sitename=xml_text(links.site.sitename),
    )
