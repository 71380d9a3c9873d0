"""The mass-removal guard, for the mirror: a build that would take most of the published
convention pages away is refused (exit 7), the published mirror left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.store.refusal import read_refusal
from bridgeshape_mirror.store.state import StateStore
from support.wiki_pages import EXPORT

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample-wiki.xml"


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def page_ids(out: Path) -> set[int]:
    return {page["pageId"] for page in json.loads((out / "api" / "listall.json").read_text(encoding="utf-8"))["pages"]}


def small_ids(state: Path) -> set[int]:
    with StateStore(state) as store:
        return {page.page_id for page in store.pages()}


@pytest.fixture()
def published(tmp_path: Path) -> tuple[Path, Path]:
    """A mirror of the sample wiki (24 convention pages), and a second state store synced
    from a small export (two pages, whose ids the sample also has)."""
    big, small = tmp_path / "big.sqlite", tmp_path / "small.sqlite"
    out = tmp_path / "out"
    assert main(["update", "--dump", str(SAMPLE), "--state", str(big), "--out", str(out), "--deals", "0", "-q"]) == 0
    export = tmp_path / "one.xml"
    export.write_text(EXPORT, encoding="utf-8")
    assert main(["sync", "--dump", str(export), "--state", str(small), "-q"]) == 0
    return out, small


def test_another_state_store_does_not_replace_the_mirror(published, caplog):
    out, small = published
    before = tree(out)
    assert len(page_ids(out)) == 24
    status = main(["build", "--state", str(small), "--out", str(out), "--deals", "0", "-q"])
    assert status == ExitCode.REFUSED
    assert tree(out) == before
    gone = len(page_ids(out) - small_ids(small))
    assert gone > 3
    assert f"{gone} of the 24 convention pages of the mirror" in caplog.text and "--allow-removals" in caplog.text
    refusal = read_refusal(small)
    assert refusal is not None and (refusal.removed, refusal.stored) == (gone, 24)


def test_allow_removals_publishes_it_on_purpose(published):
    out, small = published
    status = main(["build", "--state", str(small), "--out", str(out), "--deals", "0", "--allow-removals", "-q"])
    assert status == ExitCode.OK
    assert page_ids(out) == small_ids(small)


def test_the_same_store_builds_again_as_usual(published, tmp_path):
    out, _ = published
    assert main(["build", "--state", str(tmp_path / "big.sqlite"), "--out", str(out), "--deals", "1", "--no-dd", "-q"]) == ExitCode.OK
    assert len(page_ids(out)) == 24
