"""PBN 2.1 export files of deals: the boards of `deals.boards.board` (scenarios in turn, each deal
turned so that the opener deals), each naming its scenario in `[Event]` and in a comment,
with a `[Generator]` tag saying how to deal it again (`deals.boards.pbn` writes the games).

The boards interleave the scenarios: held outcomes are written at `end`; streamed scenarios
(`deals.formats.stream`) a chunk of boards at a time, the scenarios dealt side by side.
`extra_tags`, given, returns supplementary tags for each board (double-dummy
results, say), written after `[Generator]`, held or streamed. A levelled set's board names its
class in its comment and in a `[Level]` tag.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import BinaryIO

from ..boards.board import BoardDeal, board
from ..outcome import outcome_boards
from ..boards.pbn import PbnExportWriter, PbnGame, PbnTag, row_strings
from . import Context, said
from .held import HeldDeals, class_note
from .stream import ScenarioStream, board_chunks


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
        super().__init__()
        self._out = out
        self._text = io.TextIOWrapper(out, encoding="ascii", newline="", write_through=True)
        self._title = title
        self._tool = tool
        self._seed = seed
        self._extra_tags = extra_tags

    def end(self) -> None:
        pbn = PbnExportWriter(self._text)
        pbn.finish()  # the header, even when no game follows
        said_of = self._said_of([(o.index, o.label) for o in self.outcomes])
        if self._extra_tags is not None or self.levelled or not self._write_rows(pbn, said_of):
            for b in outcome_boards(self.outcomes):
                name, note, tags = said_of[b.scenario, b.label]
                level = self.deal_class(b)
                if level is not None:
                    note, tags = f"{note}; {class_note(level)}", (*tags, PbnTag("Level", level))
                if self._extra_tags is not None:
                    tags += tuple(self._extra_tags(b))
                pbn.write_game(PbnGame(b.board, b.board_pbn, name, note, tags))
        self._text.flush()
        self._text.detach()

    def streamed(self, streams: Sequence[ScenarioStream]) -> None:
        """The file of `streams`' boards, written in order as the scenarios are dealt, each
        chunk of boards (the next deals of every scenario, in turn) as one byte table
        (`PbnExportWriter.write_rows`); with `extra_tags`, game by game, each chunk sent on
        (flushed) once written, so a reader has the boards as they come."""
        pbn = PbnExportWriter(self._text)
        pbn.finish()  # the header, even when no game follows
        said_of = self._said_of([(s.index, s.label) for s in streams])
        games = [said_of[s.index, s.label] for s in streams]
        frames = [pbn.frame(*game) for game in games]
        given = [0] * len(streams)
        for chunk in board_chunks(streams, _CHUNK):
            if self._extra_tags is None and pbn.takes_rows(frames, chunk.rows):
                pbn.write_rows(frames, chunk.scenario_of, chunk.numbers, chunk.rows)
                continue
            for place, number, deal in zip(chunk.scenario_of, chunk.numbers, row_strings(chunk.rows)):
                b = board(int(number))
                name, note, tags = games[place]
                if self._extra_tags is not None:
                    s = streams[place]
                    tags += tuple(self._extra_tags(BoardDeal(b, s.index, s.label, given[place], deal)))
                given[place] += 1
                pbn.write_game(PbnGame(b, b.turn(deal), name, note, tags))
            if self._extra_tags is not None:
                self._text.flush()
                self._out.flush()
        self._text.flush()
        self._text.detach()

    def _said_of(self, scenarios: Sequence[tuple[int, str]]) -> dict[tuple[int, str], tuple[str, str, tuple[PbnTag, ...]]]:
        """Each scenario's event, comment and [Generator], once, not per board: equal ones let
        the export writer reuse a game's text around its board and deal."""
        title, tool, seed = said(self._title), said(self._tool), said(self._seed)
        return {
            (index, label): (event(title, index, label), comment(index, label), (PbnTag("Generator", generator(tool, seed, index)),))
            for index, label in scenarios
        }

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
