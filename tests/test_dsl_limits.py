"""Hostile DSL strings: each limit of dsl/limits.py, reported as one error saying which,
before any parsing work; and one such page in a build is a broken page, nothing more."""

from __future__ import annotations

import json
import time

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.cli import main
from bridgeshape_mirror.dsl import ErrorCode
from bridgeshape_mirror.dsl.limits import LIMITS
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.store.model import WikiPage
from bridgeshape_mirror.store.state import StateStore

HUGE_NUMBER = "9" * 5000  # past CPython's 4,300-digit int() limit


@pytest.mark.parametrize(
    "raw, which",
    [
        ("opener hcp:" + HUGE_NUMBER, "digits"),
        ("opener H:" + HUGE_NUMBER + "-" + HUGE_NUMBER, "digits"),
        ("opener fit:H" + HUGE_NUMBER + "+", "digits"),
        ("opener H:5+ " + "// " * 50_000, "characters"),
        ("//".join(["opener"] * 2000), "scenarios"),
        ("opener H:5+ " + "; responder" * 20, "positions"),
        ("opener " + "H:5+ " * 20_00, "keys"),
    ],
)
def test_a_string_past_a_limit_gets_one_error_naming_it(raw, which):
    started = time.perf_counter()
    result = dsl.parse(raw)
    assert time.perf_counter() - started < 2
    limit_errors = [e for e in result.errors if e.code is ErrorCode.LIMIT_EXCEEDED]
    assert len(limit_errors) == 1
    assert f"{getattr(LIMITS, which):,}" in limit_errors[0].message
    assert len(limit_errors[0].message) < 300


def test_a_string_within_the_limits_is_read_as_before():
    raw = " // ".join(f"S{n}: opener H:5+ hcp:{n % 20}-21; responder S:4+" for n in range(LIMITS.scenarios))
    assert dsl.parse(raw).valid
    assert dsl.parse("opener hcp:000012").valid  # leading zeros, within the digits limit


def test_errors_past_the_cap_are_counted_in_one_last_entry():
    raw = "opener H:5+ " + "zz " * 4912
    errors = dsl.parse(raw).errors
    assert len(errors) == LIMITS.errors + 1
    last = errors[-1]
    assert last.code is ErrorCode.MORE_ERRORS and "4,812 more" in last.message
    assert last.offset == errors[-2].offset + 3


def test_validate_and_deals_say_invalid_not_internal_error(capsys):
    assert main(["validate", "opener hcp:" + HUGE_NUMBER]) == 1
    assert "more than 100 digits" in capsys.readouterr().out
    assert main(["validate", "--json", "opener hcp:" + HUGE_NUMBER]) == 1
    assert json.loads(capsys.readouterr().out)["validate"]["errors"][0]["code"] == "limit-exceeded"
    assert main(["deals", "opener hcp:" + HUGE_NUMBER]) == 1


def test_a_page_past_a_limit_is_broken_in_the_report_and_the_others_publish(tmp_path):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    hostile = {
        1: "opener hcp:" + HUGE_NUMBER,
        2: "//".join(["opener H:5+"] * 2000),
        3: "//" * 50_000,
    }
    with StateStore(state) as store, store.transaction() as db:
        for pid, raw in hostile.items():
            StateStore.upsert(db, WikiPage(pid, f"Hostile {pid}", 0, pid, "2026-11-29T10:00:00Z", raw))
        StateStore.upsert(db, WikiPage(9, "Stayman", 0, 9, "2026-11-29T10:00:00Z", "opener hcp:15-17 shape:balanced"))
    started = time.perf_counter()
    report = build(state, BuildSettings(out=out, deals=2, dd_budget=0))
    assert time.perf_counter() - started < 60
    assert report.statuses["broken"] == 3 and report.statuses["ok"] == 1
    broken = json.loads((out / "report/report.json").read_text())["broken"]
    assert [row["errors"][0]["code"] for row in broken] == ["limit-exceeded"] * 3
    assert json.loads((out / "api/get/title/Stayman.json").read_text())["shapeconstraints"]["scenarios"]


def test_serve_validate_answers_a_hostile_number_with_the_limit_error():
    from urllib.parse import quote_plus

    from bridgeshape_mirror.serving.api_answers import Api

    answer = Api(".", live=True).answer("action=bridgeshape&shapeaction=validate&format=json&dsl=" + quote_plus("opener hcp:" + HUGE_NUMBER))
    assert answer.status == 200
    assert json.loads(answer.body)["validate"]["errors"][0]["code"] == "limit-exceeded"
