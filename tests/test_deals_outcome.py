"""A scenario's outcome: its JSON is the mirror's, byte for byte, and reads back as itself;
every kind says whether its probability is exact; the output formats write the same bytes
whether the deals are streamed or held; workers get scenarios and give outcomes as they are."""

from __future__ import annotations

import io
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.errors import TooRare
from bridgeshape_mirror.deals.formats import FORMATS, open_writer, write_all
from bridgeshape_mirror.deals.formats.stream import open_streams
from bridgeshape_mirror.deals.outcome import PROVED_EMPTY, ScenarioDeals, deal_outcome
from bridgeshape_mirror.deals.boards.pbn import format_many
from bridgeshape_mirror.deals.probability import Probability
from bridgeshape_mirror.deals.drawing.rng import make_rng, page_rng
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.site_builder.page_files import pbn_file
from bridgeshape_mirror.site_builder.sampling import SampleJob, sample_job
from bridgeshape_mirror.store.version import VERSION

SPLINTER = "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15"
UNSATISFIABLE = "bad: opener S:7+; responder S:7+"
ESTIMATED = "opener hcp:0-20 S:0-12; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20"  # past the exact count's budget
DEAL = "N:AJ.QJT943..A6543 4.K62.QT965.KQ87 K8652.A8.AK732.T QT973.75.J84.J92"

# One scenario entry of each kind, as the mirror's api/deals/<pageId>.json has them.
MIRROR_ENTRIES = [
    '{"index": 1, "label": "1♥-4♣", "deals": [{"pbn": "' + DEAL + '"}, {"pbn": "' + DEAL + '"}], '
    '"probability": 0.00037097586561555336, "probability_exact": true, '
    '"probability_fraction": "637812659150163443/1719283431260016820800"}',
    '{"index": 2, "label": "1♣-(1♥)-X", "deals": [{"pbn": "' + DEAL + '"}], "probability": 0.004342339492803248, '
    '"probability_exact": false, "probability_ci95": [0.0041703008546361995, 0.004520607004833622]}',
    '{"index": 3, "label": "", "deals": [], "probability": 0, "probability_exact": true, '
    '"unsatisfiable": "no deal satisfies opener and responder\'s constraints together"}',
    '{"index": 4, "label": "rare", "deals": [], "probability": 0, "probability_exact": false, '
    '"probability_ci95": [0, 3.2e-07], "too_rare": "no deal found in 2000000 exact draws"}',
    '{"index": 5, "label": "none asked", "deals": [], "probability": 1.0, "probability_exact": true, '
    '"probability_fraction": "1/1"}',
]


@pytest.mark.parametrize("text", MIRROR_ENTRIES)
def test_the_mirror_json_reads_back_to_the_same_bytes(text):
    outcome = ScenarioDeals.from_json(json.loads(text))
    assert json.dumps(outcome.to_json(), ensure_ascii=False) == text


