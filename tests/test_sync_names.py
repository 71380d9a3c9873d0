"""A template or category the wiki does not have is a configuration error naming it, with
the close names the wiki has (issue 10); asked only when a full sync found nothing. The
real-wiki version is in tests/test_update_wiki.py."""

from __future__ import annotations

import pytest
import responses

from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.client import ClientSettings, WikiClient
from bridgeshape_mirror.sync.errors import UnknownName
from bridgeshape_mirror.sync.syncer import ApiSync, SyncSettings

from support.fake_wiki import API, FakePage, FakeWiki, convention_text


@pytest.fixture
def wiki():
    wiki = FakeWiki()
    wiki.pages[900] = FakePage(900, "Template:Convenzione", 9000, "{{{shape_constraints|}}}", ns=10)
    wiki.pages[901] = FakePage(901, "Template:Citazione", 9010, "...", ns=10)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        wiki.install(mock)
        yield wiki


def run(tmp_path, **settings) -> None:
    with StateStore(tmp_path / "state.sqlite") as store:
        ApiSync(WikiClient(ClientSettings(api_url=API)), store, SyncSettings(**settings)).run()


def test_a_misspelt_template_is_named_with_the_close_name(wiki, tmp_path):
    with pytest.raises(UnknownName, match=r"template 'Template:Convenzone' does not exist.*did you mean 'Template:Convenzione'\?"):
        run(tmp_path, template="Convenzone")
    with StateStore(tmp_path / "state.sqlite") as store:
        assert store.pages() == [] and store.get_meta("last_sync") is None


def test_a_missing_category_is_named_and_a_found_page_costs_no_check(wiki, tmp_path):
    with pytest.raises(UnknownName, match=r"category 'Categoria:Nessuna' does not exist on the wiki; the wiki has no category"):
        run(tmp_path, category="Nessuna")
    wiki.add(1, "Stayman", convention_text("opener hcp:15-17"))
    calls = len(wiki.calls)
    run(tmp_path)
    assert not any("titles" in call for call in wiki.calls[calls:])


def test_a_misspelt_category_without_a_page_of_its_own_gets_its_close_name(wiki, tmp_path):
    wiki.add(1, "Stayman", convention_text("opener hcp:15-17", "[[Categoria:Convenzioni naturali]]"))
    with pytest.raises(UnknownName, match=r"'Categoria:Convenzioni naturalli' does not exist.*did you mean 'Categoria:Convenzioni naturali'\?"):
        run(tmp_path, category="Convenzioni naturalli")
