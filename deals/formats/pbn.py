"""PBN 2.1 export files of deals: boards numbered on across scenarios, each scenario's
number and label in a comment of its games (`deals.pbn` writes the games)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from ..outcome import ScenarioDeals
from ..pbn import PbnExportWriter, format_many

if TYPE_CHECKING:
    from ..boards import Board


def _comment(index: int, label: str) -> str:
    return f"scenario {index}" + (f": {label}" if label else "")


class Writer:
    """`event`: the `[Event]` of every game (the mirror's page title; unknown, `?`, by default);
    `extra_tags`: more lines per game (see `PbnExportWriter`)."""

    def __init__(self, out: BinaryIO, event: str = "?", extra_tags: Callable[[Board, str], Iterable[str]] | None = None):
        self._text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self._pbn = PbnExportWriter(self._text, event=event, extra_tags=extra_tags)

    def begin(self) -> None:
        self._pbn.finish()  # the header, even when no game follows

    def deals(self, index: int, label: str, batch: np.ndarray) -> None:
        self._pbn.write_games(format_many(batch), comment=_comment(index, label))

    def scenario(self, outcome: ScenarioDeals) -> None:
        # A scenario without deals has no game to carry its comment: it leaves no trace.
        self._pbn.write_games(outcome.deals, comment=_comment(outcome.index, outcome.label))

    def end(self) -> None:
        self._text.flush()
        self._text.detach()
