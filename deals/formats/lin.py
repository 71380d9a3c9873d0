"""BBO's LIN format: one line per board, as BBO's hand viewer and endplay read it.

    pn|,,,|st||md|3S<cards>H<cards>D<cards>C<cards>,<west>,<north>,<east>|rh||ah|Board 1|sv|o|pg||

`md` starts with the dealer's digit (1 = South, 2 = West, 3 = North, 4 = East) and lists
the hands from South clockwise; `sv` is the vulnerability (`o` none, `n` NS, `e` EW, `b`
both). The boards are those of the PBN file (`deals.boards`), turned so that the opener
deals. LIN has no field for free text that readers ignore, so the scenario is named only
by the board number (the deals JSON maps each board to its scenario).
"""

from __future__ import annotations

from typing import BinaryIO
from urllib.parse import quote

from dsl.deck import SEAT_LETTERS, SUIT_LETTERS

from ..boards import BoardDeal
from ..outcome import outcome_boards
from .held import HeldDeals

#: Seat (0..3 = N E S W) -> LIN's digit; hands are listed from South (seat 2) clockwise.
_SEAT_DIGIT = {0: "3", 1: "4", 2: "1", 3: "2"}
_LIN_ORDER = (2, 3, 0, 1)
_VULNERABLE = {"None": "o", "NS": "n", "EW": "e", "All": "b"}
HANDVIEWER = "https://www.bridgebase.com/tools/handviewer.html?lin="


def lin_line(b: BoardDeal) -> str:
    """Board `b` as one LIN line (no line end)."""
    first, _, body = b.board_pbn.partition(":")
    start = SEAT_LETTERS.index(first)
    hands: dict[int, str] = {}
    for i, hand in enumerate(body.split()):
        hands[(start + i) % 4] = "".join(letter + holding for letter, holding in zip(SUIT_LETTERS, hand.split(".")))
    md = _SEAT_DIGIT[b.board.dealer] + ",".join(hands[seat] for seat in _LIN_ORDER)
    return f"pn|,,,|st||md|{md}|rh||ah|Board {b.board.number}|sv|{_VULNERABLE[b.board.vulnerable]}|pg||"


def handviewer_url(b: BoardDeal) -> str:
    """BBO's hand viewer showing board `b`."""
    return HANDVIEWER + quote(lin_line(b), safe="")


class Writer(HeldDeals):
    def __init__(self, out: BinaryIO, **context: str):
        # `context` (title, tool, seed): LIN has no place that readers would ignore for them.
        super().__init__()
        self._out = out

    def end(self) -> None:
        self._out.write("".join(lin_line(b) + "\n" for b in outcome_boards(self.outcomes)).encode("ascii"))
