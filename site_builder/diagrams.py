"""Hand diagrams from PBN deal strings: what the templates draw in compass layout."""

from __future__ import annotations

from dataclasses import dataclass

SEATS = "NESW"
_HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
_SUITS = (("♠", "spades"), ("♥", "hearts"), ("♦", "diamonds"), ("♣", "clubs"))


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
    start = SEATS.index(first.strip().upper())
    out = {}
    for i, hand in enumerate(body.split()):
        seat = SEATS[(start + i) % 4]
        holdings = hand.split(".")
        lines = tuple(
            SuitLine(symbol, name, " ".join("10" if c == "T" else c for c in holding) or "—")
            for (symbol, name), holding in zip(_SUITS, holdings)
        )
        out[seat] = HandView(seat, lines, sum(_HCP.get(c, 0) for c in hand))
    return out
