"""The deal writers' fast paths write the bytes of the plain ones: the JSON of many deals
built as one byte table (`deals.formats.json.deal_lines`) against its per-deal f-strings, and
PBN's and LIN's boards as one byte table against their board-by-board text; and every format's
document of scenarios streamed as they are dealt against the same deals held."""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction

import numpy as np
import pytest

from bridgeshape_mirror.deals.boards.board import BoardDeal, board
from bridgeshape_mirror.deals.formats import FORMATS, open_writer, write_all
from bridgeshape_mirror.deals.formats.json import Writer, deal_lines
from bridgeshape_mirror.deals.formats.lin import Writer as LinWriter
from bridgeshape_mirror.deals.formats.lin import lin_line, lin_lines
from bridgeshape_mirror.deals.formats.pbn import Writer as PbnWriter
from bridgeshape_mirror.deals.formats.stream import ScenarioStream, ShortStream, board_chunks
from bridgeshape_mirror.deals.outcome import PROVED_EMPTY, ScenarioDeals, outcome_boards
from bridgeshape_mirror.deals.boards.pbn import PbnExportWriter, format_many, pbn_rows
from bridgeshape_mirror.deals.probability import Probability


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


def _scenario_streams(batches: list[list[int]], seed: int = 0) -> tuple[list[ScenarioStream], list[ScenarioDeals]]:
    """Streams whose scenario i gives batches of `batches[i]` random deals (none: proved
    empty, for every third scenario), and the same scenarios as held outcomes."""
    p = Probability.of(Fraction(1, 7))
    streams, held = [], []
    for i, sizes in enumerate(batches):
        owners = [_random_owner(n, seed + 100 * i + j) for j, n in enumerate(sizes)]
        empty = not sizes and i % 3 == 2
        outcome = ScenarioDeals(i + 1, f"s«{i}»", (), PROVED_EMPTY if empty else p, unsatisfiable="x" if empty else None)

        def dealt(owners=owners, outcome=outcome):
            yield from owners
            return outcome

        streams.append(ScenarioStream(i + 1, outcome.label, sum(sizes), dealt()))
        held.append(dataclasses.replace(outcome, deals=tuple(d for o in owners for d in format_many(o))))
    return streams, held


#: Scenarios' batches: past a writer's chunk of 10,000, across the 16-board cycle, counts that
#: differ (scenarios dropping out of the turn), batches of one deal, scenarios with none.
STREAMED = [[[3, 2], [], [25_000, 1]], [[1]], [[], []], [[10_001], [4, 4, 4]], [[7, 9], [16], [1, 15], []],
            [[16_384, 3], [5_000, 11_387]], [[5], [], [2, 3]], [[1] * 40, [17, 23], [40]]]  # fmt: skip


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("batches", STREAMED)
def test_streamed_scenarios_write_the_document_of_the_same_deals_held(name, batches):
    """The `deals` command writes its scenarios as they are dealt (`Writer.streamed`); the same
    deals held by the outcomes (a page's) are written at `end`: the same bytes."""
    streams, held = _scenario_streams(batches)
    out = io.BytesIO()
    open_writer(name, out).streamed(streams)
    whole = io.BytesIO()
    write_all(open_writer(name, whole), held)
    assert out.getvalue() == whole.getvalue()
    assert [s.outcome for s in streams] == [dataclasses.replace(o, deals=()) for o in held]


def test_streamed_pbn_games_no_byte_table_may_hold_are_written_one_by_one(monkeypatch):
    """A chunk of boards `PbnExportWriter.takes_rows` refuses is written game by game: the
    same bytes (the deals command's rows and frames are always plain, so it is forced here)."""
    streams, held = _scenario_streams([[10_001, 7], [3], [1, 9_999]])
    whole = io.BytesIO()
    write_all(open_writer("pbn", whole), held)
    monkeypatch.setattr(PbnExportWriter, "takes_rows", staticmethod(lambda frames, rows: len(rows) % 2 == 0))
    out = io.BytesIO()
    open_writer("pbn", out).streamed(streams)
    assert out.getvalue() == whole.getvalue()


