"""One scenario's or one page's fault never stops the build: a failure injected while counting,
dealing, solving double dummy or rendering leaves that scenario (or page) published without
its deals and with a reason, on its page, in the report and in report.json; the traceback is
logged once; the summary counts it; every other page is published as usual; the run exits 0
with a WARNING line; and the next run tries again."""

from __future__ import annotations

import json
import logging
import textwrap
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

import bridgeshape_mirror.deals.double_dummy  # noqa: F401 - loads the submodule
from bridgeshape_mirror import deals
import bridgeshape_mirror.deals.drawing.sampler  # noqa: F401 - loads the submodule
from bridgeshape_mirror.cli import main
from bridgeshape_mirror.deals.rules.reasons import INTERNAL_ERROR
from bridgeshape_mirror.site_builder import dd_run, page_files
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.faults import Step
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings

#: Three convention pages; "Due" is the one each test breaks (its two scenarios alike: one
#: bug, one traceback).
PAGES = {
    1: ("Uno", "opener H:5+ hcp:12-21 // opener S:5+ hcp:12-21"),
    2: ("Due", "opener hcp:15-17 shape:balanced // opener hcp:15-17 shape:balanced C:2+"),
    3: ("Tre", "opener C:6+ hcp:10-15"),
}
BROKEN_PAGE = 2


def export() -> str:
    pages = "".join(
        f"""<page><title>{title}</title><ns>0</ns><id>{pid}</id>
          <revision><id>{pid * 10}</id><timestamp>2026-10-0{pid}T10:00:00Z</timestamp>
          <text xml:space="preserve">{{{{Convenzione|shape_constraints={dsl}}}}}</text></revision></page>"""
        for pid, (title, dsl) in PAGES.items()
    )
    return textwrap.dedent(
        f"""\
        <mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">
          <siteinfo><sitename>BridgePedia</sitename><generator>MediaWiki 1.39.0</generator>
            <base>http://127.0.0.1:8080/index.php/Main_Page</base><case>first-letter</case>
            <namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>
          {pages}
        </mediawiki>"""
    )


@pytest.fixture
def state(tmp_path: Path) -> Path:
    dump = tmp_path / "export.xml"
    dump.write_text(export(), encoding="utf-8")
    path = tmp_path / "state.sqlite"
    with StateStore(path) as store:
        sync_from_dump(dump, store, SyncSettings())
    return path


def is_broken_page(scenario) -> bool:
    return scenario.positions[0].shape is not None  # "Due"'s scenarios alone have a shape


def load(out: Path, path: str):
    return json.loads((out / path).read_text(encoding="utf-8"))


def dealt(out: Path, page_id: int) -> list[int]:
    return [len(s["deals"]) for s in load(out, f"api/deals/{page_id}.json")["scenarios"]]


def traces(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == logging.ERROR and (r.exc_info or "Traceback" in r.getMessage())]


def check_the_others_published(out: Path) -> None:
    assert dealt(out, 1) == [3, 3] and dealt(out, 3) == [3]


def check_failed_scenarios(out: Path, report, step: Step, error: str = "RuntimeError") -> None:
    schemas = Path(__file__).resolve().parent.parent / "site_builder" / "schemas"
    registry = Registry().with_resources((p.name, Resource.from_contents(json.loads(p.read_text()))) for p in schemas.glob("*.json"))
    schema = json.loads((schemas / "deals.json").read_text())
    jsonschema.Draft202012Validator(schema, registry=registry).validate(load(out, f"api/deals/{BROKEN_PAGE}.json"))
    doc = load(out, f"api/deals/{BROKEN_PAGE}.json")["scenarios"]
    assert [s["deals"] for s in doc] == [[], []]
    assert all(s["failed"] == INTERNAL_ERROR and s["error"] == error and s["probability_exact"] is False for s in doc)
    html = (out / f"conventions/{BROKEN_PAGE}.html").read_text(encoding="utf-8")
    assert html.count(INTERNAL_ERROR) == 2
    rows = load(out, "report/report.json")
    assert rows["summary"]["failedScenarios"] == 2
    assert [(r["pageId"], r["scenario"], r["error"]) for r in rows["failed"]] == [(BROKEN_PAGE, 1, error), (BROKEN_PAGE, 2, error)]
    report_html = (out / "report/index.html").read_text(encoding="utf-8")
    assert 'id="failed"' in report_html and INTERNAL_ERROR in report_html
    assert {(f.page_id, f.step) for f in report.faults} == {(BROKEN_PAGE, step)}


