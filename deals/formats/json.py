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
from typing import BinaryIO

from ..outcome import outcome_boards
from .held import HeldDeals


class Writer(HeldDeals):
    def __init__(self, out: BinaryIO, **context: str):
        # `context` (title, tool, seed) is for the formats that print it; JSON has its own fields.
        super().__init__()
        self._out = out

    def end(self) -> None:
        lines: dict[int, list[str]] = {o.index: [] for o in self.outcomes}
        for b in outcome_boards(self.outcomes):
            # Every value is ASCII without quotes or backslashes: no json.dumps per deal.
            lines[b.scenario].append(
                f'{{"pbn": "{b.pbn}", "board": {b.board.number}, "dealer": "{b.board.dealer_letter}", '
                f'"vulnerable": "{b.board.vulnerable}", "board_pbn": "{b.board_pbn}"}}'
            )
        entries = []
        for o in self.outcomes:
            head = f'{{"index": {o.index}, "label": {json.dumps(o.label, ensure_ascii=False)}, "deals": ['
            deals = ("\n" + ",\n".join(lines[o.index]) + "\n") if lines[o.index] else ""
            tail = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in o.summary_json().items())
            entries.append(head + deals + "]" + tail + "}")
        self._out.write(('{"scenarios": [' + "".join("\n" + e + ("," if i < len(entries) - 1 else "") for i, e in enumerate(entries)) + "\n]}\n").encode("utf-8"))
