"""report/feed.atom: Atom 1.0 as a feed reader reads it (feedparser), an entry per page that
broke or was fixed, newest first, the last 50; the events kept in the state store, recorded
once per run; the feed linked from the report's head and served with its media type; and the
report as wikitext, every page's text shown literally."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import feedparser
import pytest

from bridgeshape_mirror.serving.file_types import media_type
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.wiki_report import link, literal
from bridgeshape_mirror.store.report_events import KEPT_EVENTS, EventKind, ReportEvent, ReportEvents
from bridgeshape_mirror.store.state import StateStore

#: What the sample wiki has broken, newest edit first (its revisions 1021, 1020, 1019).
BROKEN = ["Smolen", "Roudi", "Gazzilli"]


@pytest.fixture
def state(sample_state) -> Path:
    """The synced sample wiki's state store (conftest's `sample_state`), this test's copy."""
    return sample_state


def run_build(state: Path, lang: str = "en"):
    return build(state, BuildSettings(out=state.parent / "output", deals=0, dd_budget=0, lang=lang))


def feed(state: Path):
    data = (state.parent / "output" / "report" / "feed.atom").read_bytes()
    parsed = feedparser.parse(data)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return parsed


def edit(state: Path, title: str, raw: str | None, revid: int, timestamp: str) -> int:
    with StateStore(state) as store:
        page = next(p for p in store.pages() if p.title == title)
        with store.transaction() as db:
            StateStore.upsert(db, replace(page, raw=raw, revid=revid, timestamp=timestamp))
    return page.page_id


def events(state: Path) -> list[ReportEvent]:
    with StateStore(state) as store:
        return ReportEvents(store).recent()


def test_a_first_build_reports_every_broken_page_newest_first(state):
    run_build(state)
    parsed = feed(state)
    assert [e.title for e in parsed.entries] == [f"{t}: broken" for t in BROKEN]
    newest = parsed.entries[0]
    assert newest.updated == parsed.feed.updated == "2026-09-19T07:38:27Z"
    assert newest.link == "http://127.0.0.1:8080/index.php/Smolen"
    assert [l.href for l in newest.links if l.rel == "related"] == ["http://127.0.0.1:8080/index.php?title=Smolen&diff=prev&oldid=1021"]
    assert "Broken by revision 1021." in newest.content[0].value and '"s:" is not a known key' in newest.content[0].value
    assert len({e.id for e in parsed.entries}) == 3 and all(e.id.startswith("urn:uuid:") for e in parsed.entries)
    assert [(e.title, e.kind, e.revid) for e in events(state)] == [
        ("Gazzilli", EventKind.BROKE, 1019), ("Roudi", EventKind.BROKE, 1020), ("Smolen", EventKind.BROKE, 1021)
    ]


def test_a_fix_is_an_entry_on_top_and_nothing_is_recorded_twice(state):
    run_build(state)
    before = (state.parent / "output" / "report" / "feed.atom").read_bytes()
    assert run_build(state).changed is False  # the same feed: no event recorded again
    assert (state.parent / "output" / "report" / "feed.atom").read_bytes() == before
    assert len(events(state)) == 3

    edit(state, "Roudi", "opener hcp:12-14 shape:balanced; responder hcp:11+ S:5+", 1100, "2026-11-30T10:00:00Z")
    # Broken again by another revision: still broken since 1021, no new entry.
    edit(state, "Smolen", "responder S:5 H:4 hcp:10+ opner", 1101, "2026-11-30T09:00:00Z")
    run_build(state)
    parsed = feed(state)
    assert [e.title for e in parsed.entries] == ["Roudi: fixed", *(f"{t}: broken" for t in BROKEN)]
    fixed = parsed.entries[0]
    assert fixed.updated == parsed.feed.updated == "2026-11-30T10:00:00Z"
    assert "Fixed by revision 1100." in fixed.content[0].value
    assert [l.href for l in fixed.links if l.rel == "related"] == ["http://127.0.0.1:8080/index.php?title=Roudi&diff=prev&oldid=1100"]
    assert len(events(state)) == 4
    run_build(state)
    assert len(events(state)) == 4

    # Broken once more: a new entry, with its own id.
    edit(state, "Roudi", "opener hcp:99", 1102, "2026-12-01T08:00:00Z")
    run_build(state)
    parsed = feed(state)
    assert [e.title for e in parsed.entries][:2] == ["Roudi: broken", "Roudi: fixed"]
    assert len({e.id for e in parsed.entries}) == 5