def build_once(state: Path, out: Path, dd_budget: float = 0):
    return build(state, BuildSettings(out=out, deals=3, dd_budget=dd_budget))


def test_a_count_that_raises_fails_its_scenarios_alone(state, tmp_path, monkeypatch, caplog):
    real = deals.drawing.sampler.ScenarioSampler.__init__

    def counting(self, scenario, *args, **kwargs):
        if is_broken_page(scenario):
            raise RuntimeError("injected: counting")
        real(self, scenario, *args, **kwargs)

    monkeypatch.setattr(deals.drawing.sampler.ScenarioSampler, "__init__", counting)
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        report = build_once(state, out)
    check_failed_scenarios(out, report, Step.DEALING)
    check_the_others_published(out)
    assert "2 scenarios failed" in report.summary() and "2 scenarios failed" in report.warning()
    assert len(traces(caplog)) == 1 and "injected: counting" in traces(caplog)[0].getMessage()

    # The next run tries again (nothing of the failure was remembered), and now deals them.
    monkeypatch.setattr(deals.drawing.sampler.ScenarioSampler, "__init__", real)
    again = build_once(state, out)
    assert again.faults == [] and again.warning() == ""
    assert dealt(out, BROKEN_PAGE) == [3, 3] and load(out, "report/report.json")["failed"] == []


def test_dealing_that_raises_fails_its_scenarios_alone(state, tmp_path, monkeypatch, caplog):
    real = deals.drawing.sampler.ScenarioSampler.batches

    def dealing(self, count, rng):
        if is_broken_page(self.scenario):
            raise RuntimeError("injected: dealing")
        return real(self, count, rng)

    monkeypatch.setattr(deals.drawing.sampler.ScenarioSampler, "batches", dealing)
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        report = build_once(state, out)
    check_failed_scenarios(out, report, Step.DEALING)
    check_the_others_published(out)
    assert len(traces(caplog)) == 1


def test_rendering_that_raises_shows_the_page_without_its_deals(state, tmp_path, monkeypatch, caplog):
    real = page_files.deals_document

    def rendering(a, outcomes):
        if a.page.page_id == BROKEN_PAGE and any(o.deals for o in outcomes):
            raise RuntimeError("injected: rendering")
        return real(a, outcomes)

    monkeypatch.setattr(page_files, "deals_document", rendering)
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        report = build_once(state, out)
    check_failed_scenarios(out, report, Step.RENDERING)
    check_the_others_published(out)
    assert "1 page failed" in report.summary()
    assert len(traces(caplog)) == 1

    # Its files were made without the deals: never reused, so the next run renders them again.
    monkeypatch.setattr(page_files, "deals_document", real)
    again = build_once(state, out)
    assert again.faults == [] and dealt(out, BROKEN_PAGE) == [3, 3]


def test_a_page_whose_files_cannot_be_made_at_all_leaves_only_them_out(state, tmp_path, monkeypatch):
    real = page_files._convention_html

    def rendering(a, *args, **kwargs):
        if a.page.page_id == BROKEN_PAGE:
            raise RuntimeError("injected: every rendering")
        return real(a, *args, **kwargs)

    monkeypatch.setattr(page_files, "_convention_html", rendering)
    out = tmp_path / "out"
    report = build_once(state, out)
    assert [(f.page_id, f.step) for f in report.faults] == [(BROKEN_PAGE, Step.RENDERING)]
    assert not (out / f"conventions/{BROKEN_PAGE}.html").exists()
    assert (out / "conventions/1.html").exists() and (out / "api/get/pageid/2.json").exists()
    check_the_others_published(out)


