"""Hostile titles: a path that would pass through another title's file, or past the file
system's limits, is served by page id only with a warning in the report; never a failed
publish."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from bridgeshape_mirror.site_builder import layout
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.model import WikiPage
from bridgeshape_mirror.store.state import StateStore

DEEP = "a/" * 2100 + "b"
CLASHING = {
    1: "Stayman",
    2: "Stayman.json/x",
    3: "Stayman.json/x.json/y",
    4: DEEP,
    5: "Lungo " + "x" * 300,
    6: "Jacoby/Transfer",
}


def test_title_files_refuse_the_deeper_of_two_clashing_titles_in_any_order():
    for order in (sorted(CLASHING), sorted(CLASHING, reverse=True)):
        files = layout.title_files({pid: CLASHING[pid] for pid in order})
        assert set(files.paths) == {1, 6}
        assert files.refused[2] == (layout.TitleProblem.CLASH, "Stayman")
        assert files.refused[3][0] is layout.TitleProblem.CLASH
        assert files.refused[4] == (layout.TitleProblem.TOO_LONG, None)
        assert files.refused[5] == (layout.TitleProblem.TOO_LONG, None)
    assert files.paths[6] == PurePosixPath("api/get/title/Jacoby/Transfer.json")


def test_a_build_with_clashing_and_deep_titles_publishes_every_page(tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    with StateStore(state) as store, store.transaction() as db:
        for pid, title in CLASHING.items():
            StateStore.upsert(db, WikiPage(pid, title, 0, pid, "2026-11-29T10:00:00Z", "opener hcp:15-17 shape:balanced"))
    report = build(state, BuildSettings(out=out, deals=1, dd_budget=0))
    assert report.statuses["ok"] == len(CLASHING)
    for pid in CLASHING:
        document = json.loads((out / f"api/get/pageid/{pid}.json").read_text())
        assert document["shapeconstraints"]["title"] == CLASHING[pid]
    assert json.loads((out / "api/get/title/Stayman.json").read_text())["shapeconstraints"]["pageId"] == 1
    assert (out / "api/get/title/Jacoby/Transfer.json").is_file()
    assert not (out / "api/get/title/Stayman.json").is_dir() and not (out / "api/get/title/a").exists()
    warnings = json.loads((out / "report/report.json").read_text())["titlesWithoutFile"]
    assert {row["pageId"]: (row["problem"], row["clashesWith"]) for row in warnings} == {
        2: ("clash", "Stayman"),
        3: ("clash", "Stayman.json/x"),
        4: ("too-long", None),
        5: ("too-long", None),
    }
    assert "Titles served by page id only (4)" in (out / "report/index.html").read_text()
    assert sorted(report.skipped_titles) == sorted(CLASHING[pid] for pid in (2, 3, 4, 5))
