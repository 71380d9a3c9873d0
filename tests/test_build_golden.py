"""The mirror, byte for byte (issue 15): a small wiki's build, in Italian and in English, and
with double-dummy tables, compared with golden copies made before the render was made
faster, so that a speed-up that changes a page is seen. The tool's version is written
`{VERSION}` in the golden files; the files that carry the build's time (api/status.json, the
manifest, the front page and the report) are left out, and so are those copied or made
from the site alone (schemas, styles, the nginx snippet). Regenerate with BSM_UPDATE_GOLDEN=1
only after reviewing the difference."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bridgeshape_mirror.site_builder import layout
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.version import VERSION
from support.wiki_pages import synced_export

GOLDEN = Path(__file__).resolve().parent / "golden" / "mirror"
#: The folders of the files made from the pages: their JSON, deals, scripts and HTML.
MADE_FROM_PAGES = ("api/get/", "api/deals/", "deals/", "scripts/", "conventions/")


@pytest.fixture
def state(tmp_path) -> Path:
    return synced_export(tmp_path)


def published(out: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        relative = path.relative_to(out).as_posix()
        if relative.startswith(MADE_FROM_PAGES) or relative in {str(layout.LIST), str(layout.LISTALL)}:
            files[relative] = path.read_bytes().replace(VERSION.encode(), b"{VERSION}")
    return files


def check(name: str, files: dict[str, bytes]) -> None:
    golden = GOLDEN / name
    if os.environ.get("BSM_UPDATE_GOLDEN"):
        shutil.rmtree(golden, ignore_errors=True)
        for relative, data in files.items():
            (golden / relative).parent.mkdir(parents=True, exist_ok=True)
            (golden / relative).write_bytes(data)
    kept = {p.relative_to(golden).as_posix(): p.read_bytes() for p in sorted(golden.rglob("*")) if p.is_file()}
    assert sorted(files) == sorted(kept)
    for relative, data in files.items():
        assert data == kept[relative], relative


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_mirror_is_the_golden_one(state, tmp_path, lang):
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=2, seed=5, lang=lang, dd_budget=0))
    files = published(out)
    assert any(path.startswith("conventions/") for path in files)
    check(f"two-scenarios-{lang}", files)


@pytest.mark.slow
def test_the_mirror_with_double_dummy_tables_is_the_golden_one(state, tmp_path):
    out = tmp_path / "out"
    report = build(state, BuildSettings(out=out, deals=2, seed=5, lang="it"))
    assert report.dd_waiting == 0 and report.dd_computed > 0
    check("two-scenarios-dd", published(out))


def test_the_levelled_mirror_is_the_golden_one(state, tmp_path):
    """`[build] level`: each scenario's JSON with its classes and each deal's, the PBN's and
    LIN's class comments, the convention page's table of classes."""
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=3, seed=5, lang="it", dd_budget=0, level=("hcp:opener",)))
    files = published(out)
    assert any(b'"levels"' in data for path, data in files.items() if path.startswith("api/deals/"))
    check("two-scenarios-levelled-it", files)
