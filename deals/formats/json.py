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

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..boards import VULNERABILITY_CYCLE, board_numbers, dealer_and_vulnerable, dealers_and_vulnerabilities
from ..pbn import PBN_DEAL_LENGTH
from .held import HeldDeals

if TYPE_CHECKING:
    from ..outcome import ScenarioDeals


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
        # Without `deal_fields` (which read each deal's string), streamed deals are held as
        # PBN byte rows, which the lines are made of: no Python string per deal (100,000 of
        # them cost more than writing them). Per scenario, as `outcomes`; they come first.
        self._rows: dict[int, list[np.ndarray]] = {}
        self._streamed: list[np.ndarray] = []

    def deals(self, index: int, label: str, batch: np.ndarray) -> None:
        if self._deal_fields is not None:
            return super().deals(index, label, batch)
        from ..pbn import format_rows

        self._rows.setdefault(index, []).append(format_rows(batch))

    def scenario(self, outcome: ScenarioDeals) -> None:
        super().scenario(outcome)
        rows = self._rows.pop(outcome.index, [])
        self._streamed.append(np.concatenate(rows) if rows else np.empty((0, PBN_DEAL_LENGTH), dtype=np.uint8))

    def end(self) -> None:
        # Board numbers without BoardDeal objects, and written a scenario at a time: 100,000
        # deals stay within the command's time and memory (benchmarks/deals_vs_dealer.py).
        numbers = board_numbers([len(r) + len(o.deals) for o, r in zip(self.outcomes, self._streamed)])
        self._out.write(b'{"scenarios": [')
        for i, (o, rows, board) in enumerate(zip(self.outcomes, self._streamed, numbers)):
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


#: The bytes of a deal's line around its four varying fields (the deal, its board number,
#: the board's dealer and vulnerability), each line after the ",\n" that ends the one before.
_PIECES = (b',\n{"pbn": "', b'", "board": ', b', "dealer": "', b'", "vulnerable": "', b'", "board_pbn": "', b'"}')
_PAD = 0  # fills fields shorter than their column; no byte of a line is 0, so it is cut out whole


@functools.cache
def _board_columns() -> tuple[np.ndarray, np.ndarray]:
    """Boards 1..16's dealer letter `(16, 1)` and vulnerability `(16, 4)`, padded, as bytes."""
    cycle = [dealer_and_vulnerable(n) for n in range(1, len(VULNERABILITY_CYCLE) + 1)]
    width = max(len(v) for _, v in cycle)
    dealers = np.array([[ord(d)] for d, _ in cycle], dtype=np.uint8)
    vul = np.full((len(cycle), width), _PAD, dtype=np.uint8)
    for i, (_, v) in enumerate(cycle):
        vul[i, : len(v)] = np.frombuffer(v.encode("ascii"), dtype=np.uint8)
    return dealers, vul


def deal_lines(pbns: Sequence[str], numbers: Sequence[int], first: bool) -> bytes | None:
    """The lines of deals `pbns` on boards `numbers`, each after ",\n" (after "\n" alone for a
    scenario's `first` deal), byte for byte as `Writer._lines` writes them, or `None` unless
    every deal is a 69-character ASCII PBN string. Every line is a row of one byte table, its
    fields in fixed columns padded with zero bytes, and one `replace` cuts the padding out: a
    Python string per deal cost more than dealing them, on 100,000 deals."""
    k = len(pbns)
    if k == 0:
        return None
    joined = "".join(pbns)
    if set(map(len, pbns)) != {PBN_DEAL_LENGTH} or not joined.isascii() or "\0" in joined:
        return None
    return row_lines(np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(k, PBN_DEAL_LENGTH), numbers, first)


def row_lines(rows: np.ndarray, numbers: Sequence[int], first: bool) -> bytes:
    """`deal_lines` of deals given as `(k, 69)` uint8 PBN rows (`deals.pbn.format_rows`), k >= 1."""
    k = len(rows)
    nums = np.asarray(numbers, dtype=np.int64)
    places = len(str(int(nums.max())))
    power = 10 ** np.arange(places - 1, -1, -1, dtype=np.int64)
    digits = (nums[:, None] // power[None, :]) % 10 + ord("0")
    digits[nums[:, None] < power[None, :]] = _PAD  # no leading zeros (the last place always stays)
    digits[:, -1] = nums % 10 + ord("0")
    dealers, vul = _board_columns()
    cycle = (nums - 1) % len(VULNERABILITY_CYCLE)
    fields = (rows, digits, dealers[cycle], vul[cycle], np.concatenate([dealers[cycle], rows[:, 1:]], axis=1))
    width = sum(len(p) for p in _PIECES) + sum(f.shape[1] for f in fields)
    out = np.empty((k, width), dtype=np.uint8)
    at = 0
    for piece, field in zip(_PIECES, fields + (None,)):
        out[:, at : at + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
        at += len(piece)
        if field is not None:
            out[:, at : at + field.shape[1]] = field
            at += field.shape[1]
    if first:
        out[0, 0] = _PAD
    return out.tobytes().replace(bytes([_PAD]), b"")


_CHUNK = 10_000
