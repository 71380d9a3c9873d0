"""The `deals` command's JSON: `{"scenarios": [...]}` with one scenario entry (see
`deals.outcome`) a line and one deal a line, UTF-8.

    {"scenarios": [
    {"index": 1, "label": "...", "deals": [
    {"pbn": "N:..."},
    ...
    ], "probability": 0.00037, "probability_exact": true, "probability_fraction": "p/q"}
    ]}

Deals are written as numpy byte rows, so 100,000 deals take a fraction of a second.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

import numpy as np

from ..outcome import ScenarioDeals
from ..pbn import PBN_DEAL_LENGTH, format_rows

_OPEN = np.frombuffer(b',\n{"pbn": "', dtype=np.uint8)
_CLOSE = np.frombuffer(b'"}', dtype=np.uint8)


class Writer:
    """`deal_fields(pbn)`, if given, gives more fields for each deal after its `pbn`, in the
    order the deals are written (double dummy: `dd` and `par`); `None` or `{}`: none."""

    def __init__(self, out: BinaryIO, deal_fields: Callable[[str], Mapping[str, Any] | None] | None = None):
        self._out = out
        self._deal_fields = deal_fields
        self._scenarios = 0
        #: The scenario whose entry is open (its deals being written), and whether any are.
        self._open: int | None = None
        self._any_deal = False

    def _write(self, text: str) -> None:
        self._out.write(text.encode("utf-8"))

    def begin(self) -> None:
        self._write('{"scenarios": [')

    def _start(self, index: int, label: str) -> None:
        # Opened on the first deal or at the end, so nothing of a failed scenario is written
        # before the command has said on stderr why it failed.
        if self._open == index:
            return
        self._write(("," if self._scenarios else "") + "\n")
        self._scenarios += 1
        self._write(f'{{"index": {index}, "label": {json.dumps(label, ensure_ascii=False)}, "deals": [')
        self._open, self._any_deal = index, False

    def _rows(self, rows: np.ndarray) -> None:
        n = rows.shape[0]
        if n == 0:
            return
        block = np.concatenate(
            [np.broadcast_to(_OPEN, (n, _OPEN.size)), rows, np.broadcast_to(_CLOSE, (n, _CLOSE.size))], axis=1
        ).tobytes()
        self._out.write(block if self._any_deal else block[1:])
        self._any_deal = True

    def deals(self, index: int, label: str, batch: np.ndarray) -> None:
        self._start(index, label)
        self._rows(format_rows(batch))

    def scenario(self, outcome: ScenarioDeals) -> None:
        self._start(outcome.index, outcome.label)
        if outcome.deals and self._deal_fields is not None:
            self._annotated(outcome.deals)
        elif outcome.deals:
            text = "".join(outcome.deals).encode("ascii")
            self._rows(np.frombuffer(text, dtype=np.uint8).reshape(-1, PBN_DEAL_LENGTH))
        tail = "".join(
            f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in outcome.summary_json().items()
        )
        self._write(("\n" if self._any_deal else "") + "]" + tail + "}")
        self._open = None

    def _annotated(self, deals: tuple[str, ...]) -> None:
        assert self._deal_fields is not None
        lines = [json.dumps({"pbn": pbn, **(self._deal_fields(pbn) or {})}) for pbn in deals]
        self._write(("," if self._any_deal else "") + "\n" + ",\n".join(lines))
        self._any_deal = True

    def end(self) -> None:
        self._write("\n]}\n")