def _deals_from_permutations(perms: list[list[int]]) -> tuple[str, ...]:
    if not perms:
        return ()
    owner = np.array([[p.index(card) // 13 for card in range(52)] for p in perms], dtype=np.int8)
    return tuple(format_many(owner))


_deal_lists = st.lists(st.permutations(range(52)), max_size=3).map(_deals_from_permutations)
_unit = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def outcomes(draw) -> ScenarioDeals:
    index, label = draw(st.integers(1, 99)), draw(st.text(max_size=20))
    kind = draw(st.sampled_from(["exact", "estimate", "unsatisfiable", "too_rare"]))
    if kind == "unsatisfiable":
        return ScenarioDeals(index, label, (), PROVED_EMPTY, unsatisfiable=draw(st.text(min_size=1)))
    if kind == "too_rare":
        bound = draw(_unit)
        return ScenarioDeals(index, label, (), Probability(0, None, 0, bound), too_rare=draw(st.text(min_size=1)))
    if kind == "exact":
        probability = Probability.of(draw(st.fractions(min_value=0, max_value=1, max_denominator=10**30)))
    else:
        low, value, high = sorted(draw(st.lists(_unit, min_size=3, max_size=3)))
        probability = Probability(value, None, low, high)
    return ScenarioDeals(index, label, draw(_deal_lists), probability)


@settings(max_examples=200, deadline=None)
@given(outcomes())
def test_an_outcome_survives_its_json_text(outcome):
    doc = outcome.to_json()
    assert ScenarioDeals.from_json(json.loads(json.dumps(doc, ensure_ascii=False))) == outcome
    assert list(doc)[:3] == ["index", "label", "deals"]
    assert isinstance(doc["probability_exact"], bool)


def test_every_kind_of_outcome_says_whether_it_is_exact(monkeypatch):
    for text, exact in ((SPLINTER, True), (UNSATISFIABLE, True), (ESTIMATED, False)):
        doc = deal_outcome(dsl.parse_scenarios(text)[0], 1, 2, make_rng(1)).to_json()
        assert doc["probability_exact"] is exact
    unsatisfiable = deal_outcome(dsl.parse_scenarios(UNSATISFIABLE)[0], 1, 2, make_rng(1))
    assert unsatisfiable.deals == () and unsatisfiable.probability.value == 0 and unsatisfiable.unsatisfiable

    def no_luck(self, count, rng):
        raise TooRare(2_000_000, 3.2e-7)
        yield  # a generator, like the real one

    monkeypatch.setattr(ScenarioSampler, "batches", no_luck)
    rare = deal_outcome(dsl.parse_scenarios(SPLINTER)[0], 1, 2, make_rng(1))
    assert rare.to_json()["probability_exact"] is False
    assert rare.to_json()["probability_ci95"] == [0, 3.2e-7] and "may be unsatisfiable" in rare.too_rare.english()


def test_a_failed_outcome_holds_no_deals():
    with pytest.raises(ValueError):
        ScenarioDeals(1, "", (DEAL,), PROVED_EMPTY, unsatisfiable="why")


def test_the_mirror_worker_takes_the_scenario_and_gives_its_outcome():
    scenario = dsl.parse_scenarios(SPLINTER + " // " + UNSATISFIABLE)[0]
    job = pickle.loads(pickle.dumps(SampleJob(scenario, 15, 123, 1, 4, 0)))
    outcome = pickle.loads(pickle.dumps(sample_job(job)))
    assert outcome == deal_outcome(scenario, 1, 4, page_rng(15, 123, 1))
    assert sample_job(SampleJob(scenario, 15, 123, 1, 4, 9)) == deal_outcome(scenario, 1, 4, make_rng(9, 15, 123, 1))
    assert len(outcome.deals) == 4 and outcome.probability.exact


def _streamed(name: str, text: str, count: int, seed: int) -> bytes:
    """A document of `text`'s scenarios in format `name`, the deals streamed as the command does."""
    out = io.BytesIO()
    scenarios = list(enumerate(dsl.parse_scenarios(text), start=1))
    open_writer(name, out).streamed(open_streams(scenarios, count, [make_rng(seed, i) for i, _ in scenarios]))
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_format_writes_the_same_bytes_streamed_or_held(name):
    text = SPLINTER + " // " + UNSATISFIABLE + " // x: opener H:5+"
    held = [deal_outcome(s, i, 3, make_rng(2, i)) for i, s in enumerate(dsl.parse_scenarios(text), start=1)]
    out = io.BytesIO()
    write_all(open_writer(name, out), held)
    assert out.getvalue() == _streamed(name, text, 3, 2)


def test_the_mirror_pbn_file_is_the_pbn_format_with_the_title_as_event():
    held = [deal_outcome(s, i, 2, make_rng(2, i)) for i, s in enumerate(dsl.parse_scenarios(SPLINTER), start=1)]
    plain = _streamed("pbn", SPLINTER, 2, 2)
    mirror = pbn_file('Page "x"', held, "seed 2")
    assert mirror == plain.replace(b'[Event "', b'[Event "Page \\"x\\" - ').replace(b"(seed 0", b"(seed 2").replace(
        b"[Generator \"?", f"[Generator \"bridgeshape-mirror {VERSION}".encode()
    )
