"""What the writers share when the outcomes hold their deals (a page's, or the `deals`
command's with double dummy): they hold the document until `end`, since a board's number
depends on every scenario's deals (`deals.boards.board.page_boards`). The `deals` command's
documents are written as they are dealt instead (`deals.formats.stream`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..outcome import ScenarioDeals

if TYPE_CHECKING:
    import numpy as np

    from ..boards.board import BoardDeal


def class_note(name: str) -> str:
    """A levelled board's class, as its comment says it (PBN's and LIN's)."""
    return f"class {name}"


class HeldDeals:
    """`begin` and `scenario` of the `DealsWriter` protocol; `outcomes` is the whole document
    by `end`."""

    def __init__(self) -> None:
        self.outcomes: list[ScenarioDeals] = []

    def begin(self) -> None:
        pass

    def scenario(self, outcome: ScenarioDeals) -> None:
        self.outcomes.append(outcome)

    @property
    def levelled(self) -> bool:
        """Some outcome is a levelled set (`deals.levels`): its boards name their classes."""
        return any(o.deal_classes for o in self.outcomes)

    def deal_class(self, b: BoardDeal) -> str | None:
        """The class of board `b`'s deal in a levelled set, else None."""
        for o in self.outcomes:
            if o.index == b.scenario:
                return o.deal_classes[b.deal_index] if o.deal_classes else None
        return None

    def boards_as_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Every deal as a board, in board order (`deals.boards.board.board_numbers`: scenarios in
        turn): each one's outcome (index into `outcomes`), board number and PBN row, which a
        writer's lines are made of in bulk (`deals.boards.byte_rows`); None when a deal is not one a
        row holds (`deals.boards.pbn.pbn_rows`)."""
        import numpy as np

        from ..boards.board import board_numbers
        from ..boards.pbn import no_rows, pbn_rows

        rows = []
        for o in self.outcomes:
            own = pbn_rows(o.deals) if o.deals else no_rows()
            if own is None:
                return None
            rows.append(own)
        counts = [len(r) for r in rows]
        numbers = np.array([n for numbers in board_numbers(counts) for n in numbers], dtype=np.int64)
        order = np.argsort(numbers, kind="stable")
        everything = np.concatenate(rows) if rows else no_rows()
        return np.repeat(np.arange(len(rows)), counts)[order], numbers[order], everything[order]
