"""PBN 2.1 export files of deals: the boards of `deals.boards` (scenarios in turn, each deal
turned so that the opener deals), each naming its scenario in `[Event]` and in a comment,
with a `[Generator]` tag saying how to deal it again (`deals.pbn` writes the games).

The boards interleave the scenarios, so the writer holds the deals (69 bytes each) until
`end`. `extra_tags`, given, returns supplementary tags for each board (double-dummy
results, say), written after `[Generator]`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import BinaryIO

from ..boards import BoardDeal
from ..outcome import outcome_boards
from ..pbn import PbnExportWriter, PbnGame, PbnTag
from . import Context, said
from .held import HeldDeals


def event(title: str, index: int, label: str) -> str:
    """`[Event]`: the page title (when there is one) and the scenario's label (or number)."""
    return " - ".join(part for part in (title, label or f"scenario {index}") if part)


def comment(index: int, label: str) -> str:
    return f"scenario {index}" + (f": {label}" if label else "")


def generator(tool: str, seed: str, index: int) -> str:
    """`[Generator]`: the tool and its version, and the seed key of the board's scenario."""
    return f"{tool} ({seed}, scenario {index})"


class Writer(HeldDeals):
    """`title`: the page title in every `[Event]` (none for the `deals` command); `tool`:
    the program's name and version and `seed` the seed key the deals were drawn with, as
    the `[Generator]` tag says them."""

    def __init__(
        self,
        out: BinaryIO,
        title: Context = "",
        tool: Context = "?",
        seed: Context = "seed 0",
        extra_tags: Callable[[BoardDeal], Sequence[PbnTag]] | None = None,
    ):
        # Without `extra_tags` (which read each board), streamed deals are held as rows.
        super().__init__(rows=extra_tags is None)
        self._text = io.TextIOWrapper(out, encoding="ascii", newline="", write_through=True)
        self._title = title
        self._tool = tool
        self._seed = seed
        self._extra_tags = extra_tags

    def end(self) -> None:
        pbn = PbnExportWriter(self._text)
        pbn.finish()  # the header, even when no game follows
        title, tool, seed = said(self._title), said(self._tool), said(self._seed)
        # A scenario's event, comment and [Generator] once, not per board: equal ones let the
        # export writer reuse a game's text around its board and deal.
        said_of = {
            (o.index, o.label): (event(title, o.index, o.label), comment(o.index, o.label), (PbnTag("Generator", generator(tool, seed, o.index)),))
            for o in self.outcomes
        }
        if self._extra_tags is not None or not self._write_rows(pbn, said_of):
            for b in outcome_boards(self.with_strings()):
                name, note, tags = said_of[b.scenario, b.label]
                if self._extra_tags is not None:
                    tags += tuple(self._extra_tags(b))
                pbn.write_game(PbnGame(b.board, b.board_pbn, name, note, tags))
        self._text.flush()
        self._text.detach()

    def _write_rows(self, pbn: PbnExportWriter, said_of: dict[tuple[int, str], tuple[str, str, tuple[PbnTag, ...]]]) -> bool:
        """Every board at once as byte rows (`PbnExportWriter.write_rows`), boards in order;
        False, nothing written, when a deal is not one such a row holds."""
        boards = self.boards_as_rows()
        if boards is None:
            return False
        scenario_of, numbers, rows = boards
        frames = [pbn.frame(*said_of[o.index, o.label]) for o in self.outcomes]
        if not pbn.takes_rows(frames, rows):  # every game asked first: none written otherwise
            return False
        for start in range(0, len(rows), _CHUNK):
            games = slice(start, start + _CHUNK)
            pbn.write_rows(frames, scenario_of[games], numbers[games], rows[games])
        return True


#: Games written at a time (a table of about 300 bytes a game).
_CHUNK = 10_000
