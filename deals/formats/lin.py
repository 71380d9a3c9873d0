"""BBO's LIN format: one line per board, as BBO's hand viewer and endplay read it.

    pn|,,,|st||md|3S<cards>H<cards>D<cards>C<cards>,<west>,<north>,<east>|rh||ah|Board 1|sv|o|pg||

`md` starts with the dealer's digit (1 = South, 2 = West, 3 = North, 4 = East) and lists
the hands from South clockwise; `sv` is the vulnerability (`o` none, `n` NS, `e` EW, `b`
both). The boards are those of the PBN file (`deals.boards.board`), turned so that the opener
deals. The scenario is named only by the board number (the deals JSON maps each board to its
scenario); a levelled set's board names its class in `st`, the one free text readers skip.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO
from urllib.parse import quote

import numpy as np

from bridgeshape_mirror.dsl.deck import SEAT_LETTERS, SUIT_LETTERS

from ..boards.board import VULNERABILITY_CYCLE, BoardDeal
from ..outcome import outcome_boards
from .held import HeldDeals, class_note
from .stream import ScenarioStream, board_chunks

#: Seat (0..3 = N E S W) -> LIN's digit; hands are listed from South (seat 2) clockwise.
_SEAT_DIGIT = {0: "3", 1: "4", 2: "1", 3: "2"}
_LIN_ORDER = (2, 3, 0, 1)
_VULNERABLE = {"None": "o", "NS": "n", "EW": "e", "All": "b"}
HANDVIEWER = "https://www.bridgebase.com/tools/handviewer.html?lin="


def lin_line(b: BoardDeal, note: str = "") -> str:
    """Board `b` as one LIN line (no line end); `note` in its `st` field, which readers that
    do not show it skip (endplay's among them)."""
    first, _, body = b.board_pbn.partition(":")
    start = SEAT_LETTERS.index(first)
    hands: dict[int, str] = {}
    for i, hand in enumerate(body.split()):
        hands[(start + i) % 4] = "".join(letter + holding for letter, holding in zip(SUIT_LETTERS, hand.split(".")))
    md = _SEAT_DIGIT[b.board.dealer] + ",".join(hands[seat] for seat in _LIN_ORDER)
    text = note.replace("|", "/")
    return f"pn|,,,|st|{text}|md|{md}|rh||ah|Board {b.board.number}|sv|{_VULNERABLE[b.board.vulnerable]}|pg||"


def handviewer_url(b: BoardDeal) -> str:
    """BBO's hand viewer showing board `b`."""
    return HANDVIEWER + quote(lin_line(b), safe="")


def lin_lines(numbers: np.ndarray, rows: np.ndarray) -> bytes:
    """The LIN lines (each ending in a line feed) of boards `numbers` (int64) whose deals, the
    opener North, are `rows` (`(k, 69)` uint8 PBN rows, `deals.boards.pbn.format_rows`): byte for
    byte `lin_line` of each, as one byte table (`deals.boards.byte_rows`; 100,000 boards)."""
    from ..boards.byte_rows import board_dealers, constant, cycle_places, decimal, joined

    k = len(rows)
    # A PBN hand is 16 characters (13 cards, 3 dots) at 2 + 17 * place; its LIN form is the
    # same characters after "S", the dots turned into the next suits' letters.
    hands = rows[:, _HAND_COLUMNS]  # (k, 4, 16)
    dots = hands == ord(".")
    hands[dots] = _SUIT_BYTES[1:][(np.cumsum(dots, axis=2) - 1)[dots]]
    place = cycle_places(numbers)
    dealer = board_dealers().take(place)
    # LIN's hands from South clockwise: the PBN hand at place (seat - dealer) % 4 for each.
    listed = np.take_along_axis(hands, _LIN_PLACES[dealer][:, :, None], axis=1)
    fields = [constant("pn|,,,|st||md|"), _DEALER_DIGIT.take(dealer, axis=0)]
    for i in range(4):
        fields += [constant(("," if i else "") + SUIT_LETTERS[0]), listed[:, i]]
    fields += [constant("|rh||ah|Board "), decimal(numbers), constant("|sv|")]
    fields += [_VULNERABLE_BYTE.take(place, axis=0), constant("|pg||\n")]
    return joined(fields, k)


class Writer(HeldDeals):
    def __init__(self, out: BinaryIO, **context: str):
        # `context` (title, tool, seed): LIN's one free text is a board's, kept for a levelled
        # set's class.
        super().__init__()
        self._out = out

    def end(self) -> None:
        boards = None if self.levelled else self.boards_as_rows()
        if boards is None:
            lines = (lin_line(b, _note(self.deal_class(b))) + "\n" for b in outcome_boards(self.outcomes))
            self._out.write("".join(lines).encode("ascii"))
            return
        _, numbers, rows = boards
        for start in range(0, len(rows), _CHUNK):
            self._out.write(lin_lines(numbers[start : start + _CHUNK], rows[start : start + _CHUNK]))

    def streamed(self, streams: Sequence[ScenarioStream]) -> None:
        """The lines of `streams`' boards, in order as the scenarios are dealt (side by side),
        a chunk of boards at a time."""
        for chunk in board_chunks(streams, _CHUNK):
            self._out.write(lin_lines(chunk.numbers, chunk.rows))


def _note(level: str | None) -> str:
    return "" if level is None else class_note(level)


#: Boards written at a time.
_CHUNK = 10_000
_HAND_COLUMNS = 2 + 17 * np.arange(4)[:, None] + np.arange(16)[None, :]
_SUIT_BYTES = np.frombuffer(SUIT_LETTERS.encode("ascii"), dtype=np.uint8)
_LIN_PLACES = np.array([[(seat - dealer) % 4 for seat in _LIN_ORDER] for dealer in range(4)])
_DEALER_DIGIT = np.array([[ord(_SEAT_DIGIT[dealer])] for dealer in range(4)], dtype=np.uint8)
_VULNERABLE_BYTE = np.array([[ord(_VULNERABLE[v])] for v in VULNERABILITY_CYCLE], dtype=np.uint8)
