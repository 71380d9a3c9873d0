"""End to end on a real MediaWiki: `bridgeshape-mirror update` as cron runs it, through edits,
breakage, deletes, undeletes, moves and creations, then an idle run that rewrites nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.site_builder.publish import current_version
from bridgeshape_mirror.store.state import StateStore

try:
    from support.wiki_server import WikiServer
except ImportError:  # tests/ imported as a package
    from tests.support.wiki_server import WikiServer  # type: ignore[no-redef]

pytestmark = pytest.mark.slow

HOSTILE = "Contro sputnik/Varianti d'autore & 1+1? 100% ♣"
SCRIPT_DSL = "<script>alert(1)</script>: opener H:5+"
PAGES = {
    "Splinter": "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15",
    "Stayman": "fit a cuori: fit:H8+ opener hcp:15-17 S:2-4 H:2-4 D:2-5 C:2-5; responder H:4+ hcp:8+",
    HOSTILE: "opener hcp:12-21 x:5+; opp1 hcp:10+ x:5+; opp2 fit:8+",
    "Script": SCRIPT_DSL,
}


def text(dsl_value: str) -> str:
    return f"Una convenzione.\n{{{{Convenzione\n|nome=X\n|shape_constraints={dsl_value}\n}}}}\n"


@pytest.fixture(scope="module")
def wiki(mediawiki_installed):
    with WikiServer().start() as server:
        server.admin.edit("Template:Convenzione", "<code>{{{shape_constraints|}}}</code>")
        for title, value in PAGES.items():
            server.admin.edit(title, text(value))
        server.run_jobs()
        yield server


def update(wiki, state: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--api", wiki.api_url, "--state", str(state),
         "--out", str(out), "--deals", "2", "--no-dd", "--contact", "tests@example.org"],
        capture_output=True, text=True, timeout=300,
    )


def read(out: Path, path: str):
    return json.loads((out / path).read_text(encoding="utf-8"))


def served(out: Path, title: str) -> dict:
    return read(out, "api/get/title/" + title.replace(" ", "_") + ".json")["shapeconstraints"]


def files_with_mtimes(out: Path) -> dict[str, tuple[bytes, int]]:
    root = out.resolve()
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def test_update_follows_the_wiki(wiki, tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    admin = wiki.admin

    done = update(wiki, state, out)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "sync (full)" in done.stderr and "build:" in done.stderr
    for title, value in PAGES.items():
        doc = served(out, title)
        assert doc["pageId"] == admin.page_id(title) and doc["raw"] == value
        assert doc["scenarios"] == [dsl.scenario_json(s) for s in dsl.parse_scenarios(value)]
        assert doc["revid"] == admin.latest_revid(title)
    assert {p["title"] for p in read(out, "api/list.json")["pages"]} == set(PAGES)
    # The <script> DSL is data: escaped in every page that shows it.
    for page in ["index.html", f"conventions/{admin.page_id('Script')}.html"]:
        html = (out / page).read_text(encoding="utf-8")
        assert "<script>" not in html and "&lt;script&gt;" in html

    # Edit one, break one, delete one, move one, create one.
    admin.edit("Splinter", text("1H-4D: opener H:5+ hcp:12-21; responder H:4+ D:0-1 Dhcp:0 hcp:10-15"))
    good_stayman = served(out, "Stayman")
    admin.edit("Stayman", text("fit a cuori: opner hcp:15-17"))
    script_id = admin.page_id("Script")
    admin.delete("Script")
    hostile_id = admin.page_id(HOSTILE)
    admin.move(HOSTILE, "Varianti sputnik", leave_redirect=False)
    admin.edit("Transfer Jacoby", text("opener hcp:15-17 shape:balanced; responder H:5+"))
    done = update(wiki, state, out)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "sync (incremental)" in done.stderr

    assert served(out, "Splinter")["scenarios"][0]["label"] == "1H-4D"
    stale = served(out, "Stayman")
    assert stale["stale"] is True and stale["scenarios"] == good_stayman["scenarios"]
    assert stale["revid"] == good_stayman["revid"] and stale["currentRevid"] == admin.latest_revid("Stayman")
    report = read(out, "report/report.json")
    assert [row["title"] for row in report["broken"]] == ["Stayman"]
    assert report["broken"][0]["errors"][0]["code"] == "unknown-role"
    assert not (out / f"api/get/pageid/{script_id}.json").exists()
    assert not (out / "api/get/title/Script.json").exists()
    assert not (out / ("api/get/title/" + HOSTILE.replace(" ", "_") + ".json")).exists()
    assert served(out, "Varianti sputnik")["pageId"] == hostile_id
    assert served(out, "Transfer Jacoby")["scenarios"][0]["positions"]["responder"] == {"suits": {"H": {"min": 5, "max": None}}}

    # Undelete, and fix the broken page.
    admin.undelete("Script")
    admin.edit("Stayman", text(PAGES["Stayman"]))
    done = update(wiki, state, out)
    assert done.returncode == ExitCode.OK, done.stderr
    assert served(out, "Script")["pageId"] == script_id
    fixed = served(out, "Stayman")
    assert fixed["stale"] is False and fixed["revid"] == admin.latest_revid("Stayman")
    assert read(out, "report/report.json")["broken"] == []

    # Idle: nothing on the wiki changed, so nothing is rewritten.
    before, version = files_with_mtimes(out), current_version(out)
    done = update(wiki, state, out)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "nothing changed, nothing written" in done.stderr
    assert current_version(out) == version and files_with_mtimes(out) == before


def test_wiki_down_keeps_state_and_mirror(wiki, tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    assert update(wiki, state, out).returncode == ExitCode.OK
    before = files_with_mtimes(out)
    done = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--api", "http://127.0.0.1:9/api.php", "--state", str(state),
         "--out", str(out), "--max-retries", "1", "--timeout", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == ExitCode.WIKI_ERROR
    assert "state and mirror kept as they were" in done.stderr
    assert files_with_mtimes(out) == before


def test_a_misspelt_template_is_a_configuration_error_with_the_close_name(wiki, tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    assert update(wiki, state, out).returncode == ExitCode.OK
    before, stored = files_with_mtimes(out), state.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--api", wiki.api_url, "--state", str(state),
         "--out", str(out), "--template", "Convenzone", "--max-retries", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert "the template 'Template:Convenzone' does not exist on the wiki; did you mean 'Template:Convenzione'?" in done.stderr
    assert files_with_mtimes(out) == before and state.read_bytes() == stored


def test_the_wiki_front_page_leads_to_its_api(wiki, tmp_path):
    state = tmp_path / "state.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "sync", "--api", wiki.index_url, "--state", str(state)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == ExitCode.OK, done.stderr
    assert f"{wiki.index_url} is not an api.php URL; using {wiki.api_url}, which the page there names" in done.stderr
    with StateStore(state) as store:
        assert store.pages() and store.get_json("selection")["source"] == wiki.api_url
