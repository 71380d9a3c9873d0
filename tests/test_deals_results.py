"""Page-level API used by the mirror: seeded by (pageId, revid, scenario index)."""

from __future__ import annotations

import io
import json

import dsl
from deals.pbn import iter_deal_strings, parse_deal
from deals.predicate import satisfies
from deals.results import sample_page, write_pbn

DSL = (
    "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15"
    " // impossible: opener S:7+; responder S:7+"
    " // base: opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"
)


def test_page_results_are_reproducible_and_change_with_the_revision():
    scenarios = dsl.parse_scenarios(DSL)
    first = sample_page(42, 1000, scenarios, 4)
    again = sample_page(42, 1000, scenarios, 4)
    newer = sample_page(42, 1001, scenarios, 4)
    assert [r.to_json() for r in first] == [r.to_json() for r in again]
    assert first[0].deals != newer[0].deals
    ok, bad, crossed = first
    assert len(ok.deals) == 4 and all(satisfies(parse_deal(d), scenarios[0]) for d in ok.deals)
    assert bad.unsatisfiable and bad.to_json()["probability"] == 0 and bad.deals == ()
    assert crossed.to_json()["probability_exact"] is False
    json.dumps([r.to_json() for r in first])  # serialisable


def test_page_pbn_file():
    results = sample_page(7, 3, dsl.parse_scenarios(DSL), 2)
    out = io.StringIO()
    write_pbn(results, out, event="Splinter")
    text = out.getvalue()
    assert len(list(iter_deal_strings(text))) == 4
    assert '[Event "Splinter"]' in text and "{scenario 3: base}" in text
