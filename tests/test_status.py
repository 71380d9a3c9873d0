"""api/status.json: the mirror's freshness (version, source, last sync and build, newest
revision and recent change, page counts, the last refused change), its schema, its build
time that moves only when the content does, and the human pages that show it."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

import bridgeshape_mirror.site_builder.status as status_module
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.publish import current_version
from bridgeshape_mirror.store.refusal import Refusal, record_refusal
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.store.version import VERSION
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.store.model import format_timestamp
from bridgeshape_mirror.sync.syncer import SyncSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
SCHEMAS = ROOT / "site_builder" / "schemas"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("status")
    with StateStore(base / "state.sqlite") as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    build(base / "state.sqlite", BuildSettings(out=base / "output", deals=1, dd_budget=0))
    return base


@pytest.fixture
def mirror(built, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(built, copy, symlinks=True)
    state, out = copy / "state.sqlite", copy / "output"
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))  # absorb the move (the nginx snippet names the folder)
    return state, out


def status_of(out: Path) -> dict:
    return json.loads((out / "api/status.json").read_text(encoding="utf-8"))


def meta(state: Path, key: str) -> str | None:
    with StateStore(state) as store:
        return store.get_meta(key)


def put_meta(state: Path, key: str, value) -> None:
    with StateStore(state) as store, store.transaction() as db:
        StateStore.put_meta(db, key, value)


def test_the_sample_mirror_says_what_it_is_and_how_fresh(mirror):
    state, out = mirror
    status = status_of(out)
    assert status == {
        "generator": {"name": "bridgeshape-mirror", "version": VERSION},
        "source": {"api": None, "dump": "sample-wiki.xml"},  # the file's name, not the machine's folders
        "lastSync": meta(state, "last_sync"),
        "builtAt": status["builtAt"],
        "newestRevid": 1029,
        "newestRevisionTimestamp": status["newestRevisionTimestamp"],
        "recentChangeTimestamp": None,  # an export has no recent changes
        "pages": {"total": 24, "ok": 19, "stale": 0, "broken": 3, "noConstraints": 2},
        "refusal": None,
        "doubleDummy": {"analysed": 0, "waiting": 45},  # built with --no-dd: one deal per scenario waits
    }
    assert status["lastSync"] and status["builtAt"] >= status["lastSync"]
    with StateStore(state) as store:
        newest = max(store.pages(), key=lambda p: p.revid)
    assert status["newestRevisionTimestamp"] == newest.timestamp


def test_status_matches_its_schema_which_ships_with_the_others(mirror):
    _, out = mirror
    registry = Registry().with_resources(
        (p.name, Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMAS.glob("*.json")
    )
    schema = json.loads((SCHEMAS / "status.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema, registry=registry).validate(status_of(out))
    assert (out / "api/schema/status.json").read_bytes() == (SCHEMAS / "status.json").read_bytes()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema, registry=registry).validate({**status_of(out), "builtAt": "yesterday"})


def test_an_api_source_its_cursor_and_a_refusal_are_shown(mirror):
    state, out = mirror
    url = "https://wiki.example.org/w/api.php"
    put_meta(state, "selection", {"source": url, "template": "Convenzione", "parameter": "shape_constraints", "category": None})
    put_meta(state, "cursor", {"rcid": 5, "rc_timestamp": "2026-11-30T09:00:00Z", "logid": 1, "log_timestamp": "2026-11-30T08:00:00Z"})
    refusal = Refusal(at="2026-12-01T10:00:00Z", message="20 of the 24 stored convention pages would go", removed=20, stored=24)
    record_refusal(state, refusal)
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    status = status_of(out)
    assert status["source"] == {"api": url, "dump": None}
    assert status["recentChangeTimestamp"] == "2026-11-30T09:00:00Z"
    assert status["refusal"] == {"at": refusal.at, "message": refusal.message, "removed": 20, "stored": 24}


def test_build_time_moves_only_when_the_content_does(mirror, monkeypatch):
    state, out = mirror
    first = status_of(out)
    version = current_version(out)
    # Nothing changed: nothing written (the status included), the same build time.
    monkeypatch.setattr(status_module, "now_timestamp", lambda: "2030-01-01T00:00:00Z")
    again = build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    assert again.changed is False and current_version(out) == version and status_of(out) == first
    # Syncs that found nothing new: nothing written while the published lastSync is under
    # an hour old; then the status and the two pages showing it, nothing else.
    synced = datetime.fromisoformat(first["lastSync"].replace("Z", "+00:00"))
    soon, later = (format_timestamp(synced + timedelta(minutes=m)) for m in (55, 61))
    put_meta(state, "last_sync", soon)
    idle = build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    assert idle.changed is False and status_of(out) == first
    put_meta(state, "last_sync", later)
    idle = build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    assert idle.changed and idle.written == 3
    status = status_of(out)
    assert status["lastSync"] == later and status["builtAt"] == first["builtAt"]
    # A page changed: a new build time.
    with StateStore(state) as store:
        page = store.page(42)
        with store.transaction() as db:
            StateStore.upsert(db, replace(page, raw="opener H:6+ hcp:11-15", revid=5000))
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    status = status_of(out)
    assert status["builtAt"] == "2030-01-01T00:00:00Z" and status["newestRevid"] == 5000


def test_a_second_mirror_of_the_same_state_has_the_same_status(mirror, tmp_path):
    """Two builds of one state store give the same files (the build time is the state's)."""
    state, out = mirror
    other = tmp_path / "other"
    build(state, BuildSettings(out=other, deals=1, dd_budget=0))
    assert status_of(other) == status_of(out)


def test_front_page_and_report_show_updated_at(mirror):
    state, out = mirror
    put_meta(state, "last_sync", "2029-06-01T12:34:56Z")
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    for page in ("index.html", "report/index.html"):
        html = (out / page).read_text(encoding="utf-8")
        # In the sample wiki's language, Italian.
        assert 'Aggiornato il <time datetime="2029-06-01T12:34:56Z">1 giu 2029, 12:34 UTC</time>' in html, page
        assert "sample-wiki.xml" in html and "api/status.json" in html


def test_convention_pages_point_to_the_status_without_a_time_of_their_own(mirror):
    """A convention page must stay byte-identical while its convention does (render_cache):
    it carries no time; updated.js fills its "updated at" from api/status.json."""
    state, out = mirror
    before = (out / "conventions/42.html").read_bytes()
    put_meta(state, "last_sync", "2029-06-01T12:34:56Z")
    build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    html = (out / "conventions/42.html").read_text(encoding="utf-8")
    assert html.encode("utf-8") == before
    assert '<script src="../updated.js"></script>' in html and 'href="../api/status.json"' in html
    script = (out / "updated.js").read_text(encoding="utf-8")
    assert "api/status.json" in script and "lastSync" in script
