"""The `deals` command's JSON: `{"scenarios": [...]}` with one scenario entry (see
`deals.outcome`) a line and one deal a line, UTF-8. Each deal has its board (`deals.boards.board`:
scenarios in turn) as the mirror's deals JSON has it.

    {"scenarios": [
    {"index": 1, "label": "...", "deals": [
    {"pbn": "N:...", "board": 1, "dealer": "N", "vulnerable": "None", "board_pbn": "N:..."},
    ...
    ], "probability": 0.00037, "probability_exact": true, "probability_fraction": "p/q"}
    ]}

Board numbers depend on every scenario's deals: held outcomes are written at `end`, streamed
scenarios (`deals.formats.stream`) once each has its first batch.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO

import numpy as np

from ..boards.board import board_numbers, dealers_and_vulnerabilities
from ..boards.byte_rows import PAD, board_columns, constant, cycle_places, decimal, joined
from ..outcome import ScenarioDeals
from ..boards.pbn import pbn_rows, row_strings
from .held import HeldDeals
from .stream import ScenarioStream, deal_boards


class Writer(HeldDeals):
    """`deal_fields(pbn, board)`, if given, gives more fields for a deal after its own (double
    dummy: `dd` and `par`); `None` or `{}`: none; held or streamed (each batch then sent on,
    flushed, once written)."""

    def __init__(
        self, out: BinaryIO, deal_fields: Callable[[str, int], Mapping[str, Any] | None] | None = None, **context: str
    ):
        # `context` (title, tool, seed) is for the formats that print it; JSON has its own fields.
        super().__init__()
        self._out = out
        self._deal_fields = deal_fields

    def end(self) -> None:
        # Board numbers without BoardDeal objects, and written a scenario at a time: 100,000
        # deals stay within the command's time and memory (benchmarks/deals_vs_dealer.py).
        numbers = board_numbers([len(o.deals) for o in self.outcomes])
        self._out.write(_BEGIN)
        for i, (o, board) in enumerate(zip(self.outcomes, numbers)):
            self._out.write(_head(i, o.index, o.label))
            for start in range(0, len(o.deals), _CHUNK):
                pbns, boards = o.deals[start : start + _CHUNK], board[start : start + _CHUNK]
                classes = o.deal_classes[start : start + _CHUNK]
                fast = deal_lines(pbns, boards, start == 0) if self._deal_fields is None and not classes else None
                self._out.write(fast if fast is not None else self._lines(pbns, boards, start == 0, classes))
            self._out.write(_tail(o, bool(o.deals)))
        self._out.write(_END)

    def streamed(self, streams: Sequence[ScenarioStream]) -> None:
        """The document of `streams`, each scenario's deals a batch at a time as drawn
        (`deals.formats.stream`), then its summary (the probability, which an estimate
        makes from the draws of its deals)."""
        counts = [s.count for s in streams]
        self._out.write(_BEGIN)
        for place, s in enumerate(streams):
            self._out.write(_head(place, s.index, s.label))
            given = 0
            for rows in s.rows():
                numbers = deal_boards(counts, place, given, given + len(rows))
                if self._deal_fields is None:
                    self._out.write(row_lines(rows, numbers, first=given == 0))
                else:
                    self._out.write(self._lines(row_strings(rows), numbers.tolist(), given == 0))
                    self._out.flush()
                given += len(rows)
            self._out.write(_tail(s.outcome, bool(given)))
        self._out.write(_END)

    def _lines(self, pbns: Sequence[str], numbers: Sequence[int], first: bool, classes: Sequence[str] = ()) -> bytes:
        """The deals' lines; `classes`, given, each deal's class in a levelled set, after its
        board's fields and before `deal_fields`'."""
        # Every value is ASCII without quotes or backslashes: no json.dumps per deal.
        more = self._more if self._deal_fields is not None else _nothing_more
        named = [f', "class": {json.dumps(c)}' for c in classes] if classes else itertools.repeat("")
        lines = [
            f'{{"pbn": "{pbn}", "board": {n}, "dealer": "{dealer}", "vulnerable": "{vulnerable}", '
            f'"board_pbn": "{dealer}{pbn[1:]}"{level}{more(pbn, n)}}}'
            for pbn, n, (dealer, vulnerable), level in zip(pbns, numbers, dealers_and_vulnerabilities(numbers), named)
        ]
        return (("\n" if first else ",\n") + ",\n".join(lines)).encode("ascii")

    def _more(self, pbn: str, board: int) -> str:
        assert self._deal_fields is not None
        extra = self._deal_fields(pbn, board)
        return "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in (extra or {}).items())


_BEGIN = b'{"scenarios": ['
_END = b"\n]}\n"


def _head(place: int, index: int, label: str) -> bytes:
    """A scenario entry up to its deals, after the one before (at `place` in the document)."""
    head = f'{{"index": {index}, "label": {json.dumps(label, ensure_ascii=False)}, "deals": ['
    return (("," if place else "") + "\n" + head).encode("utf-8")


def _tail(outcome: ScenarioDeals, any_deal: bool) -> bytes:
    """A scenario entry after its deals: its summary fields."""
    tail = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in outcome.summary_json().items())
    return (("\n" if any_deal else "") + "]" + tail + "}").encode("utf-8")


def _nothing_more(pbn: str, board: int) -> str:
    return ""


#: The text of a deal's line around its four varying fields (the deal, its board number,
#: the board's dealer and vulnerability), each line after the ",\n" that ends the one before.
_PIECES = (',\n{"pbn": "', '", "board": ', ', "dealer": "', '", "vulnerable": "', '", "board_pbn": "', '"}')


def deal_lines(pbns: Sequence[str], numbers: Sequence[int], first: bool) -> bytes | None:
    """The lines of deals `pbns` on boards `numbers`, each after ",\n" (after "\n" alone for a
    scenario's `first` deal), byte for byte as `Writer._lines` writes them, or `None` unless
    every deal is a 69-character ASCII PBN string. Every line is a row of one byte table, its
    fields in fixed columns padded with zero bytes, and one `replace` cuts the padding out: a
    Python string per deal cost more than dealing them, on 100,000 deals."""
    rows = pbn_rows(pbns)
    return None if rows is None else row_lines(rows, numbers, first)


def row_lines(rows: np.ndarray, numbers: Sequence[int], first: bool) -> bytes:
    """`deal_lines` of deals given as `(k, 69)` uint8 PBN rows (`deals.boards.pbn.format_rows`), k >= 1."""
    nums = np.asarray(numbers, dtype=np.int64)
    dealers, vul = board_columns()
    cycle = cycle_places(nums)
    values = (rows, decimal(nums), dealers[cycle], vul[cycle], np.concatenate([dealers[cycle], rows[:, 1:]], axis=1))
    fields = []
    for piece, value in zip(_PIECES, values):
        fields += [constant(piece), value]
    if first:  # the scenario's first deal: after "\n" alone
        head = np.repeat(constant(_PIECES[0]), len(rows), axis=0)
        head[0, 0] = PAD
        fields[0] = head
    return joined(fields + [constant(_PIECES[-1])], len(rows))


_CHUNK = 10_000
