"""The `deals` command's JSON: `{"scenarios": [...]}` with one scenario entry (see
`deals.outcome`) a line and one deal a line, UTF-8. Each deal has its board (`deals.boards`:
scenarios in turn) as the mirror's deals JSON has it.

    {"scenarios": [
    {"index": 1, "label": "...", "deals": [
    {"pbn": "N:...", "board": 1, "dealer": "N", "vulnerable": "None", "board_pbn": "N:..."},
    ...
    ], "probability": 0.00037, "probability_exact": true, "probability_fraction": "p/q"}
    ]}

Board numbers depend on every scenario's deals, so the writer holds them until `end`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO

import numpy as np

from ..boards import board_numbers, dealers_and_vulnerabilities
from ..byte_rows import PAD, board_columns, constant, cycle_places, decimal, joined
from ..pbn import no_rows, pbn_rows
from .held import HeldDeals


class Writer(HeldDeals):
    """`deal_fields(pbn, board)`, if given, gives more fields for a deal after its own (double
    dummy: `dd` and `par`); `None` or `{}`: none."""

    def __init__(
        self, out: BinaryIO, deal_fields: Callable[[str, int], Mapping[str, Any] | None] | None = None, **context: str
    ):
        # `context` (title, tool, seed) is for the formats that print it; JSON has its own fields.
        # Without `deal_fields` (which read each deal's string), streamed deals are held as rows.
        super().__init__(rows=deal_fields is None)
        self._out = out
        self._deal_fields = deal_fields

    def end(self) -> None:
        # Board numbers without BoardDeal objects, and written a scenario at a time: 100,000
        # deals stay within the command's time and memory (benchmarks/deals_vs_dealer.py).
        streamed = [r if r is not None else no_rows() for r in self.rows_of()]
        numbers = board_numbers([len(r) + len(o.deals) for o, r in zip(self.outcomes, streamed)])
        self._out.write(b'{"scenarios": [')
        for i, (o, rows, board) in enumerate(zip(self.outcomes, streamed, numbers)):
            head = f'{{"index": {o.index}, "label": {json.dumps(o.label, ensure_ascii=False)}, "deals": ['
            self._out.write((("," if i else "") + "\n" + head).encode("utf-8"))
            for start in range(0, len(rows), _CHUNK):
                chunk = rows[start : start + _CHUNK]
                self._out.write(row_lines(chunk, board[start : start + len(chunk)], first=start == 0))
            for start in range(0, len(o.deals), _CHUNK):
                at, first = len(rows) + start, len(rows) + start == 0
                pbns, numbers = o.deals[start : start + _CHUNK], board[at : at + _CHUNK]
                fast = deal_lines(pbns, numbers, first) if self._deal_fields is None else None
                self._out.write(fast if fast is not None else self._lines(pbns, numbers, first))
            tail = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in o.summary_json().items())
            self._out.write((("\n" if len(rows) or o.deals else "") + "]" + tail + "}").encode("utf-8"))
        self._out.write(b"\n]}\n")

    def _lines(self, pbns: Sequence[str], numbers: Sequence[int], first: bool) -> bytes:
        # Every value is ASCII without quotes or backslashes: no json.dumps per deal.
        more = self._more if self._deal_fields is not None else _nothing_more
        lines = [
            f'{{"pbn": "{pbn}", "board": {n}, "dealer": "{dealer}", "vulnerable": "{vulnerable}", '
            f'"board_pbn": "{dealer}{pbn[1:]}"{more(pbn, n)}}}'
            for pbn, n, (dealer, vulnerable) in zip(pbns, numbers, dealers_and_vulnerabilities(numbers))
        ]
        return (("\n" if first else ",\n") + ",\n".join(lines)).encode("ascii")

    def _more(self, pbn: str, board: int) -> str:
        assert self._deal_fields is not None
        extra = self._deal_fields(pbn, board)
        return "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in (extra or {}).items())


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
    """`deal_lines` of deals given as `(k, 69)` uint8 PBN rows (`deals.pbn.format_rows`), k >= 1."""
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
