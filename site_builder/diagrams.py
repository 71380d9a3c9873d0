"""Hand diagrams from PBN deal strings: what the templates draw in compass layout."""

from __future__ import annotations

from dataclasses import dataclass

from dsl.deck import HONOUR_HCP_OF_LETTER, SEAT_LETTERS, SUIT_NAMES
from dsl.model import SUITS

_SYMBOLS = "♠♥♦♣"  # in the order of SUITS
_SUITS = tuple(zip(_SYMBOLS, (SUIT_NAMES[suit] for suit in SUITS)))


@dataclass(frozen=True)
class SuitLine:
    symbol: str
    name: str
    cards: str  # "A K 10 4", or "—" for a void


@dataclass(frozen=True)
class HandView:
    seat: str
    lines: tuple[SuitLine, ...]
    hcp: int


def hands(pbn: str) -> dict[str, HandView]:
    """{"N": HandView, ...} from "N:AKQ.T98.765.432 ..." (any first seat)."""
    first, _, body = pbn.partition(":")
    start = SEAT_LETTERS.index(first.strip().upper())
    out = {}
    for i, hand in enumerate(body.split()):
        seat = SEAT_LETTERS[(start + i) % 4]
        holdings = hand.split(".")
        lines = tuple(
            SuitLine(symbol, name, " ".join("10" if c == "T" else c for c in holding) or "—")
            for (symbol, name), holding in zip(_SUITS, holdings)
        )
        out[seat] = HandView(seat, lines, sum(HONOUR_HCP_OF_LETTER.get(c, 0) for c in hand))
    return out