def test_boards_in_order_read_each_scenario_a_batch_ahead_at_most():
    """PBN and LIN take the scenarios in turn: a chunk of boards is written once every
    scenario has its next deals, so each scenario's batches are read as the boards need them."""
    read = [0, 0, 0]

    def dealt(i, sizes):
        for n in sizes:
            read[i] += 1
            yield _random_owner(n, 10 * i + read[i])
        return ScenarioDeals(i + 1, "", (), Probability.of(Fraction(1, 2)))

    sizes = [[8] * 50, [20] * 20, [400]]
    streams = [ScenarioStream(i + 1, "", sum(s), dealt(i, s)) for i, s in enumerate(sizes)]
    depth = 0
    for chunk in board_chunks(streams, most=10_000):
        depth += len(chunk.rows) // 3
        # what is read is what the boards written so far took, and a batch more at most
        assert all(r <= -(-depth // size[0]) + 1 for r, size in zip(read, sizes))
    assert depth == 400 and read == [50, 20, 1]


def test_a_scenario_dealing_other_than_the_count_it_promised_is_an_error():
    streams, _ = _scenario_streams([[3, 2]])
    streams[0].count = 6
    with pytest.raises(ShortStream):
        open_writer("json", io.BytesIO()).streamed(streams)
    streams, _ = _scenario_streams([[3, 2], [5]])
    streams[1].count = 4
    with pytest.raises(ShortStream):
        open_writer("lin", io.BytesIO()).streamed(streams)


def _pbn(outcomes: list[ScenarioDeals], **options) -> bytes:
    """A PBN document of `outcomes`."""
    out = io.BytesIO()
    write_all(PbnWriter(out, title="Stayman «è»", tool="bridgeshape-mirror 9.9", seed="seed 3", **options), outcomes)
    return out.getvalue()


@pytest.mark.parametrize("counts", [[1], [3, 0, 5], [12_000, 7], [17, 17, 17, 1], [0]])
def test_pbn_boards_written_as_one_byte_table_are_the_bytes_of_a_game_each(counts):
    """The PBN writer's boards at once (`PbnExportWriter.write_rows`) against its game-by-game
    text (`write_game`, which extra tags, here none, take): every scenario's frame, the
    boards interleaved, the empty line between games, past a chunk of games."""
    outcomes = _outcomes(counts)
    fast = _pbn(outcomes)
    assert fast == _pbn(outcomes, extra_tags=lambda board: ())
    assert fast.count(b'[Deal "') == sum(counts)


def test_pbn_deals_no_byte_row_holds_take_the_game_by_game_path():
    odd = _outcomes([3])[0]
    short = ScenarioDeals(1, "odd", (odd.deals[0], odd.deals[1][:-1] + " ", odd.deals[2]), odd.probability)
    assert _pbn([short]) == _pbn([short], extra_tags=lambda board: ())
    writer = PbnExportWriter(io.StringIO())
    rows = np.frombuffer(odd.deals[0].replace("A", '"', 1).encode(), dtype=np.uint8).reshape(1, -1)
    frames = [writer.frame("e", None, ())]
    assert writer.takes_rows(frames, rows) is False  # the caller writes those games one by one
    assert writer.takes_rows(frames, pbn_rows(odd.deals)) is True
    # A 69-character deal that no game may hold as it is, held by a scenario whose boards
    # come after a chunk of plain ones: the whole document goes game by game, none as rows.
    plain, more = _outcomes([10_005, 10_005])
    quoted = ScenarioDeals(2, "q", more.deals[:-1] + (more.deals[-1].replace("A", '"', 1),), odd.probability)
    assert _pbn([plain, quoted]) == _pbn([plain, quoted], extra_tags=lambda board: ())


def test_lin_lines_as_one_byte_table_are_lin_line_of_each_board():
    # Every dealer and vulnerability of the cycle, numbers of every width, and voids: each
    # hand one whole suit (three dots in a row), which the suit letters must still follow.
    whole_suits = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    pbns = [whole_suits, *_random_deals(60, 5)]
    numbers = np.array([*range(1, 33), 99, 100, 101, 999, 1000, 9999, 10_000, 100_000, *range(200, 221)], dtype=np.int64)
    rows = pbn_rows(pbns)
    expected = "".join(lin_line(BoardDeal(board(int(n)), 1, "", 0, pbn)) + "\n" for n, pbn in zip(numbers, pbns))
    assert lin_lines(numbers, rows).decode("ascii") == expected
    assert _lin(_outcomes([5, 0, 3])) == "".join(
        lin_line(b) + "\n" for b in outcome_boards(_outcomes([5, 0, 3]))
    )


def _lin(outcomes: list[ScenarioDeals]) -> str:
    out = io.BytesIO()
    write_all(LinWriter(out), outcomes)
    return out.getvalue().decode("ascii")
