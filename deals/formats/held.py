"""What the writers share: they hold a document's deals until `end`, since a board's number
depends on every scenario's deals (`deals.boards.page_boards`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..outcome import ScenarioDeals

if TYPE_CHECKING:
    import numpy as np


class HeldDeals:
    """`begin`, `deals` and `scenario` of the `DealsWriter` protocol; `outcomes` is the whole
    document by `end`, each outcome with its streamed deals and those it held."""

    def __init__(self) -> None:
        self._held: dict[int, list[str]] = {}
        self.outcomes: list[ScenarioDeals] = []

    def begin(self) -> None:
        pass

    def deals(self, index: int, label: str, batch: np.ndarray) -> None:
        from ..pbn import format_many  # numpy: only once deals are streamed

        self._held.setdefault(index, []).extend(format_many(batch))

    def scenario(self, outcome: ScenarioDeals) -> None:
        deals = tuple(self._held.pop(outcome.index, ())) + outcome.deals
        o = outcome
        self.outcomes.append(ScenarioDeals(o.index, o.label, deals, o.probability, o.unsatisfiable, o.too_rare))
