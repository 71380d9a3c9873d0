"""The deal writers' fast paths write the bytes of the plain ones: the JSON of many deals
built as one byte table (`deals.formats.json.deal_lines`) against its per-deal f-strings."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import numpy as np
import pytest

from deals.formats import write_all
from deals.formats.json import Writer, deal_lines
from deals.outcome import ScenarioDeals
from deals.pbn import format_many
from deals.probability import Probability


def _random_owner(n: int, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    return np.array([gen.permutation(np.repeat(np.arange(4), 13)) for _ in range(n)], dtype=np.int8).reshape(n, 52)


def _random_deals(n: int, seed: int) -> list[str]:
    return format_many(_random_owner(n, seed))


def _outcomes(counts: list[int], seed: int = 0) -> list[ScenarioDeals]:
    p = Probability.of(Fraction(1, 7))
    return [
        ScenarioDeals(i + 1, f"scenario «{i}»", tuple(_random_deals(c, seed + i)), p) for i, c in enumerate(counts)
    ]


def _document(outcomes: list[ScenarioDeals], **options) -> bytes:
    out = io.BytesIO()
    write_all(Writer(out, **options), outcomes)
    return out.getvalue()


@pytest.mark.parametrize("counts", [[1], [3, 0, 5], [25_000, 7], [17, 17, 17, 1]])
def test_the_json_of_many_deals_is_the_bytes_of_one_line_per_deal(counts):
    outcomes = _outcomes(counts)
    fast = _document(outcomes)
    # `deal_fields` that add nothing take the per-deal f-string path: the same document.
    assert fast == _document(outcomes, deal_fields=lambda pbn, board: None)
    doc = json.loads(fast)
    assert [len(s["deals"]) for s in doc["scenarios"]] == counts


def test_board_numbers_of_every_width_and_the_first_line():
    pbns = _random_deals(40, 9)
    writer = Writer(io.BytesIO())
    for numbers in ([1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10_000, 99_999, 100_000, 123_456] * 3)[:40], list(
        range(1, 41)
    ):
        for first in (True, False):
            assert deal_lines(pbns, numbers, first) == writer._lines(pbns, numbers, first)


def test_deals_that_are_not_full_pbn_strings_take_the_plain_path():
    pbns = _random_deals(3, 1)
    assert deal_lines([pbns[0], pbns[1][:-1], pbns[2] + "2"], [1, 2, 3], True) is None
    assert deal_lines([], [], True) is None


@pytest.mark.parametrize("batches", [[[3, 2], [], [25_000, 1]], [[1]], [[], []], [[10_001], [4, 4, 4]]])
def test_streamed_deals_held_as_rows_write_the_document_of_the_same_deals_held_as_strings(batches):
    """The `deals` command streams its batches (`Writer.deals`), which the JSON writer holds as
    PBN byte rows; the same deals in the outcomes themselves (a page's, read back) are
    strings: the same bytes, with deals of both kinds in one scenario (streamed first)."""
    p = Probability.of(Fraction(1, 7))
    owners = [[_random_owner(n, 100 * i + j) for j, n in enumerate(sizes)] for i, sizes in enumerate(batches)]
    extra = [tuple(_random_deals(i % 2, 50 + i)) for i in range(len(batches))]  # held by the outcome

    def held(**options) -> bytes:
        out = io.BytesIO()
        writer = Writer(out, **options)
        writer.begin()
        for i, (parts, more) in enumerate(zip(owners, extra)):
            for owner in parts:
                writer.deals(i + 1, f"s{i}", owner)
            writer.scenario(ScenarioDeals(i + 1, f"s{i}", more, p))
        writer.end()
        return out.getvalue()

    whole = [
        ScenarioDeals(i + 1, f"s{i}", tuple(d for o in parts for d in format_many(o)) + more, p)
        for i, (parts, more) in enumerate(zip(owners, extra))
    ]
    assert held() == _document(whole) == held(deal_fields=lambda pbn, board: None)
    doc = json.loads(held())
    assert [len(s["deals"]) for s in doc["scenarios"]] == [len(w.deals) for w in whole]
