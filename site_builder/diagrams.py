"""Hand diagrams from PBN deal strings: what the templates draw in compass layout, a page's
deals as boards (number, dealer, vulnerability, each seat's role)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bridgeshape_mirror.deals.boards.board import BoardDeal
from bridgeshape_mirror.dsl.deck import HONOUR_HCP_OF_LETTER, SEAT_LETTERS, SUIT_NAMES
from bridgeshape_mirror.dsl.language import N_
from bridgeshape_mirror.dsl.model import SUITS, Role

_SYMBOLS = "♠♥♦♣"  # in the order of SUITS
#: (symbol, name) of each suit in SUITS order, as the diagrams and the double-dummy tables head them.
SUITS_DRAWN = tuple(zip(_SYMBOLS, (SUIT_NAMES[suit] for suit in SUITS)))
#: Each suit's symbol by its letter (`S`), the letter par contracts name their strain with.
SYMBOL_OF_SUIT_LETTER = {suit.value: symbol for suit, symbol in zip(SUITS, _SYMBOLS)}


class _Contract(Protocol):
    level: int
    strain: str
    doubled: bool
    result: int


def contract_words(contract: _Contract, notrump: str) -> str:
    """A par contract as a hand record prints it: `4♥+1`, `5♦x-2`, and notrump in the page's
    language (`3NT`, Italian `3SA`), as the double-dummy table above it heads its columns; the
    JSON and PBN keep the letters (`4H+1`)."""
    strain = SYMBOL_OF_SUIT_LETTER.get(contract.strain, notrump)
    return f"{contract.level}{strain}{'x' if contract.doubled else ''}{f'{contract.result:+d}' if contract.result else ''}"


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
            for (symbol, name), holding in zip(SUITS_DRAWN, holdings)
        )
        out[seat] = HandView(seat, lines, sum(HONOUR_HCP_OF_LETTER.get(c, 0) for c in hand))
    return out


#: Seat names, by letter, as the diagrams write them.
SEAT_NAMES = {"N": N_("North"), "E": N_("East"), "S": N_("South"), "W": N_("West")}
#: A board's vulnerability (PBN's spelling, `deals.boards.board`) in words.
VULNERABILITY_WORDS = {
    "None": N_("Nobody vulnerable"),
    "NS": N_("North-South vulnerable"),
    "EW": N_("East-West vulnerable"),
    "All": N_("Both vulnerable"),
}


@dataclass(frozen=True)
class BoardView:
    """One board as a convention page draws it: turned to its board (the opener at the
    dealer's seat, as the PBN file has it), each seat's hand and role name."""

    number: int
    dealer: str
    vulnerable: str
    hands: dict[str, HandView]
    roles: dict[str, str]


def board_view(deal: BoardDeal, role_names: dict[Role, str]) -> BoardView:
    b = deal.board
    roles = {SEAT_LETTERS[b.seat_of(role)]: name for role, name in role_names.items()}
    return BoardView(b.number, b.dealer_letter, b.vulnerable, hands(deal.board_pbn), roles)
