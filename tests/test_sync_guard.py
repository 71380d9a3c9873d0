"""The guard against mass removals (issue 10): a run that would remove too many stored
convention pages is refused with status 7, state and mirror byte-identical, the refusal
recorded beside the state file; --allow-removals or `allow_removals = true` accept it."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.store.model import SiteInfo, WikiPage
from bridgeshape_mirror.store.refusal import read_refusal, refusal_path
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.store.errors import SuspiciousChange
from bridgeshape_mirror.sync.guard import is_mass_removal
from bridgeshape_mirror.sync.reading import Reading, write_reading


def export_text(page_ids: range) -> str:
    pages = "".join(
        f"<page><title>Convenzione {i}</title><ns>0</ns><id>{i}</id><revision><id>{100 + i}</id>"
        f"<timestamp>2026-10-01T10:00:00Z</timestamp><text xml:space=\"preserve\">"
        f"{{{{Convenzione|shape_constraints=opener H:{4 + i % 3}+}}}}</text></revision></page>"
        for i in page_ids
    )
    return (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="it">'
        "<siteinfo><sitename>BridgePedia</sitename><base>http://127.0.0.1:8080/index.php/Pagina_principale</base>"
        '<namespaces><namespace key="0" case="first-letter" /><namespace key="10" case="first-letter">Template</namespace>'
        f"</namespaces></siteinfo>{pages}</mediawiki>"
    )


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links followed) by its path, with a digest of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(
    ("removed", "stored", "refused"),
    [(0, 0, False), (3, 10, False), (4, 10, True), (4, 40, False), (5, 40, True), (1, 1, True), (2, 2, True), (1, 2, False)],
)
def test_the_threshold_is_more_than_ten_percent_and_more_than_three_or_all(removed, stored, refused):
    assert is_mass_removal(removed, stored) is refused


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A state store and a mirror made from an export of 10 convention pages."""
    export, state, out = tmp_path / "export.xml", tmp_path / "state.sqlite", tmp_path / "out"
    export.write_text(export_text(range(1, 11)), encoding="utf-8")
    argv = ["update", "--dump", str(export), "--state", str(state), "--out", str(out), "--deals", "1", "--no-dd", "-q"]
    assert main(argv) == ExitCode.OK
    return export, state, out


def test_a_mistyped_template_is_refused_and_leaves_state_and_mirror_byte_identical(published, caplog):
    export, state, out = published
    before_state, before_mirror = state.read_bytes(), tree_digest(out)
    argv = ["update", "--dump", str(export), "--state", str(state), "--out", str(out), "--deals", "1", "--no-dd"]
    with caplog.at_level(logging.ERROR):
        assert main([*argv, "--template", "Convenzone"]) == ExitCode.REFUSED
    assert state.read_bytes() == before_state
    assert tree_digest(out) == before_mirror
    assert "10 of the 10 stored convention pages would be removed" in caplog.text
    assert "'Convenzione' to 'Convenzone'" in caplog.text and "no page that uses template 'Convenzone'" in caplog.text
    refusal = read_refusal(state)
    assert refusal is not None and (refusal.removed, refusal.stored) == (10, 10)
    assert "Convenzone" in refusal.message

    # The operator accepts it on purpose: the run writes, and the refusal is over.
    assert main([*argv, "--template", "Convenzone", "--allow-removals"]) == ExitCode.OK
    with StateStore(state) as store:
        assert store.pages() == []
    assert not refusal_path(state).exists()


def test_an_export_with_fewer_pages_is_refused_unless_the_configuration_allows_it(published, tmp_path, caplog):
    export, state, _ = published
    export.write_text(export_text(range(1, 7)), encoding="utf-8")
    before = state.read_bytes()
    with caplog.at_level(logging.ERROR):
        assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.REFUSED
    assert state.read_bytes() == before
    assert "4 of the 10 stored" in caplog.text and "the export has 6 convention pages where the store has 10" in caplog.text
    config = tmp_path / "c.toml"
    config.write_text("[sync]\nallow_removals = true\n", encoding="utf-8")
    assert main(["sync", "--config", str(config), "--dump", str(export), "--state", str(state)]) == ExitCode.OK
    with StateStore(state) as store:
        assert len(store.pages()) == 6


def test_a_few_removals_pass_and_clear_an_old_refusal(published):
    export, state, _ = published
    refusal_path(state).write_text('{"at": "x", "message": "m", "removed": 9, "stored": 10}', encoding="utf-8")
    export.write_text(export_text(range(1, 8)), encoding="utf-8")
    assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.OK
    assert read_refusal(state) is None


def test_an_incremental_reading_that_removes_every_page_is_refused(tmp_path):
    page = WikiPage(page_id=1, title="Stayman", namespace=0, revid=10, timestamp="2026-10-01T10:00:00Z", raw="opener H:4+")
    selection = {"source": "http://w/api.php", "template": "Convenzione", "parameter": "shape_constraints", "category": None}
    with StateStore(tmp_path / "state.sqlite") as store:
        full = Reading("full", SiteInfo(), (page,), complete=True, selection=selection, synced_at="2026-10-01T10:00:00Z")
        write_reading(store, full)
        gone = Reading(
            "incremental", SiteInfo(), (), complete=False, selection=selection, synced_at="2026-10-02T10:00:00Z",
            removed=frozenset({1}),
        )
        with pytest.raises(SuspiciousChange, match="recent changes deleted or moved"):
            write_reading(store, gone)
        assert [p.page_id for p in store.pages()] == [1]
        assert write_reading(store, gone, allow_removals=True).deleted == 1


def test_a_refusal_that_cannot_be_recorded_is_still_a_refusal(published, caplog):
    export, state, _ = published
    refusal_path(state).mkdir()  # a folder where the record's file would go
    export.write_text(export_text(range(1, 2)), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.REFUSED
    assert "the refusal could not be recorded" in caplog.text
