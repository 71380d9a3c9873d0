"""Streaming writers for the `deals` documents: JSON and PBN, a batch of deals at a time.

JSON (UTF-8):

    {"scenarios": [
    {"index": 1, "label": "...", "probability": 0.00037, "probability_exact": true,
     "probability_fraction": "p/q", "deals": [
    {"pbn": "N:..."},
    ...
    ]}
    ]}

`index` counts from 1, like the scenario numbers of the DSL's error messages. An estimated
probability has `"probability_exact": false` and `"probability_ci95": [low, high]`; an
unsatisfiable scenario has `"probability": 0`, `"unsatisfiable": "<why>"` and no deals; one
that is too rare to deal and not proved empty (see `deals.errors.TooRare`) has `"too_rare"`.
Deals are written as numpy byte rows, so 100,000 deals take a fraction of a second and only
one batch is in memory at a time.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from .pbn import PbnExportWriter, format_rows

_OPEN = np.frombuffer(b',\n{"pbn": "', dtype=np.uint8)
_CLOSE = np.frombuffer(b'"}', dtype=np.uint8)


def probability_fields(probability) -> dict:
    out: dict = {"probability": probability.value, "probability_exact": probability.exact}
    if probability.fraction is not None:
        f = probability.fraction
        out["probability_fraction"] = f"{f.numerator}/{f.denominator}"
    else:
        out["probability_ci95"] = [probability.low, probability.high]
    return out


class JsonDealsWriter:
    def __init__(self, out: BinaryIO):
        self._out = out
        self._scenarios = 0

    def _write(self, text: str) -> None:
        self._out.write(text.encode("utf-8"))

    def begin(self) -> None:
        self._write('{"scenarios": [')

    def scenario(self, index: int, label: str, batches: Iterable[np.ndarray], probability_of) -> None:
        """Write one scenario; `probability_of()` is called after the deals (an estimate may
        use the draws made for them)."""
        batches = iter(batches)
        pending = next(batches, None)  # errors (unsatisfiable, too rare) surface before any output
        self._write(("," if self._scenarios else "") + "\n")
        self._scenarios += 1
        self._write(f'{{"index": {index}, "label": {json.dumps(label, ensure_ascii=False)}, "deals": [')
        first = True
        for owner in itertools.chain([pending] if pending is not None else [], batches):
            rows = format_rows(owner)
            n = rows.shape[0]
            if n == 0:
                continue
            block = np.concatenate(
                [np.broadcast_to(_OPEN, (n, _OPEN.size)), rows, np.broadcast_to(_CLOSE, (n, _CLOSE.size))], axis=1
            ).tobytes()
            self._out.write(block[1:] if first else block)
            first = False
        fields = probability_of()
        tail = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
        self._write(("\n" if not first else "") + "]" + tail + "}")

    def failed(self, index: int, label: str, key: str, reason: str) -> None:
        """A scenario without deals: `key` is "unsatisfiable" (proved) or "too_rare"."""
        self._write(("," if self._scenarios else "") + "\n")
        self._scenarios += 1
        doc: dict = {"index": index, "label": label, "deals": []}
        if key == "unsatisfiable":
            doc["probability"] = 0
        doc[key] = reason
        self._write(json.dumps(doc, ensure_ascii=False))

    def end(self) -> None:
        self._write("\n]}\n")


class PbnDealsWriter:
    """A PBN 2.1 export file: boards numbered on across scenarios, the label in a comment."""

    def __init__(self, out: BinaryIO):
        import io

        self._text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self._pbn = PbnExportWriter(self._text)

    def begin(self) -> None:
        self._pbn.finish()

    def scenario(self, index: int, label: str, batches: Iterable[np.ndarray], probability_of) -> None:
        comment = f"scenario {index}" + (f": {label}" if label else "")
        for owner in batches:
            raw = format_rows(owner).tobytes().decode("ascii")
            deals = [raw[i : i + 69] for i in range(0, len(raw), 69)]
            self._pbn.write_games(deals, comment=comment)
        probability_of()

    def failed(self, index: int, label: str, key: str, reason: str) -> None:
        pass

    def end(self) -> None:
        self._text.flush()
        self._text.detach()