def test_the_feed_keeps_the_last_50_and_the_report_links_it(state):
    with StateStore(state) as store:
        ReportEvents(store).record(
            ReportEvent(9000 + n, f"Pagina {n}", EventKind.FIXED, 5000 + n, f"2026-10-{1 + n // 24:02d}T{n % 24:02d}:00:00Z")
            for n in range(70)
        )
        assert len(ReportEvents(store).recent(1000)) == KEPT_EVENTS == 50
    run_build(state)
    parsed = feed(state)
    assert len(parsed.entries) == 50
    stamps = [e.updated for e in parsed.entries]
    assert stamps == sorted(stamps, reverse=True)
    # The sample's three breakages (September) are older than every kept fix (October).
    assert parsed.entries[0].title == "Pagina 69: fixed" and "broken" not in parsed.entries[-1].title
    html = (state.parent / "output" / "report" / "index.html").read_text(encoding="utf-8")
    head = html[: html.index("</head>")]
    assert '<link rel="alternate" type="application/atom+xml" href="feed.atom"' in head
    assert media_type("report/feed.atom") == "application/atom+xml; charset=utf-8"


def test_the_feed_speaks_the_site_language_and_holds_any_text(state):
    hostile = 'opener <script>alert(1)</script> &amp; ]]> \x01\x1f "\'" {{x}} // :'
    edit(state, "Roudi", hostile, 1100, "2026-11-30T10:00:00Z")
    run_build(state, lang="it")
    parsed = feed(state)
    assert parsed.feed.title.startswith("Rapporto di validazione")
    top = parsed.entries[0]
    assert top.title == "Roudi: errato"
    assert "Reso errato dalla revisione" in top.content[0].value
    assert "<script>alert(1)</script>" in top.content[0].value  # text, read back as it was written
    assert "\x01" not in top.content[0].value


def test_wikitext_of_page_text_is_literal():
    assert literal("a {{b}} [[c]] ~~~~ __NOINDEX__ <script> </nowiki> | ||\nx") == (
        "<nowiki>a {{b}} [[c]] ~~~~ __NOINDEX__ &lt;script&gt; &lt;/nowiki&gt; | || x</nowiki>"
    )
    assert literal("&amp;") == "<nowiki>&amp;amp;</nowiki>"
    assert link("Category:A~~~~'' & b") == "[[:Category:A&#126;&#126;&#126;&#126;&#39;&#39; &amp; b|<nowiki>Category:A~~~~'' &amp; b</nowiki>]]"


def test_the_wiki_report_is_the_same_text_while_nothing_changes(state):
    first = run_build(state).wiki_report
    again = run_build(state).wiki_report
    assert first is not None and first == again
    assert first.lang == "it"  # the wiki's language (the sample wiki's), whatever --lang says
    assert run_build(state, lang="en").wiki_report == first
    assert "[[Special:Diff/1021|" in first.text and "[[:Smolen|<nowiki>Smolen</nowiki>]]" in first.text
    assert first.summary == "Rapporto di validazione: 3 errate, 0 con l'ultima revisione valida"


def test_a_build_stopped_while_recording_its_events_keeps_neither_them_nor_its_history(state, monkeypatch):
    # The history and the events are one transaction: were the history kept without the
    # events, the next build would find nothing new and the three entries would be lost.
    def stopped(self, new):
        raise KeyboardInterrupt("stopped after the history was written")

    with monkeypatch.context() as patched:
        patched.setattr(ReportEvents, "record", stopped)
        with pytest.raises(KeyboardInterrupt):
            run_build(state)
    assert events(state) == []
    run_build(state)
    assert [e.title for e in events(state)] == ["Gazzilli", "Roudi", "Smolen"]
    assert [e.title for e in feed(state).entries] == [f"{t}: broken" for t in BROKEN]
