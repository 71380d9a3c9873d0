"""The mirror built from the bundled sample wiki: layout, documents, schemas, report, last
known good, idempotence, and no stale files after deletes and moves."""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.publish import current_version
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings
from support.schemas import check_schema

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
SCHEMAS = ROOT / "site_builder" / "schemas"
HOSTILE = "Contro sputnik/Varianti d'autore & \"X\" su 1♣–(1♥)"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One full build of the sample; tests get a copy (state, versions and link together)."""
    base = tmp_path_factory.mktemp("built")
    state = base / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    report = build(state, BuildSettings(out=base / "output", deals=3, dd_budget=0))
    return base, report


@pytest.fixture
def mirror(built, tmp_path):
    base, report = built
    copy = tmp_path / "copy"
    shutil.copytree(base, copy, symlinks=True)
    return copy / "state.sqlite", copy / "output", report


def load(out: Path, path: str):
    return json.loads((out / path).read_text(encoding="utf-8"))


def files_of(out: Path) -> dict[str, bytes]:
    root = out.resolve()
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_layout_and_documents(mirror):
    _, out, report = mirror
    assert out.is_symlink()
    listing = load(out, "api/list.json")["pages"]
    titles = [p["title"] for p in listing]
    assert "Splinter" in titles and "Gazzilli" not in titles  # Gazzilli's DSL is broken
    splinter = next(p for p in listing if p["title"] == "Splinter")
    assert splinter == {
        "pageId": 42, "title": "Splinter", "scenarioCount": 6,
        "labels": ["1H-4C", "1H-4D", "1H-4S", "1S-4C", "1S-4D", "1S-4H"], "stale": False,
    }
    listall = {p["title"]: p for p in load(out, "api/listall.json")["pages"]}
    assert len(listall) == 24
    assert listall["Gazzilli"]["hasConstraints"] is False and listall["Gazzilli"]["status"] == "broken"
    assert listall["Quarto colore forzante"]["problems"] == ["no-parameter"]
    get = load(out, "api/get/pageid/42.json")["shapeconstraints"]
    assert get["pageId"] == 42 and get["revid"] == 1029 and get["stale"] is False
    assert [s["label"] for s in get["scenarios"]] == splinter["labels"]
    assert get["scenarios"][0] == dsl.scenario_json(dsl.parse_scenarios(get["raw"])[0])
    assert (out / "api/get/title/Splinter.json").read_bytes() == (out / "api/get/pageid/42.json").read_bytes()
    # Never-valid pages have no get file: a client gets the API's error from the drop-in.
    assert not (out / "api/get/title/Gazzilli.json").exists()


def test_hostile_title_is_reachable_with_slash_as_folder(mirror):
    _, out, _ = mirror
    path = out / "api/get/title" / (HOSTILE.replace(" ", "_") + ".json")
    assert load(out, str(path.relative_to(out)))["shapeconstraints"]["title"] == HOSTILE
    assert (out / "api/get/title/Contro_sputnik.json").exists()  # the parent page, beside its folder


def test_deals_json_and_pbn(mirror):
    _, out, _ = mirror
    deals = load(out, "api/deals/42.json")
    assert deals["revid"] == 1029 and len(deals["scenarios"]) == 6
    for scenario in deals["scenarios"]:
        assert len(scenario["deals"]) == 3 and scenario["probability_exact"] is True
        assert 0 < scenario["probability"] < 1
    pbn = (out / "deals/42.pbn").read_text(encoding="utf-8")
    assert pbn.startswith("% PBN 2.1") and pbn.count("[Deal ") == 18 and '[Dealer "E"]' in pbn


def test_every_json_file_matches_its_schema(mirror):
    _, out, _ = mirror
    check = check_schema
    root = out.resolve()
    checked = 0
    for path in root.rglob("*.json"):
        rel = str(path.relative_to(root))
        doc = json.loads(path.read_text(encoding="utf-8"))
        if rel.startswith("api/get/"):
            check("get.json", doc)
        elif rel == "api/list.json":
            check("list.json", doc)
        elif rel == "api/listall.json":
            check("listall.json", doc)
        elif rel.startswith("api/deals/"):
            check("deals.json", doc)
        elif rel == "api/manifest.json":
            check("manifest.json", doc)
        else:
            continue
        checked += 1
    assert checked > 50
    for raw in ("opener H:5+", "opner H:5+ // //", ""):
        check("validate.json", dsl.validate_document(dsl.parse(raw)))
    # The published schemas are the ones in the package.
    assert (out / "api/schema/get.json").read_bytes() == (SCHEMAS / "get.json").read_bytes()


def test_report_lists_what_editors_must_fix(mirror):
    _, out, _ = mirror
    report = load(out, "report/report.json")
    assert report["summary"]["brokenDsl"] == 3 and report["summary"]["pages"] == 24
    broken = {row["title"]: row for row in report["broken"]}
    assert set(broken) == {"Gazzilli", "Roudi", "Smolen"}
    smolen = broken["Smolen"]
    assert smolen["errors"][0]["code"] == "unknown-key" and smolen["servingRevid"] is None
    assert smolen["editUrl"] == "http://127.0.0.1:8080/index.php?title=Smolen&action=edit"
    assert smolen["url"] == "http://127.0.0.1:8080/index.php/Smolen"
    assert {row["title"] for row in report["templateProblems"]} == {"Quarto colore forzante", "Rubensohl", "Ghestem"}
    html = (out / "report/index.html").read_text(encoding="utf-8")
    assert "<mark" in html and "Smolen" in html and "unknown-key" in html


def test_rebuild_of_unchanged_input_writes_nothing(mirror):
    state, out, _ = mirror
    # The copy moved the output folder: nothing names it (the nginx snippet does not), so
    # even the first build here writes nothing.
    assert build(state, BuildSettings(out=out, deals=3, dd_budget=0)).written == 0
    before = files_of(out)
    version = current_version(out)
    stamps = {p: p.stat().st_mtime_ns for p in version.rglob("*")}
    report = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert report.changed is False and report.deals_drawn == 0
    assert current_version(out) == version and files_of(out) == before
    assert {p: p.stat().st_mtime_ns for p in version.rglob("*")} == stamps


def _page_files(out: Path) -> set[str]:
    return {p for p in files_of(out) if p.startswith(("conventions/", "api/deals/", "deals/", "scripts/"))}


def test_unchanged_pages_are_not_rendered_again(mirror, tmp_path, monkeypatch):
    """A page's own files (convention page, deals JSON, PBN, LIN) are rendered again only when
    what they are made from changed; the result is what a build rendering everything gives."""
    import bridgeshape_mirror.site_builder.render_cache as render_cache

    state, out, _ = mirror
    everything = _page_files(out)
    assert build(state, BuildSettings(out=out, deals=3, dd_budget=0)).files_reused == len(everything)
    _edit(state, 42, "opener H:6+ hcp:11-15", revid=10_000)
    edited = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    own = {"conventions/42.html", "api/deals/42.json", "deals/42.pbn", "deals/42.lin", "scripts/42/1.dlr", "scripts/42/1.tcl", "scripts/42/1.bridgechamp.txt"}
    gone = {p for p in everything if p.startswith("scripts/42/")} - own  # scenarios 2..6 are no more, 3 scripts each
    assert own <= everything and len(gone) == 5 * 3 and edited.files_reused == len(everything) - len(own) - len(gone)
    fresh = build(state, BuildSettings(out=tmp_path / "fresh", deals=3, dd_budget=0))
    assert fresh.files_reused == 0
    mine, theirs = files_of(out), files_of(tmp_path / "fresh")
    assert {p: mine[p] for p in everything - gone} == {p: theirs[p] for p in everything - gone}
    assert "H:6+" in mine["conventions/42.html"].decode("utf-8")
    # other code or templates: everything is rendered again (and comes out the same here)
    monkeypatch.setattr(render_cache, "code_digest", lambda: "another version of the code")
    again = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert again.files_reused == 0 and again.changed is False


def test_reused_scripts_are_not_rendered(mirror, monkeypatch):
    """A build that reuses a page's published scripts does not render them to find out which
    exist: an unchanged build makes no script at all, an edited page only its own."""
    import bridgeshape_mirror.deals.scripts.export as export

    made: list[str] = []
    real = export.script

    def counted(target, chosen, **kwargs):
        made.append(f"{kwargs['title']}/{chosen[0].index}.{target}")
        return real(target, chosen, **kwargs)

    monkeypatch.setattr(export, "script", counted)
    state, out, _ = mirror
    before = {p: b for p, b in files_of(out).items() if p.startswith("scripts/")}
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert made == []
    assert {p: b for p, b in files_of(out).items() if p.startswith("scripts/")} == before
    _edit(state, 42, "opener H:6+ hcp:11-15", revid=10_000)
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    with StateStore(state) as store:
        title = store.page(42).title
    assert made and all(m.startswith(f"{title}/") for m in made)
    assert (out / "scripts/42/1.dlr").is_file() and not (out / "scripts/42/2.dlr").exists()


def test_a_new_program_version_renders_the_page_files_again(mirror, monkeypatch):
    """The PBN's [Generator] and the scripts' headers name the program's version: a new
    version renders them again though no source of site_builder, dsl or deals changed."""
    import functools

    import bridgeshape_mirror.site_builder.render_cache as render_cache
    import bridgeshape_mirror.store.version  # noqa: F401 - loads the submodule
    from bridgeshape_mirror import store

    state, out, _ = mirror
    assert build(state, BuildSettings(out=out, deals=3, dd_budget=0)).files_reused == len(_page_files(out))
    monkeypatch.setattr(store.version, "VERSION", "99.1", raising=False)
    monkeypatch.setattr(render_cache, "code_digest", functools.cache(render_cache.code_digest.__wrapped__))
    again = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert again.files_reused == 0
    assert '[Generator "bridgeshape-mirror 99.1' in (out / "deals/42.pbn").read_text(encoding="utf-8")
    assert "bridgeshape-mirror 99.1" in (out / "scripts/42/1.dlr").read_text(encoding="utf-8")


def test_a_page_file_missing_from_the_mirror_is_rendered(mirror):
    """The remembered keys are only trusted for files the published mirror still has."""
    state, out, _ = mirror
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    manifest_path = current_version(out) / ".manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    del manifest["conventions/42.html"]
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    report = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert report.files_reused == len(_page_files(out)) - 1
    assert report.changed and (out / "conventions/42.html").read_bytes().startswith(b"<!DOCTYPE")


def _edit(state: Path, page_id: int, raw: str | None, revid: int, title: str | None = None) -> None:
    with StateStore(state) as store:
        page = store.page(page_id)
        with store.transaction() as db:
            StateStore.upsert(db, replace(page, raw=raw, revid=revid, timestamp="2026-11-29T12:00:00Z", title=title or page.title))


def test_last_known_good_is_served_while_a_page_is_broken(mirror):
    state, out, _ = mirror
    good = load(out, "api/get/pageid/42.json")["shapeconstraints"]
    good_deals = load(out, "api/deals/42.json")
    _edit(state, 42, "1H-4C: opner H:5+", revid=2000)
    report = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert report.statuses["stale"] == 1 and report.deals_drawn == 0
    stale = load(out, "api/get/pageid/42.json")["shapeconstraints"]
    assert stale["scenarios"] == good["scenarios"] and stale["raw"] == good["raw"]
    assert stale["stale"] is True and stale["revid"] == 1029 and stale["currentRevid"] == 2000
    assert stale["brokenSince"] == {"revid": 2000, "timestamp": "2026-11-29T12:00:00Z"}
    assert load(out, "api/deals/42.json") == good_deals
    row = next(r for r in load(out, "report/report.json")["broken"] if r["pageId"] == 42)
    assert row["servingRevid"] == 1029 and row["raw"] == "1H-4C: opner H:5+"
    # Still broken in a later revision: "since" stays at the first broken one.
    _edit(state, 42, "1H-4C: opner H:6+", revid=2001)
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    assert load(out, "api/get/pageid/42.json")["shapeconstraints"]["brokenSince"]["revid"] == 2000
    # Fixed: the new revision is served, with new deals.
    _edit(state, 42, "1H-4C: opener H:6+", revid=2002)
    report = build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    fixed = load(out, "api/get/pageid/42.json")["shapeconstraints"]
    assert fixed["stale"] is False and fixed["revid"] == 2002 and report.deals_drawn == 1


def test_deleted_and_moved_pages_leave_no_stale_files(mirror):
    state, out, _ = mirror
    with StateStore(state) as store:
        with store.transaction() as db:
            StateStore.delete(db, 15)  # Stayman
    _edit(state, 42, store_raw(state, 42), revid=3000, title="Splinter (convenzione)")
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    files = files_of(out)
    assert not any("Stayman" in name or name.endswith("/15.json") or name == "deals/15.pbn" for name in files)
    assert "api/get/title/Splinter.json" not in files
    assert "api/get/title/Splinter_(convenzione).json" in files
    assert "Stayman" not in (out / "api/list.json").read_text(encoding="utf-8")
    # Only the published version and one older one are kept.
    assert len(os.listdir(out.parent / f".{out.name}.versions")) <= 2


def store_raw(state: Path, page_id: int) -> str | None:
    with StateStore(state) as store:
        return store.page(page_id).raw


def test_everything_from_the_wiki_is_escaped(mirror):
    state, out, _ = mirror
    _edit(state, 21, "<script>alert(1)</script> opener S:5+", revid=4000, title="Smolen <b>bold</b>")
    build(state, BuildSettings(out=out, deals=3, dd_budget=0))
    for page in ("report/index.html", "index.html"):
        html = (out / page).read_text(encoding="utf-8")
        assert "<script>" not in html and "<b>bold" not in html
        assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "report/index.html").read_text(encoding="utf-8")


def test_deals_are_the_same_whether_dealt_in_parallel_or_not(sample_state_copy, monkeypatch):
    import bridgeshape_mirror.site_builder.build as build_module

    state, tmp = sample_state_copy
    parallel = build(state, BuildSettings(out=tmp / "a", deals=2, dd_budget=0))
    assert parallel.deals_drawn >= build_module.PARALLEL_FROM
    with StateStore(state) as store:
        store.connection.execute("DELETE FROM build_deals")
    monkeypatch.setattr(build_module, "PARALLEL_FROM", 10**9)
    build(state, BuildSettings(out=tmp / "b", deals=2, dd_budget=0))
    a, b = files_of(tmp / "a"), files_of(tmp / "b")
    a.pop(".manifest.json"), b.pop(".manifest.json")
    a.pop("nginx/bridgeshape-api.conf"), b.pop("nginx/bridgeshape-api.conf")
    assert a == b


@pytest.fixture
def sample_state_copy(tmp_path):
    state = tmp_path / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    return state, tmp_path


def test_a_scenario_too_rare_to_deal_is_reported_not_called_impossible(sample_state_copy, monkeypatch):
    from bridgeshape_mirror.deals.errors import TooRare
    from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler

    def no_luck(self, count, rng):
        raise TooRare(2_000_000, 3.2e-7)
        yield  # a generator, like the real one

    monkeypatch.setattr(ScenarioSampler, "batches", no_luck)
    monkeypatch.setattr("bridgeshape_mirror.site_builder.build.PARALLEL_FROM", 10**9)  # workers would not see the patch
    state, tmp = sample_state_copy
    build(state, BuildSettings(out=tmp / "out", deals=2, dd_budget=0))
    scenario = load(tmp / "out", "api/deals/15.json")["scenarios"][0]
    assert scenario["deals"] == [] and "unsatisfiable" not in scenario
    assert scenario["probability_ci95"] == [0, 3.2e-7] and "may be unsatisfiable" in scenario["too_rare"]
    report = load(tmp / "out", "report/report.json")
    assert report["unsatisfiable"] == []
    row = next(r for r in report["rare"] if r["pageId"] == 15)
    assert row["probability"] == 3.2e-7 and row["tooRare"]
    # The sample wiki is Italian, and so are its pages.
    assert "non dimostrata impossibile" in (tmp / "out/report/index.html").read_text(encoding="utf-8")
    assert "Nessuna smazzata di esempio" in (tmp / "out/conventions/15.html").read_text(encoding="utf-8")


def test_the_state_file_keeps_each_scenario_entry_as_published(mirror):
    """The deals are remembered as the JSON text of their outcome, which is the published entry
    but for the board of each deal (a page's boards depend on all its scenarios)."""
    state, out, _ = mirror
    with StateStore(state) as store:
        rows = store.connection.execute("SELECT page_id, scenario, document FROM build_deals").fetchall()
    assert rows
    for page_id, index, document in rows:
        published = load(out, f"api/deals/{page_id}.json")["scenarios"][index - 1]
        for deal in published["deals"]:
            assert list(deal) == ["pbn", "board", "dealer", "vulnerable", "board_pbn"]
        published["deals"] = [{"pbn": deal["pbn"]} for deal in published["deals"]]
        assert json.loads(document) == published
        assert json.dumps(published, ensure_ascii=False) == document


def test_a_kept_estimate_is_dealt_again_once_it_is_counted_exactly(sample_state_copy, monkeypatch):
    """Deals are kept per revision; a kept estimate that this program counts exactly (an
    upgrade) is dealt again and published exact, and a scenario still past the budgets is
    not dealt again on every build."""
    import bridgeshape_mirror.deals.counting.scenario as scenario_counts
    import bridgeshape_mirror.site_builder.build as build_module

    state, tmp = sample_state_copy
    monkeypatch.setattr(build_module, "PARALLEL_FROM", 10**9)  # in this process, where the patch is
    exact = scenario_counts.exact_cross_count
    monkeypatch.setattr(scenario_counts, "exact_cross_count", lambda compiled: None)  # an older program
    settings = BuildSettings(out=tmp / "out", deals=2, dd_budget=0)
    first = build(state, settings)

    def estimated() -> int:
        return sum(
            not s["probability_exact"] and bool(s["deals"])
            for path in (tmp / "out" / "api" / "deals").glob("*.json")
            for s in json.loads(path.read_text(encoding="utf-8"))["scenarios"]
        )

    before = estimated()
    assert before >= 7 and first.deals_drawn == 45
    assert build(state, settings).deals_drawn == 0  # still past the budgets: kept as it is
    monkeypatch.setattr(scenario_counts, "exact_cross_count", exact)
    upgraded = build(state, settings)
    assert upgraded.deals_drawn == before and upgraded.deals_reused == 45 - before
    assert estimated() == 0
    assert build(state, settings).deals_drawn == 0


def test_page_files_made_in_the_workers_are_those_made_in_the_build(sample_state_copy, monkeypatch):
    import bridgeshape_mirror.site_builder.build as build_module

    state, tmp = sample_state_copy
    monkeypatch.setattr(build_module, "RENDER_PARALLEL_FROM", 1)  # the building process decides
    pooled = build(state, BuildSettings(out=tmp / "a", deals=2, dd_budget=0))
    monkeypatch.setattr(build_module, "RENDER_PARALLEL_FROM", 10**9)
    here = build(state, BuildSettings(out=tmp / "b", deals=2, dd_budget=0))
    assert pooled.files_rendered == here.files_rendered > 24
    a, b = files_of(tmp / "a"), files_of(tmp / "b")
    a.pop(".manifest.json"), b.pop(".manifest.json")
    assert a == b


def test_what_a_worker_says_while_making_page_files_is_said_by_the_build(monkeypatch, caplog):
    from bridgeshape_mirror.site_builder import page_files

    def saying(work):
        logging.getLogger("bridgeshape_mirror.site_builder.sampling").warning("page %s: no %s script", 7, "dealer")
        return []

    monkeypatch.setattr(page_files, "make", saying)
    with caplog.at_level(logging.WARNING):
        made, said = page_files.make_in_worker(None)
        assert made == page_files.PageMade([]) and caplog.records == []  # kept, not said where the worker is
        page_files.say_again(said)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [("bridgeshape_mirror.site_builder.sampling", logging.WARNING, "page 7: no dealer script")]