def test_double_dummy_that_raises_publishes_the_deals_without_tables(state, tmp_path, monkeypatch, caplog):
    def solving(batch):
        raise RuntimeError("injected: double dummy")

    monkeypatch.setattr(deals.double_dummy, "solve", solving)
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        report = build_once(state, out, dd_budget=30)
    assert report.dd_failed == 15 and report.dd_computed == 0  # 2 + 2 + 1 scenarios of 3 deals
    assert "double dummy failed on 15 deals" in report.warning()
    assert all(dealt(out, pid) for pid in PAGES)
    assert all("dd" not in deal for s in load(out, "api/deals/1.json")["scenarios"] for deal in s["deals"])
    assert len(traces(caplog)) == 1


def test_a_pages_tables_that_raise_leave_that_page_without_them(state, tmp_path, monkeypatch):
    real, calls = dd_run.DDRun.page, []

    def page(self, outcomes):
        calls.append(1)
        if len(calls) == BROKEN_PAGE:  # the pages are asked in page id order
            raise RuntimeError("injected: par")
        return real(self, outcomes)

    monkeypatch.setattr(dd_run.DDRun, "page", page)
    out = tmp_path / "out"
    report = build_once(state, out)
    assert [(f.page_id, f.scenario, f.step) for f in report.faults] == [(BROKEN_PAGE, None, Step.DOUBLE_DUMMY)]
    assert dealt(out, BROKEN_PAGE) == [3, 3]
    check_the_others_published(out)


def test_the_cli_exits_0_with_a_warning_line_that_quiet_still_prints(state, tmp_path, monkeypatch, capsys):
    real = deals.drawing.sampler.ScenarioSampler.__init__

    def counting(self, scenario, *args, **kwargs):
        if is_broken_page(scenario):
            raise RuntimeError("injected: counting")
        real(self, scenario, *args, **kwargs)

    monkeypatch.setattr(deals.drawing.sampler.ScenarioSampler, "__init__", counting)
    status = main(["build", "--state", str(state), "--out", str(tmp_path / "out"), "--deals", "3", "--no-dd", "-q"])
    err = capsys.readouterr().err
    assert status == 0
    lines = [line for line in err.splitlines() if "WARNING" in line and "build: ok with WARNING" in line]
    assert len(lines) == 1 and "2 scenarios failed" in lines[0]
    assert "Traceback" in err and err.count("Traceback") == 1
    check_the_others_published(tmp_path / "out")


def test_a_workers_share_goes_on_past_a_job_that_raises(monkeypatch):
    """What a worker process runs (`sample_jobs`): the fault comes back as data, with its
    traceback as text (it crosses processes), and the jobs after it are dealt."""
    import pickle

    from bridgeshape_mirror import dsl
    from bridgeshape_mirror.site_builder.sampling import SampleJob, sample_job, sample_jobs

    real = deals.drawing.sampler.ScenarioSampler.__init__

    def counting(self, scenario, *args, **kwargs):
        if is_broken_page(scenario):
            raise RuntimeError("injected: counting")
        real(self, scenario, *args, **kwargs)

    monkeypatch.setattr(deals.drawing.sampler.ScenarioSampler, "__init__", counting)
    jobs = [SampleJob(dsl.parse_scenarios(PAGES[pid][1])[0], pid, pid * 10, 1, 2, 0) for pid in PAGES]
    results = pickle.loads(pickle.dumps(sample_jobs(jobs)))
    (first, none1), (failed, fault), (last, none3) = results
    assert none1 is None and none3 is None and first == sample_job(jobs[0]) and last == sample_job(jobs[2])
    assert failed.deals == () and failed.error == "RuntimeError" and failed.failed is not None
    assert (fault.page_id, fault.scenario, fault.step) == (BROKEN_PAGE, 1, Step.DEALING)
    assert "injected: counting" in fault.trace and "Traceback" in fault.trace
