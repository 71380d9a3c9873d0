"""Full and incremental sync against the in-memory api.php: every kind of change lands exactly,
idle runs are cheap, and the cursor never replays or skips an entry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import responses

from bridgeshape_mirror.store.model import Problem
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient
from bridgeshape_mirror.sync.syncer import ApiSync, SyncSettings

from support.fake_wiki import API, FakeWiki, convention_text

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
def wiki():
    wiki = FakeWiki()
    wiki.add(1, "Splinter", convention_text("1H-4C: opener H:5+; responder C:0-1"))
    wiki.add(2, "Stayman", convention_text("opener hcp:15-17"))
    wiki.add(3, "Storia del bridge", "Nessun template qui.")
    wiki.recent.append({"type": "edit", "rcid": 100, "pageid": 2, "title": "Stayman", "timestamp": "2026-11-29T09:00:00Z"})
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        wiki.install(mock)
        yield wiki


@pytest.fixture
def store(tmp_path):
    with StateStore(tmp_path / "state.sqlite") as store:
        yield store


def sync(store: StateStore, now: datetime = NOW, **settings):
    client = WikiClient(ClientSettings(api_url=API))
    report = ApiSync(client, store, SyncSettings(info_check_every=None, **settings), now=now).run()
    return report


def titles(store: StateStore) -> dict[int, str]:
    return {p.page_id: p.title for p in store.pages()}


def test_first_run_is_full_and_reads_only_convention_pages(wiki, store):
    report = sync(store)
    assert report.mode == "full"
    assert titles(store) == {1: "Splinter", 2: "Stayman"}
    assert store.page(1).raw == "1H-4C: opener H:5+; responder C:0-1" and store.page(1).revid == 10
    assert store.get_json("cursor")["rcid"] == 100
    assert report.requests == 2  # siteinfo+cursor, one content batch


def test_idle_incremental_run_is_one_request_and_changes_nothing(wiki, store):
    sync(store)
    before = store.pages()
    calls = len(wiki.calls)
    report = sync(store)
    assert report.mode == "incremental" and report.requests == 1 == len(wiki.calls) - calls
    assert store.pages() == before
    # rcstart is inclusive: the entry at the cursor came back and was dropped, not refetched.
    assert report.fetched == 0


def test_edit_create_delete_move_each_land(wiki, store):
    sync(store)
    wiki.edit(1, convention_text("opener S:5+"))
    wiki.create(4, "Transfer Jacoby", convention_text("opener hcp:15-17; responder H:5+"))
    wiki.delete(2)
    wiki.move(1, "Splinter (convenzione)")
    report = sync(store)
    assert report.mode == "incremental"
    assert titles(store) == {1: "Splinter (convenzione)", 4: "Transfer Jacoby"}
    assert store.page(1).raw == "opener S:5+" and store.page(1).revid == wiki.pages[1].revid
    assert (report.created, report.deleted) == (1, 1)
    # And the next idle run sees nothing new.
    assert sync(store).fetched == 0


def test_template_removed_or_added_moves_a_page_out_of_or_into_the_store(wiki, store):
    sync(store)
    wiki.edit(2, "Stayman, ora senza template.")
    wiki.edit(3, convention_text("opener shape:balanced"))
    sync(store)
    assert titles(store) == {1: "Splinter", 3: "Storia del bridge"}


def test_problems_are_recorded(wiki, store):
    wiki.add(5, "Senza vincoli", "{{Convenzione|nome=X}}")
    wiki.add(6, "Vuota", "{{Convenzione|shape_constraints=<!-- da fare -->}}")
    sync(store)
    assert store.page(5).problems == (Problem.NO_PARAMETER,) and store.page(5).raw is None
    assert store.page(6).problems == (Problem.EMPTY_VALUE,)


def test_old_cursor_full_flag_and_changed_selection_force_a_full_sync(wiki, store):
    sync(store)
    assert sync(store, now=NOW + timedelta(days=81)).mode == "full"
    assert sync(store, full=True).mode == "full"
    assert sync(store, parameter="vincoli").mode == "full"
    assert sync(store, parameter="vincoli").mode == "incremental"


def test_info_check_catches_a_change_recent_changes_do_not_show(wiki, store):
    sync(store)
    wiki.pages[2].revid += 5  # an import: a new revision without a recent-changes entry
    wiki.pages[2].text = convention_text("opener hcp:20+")
    assert sync(store).fetched == 0
    assert store.page(2).raw == "opener hcp:15-17"
    client = WikiClient(ClientSettings(api_url=API))
    report = ApiSync(client, store, SyncSettings(info_check_every=timedelta(0)), now=NOW).run()
    assert store.page(2).raw == "opener hcp:20+"
    assert report.requests == 3  # changes, info check, one fetch


def test_category_limits_the_pages(wiki, store):
    wiki.pages[1].text += "\n[[Categoria:Convenzioni]]"
    sync(store, category="Convenzioni")
    # The fake wiki has no category table; the request must ask for the normalised category.
    assert any(c.get("clcategories") == "Categoria:Convenzioni" for c in wiki.calls)


def test_redirects_to_convention_pages_are_kept(wiki, store):
    wiki.pages[1].redirects = [(0, "Splinter (convenzione)"), (4, "Progetto:Splinter")]
    wiki.pages[3].redirects = [(0, "Storia")]  # not a convention page: not kept
    report = sync(store)
    assert report.requests == 2  # prop=redirects rides on the content batch
    assert store.redirects() == {1: ((0, "Splinter (convenzione)"), (4, "Progetto:Splinter"))}
    # An edit of the page reads its redirects again; a deleted page takes its own along.
    wiki.pages[1].redirects = [(0, "Splinter 1H")]
    wiki.edit(1, convention_text("opener S:5+"))
    sync(store)
    assert store.redirects() == {1: ((0, "Splinter 1H"),)}
    wiki.delete(1)
    sync(store)
    assert store.redirects() == {}


def test_info_check_reads_new_redirects(wiki, store):
    sync(store)
    assert store.redirects() == {}
    # A new redirect edits the redirect page, not the convention page: only the check sees it.
    wiki.pages[2].redirects = [(0, "Stayman 2F")]
    client = WikiClient(ClientSettings(api_url=API))
    ApiSync(client, store, SyncSettings(info_check_every=timedelta(0)), now=NOW).run()
    assert store.redirects() == {2: ((0, "Stayman 2F"),)}


def test_a_title_longer_than_mediawiki_allows_is_refused_and_the_other_pages_kept(wiki, store, caplog):
    wiki.add(4, "T" * 2_000_000, convention_text("opener S:5+"))
    wiki.add(5, "é" * 127 + "x", convention_text("opener S:6+"))  # 255 bytes: the longest a wiki has
    with caplog.at_level("WARNING"):
        report = sync(store)
    assert titles(store) == {1: "Splinter", 2: "Stayman", 5: "é" * 127 + "x"}
    assert report.refused == (
        "page 4 not synced: its title is 2,000,000 bytes of UTF-8, more than MediaWiki's 255 ('" + "T" * 40 + "'...)",
    )
    assert "; 1 refused: page 4 not synced: its title is 2,000,000 bytes" in report.summary()
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == list(report.refused)
    # A page created later with such a title (or moved to one) is refused on an incremental run too.
    wiki.create(6, "Mossa " + "ü" * 200, convention_text("opener H:5+"))
    wiki.move(1, "Splinter " + "x" * 300)
    again = sync(store)
    assert again.mode == "incremental" and titles(store) == {2: "Stayman", 5: "é" * 127 + "x"}
    assert sorted(r.split(" not synced")[0] for r in again.refused) == ["page 1", "page 6"]
