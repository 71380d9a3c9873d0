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
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

from ..boards import board_numbers, dealers_and_vulnerabilities
from .held import HeldDeals


class Writer(HeldDeals):
    """`deal_fields(pbn, board)`, if given, gives more fields for a deal after its own (double
    dummy: `dd` and `par`); `None` or `{}`: none."""

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
        self._out.write(b'{"scenarios": [')
        for i, (o, board) in enumerate(zip(self.outcomes, numbers)):
            head = f'{{"index": {o.index}, "label": {json.dumps(o.label, ensure_ascii=False)}, "deals": ['
            self._out.write((("," if i else "") + "\n" + head).encode("utf-8"))
            for start in range(0, len(o.deals), _CHUNK):
                pbns, numbers = o.deals[start : start + _CHUNK], board[start : start + _CHUNK]
                # Every value is ASCII without quotes or backslashes: no json.dumps per deal.
                more = self._more if self._deal_fields is not None else _nothing_more
                lines = [
                    f'{{"pbn": "{pbn}", "board": {n}, "dealer": "{dealer}", "vulnerable": "{vulnerable}", '
                    f'"board_pbn": "{dealer}{pbn[1:]}"{more(pbn, n)}}}'
                    for pbn, n, (dealer, vulnerable) in zip(pbns, numbers, dealers_and_vulnerabilities(numbers))
                ]
                self._out.write(((",\n" if start else "\n") + ",\n".join(lines)).encode("ascii"))
            tail = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in o.summary_json().items())
            self._out.write((("\n" if o.deals else "") + "]" + tail + "}").encode("utf-8"))
        self._out.write(b"\n]}\n")

    def _more(self, pbn: str, board: int) -> str:
        assert self._deal_fields is not None
        extra = self._deal_fields(pbn, board)
        return "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in (extra or {}).items())


def _nothing_more(pbn: str, board: int) -> str:
    return ""


_CHUNK = 10_000
