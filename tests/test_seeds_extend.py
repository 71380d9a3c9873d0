"""Seeds that extend (SEMANTICS 3): the first k deals of N are the deals of k, for every
scenario and seed, so a mirror whose `deals` per scenario grows keeps its published deals and
their double-dummy tables and adds new ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.outcome import deal_outcome
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from support.scenario_sets import reference_scenarios, sample_wiki_scenarios
from support.wiki_pages import synced_export

#: Scenarios whose long runs switch to a rarer superset part-way (the draws that once chose
#: their proposer by the count asked), beside the reference and the sample wiki's.
RARE = [
    "opener hcp:20-25 shape:two_suiter; opp1 hcp:6+ x:5+",
    "opener hcp:22+ S:6+; responder hcp:10+ S:4+",
    "fit:H10+ opener hcp:11-15; responder hcp:4-8",
    "opener x:7+ hcp:6-10; responder hcp:15+ x:0 xhcp:0",
]
SCENARIOS = [(t, dsl.parse_scenarios(t)[0]) for t in RARE] + reference_scenarios() + sample_wiki_scenarios()


@pytest.mark.parametrize("name, scenario", SCENARIOS[:12], ids=[n for n, _ in SCENARIOS[:12]])
def test_the_first_deals_of_a_long_run_are_the_deals_of_a_short_one(name, scenario):
    long = deal_outcome(scenario, 1, 20_000, make_rng(4242)).deals
    for k in (1, 5, 300, 5000):
        assert deal_outcome(scenario, 1, k, make_rng(4242)).deals == long[:k], k


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(SCENARIOS), st.integers(0, 2**32), st.integers(1, 400), st.integers(1, 3000))
def test_any_seed_and_counts_extend(case, seed, k, more):
    _, scenario = case
    long = deal_outcome(scenario, 1, k + more, make_rng(seed)).deals
    assert deal_outcome(scenario, 1, k, make_rng(seed)).deals == long[:k]


@pytest.fixture
def state(tmp_path) -> Path:
    return synced_export(tmp_path)


def _scenarios(out: Path) -> list[dict]:
    return [s for p in sorted((out / "api/deals").glob("*.json")) for s in json.loads(p.read_text(encoding="utf-8"))["scenarios"]]


def test_a_mirror_that_deals_more_keeps_its_deals_and_tables_and_adds_new_ones(state, tmp_path):
    out = tmp_path / "out"
    first = build(state, BuildSettings(out=out, deals=2, lang="en"))
    assert first.dd_computed == 4 and first.dd_waiting == 0
    before = _scenarios(out)
    grown = build(state, BuildSettings(out=out, deals=5, lang="en"))
    assert grown.dd_computed == 6, "only the new deals are solved"
    after = _scenarios(out)
    for old, new in zip(before, after, strict=True):
        assert len(new["deals"]) == 5
        kept = [(d["pbn"], d["dd"], d["par"]) for d in old["deals"]]
        assert [(d["pbn"], d["dd"], d["par"]) for d in new["deals"][:2]] == kept


@pytest.mark.parametrize("form", ["json", "pbn", "lin"])
def test_the_first_boards_of_the_deals_command_are_those_of_a_shorter_run(monkeypatch, form):
    """Boards 1..k of `deals --count N` (scenarios in turn) are the boards of `--count k`."""
    from support.cli import run

    text = f"{RARE[0]} // {RARE[2]} // opener hcp:12+ H:5+"
    _, short, _ = run(monkeypatch, text, "--count", "4", "--seed", "77", "--format", form)
    _, long, _ = run(monkeypatch, text, "--count", "3000", "--seed", "77", "--format", form)
    if form == "json":
        def deals(doc: bytes) -> list[list[str]]:
            return [[d["pbn"] for d in s["deals"]] for s in json.loads(doc)["scenarios"]]

        assert [d[:4] for d in deals(long)] == deals(short)
    elif form == "lin":
        assert long.splitlines()[:12] == short.splitlines()
    else:
        def games(doc: bytes) -> list[str]:
            return [g.strip() for g in doc.decode("ascii").split("\r\n\r\n") if g.strip()]

        assert len(games(short)) == 12 and games(long)[:12] == games(short)
