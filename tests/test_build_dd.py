"""Double dummy in the build (site_builder/dd_run.py): tables within a budget, kept in the
state store, published as `dd`/`par` in the deals JSON, PBN tags and the convention page,
the waiting deals counted in the summary line and api/status.json; a deal DDS fails on is
published without `dd` and tried again; the budget's option and configuration key."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import bridgeshape_mirror.deals.double_dummy as double_dummy
from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.deals.boards.board import page_boards
from bridgeshape_mirror.deals.double_dummy import par
from bridgeshape_mirror.deals.outcome import ScenarioDeals
from bridgeshape_mirror.site_builder import dd_run
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.dd_tables import DDTables
from bridgeshape_mirror.store.state import StateStore
from support.schemas import check_schema
from support.wiki_pages import synced_export

@pytest.fixture
def state(tmp_path) -> Path:
    """A convention page of two scenarios (their boards interleave)."""
    return synced_export(tmp_path)


def deals_documents(out: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "api/deals").glob("*.json"))]



def test_every_deal_gets_its_table_and_par_in_every_file(state, tmp_path):
    out = tmp_path / "out"
    report = build(state, BuildSettings(out=out, deals=2, lang="en"))  # the page's words checked in English
    assert (report.dd_computed, report.dd_waiting, report.dd_failed) == (4, 0, 0)
    assert "double dummy: 4 new tables, 0 deals wait" in report.summary()
    documents = deals_documents(out)
    pbns = [d["pbn"] for doc in documents for s in doc["scenarios"] for d in s["deals"]]
    with StateStore(state) as store:  # DDS's answers, as the build kept them (its own tests check them)
        expected = DDTables(store).find(pbns)
    assert len(expected) == 4
    for doc in documents:
        check_schema("deals.json", doc)
        outcomes = [(s["index"], s["label"], [d["pbn"] for d in s["deals"]]) for s in doc["scenarios"]]
        for bd in page_boards(outcomes):
            deal = doc["scenarios"][bd.scenario - 1]["deals"][bd.deal_index]
            assert deal["dd"] == expected[deal["pbn"]].to_json()
            assert deal["par"] == par(expected[deal["pbn"]], bd.board).to_json()
        pbn = (out / "deals" / f"{doc['pageId']}.pbn").read_bytes().decode("utf-8")
        assert pbn.count('[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]') == 4
        first = expected[doc["scenarios"][0]["deals"][0]["pbn"]]
        # The writer deals every game from North with the opener there: rows by role.
        assert f"N NT {first.of(double_dummy.Role.OPENER, 'NT'):>2}\r\n" in pbn
        html = (out / "conventions" / f"{doc['pageId']}.html").read_text(encoding="utf-8")
        assert html.count('<table class="dd"') == 4 and "Par: " in html
        assert "Double dummy: game makes for the opener's side in " in html and " of 2, slam in " in html
    status = json.loads((out / "api/status.json").read_text())
    check_schema("status.json", status)
    assert status["doubleDummy"] == {"analysed": 4, "waiting": 0}
    again = build(state, BuildSettings(out=out, deals=2, lang="en"))
    assert again.changed is False and again.dd_computed == 0
    assert "double dummy: 0 new tables, 0 deals wait" not in again.summary()


def mirror_files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_the_mirror_is_published_before_any_table_is_solved_then_again_with_them(state, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = double_dummy.solve
    during: list[tuple[dict, list[dict], dict[str, bytes]]] = []

    def solve_after_looking(pbns):
        if not during:  # what the mirror shows while DDS works on its first batch
            during.append((json.loads((out / "api/status.json").read_text()), deals_documents(out), mirror_files(out)))
        return real(pbns)

    monkeypatch.setattr(double_dummy, "solve", solve_after_looking)
    report = build(state, BuildSettings(out=out, deals=2))
    [(status, documents, first_files)] = during
    assert status["doubleDummy"] == {"analysed": 0, "waiting": 4}
    assert "api/list.json" in first_files and all(check_schema("deals.json", doc) is None for doc in documents)
    dealt = [d for doc in documents for s in doc["scenarios"] for d in s["deals"]]
    assert len(dealt) == 4 and all("dd" not in d and "par" not in d for d in dealt)
    # The final publish: the same deals with their tables, and one summary of the run.
    final = [d for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"]]
    assert [d["pbn"] for d in final] == [d["pbn"] for d in dealt] and all("dd" in d and "par" in d for d in final)
    assert (report.dd_computed, report.dd_waiting, report.changed) == (4, 0, True)
    assert "\n" not in report.summary() and "double dummy: 4 new tables, 0 deals wait" in report.summary()
    assert report.written == len(mirror_files(out)) - 1  # every file new but the manifest, as in one publish
    # What one publish of the same deals and tables makes, in a folder of its own.
    alone = tmp_path / "alone"
    assert build(state, BuildSettings(out=alone, deals=2)).dd_computed == 0
    assert mirror_files(alone) == mirror_files(out)


def test_deals_past_the_budget_wait_and_later_runs_fill_them_in(state, tmp_path, monkeypatch):
    out = tmp_path / "out"
    first = build(state, BuildSettings(out=out, deals=2, dd_budget=0))
    assert first.dd_waiting == 4 and first.dd_computed == 0
    assert "double dummy: 0 new tables, 4 deals wait" in first.summary()
    assert all("dd" not in d and "par" not in d for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"])
    assert json.loads((out / "api/status.json").read_text())["doubleDummy"] == {"analysed": 0, "waiting": 4}
    before = {p.name: p.read_bytes() for p in (out / "api/deals").glob("*.json")}
    published = {doc["pageId"]: [ScenarioDeals.from_json(s) for s in doc["scenarios"]] for doc in deals_documents(out)}
    # A clock 100 s on at every look, against a budget of 150: the first batch (two deals
    # a core) starts at 100 s, the second would at 200 s.
    ticks = iter(range(0, 10_000, 100))
    monkeypatch.setattr(dd_run.os, "cpu_count", lambda: 1)
    with StateStore(state) as store:
        run = dd_run.analyse(store, published, budget=150, clock=lambda: next(ticks))
    assert (run.computed, run.waiting) == (2, 2)
    second = build(state, BuildSettings(out=out, deals=2))
    assert (second.dd_computed, second.dd_waiting) == (2, 0)
    after = {p.name: p.read_bytes() for p in (out / "api/deals").glob("*.json")}
    assert after.keys() == before.keys() and all(after[k] != before[k] for k in after)


def test_a_deal_dds_fails_on_is_published_without_dd_and_tried_again(state, tmp_path, monkeypatch, caplog):
    out = tmp_path / "out"
    real = double_dummy.solve
    refused: list[str] = []

    def solve_but_one(pbns):
        tables = real(pbns)
        if not refused:
            refused.append(pbns[0])
            tables[0] = None  # as DDS answers for a deal it fails on
        return tables

    monkeypatch.setattr(double_dummy, "solve", solve_but_one)
    with caplog.at_level(logging.WARNING):
        report = build(state, BuildSettings(out=out, deals=2))
    assert (report.dd_computed, report.dd_failed, report.dd_waiting) == (3, 1, 1)
    assert f"DDS failed on the deal {refused[0]}" in caplog.text
    without = [d for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"] if "dd" not in d]
    assert [d["pbn"] for d in without] == refused
    with StateStore(state) as store:
        assert refused[0] not in DDTables(store).find(refused)
    monkeypatch.setattr(double_dummy, "solve", real)
    again = build(state, BuildSettings(out=out, deals=2))
    assert (again.dd_computed, again.dd_failed, again.dd_waiting) == (1, 0, 0)


def test_tables_of_deals_no_longer_published_are_forgotten(state, tmp_path):
    out = tmp_path / "out"
    build(state, BuildSettings(out=out, deals=1))
    with StateStore(state) as store:
        with store.transaction() as db:
            db.execute("INSERT INTO dd_tables VALUES ('N:old', ?)", ("d" * 10 + "0" * 10,))  # a table that can be: it goes only as unpublished
    build(state, BuildSettings(out=out, deals=1))
    with StateStore(state) as store:
        assert DDTables(store).find(["N:old"]) == {}


@pytest.mark.parametrize("value", ["-1", '"ten"', "true", "nan"])
def test_the_budget_key_is_checked(tmp_path, value):
    config = tmp_path / "c.toml"
    config.write_text(f"[build]\ndd_budget = {value}\n", encoding="utf-8")
    assert main(["build", "--config", str(config), "--state", str(tmp_path / "s.sqlite"), "-q"]) == ExitCode.USAGE


@pytest.mark.parametrize("argv", [["--dd-budget", "-1"], ["--dd-budget", "nan"], ["--dd-budget", "5", "--no-dd"]])
def test_the_budget_flags_are_checked(tmp_path, argv):
    with pytest.raises(SystemExit) as exc:
        main(["build", "--state", str(tmp_path / "s.sqlite"), *argv])
    assert exc.value.code == ExitCode.USAGE


def test_no_dd_keeps_the_tables_already_made(state, tmp_path):
    out = tmp_path / "out"
    assert main(["build", "--state", str(state), "--out", str(out), "--deals", "1", "-q"]) == ExitCode.OK
    assert main(["build", "--state", str(state), "--out", str(out), "--deals", "1", "--no-dd", "-q"]) == ExitCode.OK
    assert all("dd" in d for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"])


def test_a_damaged_table_row_is_dropped_and_its_deal_solved_again(state, tmp_path, caplog):
    out = tmp_path / "out"
    assert main(["build", "--state", str(state), "--out", str(out), "--deals", "1", "-q"]) == ExitCode.OK
    first = {d["pbn"]: d["dd"] for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"]}
    damaged = sorted(first)[0]
    with StateStore(state) as store:
        with store.transaction() as db:
            db.execute("UPDATE dd_tables SET tricks = 'abc' WHERE deal = ?", (damaged,))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(["build", "--state", str(state), "--out", str(out), "--deals", "1", "-q"]) == ExitCode.OK
    assert [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()] == [
        f"double dummy: 1 damaged table(s) dropped from the state store {state}; their deals are solved again"
    ]
    again = {d["pbn"]: d["dd"] for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"]}
    assert again == first
    with StateStore(state) as store:
        assert DDTables(store).find([damaged])[damaged].to_json() == first[damaged]


def test_a_table_that_cannot_be_is_neither_published_nor_kept(state, tmp_path, monkeypatch, caplog):
    out = tmp_path / "out"
    real = double_dummy._table_of
    broken: list[double_dummy.DDTable] = []

    def thirteen_for_both_sides_in_one_deal(results):
        # DDS's answer for the first deal, whenever it is asked again, made 13 tricks for all.
        table = real(results)
        broken[:] = broken or [table]
        return double_dummy.DDTable((13,) * 20) if table == broken[0] else table

    monkeypatch.setattr(double_dummy, "_table_of", thirteen_for_both_sides_in_one_deal)
    with caplog.at_level(logging.WARNING):
        report = build(state, BuildSettings(out=out, deals=2))
    assert broken and (report.dd_computed, report.dd_failed, report.dd_waiting) == (3, 1, 1)
    dealt = [d for doc in deals_documents(out) for s in doc["scenarios"] for d in s["deals"]]
    assert all(d["dd"]["opener"]["S"] + d["dd"]["opp1"]["S"] < 26 for d in dealt if "dd" in d)
    [without] = [d["pbn"] for d in dealt if "dd" not in d]
    assert f"DDS failed on the deal {without}" in caplog.text
    with StateStore(state) as store:
        assert without not in DDTables(store).find([without])
