"""What the writers share: they hold a document's deals until `end`, since a board's number
depends on every scenario's deals (`deals.boards.page_boards`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..outcome import ScenarioDeals

if TYPE_CHECKING:
    import numpy as np


class HeldDeals:
    """`begin`, `deals` and `scenario` of the `DealsWriter` protocol; `outcomes` is the whole
    document by `end`, each outcome with its streamed deals and those it held.

    With `rows`, streamed deals are held as PBN byte rows (`deals.pbn.format_rows`), which a
    writer's lines are made of in bulk (`deals.byte_rows`): no Python string per deal
    (100,000 of them cost more than writing them). Then `rows[i]` holds the streamed deals
    of `outcomes[i]`, and the outcome only those it held itself, which come after them;
    without, `rows` stays empty (see `rows_of`)."""

    def __init__(self, rows: bool = False) -> None:
        self._held: dict[int, list[str]] = {}
        self._as_rows = rows
        self._rows: dict[int, list[np.ndarray]] = {}
        self.outcomes: list[ScenarioDeals] = []
        self.rows: list[np.ndarray] = []

    def begin(self) -> None:
        pass

    def deals(self, index: int, label: str, batch: np.ndarray) -> None:
        # numpy's formatting: only once deals are streamed
        if self._as_rows:
            from ..pbn import format_rows

            self._rows.setdefault(index, []).append(format_rows(batch))
        else:
            from ..pbn import format_many

            self._held.setdefault(index, []).extend(format_many(batch))

    def scenario(self, outcome: ScenarioDeals) -> None:
        if self._as_rows:
            import numpy as np

            from ..pbn import no_rows

            rows = self._rows.pop(outcome.index, [])
            self.rows.append(np.concatenate(rows) if rows else no_rows())
            self.outcomes.append(outcome)
            return
        deals = tuple(self._held.pop(outcome.index, ())) + outcome.deals
        o = outcome
        self.outcomes.append(ScenarioDeals(o.index, o.label, deals, o.probability, o.unsatisfiable, o.too_rare))

    def rows_of(self) -> list[np.ndarray | None]:
        """Per outcome, its streamed deals as rows (with `rows`), else None (all in the outcome)."""
        return list(self.rows) if self._as_rows else [None] * len(self.outcomes)

    def boards_as_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Every deal as a board, in board order (`deals.boards.board_numbers`: scenarios in
        turn): each one's outcome (index into `outcomes`), board number and PBN row; None
        when a deal an outcome holds is not one a row holds (`deals.pbn.pbn_rows`)."""
        import numpy as np

        from ..boards import board_numbers
        from ..pbn import no_rows, pbn_rows

        rows = []
        for o, streamed in zip(self.outcomes, self.rows_of()):
            own = pbn_rows(o.deals) if o.deals else no_rows()
            if own is None:
                return None
            rows.append(own if streamed is None else np.concatenate([streamed, own]))
        counts = [len(r) for r in rows]
        numbers = np.array([n for numbers in board_numbers(counts) for n in numbers], dtype=np.int64)
        order = np.argsort(numbers, kind="stable")
        everything = np.concatenate(rows) if rows else no_rows()
        return np.repeat(np.arange(len(rows)), counts)[order], numbers[order], everything[order]

    def with_strings(self) -> list[ScenarioDeals]:
        """The outcomes, each with its streamed deals as strings before its own."""
        from ..pbn import row_strings

        return [
            o if streamed is None else ScenarioDeals(o.index, o.label, tuple(row_strings(streamed)) + o.deals, o.probability, o.unsatisfiable, o.too_rare)
            for o, streamed in zip(self.outcomes, self.rows_of())
        ]
